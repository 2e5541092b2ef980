"""Records real TensorFlow's static (and runtime) shapes for tests/engine/static_shape_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_static_shapes.py``; writes
tests/engine/static_shapes_golden.json (a dict case -> list of {"static", "runtime"}).
"""
import json
import pathlib

import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load_cases():
    path = ROOT / "tests" / "engine" / "static_shape_cases.py"
    module = load(path)
    return module.CASES


def _static(t):
    return None if t.shape.ndims is None else [d for d in t.shape.as_list()]


def main():
    out = {}
    for name, build in _load_cases().items():
        g = tf.Graph()
        with g.as_default():
            tensors, feed = build(tf)
            with tf.Session() as sess:
                values = sess.run(tensors, feed)
        out[name] = [{"static": _static(t), "runtime": list(v.shape)}
                     for t, v in zip(tensors, values)]
    path = ROOT / "tests" / "engine" / "static_shapes_golden.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path} ({len(out)} cases, TF {tf.__version__})")


if __name__ == "__main__":
    main()

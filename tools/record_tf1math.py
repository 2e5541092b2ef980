"""Records real TensorFlow's values, dtypes and static shapes for
tests/engine/tf1math_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf1math.py``; writes
tests/engine/tf1math_golden.json (case -> {"values", "dtypes", "shapes"}).
"""
import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _cases():
    path = ROOT / "tests/engine/tf1math_cases.py"
    module = load(path)
    return module.CASES


def _plain(v):
    v = np.asarray(v)
    if v.dtype.kind in "SO":
        return [x.decode() if isinstance(x, bytes) else x for x in v.reshape(-1).tolist()]
    if v.dtype.kind == "f":
        return [None if np.isnan(x) else (str(x) if np.isinf(x) else float(x))
                for x in v.reshape(-1).tolist()]
    return v.reshape(-1).tolist()


def main():
    out = {}
    for name, build in _cases().items():
        g = tf.Graph()
        with g.as_default():
            tensors, feed = build(tf)
            shapes = [t.shape.as_list() if t.shape.ndims is not None else None
                      for t in tensors]
            with tf.Session() as sess:
                sess.run([tf.global_variables_initializer(), tf.local_variables_initializer(),
                          tf.tables_initializer()])
                values = sess.run(tensors, feed)
        out[name] = {"values": [_plain(v) for v in values],
                     "value_shapes": [list(np.shape(v)) for v in values],
                     "dtypes": [t.dtype.base_dtype.name for t in tensors], "shapes": shapes}
    path = ROOT / "tests/engine/tf1math_golden.json"
    lines = [f"{json.dumps(k)}: {json.dumps(out[k], sort_keys=True)}" for k in sorted(out)]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")   # one line per case
    print(f"wrote {path} ({len(out)} cases, TF {tf.__version__})")


if __name__ == "__main__":
    main()

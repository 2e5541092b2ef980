"""Records real TensorFlow's op values for tests/engine/op_value_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_op_values.py``; writes
tests/engine/op_values_golden.json (case -> {"values", "dtypes"}).
"""
import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load_cases(path):
    module = load(path)
    return module.CASES


def record(cases="tests/engine/op_value_cases.py", golden="tests/engine/op_values_golden.json"):
    """Runs every ``build(tf)`` of the ``CASES`` in ``cases`` under TF, writes ``golden``."""
    out = {}
    for name, build in _load_cases(ROOT / cases).items():
        g = tf.Graph()
        with g.as_default():
            tensors = build(tf)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                values = sess.run(tensors)
            out[name] = {"values": [np.asarray(v).tolist() for v in values],
                         "dtypes": [t.dtype.name for t in tensors]}
    path = ROOT / golden
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path} ({len(out)} cases, TF {tf.__version__})")


if __name__ == "__main__":
    record()

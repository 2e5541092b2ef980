"""Records real TensorFlow's tf.losses values for tests/losses/loss_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_losses.py``; writes
tests/losses/losses_golden.json (case -> {"values", "dtypes", "n_losses"}).
"""
import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load_cases():
    path = ROOT / "tests" / "losses" / "loss_cases.py"
    module = load(path)
    return module.CASES


def main():
    out = {}
    for name, build in _load_cases().items():
        g = tf.Graph()
        with g.as_default():
            tensors = build(tf)
            with tf.Session() as sess:
                values = sess.run(tensors)
            out[name] = {"values": [np.asarray(v).tolist() for v in values],
                         "dtypes": [t.dtype.name for t in tensors],
                         "n_losses": len(tf.get_collection(tf.GraphKeys.LOSSES))}
    path = ROOT / "tests" / "losses" / "losses_golden.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path} ({len(out)} cases, TF {tf.__version__})")


if __name__ == "__main__":
    main()

"""Records real TensorFlow's updates of a variable listed twice in ``var_list`` /
``grads_and_vars`` for tests/train/test_duplicate_vars.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_duplicate_vars.py``; writes
tests/train/duplicate_vars_tf215.json.
"""
import json
import pathlib

import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    module = load("tests/train/duplicate_var_cases.py")
    out = {name: module.run(tf, build) for name, build in module.CASES.items()}
    dest = ROOT / "tests" / "train" / "duplicate_vars_tf215.json"
    dest.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {dest} ({len(out)} cases, TF {tf.__version__})")


if __name__ == "__main__":
    main()

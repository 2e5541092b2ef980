"""Records tf_slim's ``separable_conv2d`` (variables and outputs) for
tests/contrib/test_slim_separable.py.

Run with TF and tf_slim: ``/tmp/tf215/bin/python tools/record_tf_slim_separable.py``;
writes tests/contrib/slim_separable_tf215.json.
"""
import json
import pathlib

import tensorflow.compat.v1 as tf
import tf_slim as slim

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    module = load("tests/contrib/slim_separable_cases.py")
    out = {name: module.run(tf, slim, spec) for name, spec in module.CASES.items()}
    dest = ROOT / "tests" / "contrib" / "slim_separable_tf215.json"
    dest.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {dest} ({len(out)} cases, TF {tf.__version__})")


if __name__ == "__main__":
    main()

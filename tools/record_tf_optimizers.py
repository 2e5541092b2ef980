"""Records real TensorFlow's optimizer, EMA and schedule values for
tests/train/optimizer_extra_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_optimizers.py``; writes
tests/train/optimizers_extra_golden.json.
"""
import json
import pathlib

import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    path = ROOT / "tests" / "train" / "optimizer_extra_cases.py"
    module = load(path)
    out = {name: module.run(tf, build) for name, build in module.CASES.items()}
    dest = ROOT / "tests" / "train" / "optimizers_extra_golden.json"
    dest.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {dest} ({len(out)} cases, TF {tf.__version__})")


if __name__ == "__main__":
    main()

"""Records what real TensorFlow prints and raises for tests/checks/checks_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_checks.py``; writes
tests/checks/checks_golden.json (case -> text).
"""
import json
import os
import pathlib

from _cases import load

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.get_logger().setLevel("ERROR")
    cases = load(ROOT / "tests/checks/checks_cases.py")
    out = {name: fn(tf) for name, fn in sorted(cases.CASES.items())}
    path = ROOT / "tests/checks/checks_golden.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    main()

"""Records real TensorFlow's sampled losses, their gradients and the deterministic parts of
the candidate samplers for tests/sampling/sampled_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_sampled.py``; writes
tests/sampling/sampled_golden.json (case -> {"values", "dtypes"}).
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from record_tf_op_values import record  # noqa: E402

if __name__ == "__main__":
    record("tests/sampling/sampled_cases.py", "tests/sampling/sampled_golden.json")

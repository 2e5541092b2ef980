"""Records real TensorFlow's values for tests/linalg/linalg_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_linalg.py``; writes
tests/linalg/linalg_golden.json (case -> {"values", "dtypes"}).
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from record_tf_op_values import record  # noqa: E402

if __name__ == "__main__":
    record("tests/linalg/linalg_cases.py", "tests/linalg/linalg_golden.json")

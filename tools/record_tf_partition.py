"""Records real TensorFlow's values for tests/partition/partition_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_partition.py``; writes
tests/partition/partition_golden.json (case -> {"values", "dtypes"}).
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from record_tf_op_values import record  # noqa: E402

if __name__ == "__main__":
    record("tests/partition/partition_cases.py", "tests/partition/partition_golden.json")

"""Records the Python types real TF returns from ``Session.run`` (numpy scalars for 0-d
results, arrays otherwise, the fed value for a fetched feed) across dtypes and ops.

Run with a Python that has TensorFlow 2.x (``tf.compat.v1`` graph mode)::

    /tmp/tf215/bin/python tools/record_fetch_type_goldens.py

It writes ``tests/engine/golden/fetch_types_tf215.json``; the graphs are defined once, in
``tests/engine/fetch_type_cases.py``, and built by both frameworks.
"""
import json
import pathlib

from _cases import load

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "engine" / "golden" / "fetch_types_tf215.json"


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    cases = load("tests/engine/fetch_type_cases.py")
    record = {"tensorflow": tf.__version__, "cases": cases.run_all(tf)}
    OUT.write_text(json.dumps(record, sort_keys=True, indent=0) + "\n")
    print(f"wrote {OUT} ({len(record['cases'])} cases)")


if __name__ == "__main__":
    main()

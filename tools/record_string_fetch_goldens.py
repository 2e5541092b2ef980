"""Records how real TF returns string values (fetches, feeds, py_func arguments).

Run with a Python that has TensorFlow 2.x (``tf.compat.v1`` graph mode)::

    /tmp/tf215/bin/python tools/record_string_fetch_goldens.py

It writes ``tests/engine/golden/string_fetches_tf215.json``; the graphs are defined once,
in ``tests/engine/string_fetch_cases.py``, and built by both frameworks.
"""
import json
import pathlib

from _cases import load

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "engine" / "golden" / "string_fetches_tf215.json"


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    cases = load(ROOT / "tests" / "engine" / "string_fetch_cases.py")
    record = {"tensorflow": tf.__version__, "cases": cases.run_all(tf)}
    OUT.write_text(json.dumps(record, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(record['cases'])} cases)")


if __name__ == "__main__":
    main()

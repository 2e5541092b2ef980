"""Records how real TF returns string values (fetches, feeds, py_func arguments).

Run with a Python that has TensorFlow 2.x (``tf.compat.v1`` graph mode)::

    /tmp/tf215/bin/python tools/record_string_fetch_goldens.py

It writes ``tests/engine/golden/string_fetches_tf215.json``; the graphs are defined once,
in ``tests/engine/string_fetch_cases.py``, and built by both frameworks.
"""
import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "engine" / "golden" / "string_fetches_tf215.json"


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    spec = importlib.util.spec_from_file_location(
        "string_fetch_cases", ROOT / "tests" / "engine" / "string_fetch_cases.py")
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    record = {"tensorflow": tf.__version__, "cases": cases.run_all(tf)}
    OUT.write_text(json.dumps(record, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(record['cases'])} cases)")


if __name__ == "__main__":
    main()

"""Records what real TF does to hooks and model_dir when a ``MonitoredSession`` or
``Estimator.train`` ends with an exception (``end()`` is skipped, so is the final
checkpoint) and when it ends normally.

Run with a Python that has TensorFlow 2.x (``tf.compat.v1`` graph mode)::

    /tmp/tf215/bin/python tools/record_hook_error_goldens.py

It writes ``tests/hooks/golden/hook_errors_tf215.json``; the scenarios are defined once,
in ``tests/hooks/hook_error_cases.py``, and run by both frameworks.
"""
import json
import pathlib
import tempfile

from _cases import load

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "hooks" / "golden" / "hook_errors_tf215.json"


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    cases = load("tests/hooks/hook_error_cases.py")
    with tempfile.TemporaryDirectory() as tmp:
        record = {"tensorflow": tf.__version__, "cases": cases.run_all(tf, tmp)}
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(record, sort_keys=True, indent=1) + "\n")
    print(f"wrote {OUT} ({len(record['cases'])} scenarios)")


if __name__ == "__main__":
    main()

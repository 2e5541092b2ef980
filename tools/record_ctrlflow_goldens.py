"""Records real TF's values for the control-flow / RNN golden cases.

Run with a Python that has TensorFlow 2.x (``tf.compat.v1`` graph mode)::

    /tmp/tf215/bin/python tools/record_ctrlflow_goldens.py

It writes ``tests/engine/golden/ctrlflow_tf215.json``: per case the forward outputs,
the gradients (by input or variable name) and the variable names; plus the losses and
final weights of 10 Adam steps of an LSTM classifier. The graphs are defined once, in
``tests/engine/ctrlflow_cases.py``, and built by both frameworks.
"""
import json
import pathlib

from _cases import load

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "engine" / "golden" / "ctrlflow_tf215.json"


def _cases():
    module = load(ROOT / "tests" / "engine" / "ctrlflow_cases.py")
    return module


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    cases = _cases()
    record = {"tensorflow": tf.__version__ if hasattr(tf, "__version__") else "2.x",
              "cases": {name: cases.run_case(tf, name) for name in sorted(cases.CASES)},
              "lstm_classifier_adam": cases.lstm_classifier_adam(tf)}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(record, indent=None, separators=(",", ":")))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(record['cases'])} cases)")


if __name__ == "__main__":
    main()

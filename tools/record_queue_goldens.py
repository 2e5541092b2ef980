"""Records real TF's results for the queue-input golden cases.

Run with a Python that has TensorFlow 2.x (``tf.compat.v1`` graph mode)::

    /tmp/tf215/bin/python tools/record_queue_goldens.py

It writes ``tests/queues/golden/queues_tf215.json``: per case the op/tensor names, static
shapes, the values run until ``OutOfRangeError`` and the errors. The pipelines are defined
once, in ``tests/queues/queue_cases.py``, and built by both frameworks.
"""
import json
import pathlib
import tempfile

from _cases import load

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "queues" / "golden" / "queues_tf215.json"


def _cases():
    module = load(ROOT / "tests" / "queues" / "queue_cases.py")
    return module


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    cases = _cases()
    with tempfile.TemporaryDirectory() as workdir:
        record = {"tensorflow": tf.__version__ if hasattr(tf, "__version__") else "2.x",
                  "cases": {name: cases.run_case(tf, name, workdir)
                            for name in sorted(cases.CASES)}}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(record['cases'])} cases)")


if __name__ == "__main__":
    main()

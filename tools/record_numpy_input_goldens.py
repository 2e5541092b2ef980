"""Records ``tf.estimator.inputs.numpy_input_fn`` in real TF: the static shapes and dtypes
an Estimator's ``model_fn`` gets, the rows of each batch without shuffling, which rows
come out with shuffling, and whether a shuffled order repeats under the same graph seed.

Run with a Python that has TensorFlow 2.x (``tf.compat.v1`` graph mode)::

    /tmp/tf215/bin/python tools/record_numpy_input_goldens.py

It writes ``tests/estimator/golden/numpy_input_tf215.json``; the configurations are
defined once, in ``tests/estimator/numpy_input_cases.py``, and run by both frameworks.
"""
import json
import pathlib
import tempfile

from _cases import load

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "estimator" / "golden" / "numpy_input_tf215.json"


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    cases = load("tests/estimator/numpy_input_cases.py")
    with tempfile.TemporaryDirectory() as tmp:
        record = {"tensorflow": tf.__version__, "cases": cases.run_all(tf, tmp)}
    orders = {}
    for seed, num_epochs, capacity in [(1, 1, 1000), (1, None, 16), (2, 2, 8), (3, 1, 4)]:
        key = f"seed{seed}_epochs{num_epochs}_capacity{capacity}"
        orders[key] = [cases.shuffle_orders(tf, seed, num_epochs, capacity)
                       for _ in range(3)]
    record["shuffle_orders"] = orders
    record["shuffle_order_repeats"] = all(runs[0] == runs[1] == runs[2]
                                          for runs in orders.values())
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(record, sort_keys=True, indent=1) + "\n")
    print(f"wrote {OUT} ({len(record['cases'])} configs; shuffled order repeats: "
          f"{record['shuffle_order_repeats']})")


if __name__ == "__main__":
    main()

"""Records an Estimator and the strategy API under ``tf.distribute`` strategies on real
TF (a host without GPUs: one replica on the CPU).

    /tmp/tf215/bin/python tools/record_tf_strategy.py

writes ``tests/distribute/golden/strategy_tf215.json`` (the run is defined in
``tests/distribute/strategy_scenario.py``).
"""
import json
import pathlib
import tempfile

from _cases import load

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "distribute" / "golden" / "strategy_tf215.json"


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.INFO)
    case = load(ROOT / "tests" / "distribute" / "strategy_scenario.py")
    with tempfile.TemporaryDirectory() as d:
        result = case.run(tf, d + "/model")
    result["tensorflow"] = tf.__version__
    OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

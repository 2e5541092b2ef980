"""Records what a TPUEstimator run with ``use_tpu=False`` shows a script under real TF:
params handed to input_fn/model_fn, model_dir files, evaluate/predict results, errors.

    /tmp/tf215/bin/python tools/record_tpu_estimator.py

writes ``tests/estimator/golden/tpu_estimator_tf215.json`` (the run is defined in
``tests/estimator/tpu_scenario.py``).
"""
import json
import pathlib
import tempfile

from _cases import load

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "estimator" / "golden" / "tpu_estimator_tf215.json"


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    case = load(ROOT / "tests" / "estimator" / "tpu_scenario.py")
    with tempfile.TemporaryDirectory() as d:
        result = case.run(tf, d + "/model")
    result["tensorflow"] = tf.__version__
    OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

"""Records real TensorFlow's tf.metrics values for tests/estimator/metric_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_metrics.py``; writes
tests/estimator/metrics_golden.json.
"""
import json
import pathlib

import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    path = ROOT / "tests" / "estimator" / "metric_cases.py"
    module = load(path)
    out = {name: module.run(tf, build) for name, build in module.CASES.items()}
    dest = ROOT / "tests" / "estimator" / "metrics_golden.json"
    dest.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {dest} ({len(out)} cases, TF {tf.__version__})")


if __name__ == "__main__":
    main()

"""Records real TensorFlow's graph-level k-means (tensorflow.python.ops.clustering_ops.KMeans,
TF 1.x's tf.contrib.factorization.KMeans) and its Estimator
(tf.compat.v1.estimator.experimental.KMeans, TF 1.x's KMeansClustering) for
tests/clustering/kmeans_cases.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_kmeans.py``; writes
tests/clustering/kmeans_golden.json (case -> values) and kmeans_estimator_golden.json.
"""
import json
import pathlib
import tempfile

import tensorflow.compat.v1 as tf
from tensorflow.python.ops.clustering_ops import KMeans

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    path = ROOT / "tests" / "clustering" / "kmeans_cases.py"
    cases = load(path)
    out = {name: cases.run(tf, KMeans, name) for name in cases.CASES}
    golden = ROOT / "tests" / "clustering" / "kmeans_golden.json"
    golden.write_text(json.dumps(out, sort_keys=True) + "\n")
    print(f"wrote {golden} ({len(out)} cases, TF {tf.__version__})")
    est = {}
    for name, kw in cases.ESTIMATOR_CASES.items():
        with tempfile.TemporaryDirectory() as d:
            est[name] = cases.run_estimator(tf, tf.estimator.experimental.KMeans, d, **kw)
    golden = ROOT / "tests" / "clustering" / "kmeans_estimator_golden.json"
    golden.write_text(json.dumps(est, sort_keys=True) + "\n")
    print(f"wrote {golden} ({len(est)} cases)")


if __name__ == "__main__":
    main()

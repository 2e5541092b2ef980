"""The premade examples reach their stated accuracies (iris >= 0.93, wide-and-deep)."""
import json
import pathlib

import numpy as np

from estimator_npu.datasets import iris
from model_zoo import census_wide_deep, iris_dnn


def test_iris_bundle_and_split():
    x, y = iris.load_arrays()
    assert x.shape == (150, 4) and np.bincount(y).tolist() == [50, 50, 50]
    (tx, ty), (vx, vy) = iris.load()
    assert len(ty) == 120 and np.bincount(vy).tolist() == [10, 10, 10]
    assert sorted(tx) == sorted(iris.FEATURES)


def test_iris_dnn_reaches_stated_accuracy(tmp_path):
    result = iris_dnn.run(model_dir=str(tmp_path))
    assert result["accuracy"] >= iris_dnn.STATED_ACCURACY >= 0.93
    golden = pathlib.Path(__file__).parents[1] / "feature_column" / "golden_tf215.json"
    tf_accs = json.loads(golden.read_text())["iris_accuracy_seeds_0_1_2"]  # real TF, same setup
    assert abs(result["accuracy"] - np.mean(tf_accs)) <= 0.02
    assert result["global_step"] == 1000


def test_wide_deep_reaches_stated_accuracy(tmp_path):
    result = census_wide_deep.run(model_dir=str(tmp_path))
    assert result["accuracy"] >= census_wide_deep.STATED_ACCURACY
    assert result["accuracy"] <= result["bayes_accuracy"] + 0.03

"""Premade estimators: variable names, metric keys and prediction keys as TF 2.15's."""
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

fc = tf.feature_column
GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden_tf215.json").read_text())
F = GOLDEN["features"]


def _input_fn(n_classes, regression=False, vocab=False):
    def fn():
        x = {"age": tf.constant(np.array(F["age"], np.float32)),
             "color": tf.constant(np.array(F["color"])),
             "wt": tf.constant(np.array(F["wt"], np.float32))}
        if regression:
            y = tf.constant(np.array([[1.0], [2.0], [0.5], [3.0]], np.float32))
        elif vocab:
            y = tf.constant(np.array([["no"], ["yes"], ["no"], ["yes"]]))
        else:
            y = tf.constant(np.array([[0], [1], [n_classes - 1], [1]], np.int64))
        return x, y
    return fn


def _specs():
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    age = fc.numeric_column("age")
    deep = [age, fc.embedding_column(color, 2)]
    wide = [age, color]
    E = tf.estimator
    return {
        "LinearClassifier": (lambda d: E.LinearClassifier(wide, model_dir=d), 2, False),
        "LinearClassifier3": (lambda d: E.LinearClassifier(wide, n_classes=3, model_dir=d),
                              3, False),
        "LinearRegressor": (lambda d: E.LinearRegressor(wide, model_dir=d), 0, True),
        "DNNClassifier": (lambda d: E.DNNClassifier([4, 3], deep, model_dir=d), 2, False),
        "DNNClassifier3": (lambda d: E.DNNClassifier([4], deep, n_classes=3, model_dir=d), 3,
                           False),
        "DNNRegressor": (lambda d: E.DNNRegressor([4], deep, model_dir=d), 0, True),
        "DNNLinearCombinedClassifier": (lambda d: E.DNNLinearCombinedClassifier(
            linear_feature_columns=wide, dnn_feature_columns=deep, dnn_hidden_units=[4],
            model_dir=d), 2, False),
        "DNNLinearCombinedRegressor": (lambda d: E.DNNLinearCombinedRegressor(
            linear_feature_columns=wide, dnn_feature_columns=deep, dnn_hidden_units=[4],
            model_dir=d), 0, True),
        "BaselineClassifier": (lambda d: E.BaselineClassifier(model_dir=d), 2, False),
        "BaselineClassifier3": (lambda d: E.BaselineClassifier(n_classes=3, model_dir=d), 3,
                                False),
        "BaselineRegressor": (lambda d: E.BaselineRegressor(model_dir=d), 0, True),
        "LinearClassifierVocab": (lambda d: E.LinearClassifier(
            wide, label_vocabulary=["no", "yes"], model_dir=d), 2, "vocab"),
        "LinearClassifierWeightedMean": (lambda d: E.LinearClassifier(
            wide, weight_column="wt", loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
            optimizer="SGD", model_dir=d), 2, False),
        "DNNClassifierBatchNorm": (lambda d: E.DNNClassifier(
            [4], deep, dropout=0.2, batch_norm=True, optimizer="Adam", model_dir=d), 2, False),
        "DNNClassifierWeighted": (lambda d: E.DNNClassifier(
            [4], deep, weight_column="wt", model_dir=d), 2, False),
    }


@pytest.mark.parametrize("name", sorted(GOLDEN["estimators"]))
def test_premade_names_and_keys_match_tf(name, tmp_path):
    make, n, reg = _specs()[name]
    est = make(str(tmp_path))
    fn = _input_fn(max(n, 2), regression=reg is True, vocab=reg == "vocab")
    est.train(fn, steps=2)
    metrics = est.evaluate(fn, steps=1)
    pred = next(iter(est.predict(fn)))
    want = GOLDEN["estimators"][name]
    assert sorted(est.get_variable_names()) == want["variables"]
    assert sorted(metrics) == want["metrics"]
    assert sorted(pred) == want["predictions"]
    assert metrics["global_step"] == 2
    if "metric_values" in want:  # zero-initialised models train deterministically
        for key, value in want["metric_values"].items():
            np.testing.assert_allclose(metrics[key], value, rtol=2e-5, atol=1e-6, err_msg=key)
        for key, value in want["first_prediction"].items():
            got = np.asarray(pred[key])
            if got.dtype.kind == "O":
                assert [x.decode() for x in got.ravel()] == value, key
            else:
                np.testing.assert_allclose(got, value, rtol=2e-5, atol=1e-6, err_msg=key)
    if "probabilities" in pred:
        np.testing.assert_allclose(np.sum(pred["probabilities"]), 1.0, rtol=1e-5)
        if reg == "vocab":
            assert pred["classes"][0] in (b"no", b"yes")


def test_n_classes_below_two_raises():
    with pytest.raises(ValueError, match="n_classes"):
        tf.estimator.DNNClassifier([2], [fc.numeric_column("x")], n_classes=1)
    with pytest.raises(ValueError, match="n_classes"):
        tf.estimator.LinearClassifier([fc.numeric_column("x")], n_classes=0)


def test_pandas_input_fn(tmp_path):
    pd = pytest.importorskip("pandas", reason="pandas is an optional extra, not installed")
    x = pd.DataFrame({"age": [1.0, 2.0, 3.0, 4.0]})
    y = pd.Series([0, 1, 0, 1])
    fn = tf.estimator.inputs.pandas_input_fn(x, y, batch_size=2, shuffle=False)
    est = tf.estimator.LinearClassifier([fc.numeric_column("age")], model_dir=str(tmp_path))
    est.train(fn)
    assert est.evaluate(fn)["global_step"] == 2


def test_missing_feature_in_estimator_names_the_column(tmp_path):
    est = tf.estimator.LinearRegressor([fc.numeric_column("height")],
                                       model_dir=str(tmp_path))
    fn = tf.estimator.inputs.numpy_input_fn({"age": np.ones(4, np.float32)},
                                            np.ones(4, np.float32), shuffle=False)
    with pytest.raises(ValueError, match="'height'"):
        est.train(fn, steps=1)


def _wide():
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    return [fc.numeric_column("age"), color]


def test_iterations_per_loop_trains_as_plain_run_config(tmp_path):
    results = []
    for i, config in enumerate([tf.estimator.RunConfig(),
                                tf.estimator.NPURunConfig(iterations_per_loop=2)]):
        est = tf.estimator.LinearClassifier(_wide(), model_dir=str(tmp_path / str(i)),
                                            config=config)
        est.train(_input_fn(2), steps=4)
        results.append(est.evaluate(_input_fn(2), steps=1))
    assert results[0]["global_step"] == results[1]["global_step"] == 4
    for key in results[0]:
        np.testing.assert_allclose(results[0][key], results[1][key], rtol=1e-6, err_msg=key)


def test_warm_start_from_a_trained_premade(tmp_path):
    first = tf.estimator.LinearRegressor(_wide(), model_dir=str(tmp_path / "a"))
    first.train(_input_fn(0, regression=True), steps=3)
    second = tf.estimator.LinearRegressor(_wide(), model_dir=str(tmp_path / "b"),
                                          warm_start_from=str(tmp_path / "a"))
    second.train(_input_fn(0, regression=True), steps=1)
    w_a = first.get_variable_value("linear/linear_model/age/weights")
    w_b = second.get_variable_value("linear/linear_model/age/weights")
    assert np.abs(w_a).sum() > 0 and not np.allclose(w_b, 0)
    fresh = tf.estimator.LinearRegressor(_wide(), model_dir=str(tmp_path / "c"))
    fresh.train(_input_fn(0, regression=True), steps=1)
    assert not np.allclose(fresh.get_variable_value("linear/linear_model/age/weights"), w_b)

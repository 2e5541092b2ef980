"""Records feature-column and premade-estimator facts from real TF (run with TF 2.15's python).

Writes tests/feature_column/golden_tf215.json: input_layer outputs for fixed inputs and
deterministic weights (ones initializers), variable names, hash-bucket ids, crossed ids,
and the variable names, metric keys and prediction keys of each premade estimator.
"""
import json
import os
import sys
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
tf.get_logger().setLevel("ERROR")
fc = tf.feature_column
OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "feature_column", "golden_tf215.json")

FEATS = {
    "age": np.array([[23.0], [51.0], [35.0], [70.0]], np.float32),
    "xy": np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], np.float32),
    "color": np.array([["red"], ["blue"], ["green"], ["pink"]]),
    "tags": np.array([["a", "b"], ["b", ""], ["c", "a"], ["", ""]]),
    "level": np.array([[0], [3], [1], [2]], np.int64),
    "city": np.array([["paris"], ["tokyo"], ["lima"], ["oslo"]]),
    "wt": np.array([[0.5], [2.0], [1.0], [3.0]], np.float32),
}
ONES = tf.ones_initializer()


def cols():
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    color_oov = fc.categorical_column_with_vocabulary_list("color", ["red", "green"],
                                                           num_oov_buckets=2)
    tags = fc.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"])
    level = fc.categorical_column_with_identity("level", 4)
    city = fc.categorical_column_with_hash_bucket("city", 7)
    age_b = fc.bucketized_column(fc.numeric_column("age"), [30.0, 50.0, 65.0])
    cross = fc.crossed_column([age_b, "city"], 11)
    cross2 = fc.crossed_column(["color", "city"], 13)
    weighted = fc.weighted_categorical_column(level, "wt")
    return {
        "numeric": [fc.numeric_column("age")],
        "numeric_norm": [fc.numeric_column("age", normalizer_fn=lambda x: (x - 40.0) / 10.0)],
        "numeric_shape": [fc.numeric_column("xy", shape=(2,))],
        "bucketized": [age_b],
        "indicator_vocab": [fc.indicator_column(color)],
        "indicator_oov": [fc.indicator_column(color_oov)],
        "indicator_multi": [fc.indicator_column(tags)],
        "indicator_identity": [fc.indicator_column(level)],
        "indicator_hash": [fc.indicator_column(city)],
        "indicator_cross": [fc.indicator_column(cross)],
        "indicator_cross_strings": [fc.indicator_column(cross2)],
        "indicator_weighted": [fc.indicator_column(weighted)],
        "embedding_mean": [fc.embedding_column(tags, 3, initializer=ONES)],
        "embedding_sum": [fc.embedding_column(tags, 2, combiner="sum", initializer=ONES)],
        "embedding_sqrtn": [fc.embedding_column(tags, 2, combiner="sqrtn", initializer=ONES)],
        "embedding_weighted": [fc.embedding_column(weighted, 2, combiner="sum",
                                                   initializer=ONES)],
        "shared": fc.shared_embedding_columns([color, tags], 2, initializer=ONES),
        "mixed": [fc.numeric_column("age"), fc.indicator_column(color),
                  fc.embedding_column(city, 2, initializer=ONES), age_b],
    }


def run_input_layer(columns):
    with tf.Graph().as_default():
        out = fc.input_layer(FEATS, columns)
        names = [v.op.name for v in tf.global_variables()]
        with tf.Session() as s:
            s.run([tf.global_variables_initializer(), tf.tables_initializer()])
            return {"value": s.run(out).tolist(), "variables": names}


def run_linear(columns):
    with tf.Graph().as_default():
        out = fc.linear_model(FEATS, columns, units=2)
        names = {v.op.name: v.shape.as_list() for v in tf.global_variables()}
        assigns = [v.assign(tf.ones_like(v) * 0.5) for v in tf.global_variables()]
        with tf.Session() as s:
            s.run([tf.global_variables_initializer(), tf.tables_initializer()])
            s.run(assigns)
            return {"value": s.run(out).tolist(), "variables": names}


def hash_ids():
    strs = ["", "a", "hello", "Male", "Female", "Bachelors", "x" * 40, "y" * 100, "12"]
    with tf.Graph().as_default(), tf.Session() as s:
        return {"strings": strs,
                "b1000": s.run(tf.strings.to_hash_bucket_fast(strs, 1000)).tolist(),
                "ints": [0, 7, -3, 123456],
                "ints_b50": s.run(tf.strings.to_hash_bucket_fast(
                    tf.as_string(tf.constant([0, 7, -3, 123456], tf.int64)), 50)).tolist()}


def estimators():
    def input_fn(n_classes, regression=False, vocab=None):
        def fn():
            x = {"age": tf.constant(FEATS["age"]),
                 "color": tf.constant(FEATS["color"]), "wt": tf.constant(FEATS["wt"])}
            if regression:
                y = tf.constant([[1.0], [2.0], [0.5], [3.0]])
            elif vocab:
                y = tf.constant([["no"], ["yes"], ["no"], ["yes"]])
            else:
                y = tf.constant([[0], [1], [n_classes - 1], [1]], tf.int64)
            return x, y
        return fn

    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    age = fc.numeric_column("age")
    deep = [age, fc.embedding_column(color, 2)]
    wide = [age, color]
    E = tf.estimator
    specs = {
        "LinearClassifier": (lambda d: E.LinearClassifier(wide, model_dir=d), 2, False),
        "LinearClassifier3": (lambda d: E.LinearClassifier(wide, n_classes=3, model_dir=d), 3,
                              False),
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
    out = {}
    for name, (make, n, reg) in specs.items():
        d = tempfile.mkdtemp()
        est = make(d)
        fn = input_fn(max(n, 2), regression=reg is True, vocab=reg == "vocab")
        est.train(fn, steps=2)
        metrics = est.evaluate(fn, steps=1)
        pred = next(iter(est.predict(fn)))
        out[name] = {"variables": sorted(est.get_variable_names()),
                     "metrics": sorted(metrics),
                     "predictions": sorted(pred)}
        if name.startswith(("Linear", "Baseline")):  # zero-initialised: deterministic
            out[name]["metric_values"] = {k: float(v) for k, v in metrics.items()}
            out[name]["first_prediction"] = {
                k: np.asarray(v).tolist() if np.asarray(v).dtype.kind != "O"
                else [x.decode() for x in np.asarray(v).ravel()] for k, v in pred.items()}
    return out


def iris_accuracy():
    """The iris tutorial (model_zoo/iris_dnn.py's setup) in real TF, over 3 seeds."""
    ds = os.path.join(os.path.dirname(__file__), "..", "estimator_npu", "datasets")
    iris = load(os.path.join(ds, "iris.py"))  # numpy-only module, loaded alone
    (tx, ty), (vx, vy) = iris.load(path=os.path.join(ds, "data", "iris.csv"))
    accs = []
    for seed in (0, 1, 2):
        cols = [fc.numeric_column(k) for k in iris.FEATURES]
        cfg = tf.estimator.RunConfig(model_dir=tempfile.mkdtemp(), tf_random_seed=seed)
        est = tf.estimator.DNNClassifier([10, 10], cols, n_classes=3, config=cfg)

        def train_fn():
            ds = tf.data.Dataset.from_tensor_slices((dict(tx), ty))
            return ds.shuffle(1000, seed=1).repeat().batch(32)

        def test_fn():
            return tf.data.Dataset.from_tensor_slices((dict(vx), vy)).batch(32)
        est.train(train_fn, steps=1000)
        accs.append(float(est.evaluate(test_fn)["accuracy"]))
    return accs


def main():
    golden = {"tf_version": tf.__version__, "features": {k: v.tolist() for k, v in FEATS.items()},
              "input_layer": {}, "linear_model": {}}
    for name, columns in cols().items():
        golden["input_layer"][name] = run_input_layer(columns)
        if name in ("numeric", "bucketized", "indicator_vocab", "embedding_sum", "mixed",
                    "indicator_weighted"):
            lin = [c.categorical_column if hasattr(c, "categorical_column") and name != "mixed"
                   else c for c in columns]
            golden["linear_model"][name] = run_linear(lin)
    golden["hash"] = hash_ids()
    if "--no-estimators" not in sys.argv:
        golden["estimators"] = estimators()
        golden["iris_accuracy_seeds_0_1_2"] = iris_accuracy()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()

"""tf.metrics: (value, update_op) pairs over local variables, equal to numpy."""
import numpy as np
import pytest

import estimator_npu as tf

EPS = 1e-7


def np_auc(labels, preds, num_thresholds=200, curve="ROC", weights=None):
    """TF1's AUC: confusion counts at fixed thresholds, trapezoidal rule."""
    inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    th = np.array([-EPS] + inner + [1 + EPS], np.float32)
    w = np.ones_like(preds) if weights is None else weights
    pos = (preds[None, :] > th[:, None]).astype(np.float64)
    lab = (labels != 0).astype(np.float64)[None, :]
    tp = (pos * lab * w).sum(1)
    fp = (pos * (1 - lab) * w).sum(1)
    fn = ((1 - pos) * lab * w).sum(1)
    tn = ((1 - pos) * (1 - lab) * w).sum(1)
    # epsilon in numerator and denominator as TF1 (an empty threshold has precision 1;
    # BaselineClassifier's auc_precision_recall in tests/feature_column/golden_tf215.json)
    rec = (tp + EPS) / (tp + fn + EPS)
    if curve == "ROC":
        x, y = fp / (fp + tn + EPS), rec
    else:
        x, y = rec, (tp + EPS) / (tp + fp + EPS)
    return np.sum((x[:-1] - x[1:]) * (y[:-1] + y[1:]) / 2)


def exact_auc(labels, preds):
    pos, neg = preds[labels == 1], preds[labels == 0]
    return np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :]))


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 200).astype(np.float32)
    scores = np.clip(labels * 0.3 + rng.random(200) * 0.7, 0, 1).astype(np.float32)
    weights = rng.random(200).astype(np.float32)
    return labels, scores, weights


def stream(metric_fns, labels, scores, weights, batch=32):
    """Runs every update op batch by batch; returns the final values and the values the
    update ops returned on the last batch."""
    with tf.Graph().as_default():
        lab = tf.placeholder(tf.float32, [None])
        sc = tf.placeholder(tf.float32, [None])
        w = tf.placeholder(tf.float32, [None])
        pairs = {k: fn(lab, sc, w) for k, fn in metric_fns.items()}
        for value, update in pairs.values():
            assert isinstance(value, tf.Tensor)
        local = tf.local_variables()
        metric_vars = tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)
        assert local and set(map(id, local)) == set(map(id, metric_vars))
        assert not tf.global_variables() and not tf.trainable_variables()
        init = tf.local_variables_initializer()
        with tf.Session() as sess:
            sess.run(init)
            for i in range(0, len(labels), batch):
                sl = slice(i, i + batch)
                last = sess.run({k: u for k, (_, u) in pairs.items()},
                                {lab: labels[sl], sc: scores[sl], w: weights[sl]})
            values = sess.run({k: v for k, (v, _) in pairs.items()})
            sess.run(init)   # local_init_op zeroes the state again
            zero = sess.run({k: v for k, (v, _) in pairs.items()})
    return values, last, zero


def test_metrics_equal_numpy(data):
    labels, scores, weights = data
    pred = (scores > 0.5).astype(np.float32)
    fns = {
        "accuracy": lambda l, s, w: tf.metrics.accuracy(l, tf.cast(s > 0.5, tf.float32)),
        "w_accuracy": lambda l, s, w: tf.metrics.accuracy(l, tf.cast(s > 0.5, tf.float32),
                                                          weights=w),
        "mean": lambda l, s, w: tf.metrics.mean(s),
        "w_mean": lambda l, s, w: tf.metrics.mean(s, weights=w),
        "precision": lambda l, s, w: tf.metrics.precision(l, s > 0.5),
        "recall": lambda l, s, w: tf.metrics.recall(l, s > 0.5),
        "w_recall": lambda l, s, w: tf.metrics.recall(l, s > 0.5, weights=w),
        "mse": lambda l, s, w: tf.metrics.mean_squared_error(l, s),
        "auc": lambda l, s, w: tf.metrics.auc(l, s),
        "w_auc": lambda l, s, w: tf.metrics.auc(l, s, weights=w),
        "auc_pr": lambda l, s, w: tf.metrics.auc(l, s, curve="PR"),
        "auc_20": lambda l, s, w: tf.metrics.auc(l, s, num_thresholds=20),
    }
    values, last, zero = stream(fns, labels, scores, weights)
    tp = np.sum((pred == 1) & (labels == 1))
    expected = {
        "accuracy": np.mean(pred == labels),
        "w_accuracy": np.sum((pred == labels) * weights) / np.sum(weights),
        "mean": np.mean(scores),
        "w_mean": np.sum(scores * weights) / np.sum(weights),
        "precision": tp / np.sum(pred == 1),
        "recall": tp / np.sum(labels == 1),
        "w_recall": np.sum(((pred == 1) & (labels == 1)) * weights) / np.sum(
            (labels == 1) * weights),
        "mse": np.mean((labels - scores) ** 2),
        "auc": np_auc(labels, scores),
        "w_auc": np_auc(labels, scores, weights=weights),
        "auc_pr": np_auc(labels, scores, curve="PR"),
        "auc_20": np_auc(labels, scores, num_thresholds=20),
    }
    for key, value in expected.items():
        np.testing.assert_allclose(values[key], value, rtol=2e-5, err_msg=key)
        np.testing.assert_allclose(last[key], value, rtol=2e-5, err_msg=key)
        assert zero[key] == 0.0, key
    # 200 thresholds approximate the exact (rank) AUC closely
    assert abs(values["auc"] - exact_auc(labels, scores)) < 0.01


def test_ratios_are_zero_before_any_data():
    with tf.Graph().as_default():
        lab = tf.placeholder(tf.float32, [None])
        metrics = [tf.metrics.precision(lab, lab), tf.metrics.recall(lab, lab),
                   tf.metrics.mean(lab)]
        init = tf.local_variables_initializer()
        with tf.Session() as sess:
            sess.run(init)
            assert sess.run([m[0] for m in metrics]) == [0.0, 0.0, 0.0]
            # a batch with no positive predictions: precision stays 0 (no 0/0)
            assert sess.run(metrics[0][1], {lab: np.zeros(3, np.float32)}) == 0.0


def test_names_collections_and_shapes():
    with tf.Graph().as_default():
        lab = tf.placeholder(tf.int64, [None, 1])
        pred = tf.placeholder(tf.int64, [None])
        value, update = tf.metrics.accuracy(lab, pred, metrics_collections=["m"],
                                            updates_collections=["u"])
        assert tf.get_collection("m") == [value] and tf.get_collection("u") == [update]
        names = sorted(v.op.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES))
        assert names == ["accuracy/count", "accuracy/total"]
        tf.metrics.accuracy(lab, pred)
        assert "accuracy_1/total" in [v.op.name for v in tf.local_variables()]
        with pytest.raises(ValueError):
            tf.metrics.accuracy(tf.placeholder(tf.int64, [3]), tf.placeholder(tf.int64, [4]))


def test_auc_arguments():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        with pytest.raises(ValueError, match="curve"):
            tf.metrics.auc(x, x, curve="XY")
        with pytest.raises(ValueError, match="summation_method"):
            tf.metrics.auc(x, x, summation_method="simpson")
        with pytest.raises(ValueError, match="num_thresholds"):
            tf.metrics.auc(x, x, num_thresholds=1)

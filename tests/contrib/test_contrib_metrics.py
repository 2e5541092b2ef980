"""tf.contrib.metrics streaming_* wrappers: predictions first, tf.metrics' values."""
import numpy as np
import pytest

import estimator_npu as tf


def _run(pairs):
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([u for _, u in pairs])
        return sess.run([v for v, _ in pairs])


def test_streaming_metrics_take_predictions_first():
    with tf.Graph().as_default():
        labels = tf.constant([1, 0, 1, 1, 0])
        preds = tf.constant([1, 1, 1, 0, 0])
        cm = tf.contrib.metrics
        got = _run([cm.streaming_precision(preds, labels), cm.streaming_recall(preds, labels),
                    cm.streaming_accuracy(preds, labels),
                    cm.streaming_mean(tf.constant([1.0, 2.0, 6.0]))])
    # precision = tp / predicted positives = 2/3, recall = tp / actual positives = 2/3 ...
    np.testing.assert_allclose(got, [2 / 3, 2 / 3, 3 / 5, 3.0], rtol=1e-6)


def test_streaming_precision_and_recall_are_not_swapped():
    with tf.Graph().as_default():
        labels = tf.constant([1, 1, 1, 0])
        preds = tf.constant([1, 0, 0, 0])
        p, r = _run([tf.contrib.metrics.streaming_precision(preds, labels),
                     tf.contrib.metrics.streaming_recall(preds, labels)])
    assert p == pytest.approx(1.0) and r == pytest.approx(1 / 3)


def test_streaming_sparse_recall_at_k_is_recall_at_k():
    with tf.Graph().as_default():
        logits = tf.constant([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1], [0.2, 0.3, 0.5]])
        labels = tf.constant([[2], [1], [0]], tf.int64)
        got = _run([tf.contrib.metrics.streaming_sparse_recall_at_k(logits, labels, 2),
                    tf.metrics.recall_at_k(labels, logits, 2)])
    # top-2: {1, 2}, {0, 1}, {2, 1}: labels 2 and 1 are in, 0 is not
    np.testing.assert_allclose(got, [2 / 3, 2 / 3], rtol=1e-6)


def test_unknown_contrib_metric_names_raise_does_not_implement():
    with pytest.raises(AttributeError, match="does not implement"):
        tf.contrib.metrics.streaming_covariance  # noqa: B018


def test_layers_utils_collect_named_outputs_and_convert_collection_to_dict(aliases):
    # Slim-style layer code ends with utils.collect_named_outputs(outputs_collections,
    # sc.name, outputs); TF keeps the alias ('scope', trailing '/' dropped) for
    # convert_collection_to_dict.
    from tensorflow.contrib.layers.python.layers import utils
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        y = x * 2
        assert utils.collect_named_outputs(None, "a", x) is x
        assert tf.get_collection("end_points") == []
        assert utils.collect_named_outputs(["end_points"], "block1/conv/", y) is y
        assert tf.get_collection("end_points") == [y]
        assert utils.convert_collection_to_dict("end_points") == {"block1/conv": y}
        assert utils.convert_collection_to_dict("end_points", clear_collection=True)
        assert tf.get_collection("end_points") == []

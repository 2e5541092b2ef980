"""tf.losses against values recorded from real TF 2.15 (``tools/record_tf_losses.py``):
values, dtypes and the LOSSES collection; plus gradients and argument errors."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "losses_golden.json").read_text())


def _load_cases():
    spec = importlib.util.spec_from_file_location("estimator_npu_tests_loss_cases",
                                                  HERE / "loss_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load_cases()


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_loss_values_match_tf(name):
    g = tf.Graph()
    with g.as_default():
        tensors = CASES.CASES[name](tf)
        with tf.Session() as sess:
            values = sess.run(tensors)
        n_losses = len(tf.get_collection(tf.GraphKeys.LOSSES))
    want = GOLDEN[name]
    assert [t.dtype.name for t in tensors] == want["dtypes"]
    assert n_losses == want["n_losses"]
    for i, (v, w) in enumerate(zip(values, want["values"])):
        np.testing.assert_allclose(v, np.asarray(w), rtol=2e-6, atol=1e-7,
                                   err_msg=f"{name}[{i}] ({tensors[i].name})")
        assert np.shape(v) == np.shape(w), f"{name}[{i}]"


def test_default_reduction_is_sum_by_nonzero_weights():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        w = tf.constant([[1.0, 0.0], [1.0, 0.0]])
        loss = tf.losses.compute_weighted_loss(x, w)
        with tf.Session() as sess:
            assert sess.run(loss) == pytest.approx(2.0)  # (1 + 3) / 2 non-zero weights
        assert tf.get_collection(tf.GraphKeys.LOSSES) == [loss]


def test_softmax_cross_entropy_gradient_skips_labels_and_follows_logits():
    g = tf.Graph()
    with g.as_default():
        logits = tf.placeholder(tf.float32, None)
        labels = tf.placeholder(tf.float32, None)
        loss = tf.losses.softmax_cross_entropy(labels, logits, label_smoothing=0.1)
        gl, gy = tf.gradients(loss, [logits, labels])
        assert gy is None
        x = CASES.LOGITS
        y = CASES.ONEHOT * 0.9 + 0.1 / 3
        with tf.Session() as sess:
            got = sess.run(gl, {logits: x, labels: CASES.ONEHOT})
        e = np.exp(x - x.max(1, keepdims=True))
        want = (e / e.sum(1, keepdims=True) - y) / 4
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_errors_name_the_argument():
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(ValueError, match="axis"):
            tf.losses.cosine_distance(CASES.UNIT_L, CASES.UNIT)
        with pytest.raises(ValueError, match="weights can not be broadcast"):
            tf.losses.mean_squared_error(CASES.LABELS, CASES.PRED, weights=CASES.W_VEC)
        with pytest.raises(ValueError, match="Invalid Reduction"):
            tf.losses.mean_squared_error(CASES.LABELS, CASES.PRED, reduction="mean")
        with pytest.raises(ValueError, match="no losses"):
            tf.losses.get_total_loss()
        with pytest.raises(ValueError, match="labels must not be None"):
            tf.losses.mean_squared_error(None, CASES.PRED)

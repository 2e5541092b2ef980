"""``tf.contrib.distributions.percentile``: the descending-sorted entry at
``round_half_even((n - 1) * (1 - q / 100))`` (ceil: lower, floor: higher), over all axes
or the given ones, keep_dims, and a placeholder with an unknown batch dim."""
import numpy as np
import pytest

import estimator_npu as tf

_RND = {"nearest": np.round, "lower": np.ceil, "higher": np.floor}


def _ref(x, q, interp):
    s = np.sort(x, axis=-1)[..., ::-1]
    n = s.shape[-1]
    i = int(np.clip(_RND[interp]((n - 1) * (1 - q / 100.0)), 0, n - 1))
    return s[..., i]


@pytest.mark.parametrize("interp", ["nearest", "lower", "higher"])
def test_percentile_matches_reference(interp):
    x = np.random.RandomState(0).randint(0, 20, size=(3, 6)).astype(np.float64)
    pct = tf.contrib.distributions.percentile
    with tf.Graph().as_default(), tf.Session() as sess:
        ph = tf.placeholder(tf.float64, [None, 6])
        for q in (0, 10, 50, 70, 100):
            a, r, k, d = sess.run([pct(x, q, interpolation=interp),
                                   pct(x, q, axis=1, interpolation=interp),
                                   pct(x, q, axis=[0, 1], keep_dims=True,
                                       interpolation=interp),
                                   pct(ph, q, axis=1, interpolation=interp)], {ph: x})
            assert a == _ref(x.ravel(), q, interp)
            np.testing.assert_array_equal(r, _ref(x, q, interp))
            np.testing.assert_array_equal(d, _ref(x, q, interp))
            assert k.shape == (1, 1) and k[0, 0] == a


def test_percentile_rejects_unknown_interpolation():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="interpolation"):
            tf.contrib.distributions.percentile([1.0, 2.0], 50, interpolation="linear")

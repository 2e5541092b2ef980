"""The random tf.image ops: shapes, value sets and how often they choose each way."""
import numpy as np
import pytest

import estimator_npu as tf


def _graph():
    g = tf.Graph()
    return g, g.as_default()


def test_random_crop_is_a_window_of_the_input_at_varying_offsets():
    g, ctx = _graph()
    with ctx:
        x = np.arange(6 * 8 * 3).reshape(6, 8, 3).astype(np.float32)
        c = tf.image.random_crop(x, [3, 4, 3], seed=3) if hasattr(tf.image, "random_crop") \
            else tf.random_crop(x, [3, 4, 3])
        assert c.shape == [3, 4, 3]
        with tf.Session() as sess:
            tops = set()
            for _ in range(40):
                v = sess.run(c)
                i, j = np.argwhere(x[..., 0] == v[0, 0, 0])[0]
                np.testing.assert_array_equal(v, x[i:i + 3, j:j + 4])
                tops.add((i, j))
        assert len(tops) > 5
        with pytest.raises(ValueError, match="one entry per dim"):
            tf.image.random_crop(x, [3, 4])


def test_random_crop_size_may_hold_constant_int_tensors():
    # SqueezeNext: image_size = tf.cast(227, tf.int32); tf.random_crop(img, [image_size,
    # image_size, 3]) (TF packs the list); a fed size is not static here: a clear error.
    g, ctx = _graph()
    with ctx:
        x = np.arange(6 * 8 * 3).reshape(6, 8, 3).astype(np.float32)
        n = tf.cast(3, tf.int32)
        c = tf.random_crop(x, [n, tf.constant(4), 3])
        assert c.shape.as_list() == [3, 4, 3]
        with tf.Session() as sess:
            assert sess.run(c).shape == (3, 4, 3)
        with pytest.raises(TypeError, match="random_crop: size must be"):
            tf.random_crop(x, [tf.placeholder(tf.int32, []), 4, 3])


def test_random_flip_left_right_flips_about_half_the_time():
    g, ctx = _graph()
    with ctx:
        x = np.arange(2 * 3 * 1, dtype=np.float32).reshape(2, 3, 1)
        y = tf.image.random_flip_left_right(x, seed=1)
        assert y.shape == [2, 3, 1]
        with tf.Session() as sess:
            flips = 0
            for _ in range(200):
                v = sess.run(y)
                if np.array_equal(v, x[:, ::-1]):
                    flips += 1
                else:
                    np.testing.assert_array_equal(v, x)
        assert 70 < flips < 130


def test_random_brightness_and_contrast_stay_in_range():
    g, ctx = _graph()
    with ctx:
        x = np.random.RandomState(0).uniform(0, 1, (4, 4, 3)).astype(np.float32)
        b = tf.image.random_brightness(x, 0.2)
        c = tf.image.random_contrast(x, 0.5, 1.5)
        with tf.Session() as sess:
            for _ in range(20):
                vb, vc = sess.run([b, c])
                d = vb - x
                assert np.ptp(d) < 1e-5 and abs(d.mean()) <= 0.2 + 1e-6
                mean = x.mean(axis=(0, 1))
                f = (vc - mean) / (x - mean)
                assert 0.5 - 1e-3 <= np.median(f) <= 1.5 + 1e-3


def test_multinomial_samples_follow_the_softmax():
    g, ctx = _graph()
    with ctx:
        logits = np.log(np.array([[0.2, 0.5, 0.3], [0.9, 0.05, 0.05]], np.float32))
        s = tf.random.categorical(logits, 4000, seed=2)
        assert s.shape == [2, 4000] and s.dtype == tf.int64
        with tf.Session() as sess:
            v = sess.run(s)
        freq = np.stack([np.bincount(row, minlength=3) / 4000.0 for row in v])
        np.testing.assert_allclose(freq, np.exp(logits), atol=0.03)


def test_crop_to_bounding_box_at_tensor_offsets():
    # pix2pix-tensorflow crops at offsets drawn with tf.random_uniform (TF accepts scalar
    # integer tensors for every argument)
    g, ctx = _graph()
    with ctx:
        x = np.arange(2 * 5 * 6).reshape(2, 5, 6, 1).astype(np.float32)
        off = tf.cast(tf.floor(tf.random_uniform([2], 0, 3, seed=1)), tf.int32)
        batched = tf.image.crop_to_bounding_box(x, off[0], off[1], 2, 3)
        single = tf.image.crop_to_bounding_box(x[1], tf.constant(1, tf.int64), 2, 2,
                                               tf.constant(3))
        assert batched.shape.as_list() == [2, 2, 3, 1]
        assert single.shape.as_list() == [2, 3, 1]  # a constant width is static, as in TF
        seen = set()
        with tf.Session() as sess:
            for _ in range(12):
                o, b = sess.run([off, batched])
                np.testing.assert_array_equal(b, x[:, o[0]:o[0] + 2, o[1]:o[1] + 3])
                seen.add(tuple(o))
            np.testing.assert_array_equal(sess.run(single), x[1, 1:3, 2:5])
        assert len(seen) > 1
        with pytest.raises(ValueError, match="offset_height must be an int or a scalar "
                                             "integer tensor, got float32"):
            tf.image.crop_to_bounding_box(x, tf.constant(1.0), 0, 2, 2)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "unknown_dims"])
def test_crop_to_bounding_box_tensor_offset_gradient(gradcheck, dynamic):
    rng = np.random.default_rng(0)
    gradcheck.check_grads(
        lambda im: tf.image.crop_to_bounding_box(im, tf.constant(1), tf.constant(2), 2, 2),
        [rng.standard_normal((4, 5, 2))], rng, dynamic=dynamic)

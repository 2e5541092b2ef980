"""``tf.compat.v2``: the package's names except TF2's ``image.resize`` (half-pixel centres,
antialias), while ``tf.image.resize`` stays TF1's ``resize_images``; ``tf.image.ssim``.
(Values against TF: tests/conformance/test_tf_sweep.py.)"""
import numpy as np
import pytest

import estimator_npu as tf

X = np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1)


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_v2_view_offers_the_package_names_and_tf2_resize():
    v2 = tf.compat.v2
    assert v2.nn.relu is tf.nn.relu and v2.image.flip_left_right is tf.image.flip_left_right
    assert "resize" in dir(v2.image) and "placeholder" in dir(v2)
    with pytest.raises(AttributeError, match="no_such_op_name"):
        v2.image.no_such_op_name
    # 3 -> 6 rows: TF2 samples at half-pixel centres (row 0 = input row 0 clamped), TF1 at
    # o * 3 / 6 (rows 0 and 1 average rows 0, 0.5)
    v2_rows = _run(v2.image.resize(X, [6, 4]))[0, :, 0, 0]
    v1_rows = _run(tf.image.resize(X, [6, 4]))[0, :, 0, 0]
    np.testing.assert_allclose(v2_rows, [0, 1, 3, 5, 7, 8])
    np.testing.assert_allclose(v1_rows, [0, 2, 4, 6, 8, 8])


def test_v2_resize_dtypes_and_bad_arguments():
    ints = X.astype(np.int32)
    assert tf.compat.v2.image.resize(ints, [2, 2]).dtype == tf.float32
    assert tf.compat.v2.image.resize(ints, [2, 2], method="nearest").dtype == tf.int32
    assert tf.compat.v2.image.resize(X.astype(np.float64), [2, 2]).dtype == tf.float32
    assert tf.compat.v2.image.resize(X[0], [6, 6], preserve_aspect_ratio=True).shape.as_list() \
        == [4, 6, 1]
    with pytest.raises(ValueError, match="method must be one of"):
        tf.compat.v2.image.resize(X, [2, 2], method="cubic")
    with pytest.raises(ValueError, match="size must be 2 ints"):
        tf.compat.v2.image.resize(X, [2, 2, 2])


def test_ssim_is_one_for_equal_images_and_checks_its_arguments():
    img = np.random.RandomState(0).uniform(0, 1, (2, 8, 8, 3)).astype(np.float32)
    got = _run(tf.image.ssim(img, img, 1.0, filter_size=3))
    np.testing.assert_allclose(got, [1.0, 1.0], rtol=1e-6)
    assert _run(tf.image.ssim(img, 1.0 - img, 1.0, filter_size=3)).max() < 0.5
    p = tf.placeholder(tf.float32, None)
    with tf.Session() as sess:  # unknown static shape: the batch shape comes at run time
        np.testing.assert_allclose(sess.run(tf.image.ssim(p, p, 1.0, filter_size=3),
                                            {p: img[0]}), 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match="at least filter_size=11"):
        tf.image.ssim(img, img, 1.0)
    with pytest.raises(ValueError, match="same \\[H, W, C\\]"):
        tf.image.ssim(img, img[:, :4], 1.0, filter_size=3)
    with pytest.raises(TypeError, match="same dtype"):
        tf.image.ssim(img, img.astype(np.float64), 1.0, filter_size=3)


def test_draw_bounding_boxes_paints_outlines_and_checks_its_arguments():
    img = np.zeros((1, 5, 5, 1), np.float32)
    out = _run(tf.image.draw_bounding_boxes(img, np.array([[[0.25, 0.25, 0.75, 0.75]]],
                                                          np.float32)))[0, :, :, 0]
    # rows/cols 1..3 outlined (0.25 * 4 = 1, 0.75 * 4 = 3), white on grayscale, inside kept
    want = np.zeros((5, 5))
    want[1, 1:4] = want[3, 1:4] = want[1:4, 1] = want[1:4, 3] = 1.0
    np.testing.assert_array_equal(out, want)
    with pytest.raises(TypeError, match="must be float"):
        tf.image.draw_bounding_boxes(img.astype(np.uint8), np.zeros((1, 1, 4), np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"boxes must be \[batch=1"):
        _run(tf.image.draw_bounding_boxes(img, np.zeros((1, 4), np.float32)))


def test_ssim_multiscale_is_one_for_equal_images_and_needs_static_sizes():
    img = np.random.RandomState(1).uniform(0, 1, (1, 9, 8, 2)).astype(np.float32)
    got = _run(tf.image.ssim_multiscale(img, img, 1.0, power_factors=[0.5, 0.5],
                                        filter_size=3))
    np.testing.assert_allclose(got, [1.0], rtol=1e-5)
    with pytest.raises(ValueError, match="scale 2 .* smaller than filter_size=3"):
        tf.image.ssim_multiscale(img, img, 1.0, power_factors=[0.3, 0.3, 0.4], filter_size=3)
    p = tf.placeholder(tf.float32, [None, None, None, 2])
    with pytest.raises(ValueError, match="needs a static rank, height and width"):
        tf.image.ssim_multiscale(p, p, 1.0, filter_size=3)

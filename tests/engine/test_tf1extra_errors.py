"""Bad arguments of the new TF1 ops name the argument and what was expected."""
import numpy as np
import pytest

import estimator_npu as tf


def test_bad_arguments_are_clear_errors():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="hypothesis must be a SparseTensor"):
            tf.edit_distance(np.zeros((2, 2)), tf.SparseTensor([[0, 0]], [1], [1, 1]))
        with pytest.raises(ValueError, match="must be 3-D"):
            tf.nn.ctc_greedy_decoder(np.zeros((2, 3), np.float32), [1, 1])
        with pytest.raises(ValueError, match="input channels 3 .* in_channels 2"):
            tf.nn.conv3d(np.zeros((1, 4, 4, 4, 3), np.float32),
                         np.zeros((2, 2, 2, 2, 1), np.float32), [1, 1, 1, 1, 1], "SAME")
        with pytest.raises(ValueError, match="padding must be 'SAME' or 'VALID'"):
            tf.nn.max_pool3d(np.zeros((1, 4, 4, 4, 1), np.float32), [1, 2, 2, 2, 1],
                             [1, 2, 2, 2, 1], "FULL")
        with pytest.raises(NotImplementedError, match="does not implement tf.nn.pool with "
                                                      "dilation_rate"):
            tf.nn.pool(np.zeros((1, 4, 4, 1), np.float32), [2, 2], "MAX", "SAME",
                       dilation_rate=[2, 2])
        with pytest.raises(ValueError, match="crop_size must be 2 positive ints"):
            tf.image.crop_and_resize(np.zeros((1, 4, 4, 1), np.float32), [[0, 0, 1, 1]], [0],
                                     [0, 3])
        with pytest.raises(ValueError, match="method must be a tf.image.ResizeMethod"):
            tf.image.resize_images(np.zeros((1, 4, 4, 1), np.float32), [2, 2], method=7)
        with pytest.raises(TypeError, match="Igamma: inputs must be float"):
            tf.math.igamma(np.array([1, 2]), np.array([1, 2]))


def test_bad_runtime_values_are_clear_errors():
    with tf.Graph().as_default():
        img = np.zeros((2, 4, 4, 1), np.float32)
        crop = tf.image.crop_and_resize(img, [[0, 0, 1, 1]], tf.constant([5]), [2, 2])
        dec, _ = tf.nn.ctc_greedy_decoder(np.zeros((3, 1, 2), np.float32), [4])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"box_ind values must "
                                                                    r"be in \[0, 2\)"):
                sess.run(crop)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"sequence_length\(0\) "
                                                                    r"= 4 is not in"):
                sess.run(dec[0].values)

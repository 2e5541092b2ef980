"""Checkpoint readers return 0-d tensors as numpy scalars, as TF 2.15's reader does
(``get_tensor('global_step')`` is ``numpy.int64``; a string scalar is ``bytes``)."""
import numpy as np

import estimator_npu as tf


def test_scalar_tensors_read_back_as_numpy_scalars(tmp_path):
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        tf.Variable(2.5, name="scale")
        tf.Variable(np.ones(3, np.float32), name="vec")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    reader = tf.train.load_checkpoint(str(tmp_path))
    step = reader.get_tensor("global_step")
    assert type(step) is np.int64 and step == 0
    scale = tf.train.load_variable(str(tmp_path), "scale")
    assert type(scale) is np.float32 and scale == 2.5
    vec = reader.get_tensor("vec")
    assert isinstance(vec, np.ndarray) and vec.shape == (3,)

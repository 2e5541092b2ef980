"""TF1 names that scripts commonly use beyond SPEC's core: ``tf.device``,
``tf.estimator.inputs.numpy_input_fn``, ``tf.Summary``, ``tf.logging``."""
import logging

import numpy as np
import pytest

import estimator_npu as tf


def test_device_is_a_no_op_placement_context_and_still_reaches_the_loop_package():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            c = tf.constant(3.0) * 2.0
        assert tf.Session(graph=g).run(c) == 6.0
    import estimator_npu.device.loop as loop
    assert tf.device.loop is loop
    from estimator_npu.device import util
    assert util.set_iteration_per_loop is tf.npu.util.set_iteration_per_loop


def test_numpy_input_fn_trains_an_estimator(tmp_path):
    x = np.linspace(0, 1, 32, dtype=np.float32)[:, None]
    y = 3 * x

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        op = tf.train.GradientDescentOptimizer(0.5).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=op)
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    fn = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=8, num_epochs=None,
                                           shuffle=True)
    est.train(fn, steps=200)
    assert abs(est.get_variable_value("w")[0, 0] - 3.0) < 0.05
    one_epoch = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=8, shuffle=False)
    assert est.evaluate(one_epoch)["global_step"] == 200


def test_numpy_input_fn_argument_errors():
    with pytest.raises(ValueError, match="shuffle"):
        tf.estimator.inputs.numpy_input_fn(np.zeros((3, 1)), np.zeros(3))
    with pytest.raises(ValueError, match="same number of examples"):
        tf.estimator.inputs.numpy_input_fn(np.zeros((3, 1)), np.zeros(4), shuffle=False)


def test_logging_set_verbosity_shows_info_lines(capsys):
    root_handlers = logging.getLogger().handlers[:]
    logger = logging.getLogger("estimator_npu")
    saved = logger.handlers[:], logger.level
    logging.getLogger().handlers[:] = []
    try:
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("visible %d", 7)
        assert "visible 7" in capsys.readouterr().err
    finally:
        logger.handlers[:], level = saved
        logger.setLevel(level)
        logging.getLogger().handlers[:] = root_handlers


def test_summary_proto_name_is_exported():
    assert tf.Summary is tf.summary.Summary

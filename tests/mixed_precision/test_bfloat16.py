"""bfloat16 through the optional ``ml_dtypes`` (the ``bf16`` extra): user casts as with
float16; cube ops on bfloat16 tensors run with the float32 BLAS and one rounding; the
gradients reaching fp32 master weights are fp32."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import dtypes, precision

if dtypes.bfloat16 is None:
    pytest.skip("ml_dtypes is not installed (pip install estimator_npu[bf16]); bfloat16 "
                "is optional", allow_module_level=True)
if not dtypes.bfloat16.is_floating:
    pytest.skip("engine.dtypes does not treat bfloat16 (numpy kind 'V') as floating yet, "
                "so no gradient flows through it", allow_module_level=True)

import ml_dtypes  # noqa: E402


def test_cast_rounds_to_bfloat16():
    x = tf.placeholder(tf.float32, [3])
    y = tf.cast(tf.cast(x, tf.bfloat16), tf.float32)
    with tf.Session() as sess:
        out = sess.run(y, {x: [1.001, 1.0 + 2.0 ** -8, 3e38]})
    np.testing.assert_array_equal(out, [1.0, 1.0, np.float32(3e38).astype(
        ml_dtypes.bfloat16).astype(np.float32)])


def test_bfloat16_matmul_uses_fp32_accumulation_and_rounds_once():
    rng = np.random.default_rng(0)
    av = rng.standard_normal((6, 16)).astype(ml_dtypes.bfloat16)
    bv = rng.standard_normal((16, 4)).astype(ml_dtypes.bfloat16)
    a = tf.placeholder(tf.bfloat16, [6, 16])
    b = tf.placeholder(tf.bfloat16, [16, 4])
    y = tf.matmul(a, b)
    assert precision.computes_in_bf16(y.op) and not precision.computes_in_fp16(y.op, None)
    with tf.Session() as sess:
        out = sess.run(y, {a: av, b: bv})
    assert out.dtype == ml_dtypes.bfloat16
    ref = (av.astype(np.float32) @ bv.astype(np.float32)).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(out.astype(np.float32), ref.astype(np.float32))


def test_training_with_bfloat16_casts_updates_fp32_master_weights():
    rng = np.random.default_rng(1)
    x = tf.placeholder(tf.float32, [8, 3])
    w = tf.Variable(rng.standard_normal((3, 1)).astype(np.float32))
    y16 = tf.matmul(tf.cast(x, tf.bfloat16), tf.cast(w, tf.bfloat16))
    loss = tf.reduce_mean(tf.square(tf.cast(y16, tf.float32) - 1.0))
    grad, = tf.gradients(loss, [w])
    assert grad.dtype == tf.float32
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {x: rng.standard_normal((8, 3)).astype(np.float32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, feed)
        for _ in range(20):
            sess.run(train_op, feed)
        assert sess.run(loss, feed) < first
        assert sess.run(w).dtype == np.float32

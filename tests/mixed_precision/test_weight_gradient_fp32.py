"""Under the fp16 precision modes the conv weight gradient (Conv2DBackpropFilter) takes
fp16 inputs and writes float32 (the Ascend cube op's output dtype), so a conv net whose
weight gradients pass 65504 trains without NaN, close to float32 training."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import precision
from npu_configs import session_config


def train_conv_net(mode, steps=6):
    """Two convs on inputs up to 50: activations stay in fp16 range, the weight gradients
    (max about 1.2e6) do not."""
    rng = np.random.RandomState(0)
    xv = rng.uniform(0, 50, (8, 24, 24, 3)).astype(np.float32)
    tv = rng.uniform(0, 1, (8, 24, 24, 4)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 24, 24, 3])
        t = tf.placeholder(tf.float32, [None, 24, 24, 4])
        h = tf.layers.conv2d(x, 8, 3, padding="same", activation=tf.nn.relu)
        h = tf.layers.conv2d(h, 4, 3, padding="same")
        loss = tf.reduce_sum(tf.square(h - t)) / 8.0
        grads = tf.gradients(loss, tf.trainable_variables())
        train = tf.train.GradientDescentOptimizer(1e-9).minimize(loss)
        with tf.Session(config=session_config(mode)) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: xv, t: tv}
            first_grads = sess.run(grads, feed)
            losses = [float(sess.run([loss, train], feed)[0]) for _ in range(steps)]
            variables = sess.run(tf.trainable_variables())
    return losses, first_grads, variables


@pytest.mark.parametrize("mode", ["allow_mix_precision", "allow_fp32_to_fp16",
                                  "force_fp16"])
def test_conv_net_with_large_weight_gradients_trains_in_mixed_precision(mode):
    ref_losses, ref_grads, _ = train_conv_net("force_fp32")
    losses, grads, variables = train_conv_net(mode)
    assert max(np.abs(g).max() for g in ref_grads) > 1e5, "the weight gradients must pass fp16"
    assert np.all(np.isfinite(losses)), losses
    assert losses[-1] < 0.75 * losses[0]
    np.testing.assert_allclose(losses, ref_losses, rtol=2e-3)
    for g, rg in zip(grads, ref_grads):
        np.testing.assert_allclose(g, rg, rtol=0.02, atol=0.02 * np.abs(rg).max())
    kernel_grads = [g for g in grads if g.ndim == 4]
    assert kernel_grads and not all(precision.fp16_round(g).tolist() == g.tolist()
                                    for g in kernel_grads), "dW must not be fp16-rounded"
    for v in variables:
        assert v.dtype == np.float32 and np.all(np.isfinite(v))


def test_backprop_filter_rounds_inputs_not_output():
    """dW = the float32 kernel of fp16-rounded inputs, unrounded; dx stays fp16."""
    rng = np.random.default_rng(5)
    xv = (rng.standard_normal((2, 7, 7, 3)) * 30 + 40).astype(np.float32)
    fv = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    dyv = (rng.standard_normal((2, 7, 7, 4)) * 40 + 30).astype(np.float32)
    out = {}
    for mode in ("allow_mix_precision", "force_fp32"):
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, xv.shape)
            f = tf.placeholder(tf.float32, fv.shape)
            dy = tf.placeholder(tf.float32, dyv.shape)
            y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
            dx, dw = tf.gradients(y, [x, f], grad_ys=dy)
            assert dw.op.type == "Conv2DBackpropFilter"
            assert dx.op.type == "Conv2DBackpropInput"
            with tf.Session(config=session_config(mode)) as sess:
                out[mode] = sess.run([dx, dw], {x: xv, f: fv, dy: dyv})
                r = precision.fp16_round
                out["ref"] = sess.run([dx, dw], {x: r(xv), f: r(fv), dy: r(dyv)})
    dx16, dw16 = out["allow_mix_precision"]
    dx_ref, dw_ref = out["ref"]
    np.testing.assert_array_equal(dw16, dw_ref)          # rounded inputs, fp32 result
    assert np.abs(dw16).max() > 65504 and np.all(np.isfinite(dw16))
    np.testing.assert_array_equal(dx16, precision.fp16_round(dx_ref))

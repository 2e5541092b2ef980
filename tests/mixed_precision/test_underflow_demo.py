"""Loss scaling rescues fp16 training whose gradients underflow (SPEC §6, issue 7 #4).

A 64-32-10 MLP on the bundled digits, full batch, Adam (whose step does not depend on the
gradients' magnitude, so a tiny loss trains exactly like a normal one in fp32). The loss is
multiplied by 2**-26: its gradients, about 1e-11, are fine in fp32 but far below fp16's
smallest subnormal (2**-24 ~ 6e-8), so under ``allow_mix_precision`` every backward matmul
flushes them to zero and the weights never move. With dynamic loss scaling, starting at a
scale so large that the first steps overflow, the manager settles and the model reaches the
fp32 accuracy within one point.
"""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import mixed_precision as mp
from estimator_npu.datasets import digits
from npu_configs import session_config

TINY = 2.0 ** -26
STEPS = 100


@pytest.fixture(scope="module")
def data():
    return digits.load()


def train(data, mode, manager=None):
    """Trains ``STEPS`` full-batch steps; returns test accuracy, whether the weight matrices
    moved, the global step and the final loss scale (None without a manager)."""
    g = tf.Graph()
    with g.as_default():
        rng = np.random.default_rng(0)
        x = tf.placeholder(tf.float32, [None, 64])
        y = tf.placeholder(tf.int64, [None])
        w1 = tf.Variable((rng.standard_normal((64, 32)) * 0.3).astype(np.float32))
        b1 = tf.Variable(tf.zeros([32]))
        w2 = tf.Variable((rng.standard_normal((32, 10)) * 0.3).astype(np.float32))
        b2 = tf.Variable(tf.zeros([10]))
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits)) * TINY
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
        opt = tf.train.AdamOptimizer(0.03, epsilon=1e-30)
        if manager is not None:
            opt = mp.LossScaleOptimizer(opt, manager)
        gs = tf.train.get_or_create_global_step()
        train_op = opt.minimize(loss, global_step=gs)
        with tf.Session(config=session_config(mode)) as sess, np.errstate(all="ignore"):
            sess.run(tf.global_variables_initializer())
            start = sess.run([w1, w2])
            feed = {x: data.train.images, y: data.train.labels}
            for _ in range(STEPS):
                sess.run(train_op, feed)
            acc = float(sess.run(accuracy, {x: data.test.images, y: data.test.labels}))
            moved = [not np.array_equal(a, b) for a, b in zip(start, sess.run([w1, w2]))]
            scale = None if manager is None else float(sess.run(manager.get_loss_scale()))
            return acc, moved, int(sess.run(gs)), scale


def test_dynamic_loss_scaling_recovers_fp32_accuracy(data):
    acc32, moved32, gs32, _ = train(data, "force_fp32")
    acc16, moved16, gs16, _ = train(data, "allow_mix_precision")
    manager = mp.ExponentialUpdateLossScaleManager(2.0 ** 50, incr_every_n_steps=20,
                                                   decr_every_n_nan_or_inf=2, decr_ratio=0.5)
    acc_ls, moved_ls, gs_ls, scale = train(data, "allow_mix_precision", manager)
    print(f"test accuracy: fp32 {acc32:.4f}, fp16 {acc16:.4f}, "
          f"fp16 + dynamic loss scaling {acc_ls:.4f} (final scale 2**{np.log2(scale):.1f}, "
          f"{STEPS - gs_ls} skipped steps)")
    assert acc32 > 0.95 and moved32 == [True, True] and gs32 == STEPS
    # fp16 without scaling: the weight gradients flush to zero; only the biases (whose
    # gradients are fp32 reductions) move, which is worth little more than chance.
    assert moved16 == [False, False] and gs16 == STEPS
    assert acc16 < 0.3
    # fp16 with dynamic loss scaling: the first steps overflow and are skipped, then the
    # scale settles and training matches fp32.
    assert moved_ls == [True, True]
    assert 0 < STEPS - gs_ls < 20
    assert 2.0 ** 26 <= scale < 2.0 ** 50
    assert abs(acc_ls - acc32) <= 0.01

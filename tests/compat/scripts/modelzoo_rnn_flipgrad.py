"""ModelZoo-style (written for this project): a sequence classifier on the adapter's
fused DynamicRNN, with a gradient-reversal domain head (RegisterGradient +
gradient_override_map), NPULossScaleOptimizer with an exponential loss-scale manager,
npu_init helpers and set_iteration_per_loop, trained with sess.run on ids kept in a float
array (as the ModelZoo LSTM sentiment script keeps them)."""
import argparse
import os

import numpy as np
import tensorflow as tf
from npu_bridge.estimator.npu.npu_dynamic_rnn import DynamicRNN
from npu_bridge.npu_init import *  # noqa: F401,F403
from tensorflow.python.framework import ops

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=60)
parser.add_argument("--loop", type=int, default=3)
parser.add_argument("--out", default="./ckpt_rnn")
args = parser.parse_args()

VOCAB, T, B, H = 20, 6, 16, 8
rng = np.random.RandomState(7)


@ops.RegisterGradient("ReverseGrad")
def _reverse(op, grad):
    return [tf.negative(grad)]


def batch():
    ids = np.zeros([B, T])                           # float64 ids, as the zoo script has
    labels = rng.randint(0, 2, B)
    for b in range(B):
        low = 0 if labels[b] else VOCAB // 2
        ids[b] = rng.randint(low, low + VOCAB // 2, T)
    return ids, np.eye(2)[labels], np.eye(2)[rng.randint(0, 2, B)]


ids_ph = tf.placeholder(tf.int32, [B, T])
label_ph = tf.placeholder(tf.float32, [B, 2])
domain_ph = tf.placeholder(tf.float32, [B, 2])
emb = tf.get_variable("emb", [VOCAB, 5])
x = tf.transpose(tf.nn.embedding_lookup(emb, ids_ph), [1, 0, 2])   # time-major
y, out_h, out_c, i, j, f, o, tanhc = DynamicRNN(hidden_size=H, dtype=tf.float32,
                                                  forget_bias=1.0)(x)
last = tf.gather(y, T - 1)
logits = tf.layers.dense(last, 2, name="cls")
with tf.get_default_graph().gradient_override_map({"Identity": "ReverseGrad"}):
    reversed_feat = tf.identity(last)
domain_logits = tf.layers.dense(reversed_feat, 2, name="domain")
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=label_ph,
                                                                 logits=logits))
domain_loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
    labels=domain_ph, logits=domain_logits))
acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(label_ph, 1)),
                             tf.float32))
global_step = tf.train.get_or_create_global_step()
manager = ExponentialUpdateLossScaleManager(init_loss_scale=2 ** 10, incr_every_n_steps=20,
                                            decr_every_n_nan_or_inf=2, decr_ratio=0.5)
opt = NPULossScaleOptimizer(npu_tf_optimizer(tf.train.AdamOptimizer(0.05)), manager)
train_op = opt.minimize(loss + 0.1 * domain_loss, global_step=global_step)

# the gradient reversal: the domain head's gradient reaches the RNN output negated
g_plain, = tf.gradients(domain_loss, [last])
g_rev, = tf.gradients(domain_loss, [reversed_feat])

config = npu_config_proto(config_proto=tf.ConfigProto())
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    loop_op = util.set_iteration_per_loop(sess, train_op, args.loop)
    ids, lab, dom = batch()
    feed = {ids_ph: ids, label_ph: lab, domain_ph: dom}
    gp, gr = sess.run([g_plain, g_rev], feed)
    print("reversed gradient:", bool(np.allclose(gp, -gr)))
    gates = sess.run([i, f, o], feed)
    print("gates in (0, 1):", all(((g > 0) & (g < 1)).all() for g in gates))
    for step in range(0, args.steps, args.loop):
        ids, lab, dom = batch()
        _, lv, av = sess.run([loop_op, loss, acc], {ids_ph: ids, label_ph: lab,
                                                     domain_ph: dom})
        if step % 15 == 0:
            print("step %d loss %.4f acc %.3f" % (step, lv, av))
    ids, lab, dom = batch()
    final = sess.run(acc, {ids_ph: ids, label_ph: lab, domain_ph: dom})
    print("FINAL global_step=%d acc=%.3f loss_scale=%g" % (
        sess.run(global_step), final, sess.run(manager.get_loss_scale())))
    os.makedirs(args.out, exist_ok=True)
    print("saved", tf.train.Saver().save(sess, os.path.join(args.out, "rnn.ckpt")))

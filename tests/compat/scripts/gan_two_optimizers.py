"""A small GAN: a generator and a discriminator trained by two optimizers, each with its
own var_list collected by variable scope."""
import numpy as np
import tensorflow as tf

tf.app.flags.DEFINE_integer("iters", 60, "training iterations")
FLAGS = tf.app.flags.FLAGS


def generator(z):
    with tf.variable_scope("generator"):
        h = tf.layers.dense(z, 16, activation=tf.nn.relu)
        return tf.layers.dense(h, 2)


def discriminator(x, reuse=False):
    with tf.variable_scope("discriminator", reuse=reuse):
        h = tf.layers.dense(x, 16, activation=tf.nn.relu)
        return tf.layers.dense(h, 1)


def main(_):
    tf.set_random_seed(1)
    real = tf.placeholder(tf.float32, [None, 2])
    z = tf.placeholder(tf.float32, [None, 4])
    fake = generator(z)
    d_real = discriminator(real)
    d_fake = discriminator(fake, reuse=True)
    d_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        logits=d_real, labels=tf.ones_like(d_real))) + tf.reduce_mean(
        tf.nn.sigmoid_cross_entropy_with_logits(logits=d_fake, labels=tf.zeros_like(d_fake)))
    g_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        logits=d_fake, labels=tf.ones_like(d_fake)))
    t_vars = tf.trainable_variables()
    d_vars = [v for v in t_vars if v.name.startswith("discriminator")]
    g_vars = [v for v in t_vars if v.name.startswith("generator")]
    d_opt = tf.train.AdamOptimizer(1e-3, beta1=0.5).minimize(d_loss, var_list=d_vars)
    g_opt = tf.train.AdamOptimizer(1e-3, beta1=0.5).minimize(g_loss, var_list=g_vars)
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g_before = sess.run(g_vars)
        d_before = sess.run(d_vars)
        d_only = sess.run(d_vars[0])
        sess.run(d_opt, {real: rng.randn(8, 2) + 3, z: rng.randn(8, 4)})
        print("d step moves g:", any(np.any(a != b) for a, b in zip(g_before, sess.run(g_vars))))
        print("d step moves d:", bool(np.any(d_only != sess.run(d_vars[0]))))
        for it in range(FLAGS.iters):
            feed = {real: rng.randn(16, 2) * 0.5 + 3, z: rng.randn(16, 4)}
            _, dl = sess.run([d_opt, d_loss], feed)
            _, gl = sess.run([g_opt, g_loss], feed)
            if it % 20 == 0:
                print("iter %d d_loss %.4f g_loss %.4f" % (it, dl, gl))
        samples = sess.run(fake, {z: rng.randn(200, 4)})
        print("vars d=%d g=%d" % (len(d_before), len(g_before)))
        print("sample mean %.3f %.3f" % tuple(samples.mean(axis=0)))


if __name__ == "__main__":
    tf.app.run()

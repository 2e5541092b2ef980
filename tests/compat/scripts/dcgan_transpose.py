"""A small DCGAN in the TF1 style: the generator upsamples with tf.layers.conv2d_transpose
(and tf.nn.conv2d_transpose), the discriminator downsamples with conv2d; the two are
trained by two optimizers, each restricted to its own var_list.

Usage: dcgan_transpose.py --steps N --out_dir DIR
"""
import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_integer("steps", 20, "training steps")
flags.DEFINE_string("out_dir", "dcgan_out", "where the checkpoint goes")
FLAGS = flags.FLAGS

NOISE = 16


def generator(z, training):
    with tf.variable_scope("gen", reuse=tf.AUTO_REUSE):
        h = tf.layers.dense(z, 2 * 2 * 32)
        h = tf.reshape(h, [-1, 2, 2, 32])
        h = tf.layers.batch_normalization(h, training=training)
        h = tf.nn.relu(h)
        h = tf.layers.conv2d_transpose(h, 16, 3, strides=2, padding="same")   # 4x4
        h = tf.nn.relu(h)
        kernel = tf.get_variable("up_kernel", [3, 3, 1, 16],
                                 initializer=tf.truncated_normal_initializer(stddev=0.1))
        batch = tf.shape(h)[0]
        img = tf.nn.conv2d_transpose(h, kernel, tf.stack([batch, 8, 8, 1]),
                                     strides=[1, 2, 2, 1], padding="SAME")       # 8x8
        return tf.nn.tanh(img)


def discriminator(x):
    with tf.variable_scope("disc", reuse=tf.AUTO_REUSE):
        h = tf.layers.conv2d(x, 16, 3, strides=2, padding="same",
                             activation=tf.nn.leaky_relu)
        h = tf.layers.conv2d(h, 32, 3, strides=2, padding="same",
                             activation=tf.nn.leaky_relu)
        return tf.layers.dense(tf.layers.flatten(h), 1)


def real_batch(rng, n):
    """8x8 images: a bright square at a random place on a dark background, in [-1, 1]."""
    imgs = -np.ones((n, 8, 8, 1), np.float32)
    for i, (r, c) in enumerate(rng.randint(0, 5, size=(n, 2))):
        imgs[i, r:r + 3, c:c + 3, 0] = 1.0
    return imgs


def main(_):
    rng = np.random.RandomState(0)
    tf.set_random_seed(1)
    z = tf.placeholder(tf.float32, [None, NOISE], name="z")
    real = tf.placeholder(tf.float32, [None, 8, 8, 1], name="real")
    training = tf.placeholder_with_default(True, [], name="training")

    fake = generator(z, training)
    print("generator output", fake.get_shape())
    d_real, d_fake = discriminator(real), discriminator(fake)
    xent = tf.nn.sigmoid_cross_entropy_with_logits
    d_loss = tf.reduce_mean(xent(labels=tf.ones_like(d_real), logits=d_real)) + \
        tf.reduce_mean(xent(labels=tf.zeros_like(d_fake), logits=d_fake))
    g_loss = tf.reduce_mean(xent(labels=tf.ones_like(d_fake), logits=d_fake))

    g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="gen")
    d_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="disc")
    print("gen vars", len(g_vars), "disc vars", len(d_vars))
    print("transpose kernels", sorted(v.op.name for v in g_vars if "kernel" in v.op.name))
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS, scope="gen")):
        g_train = tf.train.AdamOptimizer(2e-3, beta1=0.5).minimize(g_loss, var_list=g_vars)
    d_train = tf.train.AdamOptimizer(2e-3, beta1=0.5).minimize(d_loss, var_list=d_vars)
    saver = tf.train.Saver()

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g_before = sess.run(g_vars)
        feed = {z: rng.uniform(-1, 1, (16, NOISE)), real: real_batch(rng, 16)}
        sess.run(d_train, feed)
        unchanged = all(np.array_equal(a, b) for a, b in zip(g_before, sess.run(g_vars)))
        print("generator unchanged by the discriminator step:", unchanged)
        for step in range(1, FLAGS.steps + 1):
            feed = {z: rng.uniform(-1, 1, (16, NOISE)), real: real_batch(rng, 16)}
            _, dl = sess.run([d_train, d_loss], feed)
            _, gl = sess.run([g_train, g_loss], feed)
            if step % 5 == 0 or step == 1:
                print("step %d: d_loss %.4f g_loss %.4f" % (step, dl, gl))
        samples = sess.run(fake, {z: rng.uniform(-1, 1, (4, NOISE)), training: False})
        print("samples", samples.shape, "in [-1, 1]:", bool(np.abs(samples).max() <= 1.0))
        tf.gfile.MakeDirs(FLAGS.out_dir)
        path = saver.save(sess, FLAGS.out_dir + "/dcgan.ckpt", global_step=FLAGS.steps)
        print("saved", path)


if __name__ == "__main__":
    tf.app.run()

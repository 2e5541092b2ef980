"""Saving into a relative folder, as many scripts do, then restoring the latest checkpoint."""
import os
import tensorflow as tf

v = tf.Variable(5.0, name="v")
inc = tf.assign_add(v, 1.0)
os.makedirs("rel_dir", exist_ok=True)
saver = tf.train.Saver(max_to_keep=2)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, 4):
        sess.run(inc)
        saver.save(sess, "rel_dir/model.ckpt", global_step=step)
print(open("rel_dir/checkpoint").read().splitlines()[0])
latest = tf.train.latest_checkpoint("rel_dir")
print("latest", latest)
with tf.Session() as sess:
    saver.restore(sess, latest)
    print("restored", sess.run(v))


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    loss = tf.square(w - 2.0) + 0.0 * tf.reduce_sum(features)
    op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=op)


est = tf.estimator.Estimator(model_fn, model_dir="rel_model")
est.train(lambda: tf.data.Dataset.from_tensors(tf.constant([1.0])).repeat(), steps=3)
print("estimator eval step", est.evaluate(lambda: tf.data.Dataset.from_tensors(
    tf.constant([1.0])), steps=1)["global_step"])

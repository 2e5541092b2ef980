"""fully_connected_feed-style training: the tutorial's mnist model module, feed dicts,
tf.gfile for the log folder, a Saver and a summary FileWriter, fake_data flag."""
import argparse
import os
import sys
import time

import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data
from tensorflow.examples.tutorials.mnist import mnist

FLAGS = None


def fill_feed_dict(data_set, images_pl, labels_pl):
    images_feed, labels_feed = data_set.next_batch(FLAGS.batch_size, FLAGS.fake_data)
    return {images_pl: images_feed, labels_pl: labels_feed}


def do_eval(sess, eval_correct, images_pl, labels_pl, data_set):
    true_count = 0
    steps_per_epoch = data_set.num_examples // FLAGS.batch_size
    num_examples = steps_per_epoch * FLAGS.batch_size
    for _ in range(steps_per_epoch):
        true_count += sess.run(eval_correct, feed_dict=fill_feed_dict(data_set, images_pl,
                                                                      labels_pl))
    print("Num examples: %d  Num correct: %d  Precision @ 1: %0.04f"
          % (num_examples, true_count, float(true_count) / num_examples))


def run_training():
    data_sets = input_data.read_data_sets(FLAGS.input_data_dir, FLAGS.fake_data)
    with tf.Graph().as_default():
        images_pl = tf.placeholder(tf.float32, shape=(FLAGS.batch_size, mnist.IMAGE_PIXELS))
        labels_pl = tf.placeholder(tf.int32, shape=(FLAGS.batch_size,))
        logits = mnist.inference(images_pl, FLAGS.hidden1, FLAGS.hidden2)
        loss = mnist.loss(logits, labels_pl)
        train_op = mnist.training(loss, FLAGS.learning_rate)
        eval_correct = mnist.evaluation(logits, labels_pl)
        summary = tf.summary.merge_all()
        init = tf.global_variables_initializer()
        saver = tf.train.Saver()
        sess = tf.Session()
        summary_writer = tf.summary.FileWriter(FLAGS.log_dir, sess.graph)
        sess.run(init)
        for step in range(FLAGS.max_steps):
            start_time = time.time()
            _, loss_value = sess.run([train_op, loss],
                                     feed_dict=fill_feed_dict(data_sets.train, images_pl,
                                                              labels_pl))
            duration = time.time() - start_time
            if step % 10 == 0:
                print("Step %d: loss = %.2f (%.3f sec)" % (step, loss_value, duration))
                summary_str = sess.run(summary, feed_dict=fill_feed_dict(
                    data_sets.train, images_pl, labels_pl))
                summary_writer.add_summary(summary_str, step)
                summary_writer.flush()
            if (step + 1) == FLAGS.max_steps:
                checkpoint_file = os.path.join(FLAGS.log_dir, "model.ckpt")
                saver.save(sess, checkpoint_file, global_step=step)
                print("Training Data Eval:")
                do_eval(sess, eval_correct, images_pl, labels_pl, data_sets.train)
                print("Test Data Eval:")
                do_eval(sess, eval_correct, images_pl, labels_pl, data_sets.test)


def main(_):
    if tf.gfile.Exists(FLAGS.log_dir):
        tf.gfile.DeleteRecursively(FLAGS.log_dir)
    tf.gfile.MakeDirs(FLAGS.log_dir)
    run_training()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--learning_rate", type=float, default=0.05)
    parser.add_argument("--max_steps", type=int, default=30)
    parser.add_argument("--hidden1", type=int, default=32)
    parser.add_argument("--hidden2", type=int, default=16)
    parser.add_argument("--batch_size", type=int, default=50)
    parser.add_argument("--input_data_dir", type=str, default="/tmp/mnist")
    parser.add_argument("--log_dir", type=str, default="logs")
    parser.add_argument("--fake_data", default=False, action="store_true")
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)

"""A CIFAR-10-tutorial-style script (written for these tests): binary records read with a
FixedLengthRecordReader from a filename queue, distorted, batched by shuffle_batch and
trained in a MonitoredTrainingSession; then one evaluation epoch through tf.train.batch
with a Coordinator and start_queue_runners, ending at the end of the epoch."""
import os

import numpy as np
import tensorflow as tf

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_string("data_dir", "/tmp/cifar_q_data", "where the binary files go")
tf.app.flags.DEFINE_string("train_dir", "/tmp/cifar_q_train", "checkpoints")
tf.app.flags.DEFINE_integer("max_steps", 60, "training steps")
tf.app.flags.DEFINE_integer("batch_size", 16, "batch size")

SIZE = 8
LABEL_BYTES = 1
IMAGE_BYTES = SIZE * SIZE * 3
RECORDS_PER_FILE = 150


def write_files(data_dir):
    """Two data files: one label byte, then the image depth-major (R plane, G, B)."""
    rng = np.random.RandomState(1)
    tf.gfile.MakeDirs(data_dir)
    names = []
    for i in range(2):
        labels = rng.randint(0, 2, RECORDS_PER_FILE).astype(np.uint8)
        images = rng.randint(0, 100, (RECORDS_PER_FILE, 3, SIZE, SIZE)).astype(np.uint8)
        images[labels == 1, 0] += 120     # class 1: a bright red plane
        name = os.path.join(data_dir, "data_batch_%d.bin" % (i + 1))
        with open(name, "wb") as f:
            for label, image in zip(labels, images):
                f.write(bytes([label]) + image.tobytes())
        names.append(name)
    return names


def read_record(filename_queue):
    reader = tf.FixedLengthRecordReader(record_bytes=LABEL_BYTES + IMAGE_BYTES)
    key, value = reader.read(filename_queue)
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(record, [0], [LABEL_BYTES]), tf.int32)
    depth_major = tf.reshape(tf.strided_slice(record, [LABEL_BYTES], [LABEL_BYTES + IMAGE_BYTES]),
                             [3, SIZE, SIZE])
    image = tf.cast(tf.transpose(depth_major, [1, 2, 0]), tf.float32)
    label.set_shape([1])
    return image, label


def distorted_inputs(filenames):
    filename_queue = tf.train.string_input_producer(filenames)
    image, label = read_record(filename_queue)
    image = tf.image.random_flip_left_right(image)
    image = tf.image.per_image_standardization(image)
    image.set_shape([SIZE, SIZE, 3])
    images, labels = tf.train.shuffle_batch([image, label], batch_size=FLAGS.batch_size,
                                            num_threads=2, capacity=200,
                                            min_after_dequeue=100)
    return images, tf.reshape(labels, [FLAGS.batch_size])


def eval_inputs(filenames):
    filename_queue = tf.train.string_input_producer(filenames, num_epochs=1, shuffle=False)
    image, label = read_record(filename_queue)
    image = tf.image.per_image_standardization(image)
    image.set_shape([SIZE, SIZE, 3])
    return tf.train.batch([image, label], batch_size=FLAGS.batch_size,
                          allow_smaller_final_batch=True)


def inference(images):
    with tf.variable_scope("conv1", reuse=tf.AUTO_REUSE):
        kernel = tf.get_variable("weights", [3, 3, 3, 8],
                                 initializer=tf.truncated_normal_initializer(stddev=0.1))
        conv = tf.nn.relu(tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME"))
    pool = tf.nn.max_pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    flat = tf.reshape(pool, [-1, 4 * 4 * 8])
    with tf.variable_scope("logits", reuse=tf.AUTO_REUSE):
        w = tf.get_variable("weights", [4 * 4 * 8, 2],
                            initializer=tf.truncated_normal_initializer(stddev=0.1))
        b = tf.get_variable("biases", [2], initializer=tf.zeros_initializer())
    return tf.matmul(flat, w) + b


class LoggerHook(tf.train.SessionRunHook):
    def begin(self):
        self.step = 0

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(LOSS)

    def after_run(self, run_context, run_values):
        self.step += 1
        if self.step % 20 == 0:
            print("step %d loss %.4f" % (self.step, run_values.results))


def main(argv=None):
    global LOSS
    filenames = write_files(FLAGS.data_dir)
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        images, labels = distorted_inputs(filenames)
        logits = inference(images)
        LOSS = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(LOSS, global_step=global_step)
        print("queue runners:", len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)))
        print("batch shape:", images.get_shape().as_list())
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=FLAGS.train_dir,
                hooks=[tf.train.StopAtStepHook(last_step=FLAGS.max_steps),
                       tf.train.NanTensorHook(LOSS), LoggerHook()],
                save_checkpoint_secs=None, save_checkpoint_steps=FLAGS.max_steps,
                save_summaries_steps=None, log_step_count_steps=None) as mon_sess:
            while not mon_sess.should_stop():
                mon_sess.run(train_op)

    with tf.Graph().as_default():
        images, labels = eval_inputs(filenames)
        print("eval batch shape:", images.get_shape().as_list())
        logits = inference(images)
        correct = tf.nn.in_top_k(logits, tf.reshape(labels, [-1]), 1)
        saver = tf.train.Saver(tf.trainable_variables())
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(FLAGS.train_dir))
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            count = right = batches = 0
            try:
                while not coord.should_stop():
                    c = sess.run(correct)
                    count += c.size
                    right += int(np.sum(c))
                    batches += 1
            except tf.errors.OutOfRangeError:
                print("end of epoch")
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
            print("eval examples: %d in %d batches" % (count, batches))
            print("eval accuracy: %.3f" % (right / float(count)))


if __name__ == "__main__":
    tf.app.run()

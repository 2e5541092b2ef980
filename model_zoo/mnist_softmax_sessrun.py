"""The seed's ``sess.run`` script with ``set_iteration_per_loop``: only the imports (and the
data source: the bundled digits, in MNIST's shape, or ``--data_dir``; the flags below; the
test accuracy printed at the end) differ from the adapter's documentation.

    ASCEND_GLOBAL_LOG_LEVEL=1 python -m model_zoo.mnist_softmax_sessrun 2>&1 | grep "Insert op"
    python -m model_zoo.mnist_softmax_sessrun --epochs 3 --iterations_per_loop 5 --data_dir ~/mnist
"""
from __future__ import print_function
from estimator_npu.datasets import digits as input_data
from estimator_npu.npu import util
from estimator_npu.core.protobuf.rewriter_config_pb2 import RewriterConfig
import argparse
parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--data_dir", default=None,
                    help="a folder of MNIST IDX files (default: the bundled digits)")
parser.add_argument("--epochs", type=int, default=10, help="training epochs (default: 10)")
parser.add_argument("--iterations_per_loop", type=int, default=10,
                    help="training steps per sess.run (default: 10)")
FLAGS = parser.parse_args()
if FLAGS.epochs < 1 or FLAGS.iterations_per_loop < 1:
    parser.error("--epochs and --iterations_per_loop must be positive integers")
if FLAGS.data_dir:
    from estimator_npu.datasets import mnist as mnist_idx
    mnist = mnist_idx.read_data_sets(FLAGS.data_dir, one_hot=True)
else:
    mnist = input_data.load(one_hot=True, mnist_shape=True)
import estimator_npu as tf  # noqa: E402
# Set the model.
# Set the learning rate.
learning_rate = 0.01
# Set the number of training iterations.
training_epochs = FLAGS.epochs
# Set the batch size.
batch_size = 100
# Set the number of iterations after which the loss is displayed once.
display_step = 1
x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.float32, [None, 10])
# Set the model parameters.
W = tf.Variable(tf.zeros([784, 10]))
b = tf.Variable(tf.zeros([10]))
# Build the model.
pred = tf.nn.softmax(tf.matmul(x, W) + b)
# Define the loss function: cross entropy.
cost = tf.reduce_mean(-tf.reduce_sum(y*tf.log(pred), reduction_indices=1))
# Optimize the gradient descent.
optimizer = tf.train.GradientDescentOptimizer(learning_rate).minimize(cost)
# Test the model.
correct_prediction = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
# Initialize all variables.
init = tf.global_variables_initializer()
config = tf.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["use_off_line"].b = True  # Perform training on the Ascend AI Processor.
custom_op.parameter_map["mix_compile_mode"].b = False  # Disable the mixed computing function (disabled by default).
custom_op.parameter_map["iterations_per_loop"].i = FLAGS.iterations_per_loop  # Determine whether the training iteration is offloaded. Must be equal to iterations_per_loop of set_iteration_per_loop.
config.graph_options.rewrite_options.remapping = RewriterConfig.OFF  # Disable remapping.
# Train the model.
with tf.Session(config=config) as sess:
    sess.run(init)
    # Set the number of iterations per loop to 10 in sess.run mode.
    train_op = util.set_iteration_per_loop(sess, optimizer, FLAGS.iterations_per_loop)
    for epoch in range(training_epochs):
        avg_cost = 0
        total_batch = int(mnist.train.num_examples / batch_size)
        for i in range(total_batch):
            batch_xs, batch_ys = mnist.train.next_batch(batch_size)
            _, c = sess.run([train_op, cost], feed_dict={x: batch_xs, y: batch_ys})
            avg_cost += c / total_batch
        if (epoch + 1) % display_step == 0:
            print("Epoch:", '%04d' % (epoch + 1), "cost=", "{:.9f}".format(avg_cost))
    print("Test accuracy:", sess.run(accuracy, feed_dict={x: mnist.test.images, y: mnist.test.labels}))

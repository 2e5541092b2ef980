"""k-means on MNIST images with tf.contrib.factorization.KMeans, the way the TF1-era
example scripts use it: cosine distance, mini-batch updates, the 6-tuple of
``training_graph()``, then each centroid labelled by the majority class of its points and
the test images classified through their nearest centroid."""
import argparse
import sys

import numpy as np
import tensorflow as tf
from tensorflow.contrib.factorization import KMeans
from tensorflow.examples.tutorials.mnist import input_data

parser = argparse.ArgumentParser()
parser.add_argument("--data_dir", default="/tmp/data/")
parser.add_argument("--num_steps", type=int, default=30)
parser.add_argument("--k", type=int, default=25)
parser.add_argument("--init", default="random")
args = parser.parse_args()

mnist = input_data.read_data_sets(args.data_dir, one_hot=True)
full_data_x = mnist.train.images
num_features, num_classes = 784, 10

X = tf.placeholder(tf.float32, shape=[None, num_features])
Y = tf.placeholder(tf.float32, shape=[None, num_classes])
kmeans = KMeans(inputs=X, num_clusters=args.k, distance_metric="cosine",
                use_mini_batch=True, initial_clusters=args.init)
(all_scores, cluster_idx, scores, cluster_centers_initialized, init_op,
 train_op) = kmeans.training_graph()
cluster_idx = cluster_idx[0]
avg_distance = tf.reduce_mean(scores)
init_vars = tf.global_variables_initializer()

sess = tf.Session()
sess.run(init_vars, feed_dict={X: full_data_x})
sess.run(init_op, feed_dict={X: full_data_x})
print("initialized:", sess.run(cluster_centers_initialized))

distances = []
for i in range(1, args.num_steps + 1):
    _, d, idx = sess.run([train_op, avg_distance, cluster_idx], feed_dict={X: full_data_x})
    distances.append(d)
    if i % 10 == 0 or i == 1:
        print("Step %i, Avg Distance: %f" % (i, d))

counts = np.zeros(shape=(args.k, num_classes))
for i in range(len(idx)):
    counts[idx[i]] += mnist.train.labels[i]
labels_map = [np.argmax(c) for c in counts]
labels_map = tf.convert_to_tensor(labels_map)
cluster_label = tf.nn.embedding_lookup(labels_map, cluster_idx)
correct_prediction = tf.equal(cluster_label, tf.cast(tf.argmax(Y, 1), tf.int32))
accuracy_op = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
test_x, test_y = mnist.test.images, mnist.test.labels
print("Test Accuracy:", sess.run(accuracy_op, feed_dict={X: test_x, Y: test_y}))
sys.exit(0 if distances[-1] < distances[0] else 3)

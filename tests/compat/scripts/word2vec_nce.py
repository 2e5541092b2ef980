"""Skip-gram word vectors trained with noise-contrastive estimation, written the way the
TF1-era word2vec scripts are (embedding_lookup + tf.nn.nce_loss + plain SGD, cosine
similarity for the nearest words). The corpus is synthetic: "sentences" whose words all
come from one of a few topics, so words of a topic should end up next to each other."""
import collections
import os
import random

import numpy as np
import tensorflow as tf
from tensorflow.contrib.tensorboard.plugins import projector

flags = tf.app.flags
flags.DEFINE_integer("steps", 2001, "training steps")
flags.DEFINE_integer("batch_size", 128, "skip-gram pairs per step")
flags.DEFINE_integer("embedding_size", 32, "dimension of the word vectors")
flags.DEFINE_integer("num_sampled", 16, "negative classes sampled per batch")
flags.DEFINE_string("corpus_file", "", "text file to train on (default: a synthetic one)")
flags.DEFINE_string("save_dir", "w2v_log", "summaries, checkpoint and projector config")
FLAGS = flags.FLAGS

TOPICS = ["red green blue yellow purple orange pink brown grey white",
          "one two three four five six seven eight nine ten",
          "cat dog horse cow sheep goat mouse lion tiger bear",
          "paris london rome berlin madrid vienna prague lisbon oslo dublin",
          "run walk jump swim climb crawl dance skip hop march"]


def synthetic_corpus(n_sentences=3000, seed=0):
    rnd = random.Random(seed)
    words = []
    for _ in range(n_sentences):
        topic = rnd.choice(TOPICS).split()
        words.extend(rnd.choice(topic) for _ in range(8))
    return words


def build_dataset(words, n_words):
    count = [["UNK", -1]]
    count.extend(collections.Counter(words).most_common(n_words - 1))
    dictionary = {word: i for i, (word, _) in enumerate(count)}
    data = [dictionary.get(word, 0) for word in words]
    count[0][1] = data.count(0)
    reverse = {i: word for word, i in dictionary.items()}
    return data, count, dictionary, reverse


class Batcher(object):
    def __init__(self, data, num_skips=2, skip_window=2):
        self.data, self.num_skips, self.skip_window, self.index = data, num_skips, skip_window, 0

    def next(self, batch_size):
        span = 2 * self.skip_window + 1
        batch = np.ndarray(shape=(batch_size,), dtype=np.int32)
        labels = np.ndarray(shape=(batch_size, 1), dtype=np.int32)
        window = collections.deque(maxlen=span)
        for _ in range(span):
            window.append(self.data[self.index])
            self.index = (self.index + 1) % len(self.data)
        for i in range(batch_size // self.num_skips):
            others = [w for w in range(span) if w != self.skip_window]
            for j, target in enumerate(random.sample(others, self.num_skips)):
                batch[i * self.num_skips + j] = window[self.skip_window]
                labels[i * self.num_skips + j, 0] = window[target]
            window.append(self.data[self.index])
            self.index = (self.index + 1) % len(self.data)
        return batch, labels


def main(_):
    random.seed(1)
    if FLAGS.corpus_file:
        with tf.gfile.GFile(FLAGS.corpus_file) as f:
            words = f.read().split()
    else:
        words = synthetic_corpus()
    vocabulary_size = len(set(words)) + 1
    data, count, dictionary, reverse = build_dataset(words, vocabulary_size)
    print("Most common words (+UNK)", count[:5])
    batcher = Batcher(data)

    valid_words = ["red", "three", "dog", "rome", "swim"]
    valid_examples = np.array([dictionary[w] for w in valid_words])

    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        with tf.name_scope("inputs"):
            train_inputs = tf.placeholder(tf.int32, shape=[FLAGS.batch_size])
            train_labels = tf.placeholder(tf.int32, shape=[FLAGS.batch_size, 1])
            valid_dataset = tf.constant(valid_examples, dtype=tf.int32)

        with tf.device("/cpu:0"):
            with tf.name_scope("embeddings"):
                embeddings = tf.Variable(tf.random_uniform(
                    [vocabulary_size, FLAGS.embedding_size], -1.0, 1.0))
                embed = tf.nn.embedding_lookup(embeddings, train_inputs)
            with tf.name_scope("weights"):
                nce_weights = tf.Variable(tf.truncated_normal(
                    [vocabulary_size, FLAGS.embedding_size],
                    stddev=1.0 / np.sqrt(FLAGS.embedding_size)))
            with tf.name_scope("biases"):
                nce_biases = tf.Variable(tf.zeros([vocabulary_size]))
        with tf.name_scope("loss"):
            loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weights, biases=nce_biases,
                                                 labels=train_labels, inputs=embed,
                                                 num_sampled=FLAGS.num_sampled,
                                                 num_classes=vocabulary_size))
        tf.summary.scalar("loss", loss)
        with tf.name_scope("optimizer"):
            optimizer = tf.train.GradientDescentOptimizer(1.0).minimize(loss)

        norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
        normalized_embeddings = embeddings / norm
        valid_embeddings = tf.nn.embedding_lookup(normalized_embeddings, valid_dataset)
        similarity = tf.matmul(valid_embeddings, normalized_embeddings, transpose_b=True)
        merged = tf.summary.merge_all()
        init = tf.global_variables_initializer()
        saver = tf.train.Saver()

    with tf.Session(graph=graph) as session:
        writer = tf.summary.FileWriter(FLAGS.save_dir, session.graph)
        init.run()
        average_loss, averages = 0.0, []
        for step in range(FLAGS.steps):
            batch_inputs, batch_labels = batcher.next(FLAGS.batch_size)
            run_metadata = tf.RunMetadata()
            _, summary, loss_val = session.run(
                [optimizer, merged, loss],
                feed_dict={train_inputs: batch_inputs, train_labels: batch_labels},
                run_metadata=run_metadata)
            average_loss += loss_val
            if step % 100 == 0:
                writer.add_summary(summary, step)
            if step == FLAGS.steps - 1:
                writer.add_run_metadata(run_metadata, "step%d" % step)
            if step % 500 == 0 and step > 0:
                averages.append(average_loss / 500)
                print("Average loss at step", step, ":", averages[-1])
                average_loss = 0.0
        sim = similarity.eval()
        same_topic = 0
        for i, word in enumerate(valid_words):
            nearest = [reverse[k] for k in (-sim[i, :]).argsort()[1:5]]
            topic = [t for t in TOPICS if word in t.split()][0].split()
            same_topic += sum(w in topic for w in nearest)
            print("Nearest to %s: %s" % (word, ", ".join(nearest)))
        print("same-topic neighbours: %d of %d" % (same_topic, 4 * len(valid_words)))
        final_embeddings = normalized_embeddings.eval()
        print("final embeddings", final_embeddings.shape)
        with open(os.path.join(FLAGS.save_dir, "metadata.tsv"), "w") as f:
            for i in range(vocabulary_size):
                f.write(reverse[i] + "\n")
        saver.save(session, os.path.join(FLAGS.save_dir, "model.ckpt"))
        config = projector.ProjectorConfig()
        embedding_conf = config.embeddings.add()
        embedding_conf.tensor_name = embeddings.name
        embedding_conf.metadata_path = os.path.join(FLAGS.save_dir, "metadata.tsv")
        projector.visualize_embeddings(writer, config)
    writer.close()


if __name__ == "__main__":
    tf.app.run()

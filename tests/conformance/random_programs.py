"""Seeded TF1 programs whose random values and random-op seeds must be TF's.

Each ``build(tf)`` makes its graph in the default graph and returns ``(init, fetches,
runs)``: whether to run the variable initializer first, a dict of tensors, and how many
times to run them (later runs check that each op's generator moves on as TF's does).
``TRAIN`` programs return ``(loss, train_op, feeds)`` instead and record the losses of a
few steps. tools/record_tf_random.py records them under real TF.
"""
import numpy as np


def ops_and_dtypes(tf):
    tf.set_random_seed(1)
    return False, {
        "normal_op_seed": tf.random_normal([3, 5], seed=7),
        "uniform": tf.random_uniform([7]),
        "truncated": tf.truncated_normal([4, 4], stddev=0.1),
        "int32": tf.random_uniform([9], 0, 10, dtype=tf.int32),
        "int64": tf.random_uniform([5], -3, 1000, dtype=tf.int64),
        "range": tf.random_uniform([5], -2.0, 3.0),
        "normal64": tf.random_normal([5], 1.5, 2.0, dtype=tf.float64),
        "truncated64": tf.truncated_normal([7], dtype=tf.float64),
        "uniform64": tf.random_uniform([3], dtype=tf.float64),
        "shuffle": tf.random_shuffle(tf.range(10)),
        "shuffle_rows": tf.random_shuffle(tf.reshape(tf.range(12), [4, 3])),
        "big_truncated": tf.truncated_normal([50, 40], seed=3),
        "dropout": tf.nn.dropout(tf.ones([6, 8]), rate=0.4),
        "multinomial": tf.multinomial(tf.log([[0.1, 0.2, 0.3, 0.4], [1.0, 1.0, 1.0, 1.0]]), 7),
        "categorical": tf.random.categorical([[0.0, 2.0, -1.0]], 5, seed=9),
    }, 2


def op_seed_only(tf):
    return False, {"normal": tf.random_normal([6], seed=11),
                   "uniform": tf.random_uniform([6], seed=12),
                   "truncated": tf.truncated_normal([6], mean=1.0, stddev=0.5, seed=13)}, 2


def zero_seeds(tf):
    tf.set_random_seed(0)
    return False, {"normal": tf.random_normal([4], seed=0)}, 1


def initializers(tf):
    tf.set_random_seed(5)
    a = tf.get_variable("a", [20, 10])                      # glorot_uniform
    b = tf.get_variable("b", [8, 6], initializer=tf.truncated_normal_initializer(stddev=0.1))
    c = tf.get_variable("c", [5, 7], initializer=tf.random_normal_initializer(0.5, 2.0))
    d = tf.get_variable("d", [3, 3, 2, 4],
                        initializer=tf.variance_scaling_initializer(2.0, "fan_in"))
    e = tf.get_variable("e", [6, 4], initializer=tf.glorot_normal_initializer())
    f = tf.Variable(tf.truncated_normal([10, 3], stddev=0.1))
    return True, {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f}, 1


def layers(tf):
    tf.set_random_seed(2)
    x = tf.placeholder(tf.float32, [None, 6, 6, 1])
    h = tf.layers.conv2d(x, 3, 3, activation=tf.nn.relu)
    h = tf.layers.flatten(h)
    h = tf.layers.dense(h, 5, activation=tf.nn.relu)
    out = tf.layers.dense(h, 2)
    feed = np.linspace(-1, 1, 2 * 36, dtype=np.float32).reshape(2, 6, 6, 1)
    fetches = {v.op.name: v for v in tf.trainable_variables()}
    fetches.update({"computed_out": out, "_feed": (x, feed)})
    return True, fetches, 1


def keras_layers(tf):
    tf.set_random_seed(3)
    x = tf.placeholder(tf.float32, [None, 4])
    h = tf.keras.layers.Dense(5, activation="relu")(x)
    d = tf.keras.layers.Dropout(0.5)(h, training=True)
    out = tf.keras.layers.Dense(2)(d)
    fetches = {v.op.name: v for v in tf.trainable_variables()}
    fetches.update({"computed_out": out,
                    "_feed": (x, np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4))})
    return True, fetches, 1


def dropout_keep_prob(tf):
    tf.set_random_seed(4)
    x = tf.constant(np.linspace(-3, 3, 60, dtype=np.float32).reshape(6, 10))
    keep = tf.placeholder(tf.float32)
    return False, {"tensor_keep": tf.nn.dropout(x, keep), "number_keep": tf.nn.dropout(x, 0.7),
                   "rate": tf.nn.dropout(x, rate=0.3, noise_shape=[6, 1]),
                   "layers": tf.layers.dropout(x, 0.4, training=True),
                   "_feed": (keep, 0.7)}, 2


def _mnist_deep_like(tf):
    """The tutorial's deep CNN, small: truncated_normal weights, constant biases,
    conv/pool, dropout with a keep_prob placeholder, Adam."""
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 64])
    y_ = tf.placeholder(tf.float32, [None, 3])
    keep_prob = tf.placeholder(tf.float32)

    def weight(shape):
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1))

    def bias(shape):
        return tf.Variable(tf.constant(0.1, shape=shape))

    img = tf.reshape(x, [-1, 8, 8, 1])
    w1, b1 = weight([3, 3, 1, 4]), bias([4])
    h1 = tf.nn.relu(tf.nn.conv2d(img, w1, strides=[1, 1, 1, 1], padding="SAME") + b1)
    p1 = tf.nn.max_pool(h1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    flat = tf.reshape(p1, [-1, 4 * 4 * 4])
    w2, b2 = weight([64, 16]), bias([16])
    fc = tf.nn.relu(tf.matmul(flat, w2) + b2)
    drop = tf.nn.dropout(fc, keep_prob)
    w3, b3 = weight([16, 3]), bias([3])
    logits = tf.matmul(drop, w3) + b3
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=logits))
    train = tf.train.AdamOptimizer(1e-2).minimize(loss)
    rng = np.random.RandomState(0)
    xs = rng.rand(16, 64).astype(np.float32)
    ys = np.eye(3, dtype=np.float32)[rng.randint(0, 3, 16)]
    return loss, train, {x: xs, y_: ys, keep_prob: 0.5}


PROGRAMS = {"ops_and_dtypes": ops_and_dtypes, "op_seed_only": op_seed_only,
            "zero_seeds": zero_seeds, "initializers": initializers, "layers": layers,
            "dropout_keep_prob": dropout_keep_prob, "keras_layers": keras_layers}
TRAIN = {"mnist_deep_like": _mnist_deep_like}
TF_RANDOM_TYPES = ("RandomStandardNormal", "TruncatedNormal", "RandomUniform",
                   "RandomUniformInt", "RandomShuffle", "Multinomial")


def run_program(tf, build):
    """``(values, seeds)``: ``{name/run: array}`` and each random op's ``[seed, seed2]``
    as ``tf.Graph.as_graph_def`` writes them, in node order."""
    g = tf.Graph()
    with g.as_default():
        init, fetches, runs = build(tf)
        feed = dict([fetches.pop("_feed")]) if "_feed" in fetches else None
        values = {}
        with tf.Session() as sess:
            if init:
                sess.run(tf.global_variables_initializer())
            for r in range(runs):
                for k, v in sess.run(fetches, feed).items():
                    values[f"{k}/{r}"] = np.asarray(v)
        return values, graph_seeds(g.as_graph_def())


def graph_seeds(graph_def):
    return [[n.op, int(n.attr["seed"].i), int(n.attr["seed2"].i)] for n in graph_def.node
            if n.op in TF_RANDOM_TYPES]


def run_training(tf, build, steps=4):
    g = tf.Graph()
    with g.as_default():
        loss, train, feed = build(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [float(sess.run([loss, train], feed)[0]) for _ in range(steps)]
        return np.array(losses, np.float32), graph_seeds(g.as_graph_def())

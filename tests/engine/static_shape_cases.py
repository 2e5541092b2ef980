"""Static-shape cases shared by ``tools/record_tf_static_shapes.py`` (run under real TF to
write ``static_shapes_golden.json``) and ``test_static_shapes.py`` (run here against it).

Each case is ``name -> build(tf)`` returning ``(tensors, feed)``: the static shape of every
tensor is compared with TF's, and so is the runtime shape of each when ``feed`` is given
(``feed`` maps placeholders to numpy arrays). Only the public TF1 API is used, so the same
code runs under ``tensorflow.compat.v1`` and under ``estimator_npu``.
"""
import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _ph(tf, shape, dtype=None):
    return tf.placeholder(dtype or tf.float32, shape)


def _val(*shape, seed=0):
    return np.random.RandomState(seed).uniform(0.1, 1.0, shape).astype(np.float32)


@case
def dropout_unshaped_keep_prob(tf):
    h = _ph(tf, [None, 7])
    kp = tf.placeholder(tf.float32)
    return [tf.nn.dropout(h, kp), tf.nn.dropout(h, 0.5), tf.nn.dropout(h, rate=kp)], \
        {h: _val(3, 7), kp: 0.5}


@case
def dropout_noise_shape(tf):
    h = _ph(tf, [None, 4, 5])
    return [tf.nn.dropout(h, 0.5, noise_shape=[1, 4, 1])], {h: _val(2, 4, 5)}


@case
def expand_dims_unknown_rank(tf):
    x = _ph(tf, None)
    return [tf.expand_dims(x, -1), tf.expand_dims(x, 0), tf.expand_dims(x, 1),
            tf.expand_dims(x, -2)], {x: _val(4, 3)}


@case
def expand_dims_known(tf):
    x = _ph(tf, [None, 3])
    return [tf.expand_dims(x, -1), tf.expand_dims(x, 0), tf.expand_dims(x, -3)], \
        {x: _val(4, 3)}


@case
def reshape_minus_one(tf):
    x = _ph(tf, [None, 4, 6])
    y = _ph(tf, [2, 3, 4])
    return [tf.reshape(x, [-1, 24]), tf.reshape(x, [-1]), tf.reshape(y, [-1, 6]),
            tf.reshape(x, [2, -1, 3])], {x: _val(2, 4, 6), y: _val(2, 3, 4)}


@case
def concat_shapes(tf):
    a = _ph(tf, [None, 3])
    b = _ph(tf, [2, 3])
    c = _ph(tf, None)
    return [tf.concat([a, b], 0), tf.concat([b, b], -1), tf.concat([b, b], 1),
            tf.concat([b, c], 0), tf.concat([c, c], -1)], \
        {a: _val(1, 3), b: _val(2, 3), c: _val(2, 3)}


@case
def matmul_shapes(tf):
    a = _ph(tf, [None, 3])
    b = _ph(tf, [3, 5])
    c = _ph(tf, None)
    return [tf.matmul(a, b), tf.matmul(a, b, transpose_a=False), tf.matmul(c, b),
            tf.matmul(b, b, transpose_a=True)], {a: _val(2, 3), b: _val(3, 5), c: _val(2, 3)}


@case
def conv_and_pool_shapes(tf):
    x = _ph(tf, [None, 8, 8, 3])
    w = tf.constant(_val(3, 3, 3, 4))
    c1 = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    c2 = tf.nn.conv2d(x, w, [1, 2, 2, 1], "VALID")
    p1 = tf.nn.max_pool(c1, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    p2 = tf.nn.avg_pool(c1, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    return [c1, c2, p1, p2], {x: _val(2, 8, 8, 3)}


@case
def conv_pool_gradients_unknown_rank(tf):
    x = _ph(tf, None)
    w = _ph(tf, None)
    c = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    m = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    a = tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    gx, gw = tf.gradients(tf.reduce_sum(c), [x, w])
    gm = tf.gradients(tf.reduce_sum(m), x)[0]
    ga = tf.gradients(tf.reduce_sum(a), x)[0]
    return [c, m, a, gx, gw, gm, ga], {x: _val(2, 4, 4, 3), w: _val(3, 3, 3, 2)}


@case
def bias_add_gradient_unknown_rank(tf):
    x = _ph(tf, None)
    b = _ph(tf, None)
    y = tf.nn.bias_add(x, b)
    gx, gb = tf.gradients(tf.reduce_sum(y), [x, b])
    return [y, gx, gb], {x: _val(2, 3, 4), b: _val(4)}


@case
def slices_unknown_rank(tf):
    x = _ph(tf, None)
    return [x[:, 1:3], x[0], x[1:], x[..., 0], tf.slice(x, [0, 1], [-1, 2])], \
        {x: _val(4, 5)}


@case
def slices_known(tf):
    x = _ph(tf, [None, 5])
    return [x[:, 1:3], x[0], x[1:], x[..., 0], x[:, ::2], x[:, -1], tf.slice(x, [0, 1], [-1, 2]),
            tf.slice(x, [0, 1], [2, 2]), x[:, tf.newaxis, 1] if hasattr(tf, "newaxis")
            else x[:, None, 1]], {x: _val(4, 5)}


@case
def unstack_gradients(tf):
    x = _ph(tf, [4, 6])
    u = _ph(tf, None)
    parts = tf.unstack(x)
    g = tf.gradients(tf.add_n(parts), x)[0]
    uparts = tf.unstack(u, num=4)
    gu = tf.gradients(tf.add_n(uparts), u)[0]
    return [parts[0], g, uparts[0], gu], {x: _val(4, 6), u: _val(4, 6)}


@case
def reductions(tf):
    x = _ph(tf, [None, 3, 4])
    u = _ph(tf, None)
    return [tf.reduce_mean(x, axis=-1), tf.reduce_sum(x, axis=[0, 2], keepdims=True),
            tf.reduce_max(x), tf.reduce_mean(u, axis=-1), tf.reduce_sum(u),
            tf.reduce_mean(u, axis=1, keepdims=True), tf.argmax(x, 1)], \
        {x: _val(2, 3, 4), u: _val(2, 3, 4)}


@case
def reduce_mean_gradient_unknown_rank(tf):
    u = _ph(tf, None)
    g = tf.gradients(tf.reduce_sum(tf.reduce_mean(u, axis=-1) * 2.0), u)[0]
    g2 = tf.gradients(tf.reduce_sum(tf.reduce_mean(u, axis=[0, -1])), u)[0]
    return [g, g2], {u: _val(2, 3, 4)}


@case
def softmax_xent_gradients_unknown_shape(tf):
    logits = _ph(tf, None)
    labels = _ph(tf, None)
    ilabels = tf.placeholder(tf.int32, None)
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    sloss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ilabels, logits=logits)
    g = tf.gradients(tf.reduce_mean(loss), logits)[0]
    gs = tf.gradients(tf.reduce_mean(sloss), logits)[0]
    lab = np.eye(3, dtype=np.float32)[[0, 2, 1, 1, 0]]
    return [loss, sloss, g, gs], {logits: _val(5, 3), labels: lab,
                                  ilabels: np.array([0, 2, 1, 1, 0], np.int32)}


@case
def softmax_xent_known_batch(tf):
    logits = _ph(tf, [None, 3])
    labels = _ph(tf, [None, 3])
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    g = tf.gradients(tf.reduce_mean(loss), logits)[0]
    return [loss, g], {logits: _val(5, 3), labels: _val(5, 3)}


@case
def elementwise_broadcast(tf):
    a = _ph(tf, [None, 1, 4])
    b = _ph(tf, [3, 1])
    c = _ph(tf, None)
    return [a + b, a * 2.0, a - c, tf.maximum(a, b), tf.nn.relu(a), tf.sigmoid(c)], \
        {a: _val(2, 1, 4), b: _val(3, 1), c: _val(2, 3, 4)}


@case
def shape_ops(tf):
    x = _ph(tf, [None, 3, 4])
    u = _ph(tf, None)
    i = tf.placeholder(tf.int32, [None])
    return [tf.transpose(x), tf.transpose(x, [0, 2, 1]), tf.transpose(u), tf.squeeze(u),
            tf.tile(x, [2, 1, 1]), tf.pad(x, [[0, 0], [1, 1], [2, 2]]), tf.stack([x, x], 1),
            tf.split(x, 2, axis=2)[0], tf.split(x, [1, -1], axis=1)[1],
            tf.one_hot(i, 5)], \
        {x: _val(2, 3, 4), u: _val(2, 3, 4), i: np.array([1, 3], np.int32)}


@case
def gather_and_friends(tf):
    params = _ph(tf, [None, 5])
    ids = tf.placeholder(tf.int32, [None, 2])
    return [tf.gather(params, ids), tf.gather(params, [0, 1], axis=1),
            tf.nn.embedding_lookup(params, ids), tf.boolean_mask(params, params[:, 0] > 0.5),
            tf.where(params > 0.5)], {params: _val(4, 5), ids: np.array([[0, 1]], np.int32)}


@case
def computed_shapes(tf):
    x = _ph(tf, [None, 4, 6])
    n = tf.shape(x)[0]
    return [tf.reshape(x, [n, -1]), tf.reshape(x, tf.shape(x)), tf.zeros([n, 3]),
            tf.zeros(tf.shape(x)), tf.ones(tf.stack([n, 2])), tf.fill([n, 2], 1.5),
            tf.random_normal([n, 5]), tf.random_uniform([n, 2], 0, 3),
            tf.truncated_normal(tf.shape(x)), tf.tile(x, [n, 1, 1]),
            tf.slice(x, [0, 0, 0], [n, 2, -1]), tf.range(n),
            tf.reshape(x, tf.concat([tf.shape(x)[:1], [24]], 0)), x[:, tf.constant(1)],
            x[:, n - 1], tf.reduce_sum(x, axis=tf.constant(1)),
            tf.nn.dropout(x, 0.5, noise_shape=[n, 1, 6])], {x: _val(3, 4, 6)}


@case
def where_v1_condition_shapes(tf):
    x = _ph(tf, [3, 4])
    flag = tf.placeholder(tf.bool)
    rows = tf.placeholder(tf.bool, [None])
    same = tf.placeholder(tf.bool, [3, 4])
    a, b = _ph(tf, [None, 4]), _ph(tf, [3, None])
    return [tf.where(flag, x, -x), tf.where(rows, x, -x), tf.where(same, x, -x),
            tf.where(tf.constant([True, False, True]), x, -x), tf.where(same, a, b)], \
        {x: _val(3, 4), flag: True, rows: np.array([True, False, False]),
         same: _val(3, 4) > 0.5, a: _val(3, 4), b: _val(3, 4)}


@case
def batch_norm_bool_tensor_training(tf):
    # The statistics tf.layers.batch_normalization(training=<bool tensor>) picks.
    x = _ph(tf, [None, 4, 4, 8])
    training = tf.placeholder(tf.bool)
    m, v = tf.nn.moments(x, [0, 1, 2])
    mean = tf.where(training, m, tf.zeros([8]))
    var = tf.where(training, v, tf.ones([8]))
    y = tf.nn.batch_normalization(x, mean, var, tf.zeros([8]), tf.ones([8]), 1e-3)
    return [mean, y, tf.maximum(0.2 * y, y)], {x: _val(2, 4, 4, 8), training: True}

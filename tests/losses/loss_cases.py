"""tf.losses cases shared by ``tools/record_tf_losses.py`` (run under real TF, writes
``losses_golden.json``) and ``test_losses.py``. Each case ``build(tf)`` returns a list of
tensors (fixed inputs, no placeholders); the recorder stores their values and dtypes and the
size of the LOSSES collection afterwards."""
import numpy as np

CASES = {}
R = np.random.RandomState(1234)
LABELS = R.uniform(0, 1, (4, 3)).astype(np.float32)
PRED = R.uniform(0, 1, (4, 3)).astype(np.float32)
LOGITS = R.normal(0, 2, (4, 3)).astype(np.float32)
ONEHOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]
SPARSE = np.array([0, 2, 1, 1], np.int32)
BIN = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 0]], np.float32)
W_ROW = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)
W_FULL = np.array([[1, 0, 2], [0, 0, 0], [1, 1, 1], [3, 0, 0.5]], np.float32)
W_VEC = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
UNIT = (PRED / np.linalg.norm(PRED, axis=1, keepdims=True)).astype(np.float32)
UNIT_L = (LABELS / np.linalg.norm(LABELS, axis=1, keepdims=True)).astype(np.float32)


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _reductions(tf):
    r = tf.losses.Reduction
    return [r.NONE, r.SUM, r.MEAN, r.SUM_OVER_BATCH_SIZE, r.SUM_BY_NONZERO_WEIGHTS]


@case
def mse_reductions(tf):
    out = [tf.losses.mean_squared_error(LABELS, PRED)]
    for w in (2.0, W_ROW, W_FULL):
        for red in _reductions(tf):
            out.append(tf.losses.mean_squared_error(LABELS, PRED, weights=w, reduction=red))
    return out


@case
def absolute_difference(tf):
    return [tf.losses.absolute_difference(LABELS, PRED),
            tf.losses.absolute_difference(LABELS, PRED, W_FULL),
            tf.losses.absolute_difference(LABELS, PRED, W_ROW,
                                          reduction=tf.losses.Reduction.MEAN)]


@case
def huber(tf):
    return [tf.losses.huber_loss(LABELS * 4, PRED * 4),
            tf.losses.huber_loss(LABELS * 4, PRED * 4, delta=0.3, weights=W_ROW),
            tf.losses.huber_loss(LABELS, PRED, reduction=tf.losses.Reduction.NONE)]


@case
def log_loss(tf):
    return [tf.losses.log_loss(BIN, PRED), tf.losses.log_loss(BIN, PRED, W_FULL, epsilon=1e-3)]


@case
def hinge(tf):
    return [tf.losses.hinge_loss(BIN, LOGITS),
            tf.losses.hinge_loss(BIN, LOGITS, W_ROW, reduction=tf.losses.Reduction.SUM)]


@case
def cosine(tf):
    return [tf.losses.cosine_distance(UNIT_L, UNIT, axis=1),
            tf.losses.cosine_distance(UNIT_L, UNIT, axis=1, weights=W_ROW),
            tf.losses.cosine_distance(UNIT_L, UNIT, axis=1,
                                      reduction=tf.losses.Reduction.NONE)]


@case
def pairwise(tf):
    return [tf.losses.mean_pairwise_squared_error(LABELS, PRED),
            tf.losses.mean_pairwise_squared_error(LABELS, PRED, weights=W_ROW),
            tf.losses.mean_pairwise_squared_error(LABELS, PRED, weights=W_FULL)]


@case
def softmax_xent(tf):
    return [tf.losses.softmax_cross_entropy(ONEHOT, LOGITS),
            tf.losses.softmax_cross_entropy(ONEHOT, LOGITS, label_smoothing=0.1),
            tf.losses.softmax_cross_entropy(ONEHOT, LOGITS, weights=W_VEC),
            tf.losses.softmax_cross_entropy(ONEHOT, LOGITS, weights=W_VEC, label_smoothing=0.2,
                                            reduction=tf.losses.Reduction.NONE)]


@case
def sparse_softmax_xent(tf):
    return [tf.losses.sparse_softmax_cross_entropy(SPARSE, LOGITS),
            tf.losses.sparse_softmax_cross_entropy(SPARSE[:, None], LOGITS),
            tf.losses.sparse_softmax_cross_entropy(SPARSE, LOGITS, weights=W_VEC),
            tf.losses.sparse_softmax_cross_entropy(SPARSE, LOGITS, weights=W_ROW),
            tf.losses.sparse_softmax_cross_entropy(SPARSE, LOGITS,
                                                   reduction=tf.losses.Reduction.SUM)]


@case
def sigmoid_xent(tf):
    return [tf.losses.sigmoid_cross_entropy(BIN, LOGITS),
            tf.losses.sigmoid_cross_entropy(BIN, LOGITS, label_smoothing=0.2),
            tf.losses.sigmoid_cross_entropy(BIN, LOGITS, weights=W_FULL)]


@case
def compute_weighted(tf):
    per = tf.constant(PRED)
    return [tf.losses.compute_weighted_loss(per),
            tf.losses.compute_weighted_loss(per, W_FULL),
            tf.losses.compute_weighted_loss(per, np.zeros((4, 3), np.float32)),
            tf.losses.compute_weighted_loss(per, W_ROW, reduction=tf.losses.Reduction.MEAN),
            tf.losses.compute_weighted_loss(tf.constant(PRED.astype(np.float64)), 0.5),
            tf.losses.compute_weighted_loss(per, 1.0, loss_collection=None)]


@case
def collections_and_totals(tf):
    a = tf.losses.mean_squared_error(LABELS, PRED)
    b = tf.losses.absolute_difference(LABELS, PRED, loss_collection="other")
    tf.losses.add_loss(tf.constant(0.25))
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.constant(0.5))
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.constant(1.5))
    return [a, b, tf.losses.get_total_loss(),
            tf.losses.get_total_loss(add_regularization_losses=False),
            tf.losses.get_regularization_loss(), tf.add_n(tf.losses.get_losses()),
            tf.add_n(tf.losses.get_losses(loss_collection="other")),
            tf.add_n(tf.losses.get_regularization_losses())]


@case
def empty_regularization(tf):
    return [tf.losses.get_regularization_loss()]

"""Gradient-check cases for the sampled losses (``tf.nn.nce_loss``,
``tf.nn.sampled_softmax_loss``): gradients into the class weights, biases and inputs, with
fixed ``sampled_values`` so every run sees the same classes (the candidate-sampler and
accidental-hit ops themselves have no gradient)."""
import numpy as np

import estimator_npu as tf

CASES = []

V, D, B = 9, 3, 4
LABELS1 = np.array([[2], [5], [0], [5]], np.int64)
LABELS2 = np.array([[2, 7], [5, 1], [0, 0], [3, 8]], np.int64)
SAMPLED = np.array([5, 6, 0, 8, 4], np.int64)        # 5, 0 and 8 are accidental hits


def _values(num_true):
    r = np.random.RandomState(num_true)
    return (tf.constant(SAMPLED), tf.constant(r.uniform(0.1, 0.9, (B, num_true)), tf.float32),
            tf.constant(r.uniform(0.1, 0.9, SAMPLED.size), tf.float32))


def _inputs(rng):
    return [rng.standard_normal((V, D)), rng.standard_normal(V) * 0.3,
            rng.standard_normal((B, D))]


def _loss(fn, num_true, **kw):
    labels = LABELS1 if num_true == 1 else LABELS2

    def build(w, b, x):
        return fn(w, b, labels, x, SAMPLED.size, V, num_true=num_true,
                  sampled_values=_values(num_true), **kw)
    return build


def _sharded(fn, strategy, **kw):
    rows = np.arange(V) % 3 if strategy == "mod" else np.repeat([0, 1, 2], 3)

    def build(w, b, x):
        parts = [tf.gather(w, np.flatnonzero(rows == k)) for k in range(3)]
        return fn(parts, b, LABELS1, x, SAMPLED.size, V, sampled_values=_values(1),
                  partition_strategy=strategy, **kw)
    return build


_SHARD_SKIP = {"rank": "'mod' sharding needs shards of known static size, as TF's "
                       "placement of the ids does"}

CASES += [
    ("GatherV2", "nce_loss", _loss(tf.nn.nce_loss, 1), _inputs, {}),
    ("GatherV2", "nce_loss_num_true_2", _loss(tf.nn.nce_loss, 2), _inputs, {}),
    ("ComputeAccidentalHits", "nce_loss_remove_hits",
     _loss(tf.nn.nce_loss, 2, remove_accidental_hits=True), _inputs, {}),
    ("SoftmaxCrossEntropyWithLogits", "sampled_softmax_loss",
     _loss(tf.nn.sampled_softmax_loss, 1), _inputs, {}),
    ("SoftmaxCrossEntropyWithLogits", "sampled_softmax_num_true_2_keep_hits",
     _loss(tf.nn.sampled_softmax_loss, 2, remove_accidental_hits=False), _inputs, {}),
    ("AccidentalHitsMask", "sampled_softmax_num_true_2_remove_hits",
     _loss(tf.nn.sampled_softmax_loss, 2), _inputs, {}),
    ("ConcatV2", "nce_loss_sharded_mod", _sharded(tf.nn.nce_loss, "mod"), _inputs,
     {"unknown_shape_skip": _SHARD_SKIP}),
    ("ConcatV2", "sampled_softmax_sharded_div", _sharded(tf.nn.sampled_softmax_loss, "div"),
     _inputs, {}),
]


# tf.sparse_to_dense (TF1's sparse-to-dense of indices/values, built on scatter_nd):
# gradients into the values and the default value.
_STD_IDX = np.array([[0, 1], [2, 3], [1, 0]], np.int64)
CASES += [
    ("ScatterNd", "sparse_to_dense_values_and_default",
     lambda v, d: tf.sparse_to_dense(_STD_IDX, [3, 4], v, d),
     lambda rng: [rng.standard_normal(3), np.asarray(rng.standard_normal())], {}),
    ("ScatterNd", "sparse_to_dense_scalar_value_1d",
     lambda v: tf.sparse_to_dense([1, 4], [6], v, 0.5),
     lambda rng: [np.asarray(rng.standard_normal())], {}),
]

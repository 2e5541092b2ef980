"""Values of dynamic_partition / dynamic_stitch / sharded embedding lookups, shared by
``tools/record_tf_partition.py`` (real TF writes partition_golden.json) and
test_partition.py: each case ``build(tf)`` returns a list of tensors on fixed inputs."""
import numpy as np

CASES = {}
R = np.random.RandomState(12)
DATA = R.normal(0, 1, (6, 3)).astype(np.float32)
PARTS = np.array([2, 0, 2, 1, 0, 2], np.int32)


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _shards(sizes, width=2, seed=3):
    r = np.random.RandomState(seed)
    return [r.normal(0, 1, (n, width)).astype(np.float32) for n in sizes]


@case
def partition_rows(tf):
    return tf.dynamic_partition(DATA, PARTS, 4)


@case
def partition_2d_partitions(tf):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    return tf.dynamic_partition(x, np.array([[1, 0, 1], [0, 0, 1]], np.int32), 2)


@case
def partition_scalars(tf):
    return tf.dynamic_partition(np.arange(5, dtype=np.int64), np.array([1, 1, 0, 1, 0],
                                                                        np.int32), 2)


@case
def stitch(tf):
    # (rows no index names hold zeros here; TF leaves them uninitialized: not compared)
    return [tf.dynamic_stitch([[0, 2], [[1], [3]]], [[[1., 2.], [3., 4.]],
                                                       [[[5., 6.]], [[7., 8.]]]]),
            tf.dynamic_stitch([[0, 1], [1, 2]], [[1., 2.], [3., 4.]]),
            tf.dynamic_stitch([[1, 0]], [[1, 2]]),
            tf.dynamic_stitch([[2, 0], [1]], [[1., 2.], [3.]])]


@case
def partition_then_stitch(tf):
    parts = tf.dynamic_partition(DATA, PARTS, 3)
    where = tf.dynamic_partition(tf.range(6), PARTS, 3)
    return [tf.dynamic_stitch(where, parts)]


def _ids():
    return np.array([[0, 5, 9], [10, 3, 7]], np.int64)


@case
def embedding_mod(tf):
    return [tf.nn.embedding_lookup(_shards([4, 4, 3]), _ids()),
            tf.nn.embedding_lookup(_shards([4, 4, 3]), _ids(), partition_strategy="mod",
                                   max_norm=0.8)]


@case
def embedding_div(tf):
    return [tf.nn.embedding_lookup(_shards([4, 4, 3]), _ids(), partition_strategy="div"),
            tf.nn.embedding_lookup(_shards([4, 4, 3]), _ids(), partition_strategy="div",
                                   max_norm=0.8),
            tf.nn.embedding_lookup(_shards([6, 5]), np.array([0, 5, 6, 10], np.int32),
                                   partition_strategy="div")]


@case
def embedding_single_max_norm(tf):
    table = _shards([7], width=3)[0]
    return [tf.nn.embedding_lookup(table, np.array([[1, 2], [6, 1]], np.int32), max_norm=1.0),
            tf.nn.embedding_lookup([table], np.array([3, 0], np.int32))]


@case
def embedding_variables(tf):
    shards = [tf.Variable(s) for s in _shards([3, 3, 2], width=4)]
    return [tf.nn.embedding_lookup(shards, np.array([7, 0, 4, 4], np.int32)),
            tf.nn.embedding_lookup(shards, np.array([7, 0, 4, 4], np.int32),
                                   partition_strategy="div")]


@case
def embedding_sparse_sharded(tf):
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]],
                          np.array([1, 9, 4, 0, 10, 6], np.int64), [3, 3])
    wts = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]],
                          np.array([1., 2., .5, 1., 3., 1.], np.float32), [3, 3])
    shards = _shards([4, 4, 3], width=3, seed=9)
    out = []
    for strategy in ("mod", "div"):
        for combiner in ("sum", "mean", "sqrtn"):
            out.append(tf.nn.embedding_lookup_sparse(shards, ids, wts, strategy,
                                                     combiner=combiner))
        out.append(tf.nn.embedding_lookup_sparse(shards, ids, None, strategy,
                                                 combiner="mean", max_norm=0.7))
    return out


@case
def embedding_gradients(tf):
    shards = [tf.constant(s) for s in _shards([3, 3, 2], width=2, seed=5)]
    ids = np.array([[7, 0], [4, 4]], np.int32)
    out = []
    for strategy in ("mod", "div"):
        emb = tf.nn.embedding_lookup(shards, ids, partition_strategy=strategy)
        loss = tf.reduce_sum(emb * emb * np.arange(1., 5.).reshape(2, 2, 1).astype(np.float32))
        out += [tf.convert_to_tensor(g) for g in tf.gradients(loss, shards)]
    return out

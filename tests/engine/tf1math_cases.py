"""Values and static shapes of the ``estimator_npu.math_ops_extra`` ops (and the TF1 names
around them), shared by ``tools/record_tf1math.py`` (real TF 2.15 writes
``tf1math_golden.json``) and ``test_tf1math_values.py`` (checked here against it).

Each case ``build(tf) -> (tensors, feed)`` uses only the public TF1 API, so the same code runs
under ``tensorflow.compat.v1`` and ``estimator_npu``; ``feed`` maps placeholders to arrays.
The static shape of every tensor (as TF1 infers it, before running) is recorded too."""
import numpy as np

CASES = {}
R = np.random.RandomState(12)
X = R.uniform(-0.9, 0.9, (2, 3)).astype(np.float32)
POS = R.uniform(1.1, 4.0, (2, 3)).astype(np.float32)


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def trig_and_hyperbolic(tf):
    ph = tf.placeholder(tf.float32, [None, 3])
    out = [f(ph) for f in (tf.acos, tf.asin, tf.atan, tf.tan, tf.sinh, tf.cosh, tf.asinh,
                           tf.atanh, tf.math.expm1, tf.math.erf, tf.math.erfc)]
    return out + [tf.acosh(POS), tf.atan2(ph, POS), tf.math.atan2(X, -POS)], {ph: X}


@case
def special_functions(tf):
    x = np.array([0.3, 1.0, 2.5, 7.0, -0.5, -2.5, 0.0, -1.0], np.float64)
    u = tf.placeholder(tf.float64, None)
    return [tf.lgamma(u), tf.digamma(u), tf.math.polygamma(np.float64(1), x[:6]),
            tf.math.polygamma(np.float64(2), x[:6]), tf.math.polygamma(np.float64(0), x),
            tf.math.zeta(np.array([2.0, 3.0, 1.0, 0.5]), np.array([0.5, 2.0, 1.0, 1.0])),
            tf.lgamma(POS), tf.math.digamma(POS)], {u: x}


@case
def division_variants(tf):
    a = np.array([-7, 7, -7, 6], np.int32)
    b = np.array([2, -2, -2, 3], np.int32)
    fa = np.array([-7.5, 7.0, 0.0, 2.0], np.float32)
    fb = np.array([2.0, -2.0, 0.0, 0.0], np.float32)
    return [tf.truncatediv(a, b), tf.truncatemod(a, b), tf.truncatediv(fa, fa - 0.5 + fb),
            tf.truncatemod(fa, np.float32(2)), tf.floor_div(a, b), tf.realdiv(fa, fa + 1.0),
            tf.math.divide_no_nan(fa, fb), tf.math.multiply_no_nan(fa, fb),
            tf.math.xlogy(np.array([0.0, 0.0, 1.5], np.float32),
                          np.array([0.0, 2.0, 2.0], np.float32)),
            tf.math.xdivy(np.array([0.0, 0.0, 1.5], np.float32),
                          np.array([0.0, 2.0, 4.0], np.float32)),
            tf.math.reciprocal_no_nan(fb + fa)], {}


@case
def rounding_logic_and_counts(tf):
    v = tf.placeholder(tf.int32, [None])
    return [tf.rint(np.array([0.5, 1.5, 2.5, -0.5, -1.7], np.float32)),
            tf.logical_xor(np.array([True, True, False, False]),
                           np.array([True, False, True, False])),
            tf.math.is_non_decreasing([1, 1, 2]), tf.is_strictly_increasing([1, 1, 2]),
            tf.math.is_strictly_increasing(np.zeros([0], np.float32)),
            tf.is_non_decreasing(np.array([[1, 2], [0, 3]])),
            tf.bincount(v), tf.math.bincount(v, minlength=7),
            tf.bincount(v, weights=np.arange(5, dtype=np.float32), maxlength=3),
            tf.accumulate_n([X, X, POS]), tf.math.accumulate_n([X]),
            tf.log_sigmoid(np.array([-100.0, 0.0, 100.0], np.float32)),
            tf.math.cumulative_logsumexp(X, axis=1),
            tf.math.cumulative_logsumexp(X, axis=0, reverse=True),
            tf.math.cumulative_logsumexp(X[0], exclusive=True)], \
        {v: np.array([1, 1, 3, 0, 4], np.int32)}


IMG = R.normal(0, 1, (2, 4, 6, 3)).astype(np.float32)
SEQ = np.array([[3.0, 1.0, 2.0, 1.0, 5.0], [0.0, -1.0, 4.0, 4.0, 2.0]], np.float32)


@case
def sort_roll_repeat(tf):
    u = tf.placeholder(tf.float32, None)
    b = tf.placeholder(tf.float32, [None, 5])
    return [tf.sort(SEQ), tf.sort(b, direction="DESCENDING"), tf.sort(SEQ, axis=0),
            tf.argsort(SEQ), tf.argsort(b, direction="DESCENDING"), tf.argsort(SEQ, axis=0),
            tf.sort(u), tf.roll(SEQ, 2, 1), tf.roll(b, [1, -2], [0, 1]), tf.roll(u, 1, 0),
            tf.repeat(SEQ, 2, axis=1), tf.repeat(b, [1, 0], axis=0), tf.repeat(SEQ, 3),
            tf.repeat(u, 2)], {u: SEQ, b: SEQ}


@case
def grids_and_searches(tf):
    n = tf.placeholder(tf.float32, [None])
    return [*tf.meshgrid(np.arange(3.0, dtype=np.float32), np.arange(2.0, dtype=np.float32)),
            *tf.meshgrid([1, 2], [3, 4, 5], [6, 7], indexing="ij"),
            *tf.meshgrid(n, np.arange(2.0, dtype=np.float32)),
            tf.linspace(0.0, 1.0, 5), tf.lin_space(np.float64(-2.0), np.float64(2.0), 4),
            tf.searchsorted([[1, 3, 5, 7], [2, 4, 6, 8]], [[0, 5], [4, 9]]),
            tf.searchsorted([1.0, 3.0, 3.0, 7.0], [3.0, 3.5], side="right"),
            tf.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 4.9], [0.0, 5.0], nbins=5),
            tf.histogram_fixed_width_bins(n, [0.0, 5.0], nbins=5),
            *tf.setdiff1d([1, 2, 3, 4, 5, 6], [1, 3, 5]),
            tf.invert_permutation([2, 0, 3, 1]),
            tf.unravel_index([5, 7, 0], [3, 4]), tf.unravel_index(7, [2, 4]),
            tf.batch_gather(IMG[:, 0], [[1, 0, 3], [5, 5, 0]])], \
        {n: np.array([-1.0, 0.0, 1.5, 4.9], np.float32)}


@case
def space_and_depth(tf):
    ph = tf.placeholder(tf.float32, [None, 4, 6, 3])
    d = tf.space_to_depth(IMG, 2)
    return [d, tf.depth_to_space(d, 2), tf.nn.space_to_depth(ph, 2),
            tf.space_to_batch_nd(IMG, [2, 3], [[0, 0], [0, 0]]),
            tf.space_to_batch_nd(ph, [2, 2], [[1, 1], [0, 2]]),
            tf.space_to_batch(IMG, [[0, 0], [1, 1]], block_size=2),
            tf.batch_to_space_nd(tf.space_to_batch_nd(IMG, [2, 2], [[1, 1], [0, 2]]), [2, 2],
                                 [[1, 1], [0, 2]]),
            tf.batch_to_space(IMG, [[0, 1], [1, 0]], block_size=1),
            tf.nn.depth_to_space(tf.space_to_depth(ph, 2), 2),
            tf.space_to_batch_nd(IMG[:, :, 0], [2], [[0, 0]])], {ph: IMG}


@case
def image_patches(tf):
    ph = tf.placeholder(tf.float32, [None, None, None, 3])
    return [tf.extract_image_patches(IMG, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
            tf.extract_image_patches(IMG, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME"),
            tf.image.extract_patches(IMG, [1, 2, 3, 1], [1, 1, 2, 1], [1, 2, 1, 1], "SAME"),
            tf.image.extract_image_patches(ph, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1],
                                           "VALID")], {ph: IMG}


@case
def tensor_utilities(tf):
    ph = tf.placeholder(tf.float32, [None, 3])
    un = tf.placeholder(tf.float32, None)
    big = np.array([-3e9, -5.0, 300.0, 7e9], np.float64)
    return [*tf.identity_n([X, POS]), *tf.shape_n([X, ph]), tf.ensure_shape(un, [None, 3]),
            tf.ensure_shape(ph, [2, 3]), tf.parallel_stack([X, POS]),
            tf.broadcast_dynamic_shape(tf.shape(ph), [4, 1, 3]),
            tf.to_double(X), tf.saturate_cast(big, tf.int32), tf.saturate_cast(big, tf.uint8),
            tf.saturate_cast(np.array([-1, 300], np.int32), tf.uint8),
            tf.reverse_v2(SEQ, [1]), tf.clip_by_average_norm(SEQ, 0.1),
            tf.clip_by_average_norm(X, 10.0)], {ph: X, un: X}


DATA = R.normal(0, 1, (6, 2)).astype(np.float32)
DATA[3] = DATA[2]     # a tie for max/min
DATA[4, 0] = 0.0      # a zero for prod


@case
def segment_reductions(tf):
    ids = np.array([0, 0, 2, 2, 2, 4], np.int32)
    uids = np.array([3, -1, 0, 3, 0, 1], np.int32)
    d = tf.placeholder(tf.float32, [None, 2])
    out = [f(d, ids) for f in (tf.segment_max, tf.segment_min, tf.segment_mean,
                               tf.segment_prod, tf.math.segment_max)]
    out += [f(d, uids, 5) for f in (tf.unsorted_segment_max, tf.unsorted_segment_min,
                                    tf.unsorted_segment_mean, tf.unsorted_segment_prod,
                                    tf.unsorted_segment_sqrt_n, tf.math.unsorted_segment_min)]
    out += [tf.unsorted_segment_max(DATA, uids, tf.constant(4)),
            tf.segment_max(DATA, ids), tf.segment_prod(DATA, ids)]
    idx = np.array([0, 3, 3, 5], np.int32)
    sids = np.array([0, 0, 1, 3], np.int32)
    out += [tf.sparse_segment_sum(DATA, idx, sids), tf.sparse_segment_mean(DATA, idx, sids),
            tf.sparse_segment_sqrt_n(DATA, idx, sids),
            tf.sparse_segment_sum(d, idx, sids, num_segments=5),
            tf.sparse.segment_mean(DATA, idx, sids, num_segments=6),
            tf.sparse.segment_sqrt_n(d, idx, sids), tf.sparse.segment_sum(d, idx, sids)]
    return out, {d: DATA}


@case
def tensor_scatters(tf):
    t = tf.placeholder(tf.float32, [None, 3])
    base = np.arange(12, dtype=np.float32).reshape(4, 3)
    i1 = np.array([[1], [3]], np.int32)
    u1 = np.array([[9.0, -1.0, 4.5], [0.0, 20.0, 11.0]], np.float32)
    i2 = np.array([[0, 1], [2, 2], [0, 1]], np.int32)
    u2 = np.array([5.0, -3.0, 2.0], np.float32)
    return [tf.tensor_scatter_nd_update(t, i1, u1), tf.tensor_scatter_nd_add(t, i2, u2),
            tf.tensor_scatter_nd_sub(base, i2, u2), tf.tensor_scatter_nd_max(t, i1, u1),
            tf.tensor_scatter_nd_min(base, i1, u1), tf.tensor_scatter_update(base, i1, u1),
            tf.tensor_scatter_add(base, i1, u1), tf.tensor_scatter_sub(t, i1, u1)], {t: base}


@case
def variable_scatters(tf):
    def var(name):
        return tf.Variable(np.arange(1.0, 13.0, dtype=np.float32).reshape(4, 3), name=name)
    i = np.array([1, 3, 1], np.int32)
    u = np.array([[2.0, 0.5, 3.0], [4.0, 1.0, -2.0], [2.0, 2.0, 1.0]], np.float32)
    ind = np.array([[0, 1], [3, 2], [0, 1]], np.int32)
    nd_u = np.array([10.0, -5.0, 1.0], np.float32)
    outs = [tf.scatter_mul(var("a"), i, u), tf.scatter_div(var("b"), i, u),
            tf.scatter_max(var("c"), i, u + 4.0), tf.scatter_min(var("d"), i, u + 4.0),
            tf.scatter_nd_add(var("e"), ind, nd_u), tf.scatter_nd_sub(var("f"), ind, nd_u),
            tf.scatter_nd_update(var("g"), np.array([[2], [0]], np.int32),
                                 np.array([[7.0, 7.0, 7.0], [8.0, 8.0, 8.0]], np.float32))]
    return outs, {}


def _lookup_ops(tf):
    """``tf.contrib.lookup`` here; TF 2.15 keeps the same builders in lookup_ops."""
    contrib = getattr(tf, "contrib", None)
    if contrib is not None:
        return contrib.lookup
    from tensorflow.python.ops import lookup_ops
    return lookup_ops


def _vocab_file():
    import os
    import tempfile
    path = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    with open(path, "w") as f:
        f.write("cat\t7\ndog\t9\nemu\t11\nfox\t13\n")
    return path


@case
def lookup_tables(tf):
    keys = tf.placeholder(tf.string, [None, 2])
    kv = tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], [1, 2, 3],
                                             value_dtype=tf.int64)
    table = tf.lookup.StaticHashTable(kv, -1)
    vocab = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        ["x", "y"], [0, 1], value_dtype=tf.int64), 3)
    ivocab = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([10, 20], tf.int64), [0, 1], value_dtype=tf.int64), 4)
    floats = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([3, 1], tf.int64), [0.5, -1.5]), 9.0)
    path = _vocab_file()
    cols = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        path, tf.string, 0, tf.int64, 1, delimiter="\t"), -5)
    lines = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
        tf.lookup.TextFileIndex.LINE_NUMBER, vocab_size=3), -5)
    back = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        path, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER, tf.string, 0), "??")
    sp = tf.SparseTensor([[0, 0], [1, 1]], tf.constant(["c", "zz"]), [2, 3])
    return [table.lookup(keys), table.size(), vocab.lookup(tf.constant(["x", "y", "zz", "w"])),
            vocab.size(), ivocab.lookup(tf.constant([10, 5, 20, 123456], tf.int64)),
            floats.lookup(tf.constant([1, 2, 3], tf.int64)),
            cols.lookup(tf.constant(["dog", "x", "fox"])), cols.size(),
            lines.lookup(tf.constant(["cat\t7", "emu\t11", "fox\t13"])),
            back.lookup(tf.constant([0, 3, 5], tf.int64)), table.lookup(sp).values], \
        {keys: np.array([["a", "q"], ["c", "b"]], object)}


@case
def vocabulary_tables(tf):
    lk = _lookup_ops(tf)
    path = _vocab_file()
    words = tf.constant(["emu", "cat", "yak", "fox", "zebra"])
    t1 = lk.index_table_from_tensor(["cat", "dog", "emu"], num_oov_buckets=2)
    t2 = lk.index_table_from_tensor(tf.constant(["cat", "dog"]), default_value=-7)
    t3 = lk.index_table_from_file(path, key_column_index=0, value_column_index=1)
    t4 = lk.index_table_from_file(path, num_oov_buckets=1, key_column_index=0)
    t5 = lk.index_table_from_tensor(tf.constant([5, 9], tf.int64), dtype=tf.int64)
    r1 = lk.index_to_string_table_from_tensor(["cat", "dog"], default_value="none")
    r2 = lk.index_to_string_table_from_file(path, value_column_index=0)
    ids = tf.constant([1, 0, 4], tf.int64)
    return [t1.lookup(words), t2.lookup(words), t3.lookup(words), t4.lookup(words),
            t5.lookup(tf.constant([9, 5, 1], tf.int64)), r1.lookup(ids), r2.lookup(ids),
            t1.size(), t4.size()], {}


@case
def templates_and_variables(tf):
    def dense(x, units):
        w = tf.get_variable("w", [3, units], initializer=tf.constant_initializer(0.5))
        b = tf.get_variable("b", [units], initializer=tf.zeros_initializer())
        return tf.matmul(x, w) + b

    layer = tf.make_template("layer", dense, units=2)
    other = tf.make_template("layer", dense, units=1)
    a, b2, c = layer(X), layer(POS), other(X)
    with tf.variable_scope("outer"):
        nested = tf.make_template("t", dense, create_scope_now_=True, units=2)
    d = nested(X)
    names = [v.name for v in tf.global_variables()] + [layer.variable_scope.name,
                                                       nested.variable_scope_name]
    counter = tf.Variable(3, name="counter")
    uninit = tf.Variable(1.0, name="never_initialized", collections=[])
    x = tf.placeholder(tf.float32, [3])
    h = tf.hessians(tf.reduce_sum(x * x * x) + x[0] * x[1], x)[0]
    hm = tf.hessians(tf.reduce_sum(tf.matmul(tf.reshape(x[:2], [1, 2]), POS[:, :2])) ** 2,
                     [x])[0]
    with tf.control_dependencies([tf.no_op()]):
        with tf.init_scope():
            free = tf.constant(1.0)
    return [a, b2, c, d, tf.constant(names), tf.is_variable_initialized(counter),
            tf.is_variable_initialized(uninit), h, hm,
            tf.constant(len(free.op.control_inputs)),
            tf.constant(str(tf.no_regularizer(tf.ones([2]))))], \
        {x: np.array([1.0, -2.0, 0.5], np.float32)}


def _sparse(tf):
    return tf.SparseTensor(np.array([[0, 3], [2, 1], [0, 0], [2, 4]], np.int64),
                           np.array([1.5, -2.0, 3.0, 0.5], np.float32),
                           np.array([4, 5], np.int64))


def _parts(sp):
    return [sp.indices, sp.values, sp.dense_shape]


@case
def sparse_index_ops(tf):
    sp = _sparse(tf)
    other = tf.SparseTensor(np.array([[0, 3], [1, 1]], np.int64),
                            np.array([-1.5, 4.0], np.float32), np.array([4, 5], np.int64))
    three = tf.SparseTensor(np.array([[0, 1, 2], [1, 0, 0]], np.int64),
                            np.array([7.0, 8.0], np.float32), np.array([2, 2, 3], np.int64))
    filled, empty = tf.sparse_fill_empty_rows(sp, -1.0)
    return [*_parts(tf.sparse_reorder(sp)), *_parts(tf.sparse.transpose(sp)),
            *_parts(tf.sparse_transpose(three, [2, 0, 1])),
            *_parts(tf.sparse_add(sp, other)), *_parts(tf.sparse.add(sp, other, 1.0)),
            tf.sparse_add(sp, np.ones([4, 5], np.float32)),
            *_parts(tf.sparse_concat(1, [sp, other])), *_parts(tf.sparse.concat(0, [sp, other])),
            *_parts(tf.sparse_retain(sp, [True, False, True, False])),
            *_parts(tf.sparse_reshape(sp, [2, -1])), *_parts(tf.sparse.reshape(three, [3, 4])),
            *_parts(tf.sparse_slice(sp, [0, 1], [3, 10])), *_parts(filled), empty,
            *_parts(tf.sparse.from_dense(np.array([[0, 2.0], [3.0, 0]], np.float32)))], {}


@case
def sparse_math_ops(tf):
    sp = _sparse(tf)
    b = tf.placeholder(tf.float32, [5, None])
    bv = R.normal(0, 1, (5, 2)).astype(np.float32)
    return [tf.sparse_tensor_dense_matmul(sp, b), tf.sparse.matmul(sp, bv.T, adjoint_b=True),
            tf.sparse.sparse_dense_matmul(sp, R.normal(0, 1, (4, 3)).astype(np.float32),
                                          adjoint_a=True),
            tf.sparse_reduce_sum(sp), tf.sparse_reduce_sum(sp, axis=1),
            tf.sparse.reduce_sum(sp, 0, keepdims=True), tf.sparse_reduce_max(sp, 1),
            tf.sparse.reduce_max(sp), *_parts(tf.sparse_softmax(sp)),
            tf.sparse.softmax(sp).values], {b: bv}


@case
def more_math(tf):
    u = tf.placeholder(tf.float32, None)
    y = np.array([-0.95, -0.3, 0.0, 0.2, 0.7, 0.999], np.float32)
    return [tf.math.erfinv(u), tf.math.ndtri(np.array([0.01, 0.3, 0.5, 0.9], np.float32)),
            tf.scalar_mul(2.5, X), tf.math.scalar_mul(np.float32(-1), POS),
            tf.math.zero_fraction(np.array([0.0, 1.0, 0.0, 3.0], np.float32)),
            tf.nn.zero_fraction(np.array([[0, 1], [2, 3]], np.int32)),
            tf.math.reduce_euclidean_norm(X, axis=1), tf.math.reduce_euclidean_norm(X),
            tf.math.xlog1py(np.array([0.0, 2.0, 0.5], np.float32),
                            np.array([-1.0, 1.0, 3.0], np.float32)),
            tf.math.lbeta(POS), tf.math.polyval([2.0, -1.0, 0.5], X), tf.math.softsign(X),
            tf.manip.roll(SEQ, 1, 0), tf.string_to_hash_bucket_fast(["a", "hello", ""], 7),
            tf.strings.to_hash_bucket_fast(tf.constant([["x", "yy"]]), 1000)], {u: y}

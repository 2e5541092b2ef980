"""The Python type of every kind of value a session returns, built by both frameworks (real
TF through ``tools/record_fetch_type_goldens.py``, ours in ``test_fetch_types_golden.py``).

TF hands back a numpy scalar (``np.float32``, ``np.int64``, ``np.bool_``, ``bytes``) for a
0-d result and an ndarray otherwise, except for a fetched feed, which is the fed value as
an array. ``describe`` gives the type, dtype and shape (no values: random ops are here);
a Python ``bool`` reads ``bool``, numpy's ``bool_``."""
import numpy as np


def describe(value):
    if isinstance(value, np.ndarray):
        return {"type": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape)}
    if isinstance(value, np.generic):  # np.bool_ is "bool_" in numpy 1, "bool" in 2
        name = "bool_" if type(value) is np.bool_ else type(value).__name__
        return {"type": name, "dtype": str(value.dtype)}
    return {"type": type(value).__name__}


def _graph_cases(tf):
    """``{name: fetch}``: 0-d and 1-d results of ops of many families and dtypes."""
    vec = tf.constant([3.0, 1.0, 2.0])
    mat = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    out = {}
    for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64",
                 "uint8", "uint16", "bool", "complex64", "complex128"):
        dtype = getattr(tf, name)
        out[f"const_{name}"] = tf.constant(1, dtype=dtype) if name != "bool" else \
            tf.constant(True)
        out[f"const_{name}_vec"] = tf.constant([1, 0], dtype=dtype) if name != "bool" else \
            tf.constant([True, False])
        out[f"zeros_{name}"] = tf.zeros([], dtype=dtype)
    out.update({
        "random_uniform_float": tf.random_uniform([]),
        "random_uniform_int32": tf.random_uniform([], maxval=10, dtype=tf.int32),
        "random_uniform_int64": tf.random_uniform([], maxval=10, dtype=tf.int64),
        "random_normal": tf.random_normal([]),
        "truncated_normal": tf.truncated_normal([]),
        "random_uniform_vec": tf.random_uniform([2], maxval=10, dtype=tf.int32),
        "multinomial": tf.multinomial(tf.log([[0.5, 0.5]]), 1),
        "multinomial_0d": tf.reshape(tf.multinomial(tf.log([[0.5, 0.5]]), 1), []),
        "categorical_int32": tf.random.categorical(tf.log([[0.5, 0.5]]), 1,
                                                   dtype=tf.int32)[0, 0],
        "random_shuffle": tf.random_shuffle(tf.constant([1, 2, 3])),
        "reduce_sum": tf.reduce_sum(vec),
        "reduce_mean": tf.reduce_mean(vec),
        "reduce_max_int": tf.reduce_max(tf.constant([1, 5, 2])),
        "reduce_all": tf.reduce_all(tf.constant([True, False])),
        "reduce_sum_axis": tf.reduce_sum(mat, axis=0),
        "argmax": tf.argmax(vec),
        "argmax_int32": tf.argmax(vec, output_type=tf.int32),
        "argmin": tf.argmin(vec),
        "cast_int32": tf.cast(tf.constant(2.7), tf.int32),
        "cast_bool": tf.cast(tf.constant(1.0), tf.bool),
        "cast_float16": tf.cast(tf.constant(1.0), tf.float16),
        "shape_of_scalar": tf.shape(tf.constant(1.0)),
        "shape_of_vec": tf.shape(vec),
        "size": tf.size(vec),
        "rank": tf.rank(mat),
        "equal": tf.equal(tf.constant(1), tf.constant(1)),
        "less_vec": tf.less(vec, 2.0),
        "add_scalars": tf.constant(1.0) + tf.constant(2.0),
        "add_int_scalars": tf.constant(1) + tf.constant(2),
        "neg": -tf.constant(3),
        "square": tf.square(tf.constant(3.0)),
        "sqrt": tf.sqrt(tf.constant(4.0)),
        "floordiv": tf.constant(7) // tf.constant(2),
        "mod": tf.constant(7) % tf.constant(2),
        "maximum": tf.maximum(tf.constant(1.0), 2.0),
        "index": vec[0],
        "index_int": tf.constant([4, 5])[1],
        "gather_0d": tf.gather(vec, 1),
        "squeeze": tf.squeeze(tf.constant([[1.5]])),
        "reshape_0d": tf.reshape(tf.constant([7]), []),
        "reshape_vec": tf.reshape(mat, [-1]),
        "matmul": tf.matmul(mat, mat),
        "trace": tf.trace(mat),
        "norm": tf.norm(vec),
        "l2_loss": tf.nn.l2_loss(vec),
        "softmax_xent": tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=[[0.0, 1.0]], logits=[[1.0, 2.0]])),
        "sparse_xent": tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant(1), logits=tf.constant([1.0, 2.0])),
        "where_scalar": tf.where(tf.constant(True), tf.constant(1), tf.constant(2)),
        "cond": tf.cond(tf.constant(True), lambda: tf.constant(1.0),
                        lambda: tf.constant(2.0)),
        "while_loop": tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)]),
        "stack_0d_parts": tf.stack([tf.constant(1), tf.constant(2)]),
        "unstack_part": tf.unstack(tf.constant([1.0, 2.0]))[0],
        "string_const": tf.constant("abc"),
        "string_vec": tf.constant(["a", "b"]),
        "py_func_float": tf.py_func(lambda: np.float32(1.5), [], tf.float32),
        "py_func_array": tf.py_func(lambda: np.array(2.5, np.float32), [], tf.float32),
        "py_func_int": tf.py_func(lambda: np.int64(3), [], tf.int64),
        "dataset_scalar": tf.data.Dataset.from_tensor_slices([1, 2, 3])
        .make_one_shot_iterator().get_next(),
        "dataset_vec": tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]])
        .make_one_shot_iterator().get_next(),
    })
    return out


def run_all(tf):
    """Returns ``{case: describe(value)}``."""
    g = tf.Graph()
    record = {}
    with g.as_default():
        tf.set_random_seed(1)
        fetches = _graph_cases(tf)
        p = tf.placeholder(tf.float32, [], name="p")
        pi = tf.placeholder(tf.int32, None, name="pi")
        pv = tf.placeholder(tf.float32, [None], name="pv")
        v = tf.Variable(1.0, name="v")
        vi = tf.Variable(3, name="vi")
        vv = tf.Variable([1.0, 2.0], name="vv")
        step = tf.train.get_or_create_global_step()
        q = tf.FIFOQueue(4, [tf.float32], shapes=[[]])
        enq = q.enqueue_many([[1.0, 2.0, 3.0]])
        fed = {
            "fed_placeholder": p, "fed_identity": tf.identity(p), "fed_times_2": p * 2.0,
            "fed_int_unknown_shape": pi, "fed_int_unknown_identity": tf.identity(pi),
            "fed_vec": pv, "fed_vec_sum": tf.reduce_sum(pv),
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(enq)
            out = sess.run(fetches)
            record.update({k: describe(val) for k, val in out.items()})
            out = sess.run(fed, {p: 1.5, pi: 4, pv: [1.0, 2.0]})
            record.update({k: describe(val) for k, val in out.items()})
            record["fed_numpy_scalar"] = describe(sess.run(p, {p: np.float32(2.0)}))
            record["fed_numpy_0d"] = describe(sess.run(tf.identity(p),
                                                       {p: np.array(2.0, np.float32)}))
            record["variable"] = describe(sess.run(v))
            record["variable_int"] = describe(sess.run(vi))
            record["variable_vec"] = describe(sess.run(vv))
            record["variable_read"] = describe(sess.run(v.read_value()))
            record["variable_identity"] = describe(sess.run(tf.identity(vi)))
            record["global_step"] = describe(sess.run(step))
            record["assign"] = describe(sess.run(tf.assign(v, 2.0)))
            record["assign_add_int"] = describe(sess.run(tf.assign_add(vi, 1)))
            record["assign_vec"] = describe(sess.run(tf.assign(vv, [3.0, 4.0])))
            record["dequeue"] = describe(sess.run(q.dequeue()))
            record["dequeue_many"] = describe(sess.run(q.dequeue_many(2)))
            record["eval_scalar"] = describe(tf.constant(5).eval(session=sess))
            record["eval_random_int"] = describe(
                tf.random_uniform([], maxval=3, dtype=tf.int32).eval(session=sess))
            record["list_of_scalars"] = [describe(x) for x in sess.run(
                [tf.constant(1), tf.constant(2.0)])]
            record["tuple_fetch"] = [describe(x) for x in sess.run(
                (tf.constant(1, tf.int64), tf.constant(True)))]
            record["tensor_name_fetch"] = describe(sess.run("p:0", {p: 3.0}))
            record["op_fetch"] = describe(sess.run(enq))
    return record

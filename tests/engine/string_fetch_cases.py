"""String values as a session returns them, built by both frameworks (real TF through
``tools/record_string_fetch_goldens.py``, ours in ``test_string_fetch_golden.py``).

Each case's value is described by ``describe``: the Python type, the numpy dtype and shape
(arrays) and the elements as latin-1 text tagged with their element type."""
import numpy as np


def describe(value):
    def elem(x):
        if isinstance(x, bytes):
            return ["bytes", x.decode("latin-1")]
        if isinstance(x, str):
            return ["str", x]
        return [type(x).__name__, repr(x)]
    if isinstance(value, np.ndarray):
        return {"type": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape),
                "elems": [elem(x) for x in value.reshape(-1).tolist()]}
    return {"type": type(value).__name__, "elems": [elem(value)]}


def run_all(tf):
    """Returns ``{case: describe(value)}`` for string fetches, feeds and py_func calls."""
    g = tf.Graph()
    seen = {}
    with g.as_default():
        p = tf.placeholder(tf.string, [], name="p")
        pv = tf.placeholder(tf.string, [None], name="pv")
        v = tf.Variable("hello", dtype=tf.string, name="v")
        v2 = tf.Variable(["a", "bc"], name="v2")

        def show(f, s, sv, k, n):
            seen["py_args"] = [describe(np.asarray(f)), type(f).__name__,
                               describe(s), describe(sv), describe(k), type(n).__name__]
            return s + b"!"

        fetches = {
            "const": tf.constant("abc"), "const_vec": tf.constant(["a", "bb"]),
            "const_mat": tf.constant([["x"]]), "const_empty": tf.constant(""),
            "const_unicode": tf.constant("h\u00e9"),
            "fed_scalar": p, "fed_identity": tf.identity(p), "fed_vec": pv,
            "fed_vec_identity": tf.identity(pv),
            "as_string": tf.as_string(3), "as_string_vec": tf.as_string([1.5, 2.0]),
            "join": tf.strings.join(["a", p]),
            "string_join": tf.string_join(["x", "y"], separator="-"),
            "variable": v, "variable_vec": v2, "variable_read": tf.identity(v2),
            "py_func": tf.py_func(show, [tf.constant(1.5), p, pv, tf.constant("k"),
                                         tf.constant(3)], tf.string),
            "py_func_str_out": tf.py_func(lambda: "strout", [], tf.string),
            "py_func_arr_out": tf.py_func(lambda: np.array(["a", "b"]), [], tf.string),
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(fetches, {p: "qq", pv: ["m", "nn"]})
            record = {k: describe(val) for k, val in out.items()}
            record["eval_const"] = describe(tf.constant("z").eval(session=sess))
            record["fed_bytes"] = describe(sess.run(p, {p: b"by"}))
            record["fed_numpy_str"] = describe(sess.run(pv, {pv: np.array(["u", "v"])}))
            record["fed_numpy_identity"] = describe(
                sess.run(tf.identity(pv), {pv: np.array(["u", "v"])}))
    record["py_func_args"] = seen["py_args"]
    return record

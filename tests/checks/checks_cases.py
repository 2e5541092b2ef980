"""Cases for tf.Print / tf.print / tf.Assert / tf.assert_*: each ``CASES[name](tf)`` builds
a graph with the given ``tf`` module (estimator_npu or real TF), runs it and returns the
text a user sees: what was printed, or the error type and its message (for run-time
errors, the ``assertion failed`` line / the check's text; TF's wrapper adds node traces).

``tools/record_tf_checks.py`` records the texts of real TF 2.15 into checks_golden.json.
"""
import os
import sys
import tempfile

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _capture(fn, fd=2):
    """What ``fn`` writes to file descriptor ``fd`` (C++ and Python writers alike)."""
    stream = sys.__stderr__ if fd == 2 else sys.__stdout__
    sys.stderr.flush()
    sys.stdout.flush()
    saved_streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__  # past pytest's capture
    saved = os.dup(fd)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), fd)
        try:
            fn()
            stream.flush()
        finally:
            sys.stdout, sys.stderr = saved_streams
            os.dup2(saved, fd)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode()
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith(("WARNING", "W0", "I0", "E0")))


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is part of the result
        msg = getattr(e, "message", None) or str(e)
        lines = [ln for ln in msg.split("\n") if ln.startswith("assertion failed")
                 or "Tensor had" in ln]
        return f"{type(e).__name__}: " + ("\n".join(lines) if lines and "Graph" in msg
                                          or len(lines) == 1 and "assertion" in lines[0]
                                          else msg)
    return "no error"


def _run(tf, fetch, feed=None):
    with tf.Session() as s:
        return s.run(fetch, feed)


VALUES = {
    "f32": np.array([0.1, 1.5, 2.0, 1e-8, 1 / 3.0], np.float32),
    "f64": np.array([0.1, 1 / 3.0, -2.5]),
    "bool": np.array([True, False]),
    "str": np.array([b"ab", b"cd"]),
    "empty": np.zeros((0, 3), np.float32),
    "i3d": np.arange(24).reshape(2, 3, 4),
    "scalar": np.float32(2.5),
    "i1d": np.arange(10),
    "neg64": np.array(-7, np.int64),
    "big": np.arange(100).reshape(10, 10),
    "special": np.array([np.nan, np.inf, -np.inf, -0.0, 1e10], np.float32),
}


def _print_case(key, summarize):
    def fn(tf):
        with tf.Graph().as_default():
            p = tf.Print(tf.constant(0), [tf.constant(VALUES[key])], message=f"{key}: ",
                         summarize=summarize)
            return _capture(lambda: _run(tf, p))
    fn.__name__ = f"Print_{key}_{summarize}"
    return case(fn)


for _k in VALUES:
    for _s in (None, -1, 2):
        _print_case(_k, _s)


def _print_v2_case(key, summarize):
    def fn(tf):
        with tf.Graph().as_default():
            op = tf.print("P", tf.constant(VALUES[key]), output_stream=sys.stdout,
                          summarize=summarize)
            return _capture(lambda: _run(tf, op), fd=1)
    fn.__name__ = f"print_{key}_{summarize}"
    return case(fn)


for _k in VALUES:
    for _s in (None, 2):
        _print_v2_case(_k, _s)


@case
def Print_feed_first_n(tf):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.Print(x, [x, tf.shape(x)], message="hello: ", summarize=2, first_n=2) * 2
        with tf.Session() as s:
            def go():
                for i in range(3):
                    s.run(y, {x: np.arange(6.0).reshape(2, 3) + i})
            return _capture(go) + "|" + repr(s.run(y, {x: np.ones((1, 3))}).tolist())


@case
def print_structures(tf):
    with tf.Graph().as_default():
        x = tf.constant([[1, 2], [3, 4]])
        op = tf.print("a", x, [1, 2], {"k": x}, 5, 2.5, None, True, tf.constant(1 / 3.0),
                      sep="|", end="END\n", output_stream=sys.stdout)
        return _capture(lambda: _run(tf, op), fd=1)


@case
def print_to_file(tf):
    with tf.Graph().as_default(), tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.txt")
        x = tf.placeholder(tf.float32)
        op = tf.print("v", x, output_stream="file://" + path)
        with tf.Session() as s:
            s.run(op, {x: [1.5, 2.0]})
            s.run(op, {x: 3.0})
        with open(path) as f:
            return f.read()


@case
def print_control_dependency(tf):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        op = tf.print("sum", tf.reduce_sum(x), output_stream=sys.stdout)
        with tf.control_dependencies([op]):
            y = tf.identity(x * 2)
        with tf.Session() as s:
            out = []
            text = _capture(lambda: out.append(s.run(y, {x: [1.0, 2.0]})), fd=1)
        return text + "|" + repr(out[0].tolist())


def _feed_both(name, build, feed):
    def fn(tf):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 3])
            xu = tf.placeholder(tf.float32)
            try:
                op = build(tf, x, xu)
            except Exception as e:  # noqa: BLE001
                return "build " + _error(lambda: (_ for _ in ()).throw(e))
            feeds = {}
            if isinstance(feed, tuple):
                feeds = {x: feed[0], xu: feed[1]}
            else:
                feeds = {xu: feed}
            with tf.Session() as s:
                try:
                    with tf.control_dependencies([op]):
                        y = tf.identity(xu)
                    r = s.run(y, feeds)
                    return "ran " + repr(np.asarray(r).tolist())
                except Exception as e:  # noqa: BLE001
                    return _error(lambda: (_ for _ in ()).throw(e))
    fn.__name__ = name
    return case(fn)


_ONES = np.ones((2, 3), np.float32)
_RANGE = np.arange(6, dtype=np.float32).reshape(2, 3)
for _name, _build, _feed in [
    ("assert_equal_msg", lambda tf, x, xu: tf.assert_equal(xu, 1.0, message="mymsg"), _RANGE),
    ("assert_equal_ok", lambda tf, x, xu: tf.assert_equal(xu, 1.0), _ONES),
    ("assert_less", lambda tf, x, xu: tf.assert_less(xu, 3.0), _RANGE),
    ("assert_less_equal", lambda tf, x, xu: tf.assert_less_equal(xu, 3.0), _RANGE),
    ("assert_greater", lambda tf, x, xu: tf.assert_greater(xu, 0.0, summarize=-1), _RANGE),
    ("assert_greater_equal_msg", lambda tf, x, xu: tf.assert_greater_equal(
        xu, [[1., 2., 3.]], message="ge"), np.array([[1., 2., 2.5]], np.float32)),
    ("assert_none_equal", lambda tf, x, xu: tf.assert_none_equal(xu, 4.0), _RANGE),
    ("assert_positive", lambda tf, x, xu: tf.assert_positive(xu), _RANGE),
    ("assert_negative", lambda tf, x, xu: tf.assert_negative(xu, message="neg"), _RANGE),
    ("assert_non_negative", lambda tf, x, xu: tf.assert_non_negative(xu - 1.0), _RANGE),
    ("assert_non_positive", lambda tf, x, xu: tf.assert_non_positive(xu), _RANGE),
    ("assert_near", lambda tf, x, xu: tf.assert_near(xu, xu + 0.5, rtol=0.01, atol=0.1),
     _RANGE),
    ("assert_near_ok", lambda tf, x, xu: tf.assert_near(xu, xu + 1e-7), _ONES),
    ("assert_rank_dynamic", lambda tf, x, xu: tf.assert_rank(xu, 3, message="rk"), _RANGE),
    ("assert_rank_at_least_dynamic", lambda tf, x, xu: tf.assert_rank_at_least(xu, 3),
     _RANGE),
    ("assert_rank_in_dynamic", lambda tf, x, xu: tf.assert_rank_in(xu, [3, 4]), _RANGE),
    ("assert_rank_dynamic_ok", lambda tf, x, xu: tf.assert_rank(xu, 2), _RANGE),
    ("Assert_summarize", lambda tf, x, xu: tf.Assert(tf.reduce_all(xu > 100), [
        xu, "strdata", tf.constant(3)], summarize=4), _RANGE),
    ("Assert_all", lambda tf, x, xu: tf.Assert(tf.reduce_all(xu > 3), [xu], summarize=-1),
     _RANGE),
    ("Assert_dtypes", lambda tf, x, xu: tf.Assert(tf.reduce_all(xu > 3), [
        xu, tf.constant([True, False]), tf.constant(1.5, tf.float64),
        tf.constant([b"a", b"b"])]), _RANGE),
    ("Assert_passes", lambda tf, x, xu: tf.Assert(tf.reduce_all(xu < 100), [xu]), _RANGE),
    ("assert_all_finite", lambda tf, x, xu: tf.debugging.assert_all_finite(xu, "notfinite"),
     np.array([1., np.inf], np.float32)),
    ("verify_tensor_all_finite", lambda tf, x, xu: tf.verify_tensor_all_finite(xu, "vt"),
     np.array([1., np.nan], np.float32)),
    ("check_numerics", lambda tf, x, xu: tf.debugging.check_numerics(xu, "cn"),
     np.array([np.nan], np.float32)),
    ("assert_rank_static", lambda tf, x, xu: tf.assert_rank(x, 3), _RANGE),
    ("assert_rank_static_msg", lambda tf, x, xu: tf.assert_rank(x, 3, message="rk"), _RANGE),
    ("assert_rank_at_least_static", lambda tf, x, xu: tf.assert_rank_at_least(x, 3), _RANGE),
    ("assert_rank_in_static", lambda tf, x, xu: tf.assert_rank_in(x, [3, 4]), _RANGE),
    ("assert_rank_float", lambda tf, x, xu: tf.assert_rank(x, tf.constant(2.0)), _RANGE),
    ("assert_type", lambda tf, x, xu: tf.assert_type(xu, tf.int32, message="mt"), _RANGE),
    ("assert_type_nomsg", lambda tf, x, xu: tf.assert_type(xu, tf.int32), _RANGE),
    ("assert_type_ok", lambda tf, x, xu: tf.assert_type(xu, tf.float32), _RANGE),
    ("assert_integer", lambda tf, x, xu: tf.assert_integer(xu), _RANGE),
    ("assert_integer_msg", lambda tf, x, xu: tf.assert_integer(xu, message="mi"), _RANGE),
    ("assert_integer_ok", lambda tf, x, xu: tf.assert_integer(tf.constant(1)), _RANGE),
    ("assert_scalar", lambda tf, x, xu: tf.assert_scalar(x, message="ms"), _RANGE),
    ("assert_equal_static", lambda tf, x, xu: tf.assert_equal(
        tf.constant([1, 2]), tf.constant([1, 3]), message="static"), _RANGE),
    ("assert_equal_static_ok", lambda tf, x, xu: tf.assert_equal(
        tf.constant([1, 2]), tf.constant([1, 2])), _RANGE),
    ("assert_positive_static", lambda tf, x, xu: tf.assert_positive(
        tf.constant([1., -1.])), _RANGE),
    ("assert_non_positive_static", lambda tf, x, xu: tf.assert_non_positive(
        tf.constant([1., -1.])), _RANGE),
    ("assert_less_static_shape", lambda tf, x, xu: tf.assert_less(
        tf.shape(x), tf.constant([5, 2])), (_RANGE, _RANGE)),
    ("assert_same_float_dtype", lambda tf, x, xu: tf.assert_same_float_dtype(
        [x, tf.constant(1, tf.float64)]), _RANGE),
    ("assert_proper_iterable", lambda tf, x, xu: tf.assert_proper_iterable("ab"), _RANGE),
    ("assert_proper_iterable_int", lambda tf, x, xu: tf.assert_proper_iterable(3), _RANGE),
]:
    _feed_both(_name, _build, _feed)


@case
def predicates(tf):
    with tf.Graph().as_default():
        xu = tf.placeholder(tf.float32)
        ops = [tf.is_non_decreasing(xu), tf.is_strictly_increasing(xu),
               tf.is_non_decreasing(tf.constant([1, 2, 2])),
               tf.is_strictly_increasing(tf.constant([1, 2, 2])),
               tf.is_strictly_increasing(tf.constant([], tf.int32))]
        out = [_run(tf, ops, {xu: v}) for v in ([1., 2., 2.], [[1., 2.], [3., 4.]], [5.])]
        return repr([[bool(b) for b in o] for o in out]) + " " + repr(
            [tf.is_numeric_tensor(xu), tf.is_numeric_tensor(tf.constant(True))]) + " " + \
            repr(tf.assert_same_float_dtype([xu]).name)

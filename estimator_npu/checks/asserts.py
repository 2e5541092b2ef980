"""TF1's ``tf.assert_*`` / ``tf.debugging.assert_*`` with its graph-mode semantics.

Each returns an op to run or to use in ``tf.control_dependencies``: an ``Assert`` op
raising ``InvalidArgumentError`` at run time with TF's message
(``assertion failed: [message] [Condition x == y did not hold element-wise:] [x (a:0) = ]
[...]``), or a ``NoOp`` when a static check settles it. As in TF, the checks raise at
build time when they can be decided then: element-wise comparisons of two constants
(``InvalidArgumentError`` with the data joined by newlines), ranks known statically
(``ValueError``), dtypes (``TypeError``).
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.checks.logging_ops import Assert
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor, name_scope
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import check_numerics, convert_to_tensor, no_op
from estimator_npu.engine.sparse_tensor import SparseTensor
from estimator_npu.math_ops_extra.tensor_utils import get_static_value

NUMERIC_TYPES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32",
                 "int64", "uint8", "uint16", "complex64", "complex128")


def _static_text(item):
    if isinstance(item, Tensor):
        v = get_static_value(item)
        return str(item) if v is None else str(v)
    return str(item)


def _prefix(message):
    """TF's prefix of a check's own text: ``"<message>.  "``, or nothing."""
    return f"{message}.  " if message else ""


def _tensor_str(t):
    return f'Tensor("{t.name}", shape={t.shape}, dtype={t.dtype.name})'


def _compare(sym, opname, op_func, np_func, x, y, data, summarize, message, name):
    with name_scope(name, opname):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        condition = math_ops.reduce_all(op_func(x, y))
        xs, ys = get_static_value(x), get_static_value(y)
        if xs is not None and ys is not None and not np.all(np_func(xs, ys)):
            raise errors.InvalidArgumentError(None, None,
                                              "\n".join(_static_text(d) for d in data))
        return Assert(condition, data, summarize=summarize)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    with name_scope(name, "assert_equal"):  # TF opens this scope first: assert_equal_1/x
        if x is y:
            return no_op()
    return _compare("==", "assert_equal", math_ops.equal, np.equal, x, y, data, summarize,
                   message, name)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _compare("!=", "assert_none_equal", math_ops.not_equal, np.not_equal, x, y, data,
                   summarize, message, name)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    return _compare("<", "assert_less", math_ops.less, np.less, x, y, data, summarize,
                   message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _compare("<=", "assert_less_equal", math_ops.less_equal, np.less_equal, x, y,
                   data, summarize, message, name)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    return _compare(">", "assert_greater", math_ops.greater, np.greater, x, y, data,
                   summarize, message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _compare(">=", "assert_greater_equal", math_ops.greater_equal, np.greater_equal,
                   x, y, data, summarize, message, name)


def _sign_check(opname, cond_text, binary, zero_first, x, data, summarize, message, name):
    message = _prefix(message)
    with name_scope(name, opname):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = [message, cond_text, f"x ({x.name}) = ", x]
            if opname == "assert_non_positive":  # TF's text joins these two (no comma)
                data = [message, cond_text + f"x ({x.name}) = ", x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        a, b = (zero, x) if zero_first else (x, zero)
        return binary(a, b, data=data, summarize=summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    return _sign_check("assert_positive", "Condition x > 0 did not hold element-wise:",
                  assert_less, True, x, data, summarize, message, name)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    return _sign_check("assert_negative", "Condition x < 0 did not hold element-wise:",
                  assert_less, False, x, data, summarize, message, name)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    return _sign_check("assert_non_negative", "Condition x >= 0 did not hold element-wise:",
                  assert_less_equal, True, x, data, summarize, message, name)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    return _sign_check("assert_non_positive", "Condition x <= 0 did not hold element-wise:",
                  assert_less_equal, False, x, data, summarize, message, name)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                name=None):
    """``|x - y| < atol + rtol * |y|`` element-wise (tolerances default to 10 eps)."""
    message = _prefix(message)
    with name_scope(name, "assert_near"):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        eps = float(np.finfo(x.dtype.np).eps)
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol",
                                 dtype=x.dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol",
                                 dtype=x.dtype)
        if data is None:
            data = [message, f"x and y not equal to tolerance rtol = {_tensor_str(rtol)}, "
                    f"atol = {_tensor_str(atol)}", f"x ({x.name}) = ", x,
                    f"y ({y.name}) = ", y]
        tol = atol + rtol * math_ops.abs(y)
        condition = math_ops.reduce_all(math_ops.less(math_ops.abs(x - y), tol))
        return Assert(condition, data, summarize=summarize)


# ------------------------------------------------------------------ ranks, types
def _rank_check(opname, what, static_ok, dynamic, x, ranks, data, summarize, message, name,
                ranks_text):
    with name_scope(name, opname):
        x = convert_to_tensor(x, name="x")
        ranks = [convert_to_tensor(r, name="rank") for r in ranks]
        message = _prefix(message)
        for r in ranks:
            assert_type(r, dtypes.int32)
        if data is None:
            data = [message, f"Tensor {x.name} must have {what}"] + ranks + \
                ["Received shape: ", array_ops.shape(x)]
        statics = [get_static_value(r) for r in ranks]
        if all(s is not None for s in statics):
            if any(np.ndim(s) != 0 for s in statics):
                raise ValueError("Rank must be a scalar.")
            given = [int(s) for s in statics]
            if x.shape.ndims is not None:
                if not static_ok(x.shape.ndims, given):
                    raise ValueError(f"{message}Tensor {x.name} must have {what} "
                                     f"{ranks_text(given)}.  Received rank "
                                     f"{x.shape.ndims}, shape {x.shape}")
                return no_op(name="static_checks_determined_all_ok")
        condition = dynamic(array_ops.rank(x), ranks)
        return Assert(condition, data, summarize=summarize)


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    return _rank_check("assert_rank", "rank", lambda n, g: n == g[0],
                       lambda r, rs: math_ops.equal(r, rs[0]), x, [rank], data, summarize,
                       message, name, lambda g: g[0])


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    return _rank_check("assert_rank_at_least", "rank at least", lambda n, g: n >= g[0],
                       lambda r, rs: math_ops.greater_equal(r, rs[0]), x, [rank], data,
                       summarize, message, name, lambda g: g[0])


def _any_equal(r, rs):
    out = math_ops.equal(rs[0], r)
    for other in rs[1:]:
        out = math_ops.logical_or(out, math_ops.equal(other, r))
    return out


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    return _rank_check("assert_rank_in", "rank in", lambda n, g: n in g, _any_equal, x,
                       list(ranks), data, summarize, message, name,
                       lambda g: "(" + ", ".join(f"array({v}, dtype=int32)" for v in g) + ")")


def assert_scalar(tensor, name=None, message=None):
    """``tensor`` itself; ``ValueError`` when its static rank is known and not 0."""
    with name_scope(name, "assert_scalar"):
        t = convert_to_tensor(tensor, name="tensor")
        if t.shape.ndims not in (None, 0):
            prefix = _prefix(message)
            raise ValueError(f"{prefix}Expected scalar shape for {t.name}, saw shape: "
                             f"{t.shape}.")
        return t


def assert_type(tensor, tf_type, message=None, name=None):
    """A ``NoOp``; ``TypeError`` when ``tensor``'s dtype is not ``tf_type``."""
    want = dtypes.as_dtype(tf_type)
    with name_scope(name, "assert_type"):
        t = convert_to_tensor(tensor, name="tensor")
        if t.dtype != want:
            prefix = _prefix(message)
            raise TypeError(f"{prefix}{t.name} must be of type tf.{want.name}; got "
                            f"tf.{t.dtype.name}")
        return no_op(name="statically_determined_correct_type")


def assert_integer(x, message=None, name=None):
    """A ``NoOp``; ``TypeError`` when ``x`` is not of an integer dtype."""
    with name_scope(name, "assert_integer"):
        t = convert_to_tensor(x, name="x")
        if not t.dtype.is_integer:
            prefix = _prefix(message)
            raise TypeError(f"{prefix}Expected \"x\" to be integer type.  Found: {t.name} "
                            f"of dtype <dtype: '{t.dtype.name}'>")
        return no_op(name="statically_determined_was_integer")


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of ``tensors`` (and ``dtype``), float32 if none is
    given; ``ValueError`` naming the first tensor that differs or is not floating."""
    tensors = [t for t in (tensors or []) if t is not None]
    want = dtypes.as_dtype(dtype) if dtype is not None else None
    first = None
    for t in tensors:
        t_dtype = dtypes.as_dtype(t.dtype)
        if want is None:
            want, first = t_dtype, t
        elif t_dtype != want:
            against = first.name if first is not None else "dtype"
            raise ValueError(f"{t.name}, type=<dtype: '{t_dtype.name}'>, must be of the same "
                             f"type (<dtype: '{want.name}'>) as {against}.")
    if want is None:
        return dtypes.float32
    if not want.is_floating:
        raise ValueError(f"Expected floating point type, got <dtype: '{want.name}'>.")
    return want


def assert_proper_iterable(values):
    """``TypeError`` unless ``values`` is an iterable other than a tensor, an array or a
    string."""
    if isinstance(values, (Tensor, SparseTensor, np.ndarray, str, bytes)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def assert_all_finite(t, msg, name=None, x=None, message=None):
    """TF1's ``verify_tensor_all_finite``: ``check_numerics(t, msg)``."""
    t = x if t is None else t
    return check_numerics(t, msg if message is None else message, name=name)


# ------------------------------------------------------------------ predicates
def is_numeric_tensor(tensor):
    return isinstance(tensor, Tensor) and tensor.dtype.name in NUMERIC_TYPES


def _monotone(x, name, default, compare):
    with name_scope(name, default):
        x = convert_to_tensor(x, name="x")
        if not is_numeric_tensor(x):
            raise TypeError(f"Expected x to be numeric, instead found: {x.dtype}")
        flat = array_ops.reshape(x, [-1])
        return math_ops.reduce_all(compare(flat[:-1], flat[1:]))


def is_non_decreasing(x, name=None):
    """Whether ``x`` (flattened) never decreases; True for fewer than two elements."""
    return _monotone(x, name, "is_non_decreasing", math_ops.less_equal)


def is_strictly_increasing(x, name=None):
    """Whether ``x`` (flattened) always increases; True for fewer than two elements."""
    return _monotone(x, name, "is_strictly_increasing", math_ops.less)

"""Core ops and the helpers every op family uses to build operations.

``make_op`` is the one way op functions add nodes; ``convert_to_tensor`` turns Python
values, numpy arrays and variables into tensors.
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine import registry
from estimator_npu.engine.graph import Operation, Tensor, get_default_graph
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily, simple
from estimator_npu.engine.shape import TensorShape, as_shape
from estimator_npu.utils import validation

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _graph_of(values):
    if get_default_graph().capture_foreign is not None:   # a function's graph, as TF
        return get_default_graph()
    for v in values:
        if isinstance(v, (Tensor, Operation)):
            return v.graph
        g = getattr(v, "graph", None)
        if g is not None and hasattr(v, "_as_graph_element"):
            return g
    return get_default_graph()


def make_op(op_type, inputs, out_specs, attrs=None, name=None, control_inputs=()):
    """Creates an op in the graph of ``inputs`` and returns it.

    Args:
        op_type: a registered op type.
        inputs: list of tensors (already converted).
        out_specs: list of ``(dtype, shape)``, one per output.
        attrs: constant attributes the kernel reads.
        name: optional op name (made unique within the current name scope).
    """
    g = _graph_of(inputs)
    return g.create_op(op_type, inputs, attrs, out_specs, name=name,
                       control_inputs=control_inputs)


def op_label(op_type, name=None, inputs=()):
    """``'<the name the op will get>' (<type>)`` for build-time error messages."""
    from estimator_npu.engine.graph import _default_name
    g = _graph_of(inputs)
    return f"'{g.unique_name(name or _default_name(op_type), mark_as_used=False)}' ({op_type})"


def make_tensor(op_type, inputs, dtype, shape, attrs=None, name=None):
    """Like ``make_op`` for a single-output op; returns its output tensor."""
    return make_op(op_type, inputs, [(dtype, shape)], attrs, name).outputs[0]


# ---------------------------------------------------------------- conversion
def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None):
    """Converts ``value`` (Tensor, Variable, numpy array, Python number/list) to a Tensor.

    Raises:
        ValueError: if ``value`` is a tensor of a different ``dtype`` than requested.
    """
    if isinstance(value, Tensor):
        if dtype is not None and dtypes.as_dtype(dtype) != value.dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} "
                             f"for Tensor {value.name} with dtype {value.dtype.name}")
        return value
    conv = getattr(value, "_as_tensor", None)
    if conv is not None:
        t = conv()
        if dtype is not None and dtypes.as_dtype(dtype) != t.dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} "
                             f"for variable {t.op.name} with dtype {t.dtype.name}")
        return t
    if isinstance(value, Operation):
        raise TypeError(f"Can't convert Operation '{value.name}' to Tensor (fetch it or use "
                        "it as a control dependency instead).")
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) or
                                                hasattr(v, "_as_tensor") for v in value):
        from estimator_npu.engine.ops import array_ops
        return array_ops.stack([convert_to_tensor(v, dtype) for v in value], name=name)
    return constant(value, dtype=dtype or preferred_dtype, name=name)


def _as_array(value, dtype=None):
    """``np.asarray(value, dtype)`` with errors that say what could not be converted."""
    def check_leaves():
        found, leaf = validation.unconvertible_leaf(value)
        if found:
            what = "" if leaf is value else f" (it holds a {type(leaf).__name__}: {leaf!r:.80})"
            raise TypeError(f"Failed to convert object of type {type(value).__name__} to "
                            f"Tensor{what}: a tensor holds numbers, booleans or strings.")
    try:
        arr = np.asarray(value) if dtype is None else np.array(value, dtype=dtype)
        if arr.dtype.kind == "O":
            check_leaves()
        return arr
    except ValueError as e:
        check_leaves()
        ragged = validation.ragged_description(value)
        if ragged is not None or dtype is None:
            raise ValueError(f"Can't convert a non-rectangular Python sequence to a Tensor: "
                             f"{ragged or 'its elements have different shapes'}.") from None
        if dtype is None:
            raise
        raise TypeError(f"Expected {dtypes.as_dtype(dtype).name}, got {value!r:.80} of type "
                        f"'{type(value).__name__}' instead ({e}).") from None
    except (TypeError, OverflowError) as e:
        check_leaves()
        raise TypeError(f"Expected {dtypes.as_dtype(dtype).name if dtype else 'a number'}, "
                        f"got {value!r:.80} of type '{type(value).__name__}' instead ({e})."
                        ) from None


def _check_int_range(arr, dt, value):
    if dt.is_integer and arr.dtype.kind in "iu" and arr.size:
        info = np.iinfo(dt.np)
        lo, hi = arr.min(), arr.max()
        if lo < info.min or hi > info.max:
            bad = lo if lo < info.min else hi
            raise ValueError(f"Value {int(bad)} is out of the range of {dt.name} "
                             f"[{info.min}, {info.max}]; use a wider dtype.")


def _np_value(value, dtype):
    if dtype is not None:
        dt = dtypes.as_dtype(dtype)
        arr = _as_array(value)
        if arr.dtype.kind == "f" and dt.is_integer and np.any(arr != np.round(arr)):
            raise TypeError(f"Expected {dt.name}, got {value!r} of type "
                            f"'{type(value).__name__}' instead.")
        if arr.dtype.kind == "O" and dt.name != "string":
            raise TypeError(f"Expected {dt.name}, got {value!r:.80} of type "
                            f"'{type(value).__name__}' instead.")
        _check_int_range(arr, dt, value)
        return _as_array(value, dt.np), dt
    arr = _as_array(value)
    if arr.dtype.kind == "O" and not all(isinstance(v, (str, bytes)) for v in arr.flat):
        raise ValueError(f"Can't convert {value!r:.80} to a Tensor: an integer too large for "
                         f"int64, or a mix of strings and numbers.")
    from_numpy = isinstance(value, (np.ndarray, np.generic))
    if arr.dtype == np.float64 and not from_numpy:
        with np.errstate(over="ignore"):   # beyond float32: inf, as TF
            arr = arr.astype(np.float32)  # Python floats default to float32, as in TF
    elif arr.dtype == np.int64 and not from_numpy and (
            arr.size == 0 or (arr.min() >= -2 ** 31 and arr.max() < 2 ** 31)):
        arr = arr.astype(np.int32)  # Python ints default to int32 (int64 when they need it)
    elif arr.dtype.kind in "SU":
        arr = arr.astype(object)
    return arr, dtypes.as_dtype(arr.dtype)


def constant(value, dtype=None, shape=None, name="Const"):
    """A constant tensor holding ``value`` (broadcast to ``shape`` when given)."""
    arr, dt = _np_value(value, dtype)
    if shape is not None:
        shape = tuple(as_shape(shape).as_list())
        if arr.size == 1 or arr.ndim == 0:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == int(np.prod(shape)):
            arr = arr.reshape(shape)
        else:
            raise ValueError(f"constant {name}: value of shape {arr.shape} cannot be reshaped "
                             f"or broadcast to shape {shape}")
    arr.setflags(write=False)
    g = get_default_graph()
    return g.create_op("Const", [], {"value": arr}, [(dt, arr.shape)], name=name).outputs[0]


OPS.define("Const", kernel=lambda op, ctx: None, grad=NOT_DIFFERENTIABLE,
           inline=lambda op, ctx, bind: bind(op.attrs["value"]), constant=True)


def placeholder(dtype, shape=None, name=None):
    """A tensor that must be fed a value of ``dtype`` and a shape compatible with ``shape``."""
    dt = dtypes.as_dtype(dtype)
    g = get_default_graph()
    return g.create_op("Placeholder", [], {"dtype": dt, "shape": as_shape(shape)},
                       [(dt, as_shape(shape))], name=name or "Placeholder").outputs[0]


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF1 name
    """A placeholder that takes the value of ``input`` when not fed."""
    x = convert_to_tensor(input)
    return make_tensor("PlaceholderWithDefault", [x], x.dtype, as_shape(shape),
                       name=name or "PlaceholderWithDefault")


def _unfed_placeholder(op, ctx):
    from estimator_npu import errors
    shape = op.attrs["shape"]
    raise errors.InvalidArgumentError(
        None, op, f"You must feed a value for placeholder tensor '{op.name}' with dtype "
        f"{op.attrs['dtype'].name} and shape {shape}")


OPS.define("Placeholder", kernel=_unfed_placeholder, grad=NOT_DIFFERENTIABLE)
OPS.define("PlaceholderWithDefault", kernel=simple(lambda x: x),
           grad=lambda op, dy: [dy], may_alias=True)


def identity(input, name=None):  # noqa: A002
    """Returns a tensor with the same value as ``input``."""
    x = convert_to_tensor(input)
    return make_tensor("Identity", [x], x.dtype, x.shape, name=name or "Identity")


OPS.define("Identity", kernel=simple(lambda x: x), grad=lambda op, dy: [dy], may_alias=True)


def _check_numerics_kernel(op, ctx):
    message = op.attrs["message"]

    def check(x):
        if not np.all(np.isfinite(x)):
            from estimator_npu import errors
            what = "NaN" if np.isnan(x).any() else "Inf"
            raise errors.InvalidArgumentError(
                None, op, f"{message} : Tensor had {what} values")
        return x
    return check


OPS.define("CheckNumerics", kernel=_check_numerics_kernel, grad=lambda op, dy: [dy],
           may_alias=True)


def check_numerics(tensor, message, name=None):
    """``tensor`` unchanged; running it raises ``InvalidArgumentError`` (with
    ``message``) when it holds NaN or Inf values. Its gradient passes through."""
    t = convert_to_tensor(tensor)
    if not t.dtype.is_floating:
        raise TypeError(f"check_numerics needs a floating tensor, got {t.dtype.name} "
                        f"({t.name})")
    return make_tensor("CheckNumerics", [t], t.dtype, t.shape, {"message": str(message)},
                       name=name)


def stop_gradient(input, name=None):  # noqa: A002
    """Identity in the forward pass; blocks gradients."""
    x = convert_to_tensor(input)
    return make_tensor("StopGradient", [x], x.dtype, x.shape, name=name or "StopGradient")


OPS.define("StopGradient", kernel=simple(lambda x: x), grad=lambda op, dy: [None],
           may_alias=True)


def no_op(name=None):
    """An op that does nothing; useful as a control-dependency anchor."""
    return get_default_graph().create_op("NoOp", [], {}, [], name=name or "NoOp")


OPS.define("NoOp", kernel=lambda op, ctx: None, grad=NOT_DIFFERENTIABLE)


def group(*inputs, name=None):
    """An op that runs after all of ``inputs`` (ops or tensors, possibly nested lists)."""
    from estimator_npu.utils import nest
    deps = [x for x in nest.flatten(list(inputs)) if x is not None]
    ops = []
    for d in deps:
        op = d if isinstance(d, Operation) else getattr(d, "op", None)
        if not isinstance(op, Operation):
            raise TypeError(f"group() expects ops or tensors, got {type(d).__name__}")
        ops.append(op)
    g = ops[0].graph if ops else get_default_graph()
    with g.control_dependencies(ops):
        return g.create_op("NoOp", [], {}, [], name=name or "group_deps")


def tuple_(tensors, name=None, control_inputs=None):
    """``tf.tuple``: identities of ``tensors`` that all run after every tensor is computed."""
    ts = [convert_to_tensor(t) if t is not None else None for t in tensors]
    gate = group(*[t for t in ts if t is not None], *(control_inputs or []))
    g = gate.graph
    out = []
    with g.control_dependencies([gate]):
        for t in ts:
            out.append(None if t is None else identity(t))
    return out


def static_shape(x):
    """The static ``TensorShape`` of a tensor-like value."""
    return convert_to_tensor(x).shape


def broadcast_shape(a, b, op_name="op"):
    """Static numpy-style broadcast of two ``TensorShape``s; ``ValueError`` names both."""
    a, b = as_shape(a), as_shape(b)
    if a.values is None or b.values is None:
        return TensorShape(None)
    n = max(len(a.values), len(b.values))
    da = (1,) * (n - len(a.values)) + a.values
    db = (1,) * (n - len(b.values)) + b.values
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        elif x == y:
            out.append(x)
        else:
            label = op_name() if callable(op_name) else f"'{op_name}'"
            raise ValueError(f"Dimensions must be equal or broadcastable for {label}: "
                             f"shapes {a} and {b}")
    return TensorShape(out)


__all__ = ["make_op", "make_tensor", "convert_to_tensor", "constant", "placeholder",
           "identity", "stop_gradient", "no_op", "group", "registry"]


def static_ints(value, what, op_name):
    """A Python list of ints from a list/tuple/array/constant tensor (``None`` if dynamic)."""
    if isinstance(value, Tensor):
        if value.op.type == "Const":
            return [int(v) for v in np.ravel(value.op.attrs["value"])]
        return None
    if hasattr(value, "_as_tensor"):
        return None
    if np.isscalar(value):
        value = [value]
    if isinstance(value, (list, tuple)):  # constant scalar tensors in the list: TF packs them
        value = [static_ints(v, what, op_name)[0] if isinstance(v, Tensor) and v.op.type ==
                 "Const" and v.shape.ndims == 0 else v for v in value]
    bad = next((v for v in (value if isinstance(value, (list, tuple)) else [])
                if isinstance(v, (float, np.floating, str, bytes))), None)
    if bad is not None:
        raise TypeError(f"{op_name}: {what} must be a list of ints, got {value!r} (holding "
                        f"{type(bad).__name__} {bad!r})")
    try:
        return [int(-1 if v is None else v) for v in value]
    except TypeError:
        raise TypeError(f"{op_name}: {what} must be a list of ints, got {value!r}") from None

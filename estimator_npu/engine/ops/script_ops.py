"""Host-call ops: ``py_func`` and ``numpy_function`` run a Python function on numpy values.

The function is stored on the op and called by the plan with the input arrays, e.g.
``y = tf.py_func(np.sort, [x], tf.float32)``. Results are converted to the ``Tout`` dtypes
(float64 to float32 is a cast; float to int is an error, as in TF); output shapes are
unknown. No gradient. ``StopIteration`` from the function becomes ``OutOfRangeError``.
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF1 argument names
    """Wraps the Python function ``func`` as an op of the graph.

    Args:
        func: called as ``func(*input_arrays)``; returns one value per ``Tout`` dtype. As
            in TF, a returned list or tuple holds one value per output.
        inp: list of input tensors (or values convertible to tensors).
        Tout: a dtype, or a list/tuple of dtypes (possibly empty).
        stateful: whether the function has side effects or depends on state.
        name: optional op name.

    Returns:
        A tensor when ``Tout`` is a single dtype, a list of tensors when it is a list or
        tuple, and the ``Operation`` when it is empty.

    Raises:
        TypeError: ``func`` is not callable or ``Tout`` names no dtype.
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got {type(func).__name__}: {func!r}")
    if not isinstance(inp, (list, tuple)):
        inp = [inp]
    inputs = [convert_to_tensor(x) for x in inp]
    single = not isinstance(Tout, (list, tuple))
    touts = [dtypes.as_dtype(Tout)] if single else [dtypes.as_dtype(t) for t in Tout]
    op = make_op("PyFunc" if stateful else "PyFuncStateless", inputs,
                 [(t, TensorShape(None)) for t in touts],
                 {"func": func, "Tout": tuple(touts)},
                 name=name or "PyFunc")
    return op.outputs[0] if single else (list(op.outputs) if touts else op)


def numpy_function(func, inp, Tout, stateful=True, name=None):  # noqa: N803
    """``tf.numpy_function``: the same as ``py_func`` (inputs and outputs are numpy)."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


def _convert(op, i, value, dtype):
    arr, npd = np.asarray(value), dtype.np
    if arr.dtype == npd:
        return arr
    if (arr.dtype.kind in "OSU") != (npd.kind == "O") or not (
            npd.kind == "O" or arr.dtype.kind == "b" or
            np.can_cast(arr.dtype, npd, "same_kind")):
        raise errors.InvalidArgumentError(
            None, op, f"{i}-th value returned by {op.name} is {arr.dtype}, but expects "
            f"{dtype.name}")
    return arr.astype(npd)


def _py_func_kernel(op, ctx):
    func, touts = op.attrs["func"], op.attrs["Tout"]
    n = len(touts)

    strings = [i for i, t in enumerate(op.inputs) if t.dtype.name == "string"]
    def call(*args):
        # as TF: strings arrive as bytes, a 0-d input as a numpy scalar (np.float32, bytes)
        args = [dtypes.tf_string_value(a) if i in strings else a[()] if isinstance(
            a, np.ndarray) and a.ndim == 0 else a for i, a in enumerate(args)]
        try:
            ret = func(*args)
        except StopIteration:
            raise errors.OutOfRangeError(None, op, f"{op.name}: the function raised "
                                         "StopIteration") from None
        if n == 0:
            return None
        # As TF: a list or tuple holds one value per output.
        values = list(ret) if isinstance(ret, (list, tuple)) else [ret]
        if len(values) != n:
            raise errors.InvalidArgumentError(
                None, op, f"{op.name}: the function returned {len(values)} values, but "
                f"Tout has {n} dtypes")
        if n == 1:
            return _convert(op, 0, values[0], touts[0])
        return tuple(_convert(op, i, v, t) for i, (v, t) in enumerate(zip(values, touts)))
    return call


OPS.define("PyFunc", kernel=_py_func_kernel, grad=NOT_DIFFERENTIABLE, may_alias=True,
           stateful=True)
OPS.define("PyFuncStateless", kernel=_py_func_kernel, grad=NOT_DIFFERENTIABLE,
           may_alias=True)

__all__ = ["py_func", "numpy_function"]

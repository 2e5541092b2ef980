"""``tf.custom_gradient``: a function whose gradient the user writes.

``f(*xs)`` returns ``(ys, grad_fn)``; the decorated function returns ``ys`` computed by
``f``, and backpropagation through them calls ``grad_fn(*dys)`` for the gradients of
``xs`` instead of differentiating ``f``'s ops (as TF1 does)::

    @tf.custom_gradient
    def clip_grad_identity(x):
        return tf.identity(x), lambda dy: tf.clip_by_value(dy, -1.0, 1.0)

The ops ``f`` built are wrapped by one ``CustomGradient`` op: inputs ``ys + xs``, outputs
the values of ``ys``; its gradient gives ``None`` to ``ys`` and ``grad_fn``'s results to
``xs``.
"""
import functools

from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import OpFamily
from estimator_npu.utils import nest

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _kernel(op, ctx):
    n = op.attrs["num_outputs"]
    if n == 1:  # a single-output kernel returns its value, not a tuple
        return lambda *values: values[0]
    return lambda *values: tuple(values[:n])


def _grad(op, *dys):
    n = op.attrs["num_outputs"]
    xs = op.inputs[n:]
    if any(dy is None for dy in dys):  # an unused output: its gradient is zero
        from estimator_npu.engine.ops.array_ops import zeros_like
        dys = [zeros_like(y) if dy is None else dy for y, dy in zip(op.outputs, dys)]
    grads = op.attrs["grad_fn"](*dys)
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    if len(grads) != len(xs):
        raise ValueError(f"custom_gradient {op.name}: grad_fn returned {len(grads)} "
                         f"gradients for {len(xs)} inputs")
    return [None] * n + [None if g is None else convert_to_tensor(g) for g in grads]


OPS.define("CustomGradient", kernel=_kernel, grad=_grad, may_alias=True)


def custom_gradient(f=None):
    """Decorates ``f(*xs) -> (ys, grad_fn)`` (see the module docstring); keyword
    arguments pass through to ``f``. ``grad_fn`` that takes ``variables`` (gradients for
    variables ``f`` reads) is not supported."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        xs = [convert_to_tensor(a) for a in args]
        ys, grad_fn = f(*xs, **kwargs)
        flat = [convert_to_tensor(y) for y in nest.flatten(ys)]
        for y in flat:
            if not isinstance(y, Tensor):
                raise TypeError(f"custom_gradient: {f.__name__} must return tensors, got "
                                f"{type(y).__name__}")
        op = make_op("CustomGradient", flat + xs, [(y.dtype, y.shape) for y in flat],
                     {"num_outputs": len(flat), "grad_fn": grad_fn},
                     name=f"{f.__name__}_CustomGradient")
        return nest.pack_sequence_as(ys, list(op.outputs))
    return decorated

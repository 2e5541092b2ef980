"""Scatters beyond ``scatter_update/add/sub`` and ``scatter_nd``: the functional
``tensor_scatter_nd_update/add/sub/max/min`` (new tensors, with gradients) and the variable
scatters ``scatter_nd_update/add/sub`` and ``scatter_mul/div/max/min`` (in place)."""
import numpy as np

from estimator_npu.engine.ops import array_ops, math_ops, scatter_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.ops.math_extra_ops import div_no_nan
from estimator_npu.engine.ops.scatter_ops import gather_nd, scatter_nd
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _nd_index(idx):
    idx = np.asarray(idx)
    return tuple(np.moveaxis(idx, -1, 0))


_APPLY = {
    "update": lambda a, i, u: a.__setitem__(i, u),
    "add": lambda a, i, u: np.add.at(a, i, u),
    "sub": lambda a, i, u: np.subtract.at(a, i, u),
    "mul": lambda a, i, u: np.multiply.at(a, i, u),
    "div": lambda a, i, u: np.divide.at(a, i, u) if a.dtype.kind == "f" else
    np.floor_divide.at(a, i, u),
    "max": lambda a, i, u: np.maximum.at(a, i, u),
    "min": lambda a, i, u: np.minimum.at(a, i, u),
}


# ------------------------------------------------------------------ tensor_scatter_nd_*
def _tensor_scatter(mode):
    def run(t, idx, u):
        out = np.array(t, copy=True)
        _APPLY[mode](out, _nd_index(idx), u)
        return out
    return run


def _tensor_scatter_op(op_type, tensor, indices, updates, name):
    t = convert_to_tensor(tensor)
    i = scatter_ops._int_tensor(indices, "indices", op_type)
    u = convert_to_tensor(updates, dtype=t.dtype)
    return make_tensor(op_type, [t, i, u], t.dtype, t.shape, name=name)


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with the slices at ``indices`` replaced by ``updates``."""
    return _tensor_scatter_op("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` added at ``indices`` (duplicates add up)."""
    return _tensor_scatter_op("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    return _tensor_scatter_op("TensorScatterSub", tensor, indices, updates, name)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with each slice at ``indices`` the maximum of it and ``updates``."""
    return _tensor_scatter_op("TensorScatterMax", tensor, indices, updates, name)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    return _tensor_scatter_op("TensorScatterMin", tensor, indices, updates, name)


tensor_scatter_update = tensor_scatter_nd_update
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub


def _update_grad(op, dy):
    idx, u = op.inputs[1], op.inputs[2]
    return [tensor_scatter_nd_update(dy, idx, array_ops.zeros_like(u)), None,
            gather_nd(dy, idx)]


def _minmax_grad(op, dy):
    # As TF: the gradient goes to the operand(s) equal to the output, split among ties.
    x, idx, u = op.inputs
    out = op.outputs[0]
    x_on = math_ops.cast(math_ops.equal(x, out), dy.dtype)
    u_on = math_ops.cast(math_ops.equal(u, gather_nd(out, idx)), dy.dtype)
    total = x_on + scatter_nd(idx, u_on, array_ops.shape(x))
    share = div_no_nan(dy, total)
    return [share * x_on, None, gather_nd(share, idx) * u_on]


OPS.define("TensorScatterUpdate", kernel=lambda op, ctx: _tensor_scatter("update"),
           grad=_update_grad)
OPS.define("TensorScatterAdd", kernel=lambda op, ctx: _tensor_scatter("add"),
           grad=lambda op, dy: [dy, None, gather_nd(dy, op.inputs[1])])
OPS.define("TensorScatterSub", kernel=lambda op, ctx: _tensor_scatter("sub"),
           grad=lambda op, dy: [dy, None, math_ops.negative(gather_nd(dy, op.inputs[1]))])
OPS.define("TensorScatterMax", kernel=lambda op, ctx: _tensor_scatter("max"),
           grad=_minmax_grad)
OPS.define("TensorScatterMin", kernel=lambda op, ctx: _tensor_scatter("min"),
           grad=_minmax_grad)


# ------------------------------------------------------------------ variable scatters
def _variable_scatter(mode, nd):
    def factory(op, ctx):
        store = ctx.store(op.attrs["var"])
        apply = _APPLY[mode]

        def scatter(idx, u):
            a = store.value
            if a is None:
                from estimator_npu import errors
                raise errors.FailedPreconditionError(
                    None, op, f"Attempting to use uninitialized value {op.attrs['var'].name}")
            apply(a, _nd_index(idx) if nd else np.asarray(idx), u)
            return a
        return scatter
    return factory


_VARIABLE_OPS = {"ScatterNdUpdate": ("update", True), "ScatterNdAdd": ("add", True),
                 "ScatterNdSub": ("sub", True), "ScatterMul": ("mul", False),
                 "ScatterDiv": ("div", False), "ScatterMax": ("max", False),
                 "ScatterMin": ("min", False)}
for _t, (_m, _nd) in _VARIABLE_OPS.items():
    OPS.define(_t, kernel=_variable_scatter(_m, _nd), grad=NOT_DIFFERENTIABLE, may_alias=True,
               stateful=True)


def scatter_nd_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[indices[..., :]] = updates`` on a variable; returns its new value."""
    return scatter_ops._scatter("ScatterNdUpdate", ref, indices, updates, name)


def scatter_nd_add(ref, indices, updates, use_locking=False, name=None):
    return scatter_ops._scatter("ScatterNdAdd", ref, indices, updates, name)


def scatter_nd_sub(ref, indices, updates, use_locking=False, name=None):
    return scatter_ops._scatter("ScatterNdSub", ref, indices, updates, name)


def scatter_mul(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices] *= updates`` on a variable (duplicates multiply in turn)."""
    return scatter_ops._scatter("ScatterMul", ref, indices, updates, name)


def scatter_div(ref, indices, updates, use_locking=False, name=None):
    return scatter_ops._scatter("ScatterDiv", ref, indices, updates, name)


def scatter_max(ref, indices, updates, use_locking=False, name=None):
    return scatter_ops._scatter("ScatterMax", ref, indices, updates, name)


def scatter_min(ref, indices, updates, use_locking=False, name=None):
    return scatter_ops._scatter("ScatterMin", ref, indices, updates, name)

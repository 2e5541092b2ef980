"""``tf.TensorArray``: a list of tensors threaded through a graph as a variant "flow".

Each operation returns a new ``TensorArray`` on a new flow tensor; the flow's value is a
``TAValue`` (an immutable list of arrays, ``None`` where nothing was written), so a loop
that records its flow per iteration keeps every version::

    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, x)            # TensorArrayWrite(flow, 0, x) -> flow'
    y = ta.stack()                 # TensorArrayStack(flow') -> [3, ...]

Gradients flow as ``TAValue``s too (``None`` entries are zeros): reading index ``i``
sends the cotangent to entry ``i`` of the flow's gradient, writing takes it back out.
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)

_SCALAR = TensorShape([])


class TAValue:
    """The contents of a TensorArray (or of its gradient) at one point of the graph."""

    __slots__ = ("items", "dynamic", "element_shape", "name", "clear_after_read", "read")

    def __init__(self, items, dynamic=True, element_shape=None, name="", clear=False):
        self.items = items
        self.dynamic = dynamic
        self.element_shape = element_shape
        self.name = name
        self.clear_after_read = clear
        self.read = None

    @classmethod
    def empty(cls):
        return cls([])

    def _like(self, items):
        return TAValue(items, self.dynamic, self.element_shape, self.name,
                       self.clear_after_read)

    def get(self, i):
        return self.items[i] if i < len(self.items) else None

    def add(self, other):
        a, b = self.items, other.items
        n = max(len(a), len(b))
        out = []
        for i in range(n):
            x = a[i] if i < len(a) else None
            y = b[i] if i < len(b) else None
            out.append(y if x is None else x if y is None else x + y)
        return self._like(out)

    def add_into(self, other):
        """Adds ``other``'s entries into this value's own item list (for an accumulator that
        owns ``self``, made by ``add``; the arrays themselves are never written to). Costs
        one step per entry ``other`` holds, so a loop's gradient accumulating one entry per
        iteration stays linear in the number of iterations."""
        items = self.items
        extra = len(other.items) - len(items)
        if extra > 0:
            items.extend([None] * extra)
        for i, y in enumerate(other.items):
            if y is not None:
                x = items[i]
                items[i] = y if x is None else x + y

    def __repr__(self):
        return f"<TensorArray value {self.name} size={len(self.items)}>"


def _index(op, flow, i, writing):
    i = int(i)
    n = len(flow.items)
    if i < 0:
        raise errors.InvalidArgumentError(None, op, f"{op.name}: index {i} is negative")
    if i >= n and not (writing and flow.dynamic):
        raise errors.InvalidArgumentError(
            None, op, f"{op.name}: tried to {'write to' if writing else 'read from'} index {i} "
            f"but array size is: {n}")
    return i


def _new_kernel(op, ctx):
    a = op.attrs

    def new(size):
        return TAValue([None] * int(size), a["dynamic_size"], a["element_shape"], a["ta_name"],
                       a["clear_after_read"])
    return new


def _write_kernel(op, ctx):
    def write(flow, i, value):
        i = _index(op, flow, i, True)
        items = list(flow.items)
        if i >= len(items):
            items.extend([None] * (i + 1 - len(items)))
        items[i] = value if type(value) is np.ndarray else np.asarray(value)
        return flow._like(items)
    return write


def _mark_read(op, flow, indices):
    """``clear_after_read``: an element can be read once from a given array value (TF1
    raises on the second read)."""
    if not flow.clear_after_read:
        return
    seen = flow.read
    if seen is None:
        seen = flow.read = set()
    for i in indices:
        if i in seen:
            raise errors.InvalidArgumentError(
                None, op, f"{op.name}: could not read index {i} twice because it was cleared "
                "after a previous read (perhaps try setting clear_after_read = false?)")
        seen.add(i)


def _read_kernel(op, ctx):
    def read(flow, i):
        i = _index(op, flow, i, False)
        _mark_read(op, flow, (i,))
        v = flow.items[i]
        if v is None:
            return _missing(op, flow, i)
        return v
    return read


def _missing(op, flow, i):
    shape = flow.element_shape
    if shape is not None and shape.is_fully_defined():
        return np.zeros(shape.as_list(), op.attrs["dtype"].np)
    raise errors.InvalidArgumentError(
        None, op, f"{op.name}: could not read from TensorArray index {i} because it has not "
        "yet been written to.")


def _stack_kernel(op, ctx):
    def stack(flow):
        _mark_read(op, flow, range(len(flow.items)))
        items = [v if v is not None else _missing(op, flow, i) for i, v in enumerate(flow.items)]
        if not items:
            shape = flow.element_shape
            if shape is None or not shape.is_fully_defined():
                raise errors.InvalidArgumentError(
                    None, op, f"{op.name}: TensorArray has size zero and no fully defined "
                    "element_shape, so it cannot be stacked")
            return np.zeros([0] + shape.as_list(), op.attrs["dtype"].np)
        return np.stack(items)
    return stack


def _gather_kernel(op, ctx):
    def gather(flow, indices):
        items = []
        idx = [_index(op, flow, i, False) for i in np.asarray(indices).reshape(-1)]
        _mark_read(op, flow, idx)
        for i in idx:
            v = flow.items[i]
            items.append(v if v is not None else _missing(op, flow, i))
        return np.stack(items)
    return gather


def _concat_kernel(op, ctx):
    def concat(flow):
        _mark_read(op, flow, range(len(flow.items)))
        return np.concatenate([v if v is not None else _missing(op, flow, i)
                               for i, v in enumerate(flow.items)], axis=0)
    return concat


def _scatter_kernel(op, ctx):
    def scatter(flow, indices, value):
        items = list(flow.items)
        value = np.asarray(value)
        for k, i in enumerate(np.asarray(indices).reshape(-1)):
            i = _index(op, flow._like(items), i, True)
            if i >= len(items):
                items.extend([None] * (i + 1 - len(items)))
            items[i] = value[k]
        return flow._like(items)
    return scatter


def _unstack_kernel(op, ctx):
    def unstack(flow, value):
        value = np.asarray(value)
        n = len(value)
        if not flow.dynamic and n > len(flow.items):
            raise errors.InvalidArgumentError(
                None, op, f"{op.name}: cannot unstack {n} elements into a TensorArray of size "
                f"{len(flow.items)}")
        items = list(flow.items)
        items.extend([None] * (n - len(items)))
        items[:n] = list(value)
        return flow._like(items)
    return unstack


def _split_kernel(op, ctx):
    def split(flow, value, lengths):
        value = np.asarray(value)
        bounds = np.cumsum(np.asarray(lengths).reshape(-1))[:-1]
        parts = np.split(value, bounds, axis=0)
        return flow._like(parts + list(flow.items[len(parts):]))
    return split


def _size_kernel(op, ctx):
    return lambda flow: np.int32(len(flow.items))


# ----- gradient kernels: flows of cotangents
def _grad_read_kernel(op, ctx):
    def read(dflow, i, like):
        v = dflow.get(int(i)) if dflow is not None else None
        return v if v is not None else np.zeros_like(like)
    return read


def _grad_clear_kernel(op, ctx):
    def clear(dflow, indices):
        items = list(dflow.items)
        n = len(items)
        if isinstance(indices, (np.ndarray, list, tuple)):
            idx = np.ravel(indices).tolist()
        else:  # one index (a write's gradient): a numpy or Python integer
            idx = (int(indices),)
        for i in idx:
            if i < n:
                items[i] = None
        return dflow._like(items)
    return clear


def _grad_put_kernel(op, ctx):
    def put(indices, dy):
        items = []
        dy = np.asarray(dy)
        idx = np.asarray(indices).reshape(-1)
        for k, i in enumerate(idx):
            if i >= len(items):
                items.extend([None] * (i + 1 - len(items)))
            items[i] = dy[k] if items[i] is None else items[i] + dy[k]
        return TAValue(items)
    return put


def _grad_put_at_kernel(op, ctx):
    def put_at(index, dy):  # the gradient of one read: entry ``index`` only
        items = [None] * (int(index) + 1)
        items[-1] = dy
        return TAValue(items)
    return put_at


def _grad_gather_kernel(op, ctx):
    def gather(dflow, indices, like):
        like = np.asarray(like)
        out = np.zeros_like(like)
        for k, i in enumerate(np.asarray(indices).reshape(-1)):
            v = dflow.get(int(i))
            if v is not None:
                out[k] = v
        return out
    return gather


def _grad_split_kernel(op, ctx):
    def split(dy, flow):
        lengths = [len(v) for v in flow.items]
        bounds = np.cumsum(lengths)[:-1]
        return TAValue(np.split(np.asarray(dy), bounds, axis=0))
    return split


def _grad_concat_kernel(op, ctx):
    def concat(dflow, like, lengths):
        like = np.asarray(like)
        starts = np.concatenate([[0], np.cumsum(np.asarray(lengths).reshape(-1))])
        out = np.zeros_like(like)
        for i in range(min(len(dflow.items), len(starts) - 1)):
            v = dflow.items[i]
            if v is not None:
                out[starts[i]:starts[i + 1]] = v
        return out
    return concat


def _grad_sum_kernel(op, ctx):
    def total(*flows):
        out = flows[0]
        for f in flows[1:]:
            out = out.add(f)
        return out
    return total


def _variant(op_type, inputs, attrs=None, name=None):
    return make_tensor(op_type, inputs, dtypes.variant, _SCALAR, attrs, name=name)


def zero_flow_grad():
    """The gradient of a flow that received none (all zeros)."""
    return _variant("TensorArrayZeroGrad", [], name="TensorArrayZeroGrad")


def sum_flow_grads(grads):
    return _variant("TensorArrayGradSum", list(grads), name="TensorArrayGradSum")


def _write_grad(op, dflow):
    flow, index, value = op.inputs
    if dflow is None:
        return [None, None, None]
    dv = make_tensor("TensorArrayGradRead", [dflow, index, value], value.dtype, value.shape)
    return [_variant("TensorArrayGradClear", [dflow, index]), None, dv]


def _read_grad(op, dy):
    return [_variant("TensorArrayGradPutAt", [op.inputs[1], dy]), None]


def _stack_grad(op, dy):
    return [_variant("TensorArrayGradUnstack", [dy])]


def _gather_grad(op, dy):
    return [_variant("TensorArrayGradPut", [op.inputs[1], dy]), None]


def _scatter_grad(op, dflow):
    flow, indices, value = op.inputs
    if dflow is None:
        return [None, None, None]
    dv = make_tensor("TensorArrayGradGather", [dflow, indices, value], value.dtype, value.shape)
    return [_variant("TensorArrayGradClear", [dflow, indices]), None, dv]


def _unstack_grad(op, dflow):
    flow, value = op.inputs
    if dflow is None:
        return [None, None]
    dv = make_tensor("TensorArrayGradStack", [dflow, value], value.dtype, value.shape)
    return [_variant("TensorArrayGradClearFirst", [dflow, value]), dv]


def _concat_grad(op, dy):
    return [_variant("TensorArrayGradSplit", [dy, op.inputs[0]])]


def _split_grad(op, dflow):
    flow, value, lengths = op.inputs
    if dflow is None:
        return [None, None, None]
    dv = make_tensor("TensorArrayGradConcat", [dflow, value, lengths], value.dtype,
                     value.shape)
    return [_variant("TensorArrayGradClearFirst", [dflow, lengths]), dv, None]


def _grad_unstack_kernel(op, ctx):
    return lambda dy: TAValue(list(np.asarray(dy)))


def _grad_stack_kernel(op, ctx):
    def stack(dflow, like):
        out = np.zeros_like(like)
        for i in range(min(len(out), len(dflow.items))):
            v = dflow.items[i]
            if v is not None:
                out[i] = v
        return out
    return stack


def _grad_clear_first_kernel(op, ctx):
    def clear(dflow, like):
        n = len(like)
        return dflow._like([None] * min(n, len(dflow.items)) + list(dflow.items[n:]))
    return clear


OPS.define("TensorArrayV3", kernel=_new_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayWriteV3", kernel=_write_kernel, grad=_write_grad)
OPS.define("TensorArrayReadV3", kernel=_read_kernel, grad=_read_grad)
OPS.define("TensorArrayStackV3", kernel=_stack_kernel, grad=_stack_grad)
OPS.define("TensorArrayGatherV3", kernel=_gather_kernel, grad=_gather_grad)
OPS.define("TensorArrayScatterV3", kernel=_scatter_kernel, grad=_scatter_grad)
OPS.define("TensorArrayUnstackV3", kernel=_unstack_kernel, grad=_unstack_grad)
OPS.define("TensorArrayConcatV3", kernel=_concat_kernel, grad=_concat_grad)
OPS.define("TensorArraySplitV3", kernel=_split_kernel, grad=_split_grad)
OPS.define("TensorArraySizeV3", kernel=_size_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayZeroGrad", kernel=lambda op, ctx: TAValue.empty, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradSum", kernel=_grad_sum_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradRead", kernel=_grad_read_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradClear", kernel=_grad_clear_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradPut", kernel=_grad_put_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradPutAt", kernel=_grad_put_at_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradGather", kernel=_grad_gather_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradSplit", kernel=_grad_split_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradConcat", kernel=_grad_concat_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradUnstack", kernel=_grad_unstack_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradStack", kernel=_grad_stack_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TensorArrayGradClearFirst", kernel=_grad_clear_first_kernel, grad=NOT_DIFFERENTIABLE)


__all__ = ["TAValue", "zero_flow_grad", "sum_flow_grads"]

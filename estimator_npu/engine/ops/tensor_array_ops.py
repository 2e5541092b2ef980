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
from estimator_npu.engine.ops.core import convert_to_tensor, make_op, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, register
from estimator_npu.engine.shape import TensorShape, as_shape

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
        items[i] = np.asarray(value)
        return flow._like(items)
    return write


def _read_kernel(op, ctx):
    def read(flow, i):
        i = _index(op, flow, i, False)
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
        for i in np.asarray(indices).reshape(-1):
            i = _index(op, flow, i, False)
            v = flow.items[i]
            items.append(v if v is not None else _missing(op, flow, i))
        return np.stack(items)
    return gather


def _concat_kernel(op, ctx):
    def concat(flow):
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
        for i in np.asarray(indices).reshape(-1):
            if i < len(items):
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
    _, index = op.inputs
    from estimator_npu.engine.ops.array_ops import expand_dims, reshape
    return [_variant("TensorArrayGradPut", [reshape(index, [1]), expand_dims(dy, 0)]), None]


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


register("TensorArrayV3", kernel=_new_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayWriteV3", kernel=_write_kernel, grad=_write_grad)
register("TensorArrayReadV3", kernel=_read_kernel, grad=_read_grad)
register("TensorArrayStackV3", kernel=_stack_kernel, grad=_stack_grad)
register("TensorArrayGatherV3", kernel=_gather_kernel, grad=_gather_grad)
register("TensorArrayScatterV3", kernel=_scatter_kernel, grad=_scatter_grad)
register("TensorArrayUnstackV3", kernel=_unstack_kernel, grad=_unstack_grad)
register("TensorArrayConcatV3", kernel=_concat_kernel, grad=_concat_grad)
register("TensorArraySplitV3", kernel=_split_kernel, grad=_split_grad)
register("TensorArraySizeV3", kernel=_size_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayZeroGrad", kernel=lambda op, ctx: TAValue.empty, grad=NOT_DIFFERENTIABLE)
register("TensorArrayGradSum", kernel=_grad_sum_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayGradRead", kernel=_grad_read_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayGradClear", kernel=_grad_clear_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayGradPut", kernel=_grad_put_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayGradGather", kernel=_grad_gather_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayGradSplit", kernel=_grad_split_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayGradConcat", kernel=_grad_concat_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayGradUnstack", kernel=_grad_unstack_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayGradStack", kernel=_grad_stack_kernel, grad=NOT_DIFFERENTIABLE)
register("TensorArrayGradClearFirst", kernel=_grad_clear_first_kernel, grad=NOT_DIFFERENTIABLE)


class TensorArray:
    """``tf.TensorArray(dtype, size=None, dynamic_size=None, clear_after_read=None, ...)``.

    Every method that changes the array returns a new ``TensorArray``; use the returned
    object (as in TF1).
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._element_shape = as_shape(element_shape) if element_shape is not None else \
            TensorShape(None)
        self._name = tensor_array_name or name or "TensorArray"
        if flow is not None:
            self._flow = flow
            return
        if size is None:
            raise ValueError("TensorArray: size must be given unless flow is")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        self._flow = _variant("TensorArrayV3", [size], {
            "dtype": self._dtype, "dynamic_size": self._dynamic_size,
            "element_shape": element_shape and as_shape(element_shape),
            "ta_name": self._name, "clear_after_read": self._clear_after_read},
            name=name or "TensorArray")

    def _derive(self, flow, element_shape=None):
        ta = TensorArray.__new__(TensorArray)
        ta.__dict__.update(self.__dict__)
        ta._flow = flow
        if element_shape is not None and self._infer_shape:
            ta._element_shape = self._element_shape.merge_with(element_shape)
        return ta

    # hooks used by while_loop / cond / subgraph tracing
    def _as_subgraph_value(self):
        return self._flow

    def _from_subgraph_value(self, flow):
        return self._derive(flow)

    @property
    def flow(self):
        return self._flow

    @property
    def handle(self):
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        return self._element_shape

    @property
    def dynamic_size(self):
        return self._dynamic_size

    def _check_value(self, value, what):
        value = convert_to_tensor(value, dtype=self._dtype)
        return value

    def read(self, index, name=None):
        index = convert_to_tensor(index, dtype=dtypes.int32)
        return make_tensor("TensorArrayReadV3", [self._flow, index], self._dtype,
                           self._element_shape, {"dtype": self._dtype},
                           name=name or "TensorArrayReadV3")

    def write(self, index, value, name=None):
        value = self._check_value(value, "write")
        index = convert_to_tensor(index, dtype=dtypes.int32)
        flow = _variant("TensorArrayWriteV3", [self._flow, index, value],
                        name=name or "TensorArrayWrite")
        return self._derive(flow, value.shape)

    def stack(self, name=None):
        es = self._element_shape
        shape = TensorShape([None] + list(es.dims)) if es.dims is not None else \
            TensorShape(None)
        return make_tensor("TensorArrayStackV3", [self._flow], self._dtype, shape,
                           {"dtype": self._dtype}, name=name or "TensorArrayStack")

    def gather(self, indices, name=None):
        indices = convert_to_tensor(indices, dtype=dtypes.int32)
        es = self._element_shape
        n = indices.shape.dims[0] if indices.shape.dims else None
        shape = TensorShape([n] + list(es.dims)) if es.dims is not None else TensorShape(None)
        return make_tensor("TensorArrayGatherV3", [self._flow, indices], self._dtype, shape,
                           {"dtype": self._dtype}, name=name or "TensorArrayGather")

    def concat(self, name=None):
        es = self._element_shape
        shape = TensorShape([None] + list(es.dims[1:])) if es.dims else TensorShape(None)
        return make_tensor("TensorArrayConcatV3", [self._flow], self._dtype, shape,
                           {"dtype": self._dtype}, name=name or "TensorArrayConcat")

    def unstack(self, value, name=None):
        value = self._check_value(value, "unstack")
        flow = _variant("TensorArrayUnstackV3", [self._flow, value],
                        name=name or "TensorArrayUnstack")
        elem = TensorShape(value.shape.dims[1:]) if value.shape.dims else None
        return self._derive(flow, elem)

    def scatter(self, indices, value, name=None):
        value = self._check_value(value, "scatter")
        indices = convert_to_tensor(indices, dtype=dtypes.int32)
        flow = _variant("TensorArrayScatterV3", [self._flow, indices, value],
                        name=name or "TensorArrayScatter")
        elem = TensorShape(value.shape.dims[1:]) if value.shape.dims else None
        return self._derive(flow, elem)

    def split(self, value, lengths, name=None):
        value = self._check_value(value, "split")
        lengths = convert_to_tensor(lengths, dtype=dtypes.int32)
        flow = _variant("TensorArraySplitV3", [self._flow, value, lengths],
                        name=name or "TensorArraySplit")
        return self._derive(flow)

    def size(self, name=None):
        return make_tensor("TensorArraySizeV3", [self._flow], dtypes.int32, _SCALAR,
                           name=name or "TensorArraySize")

    def identity(self):
        return self

    def close(self, name=None):
        from estimator_npu.engine.ops.core import no_op
        return no_op(name=name)


__all__ = ["TensorArray"]

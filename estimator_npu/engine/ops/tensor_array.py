"""``tf.TensorArray``: the Python object over a TensorArray's flow tensor.

Every method that changes the array returns a new ``TensorArray`` on the new flow (see
``tensor_array_ops`` for the ops and their gradients)::

    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, x)            # TensorArrayWrite(flow, 0, x) -> flow'
    y = ta.stack()                 # TensorArrayStack(flow') -> [3, ...]
"""
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.ops.tensor_array_ops import _SCALAR, _variant
from estimator_npu.engine.shape import TensorShape, as_shape


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
        shape = TensorShape([None] + list(es.values)) if es.values is not None else \
            TensorShape(None)
        return make_tensor("TensorArrayStackV3", [self._flow], self._dtype, shape,
                           {"dtype": self._dtype}, name=name or "TensorArrayStack")

    def gather(self, indices, name=None):
        indices = convert_to_tensor(indices, dtype=dtypes.int32)
        es = self._element_shape
        n = indices.shape.values[0] if indices.shape.values else None
        shape = TensorShape([n] + list(es.values)) if es.values is not None else TensorShape(None)
        return make_tensor("TensorArrayGatherV3", [self._flow, indices], self._dtype, shape,
                           {"dtype": self._dtype}, name=name or "TensorArrayGather")

    def concat(self, name=None):
        es = self._element_shape
        shape = TensorShape([None] + list(es.values[1:])) if es.values else TensorShape(None)
        return make_tensor("TensorArrayConcatV3", [self._flow], self._dtype, shape,
                           {"dtype": self._dtype}, name=name or "TensorArrayConcat")

    def unstack(self, value, name=None):
        value = self._check_value(value, "unstack")
        flow = _variant("TensorArrayUnstackV3", [self._flow, value],
                        name=name or "TensorArrayUnstack")
        elem = TensorShape(value.shape.values[1:]) if value.shape.values else None
        return self._derive(flow, elem)

    def scatter(self, indices, value, name=None):
        value = self._check_value(value, "scatter")
        indices = convert_to_tensor(indices, dtype=dtypes.int32)
        flow = _variant("TensorArrayScatterV3", [self._flow, indices, value],
                        name=name or "TensorArrayScatter")
        elem = TensorShape(value.shape.values[1:]) if value.shape.values else None
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

"""``tf.nn.rnn_cell``: recurrent cells with TF1's variable names.

A cell creates its variables on its first call, inside a variable scope named after the
cell (``basic_lstm_cell``, made unique in the enclosing scope as TF1 does), so
``dynamic_rnn(BasicLSTMCell(n), x)`` creates ``rnn/basic_lstm_cell/kernel`` and
``rnn/basic_lstm_cell/bias`` and TF1 checkpoints carry over. Later calls reuse them::

    cell = tf.nn.rnn_cell.BasicLSTMCell(128)
    output, state = cell(x_t, state)          # state: LSTMStateTuple(c, h)

Gate layout follows TF1: one kernel ``[input_depth + units, 4 * units]`` split as
``i, j, f, o`` (input gate, candidate, forget gate, output gate).
"""
import collections

import numpy as np

from estimator_npu.engine import dtypes, init_ops
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.variable_scope import get_variable, variable_scope
from estimator_npu.rnn.lstm_ops import lstm_block
from estimator_npu.utils import nest

OPS = OpFamily(__name__)  # this family's op definitions (data)


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """``(c, h)``: the cell state and the output of an LSTM cell."""

    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


def _zeros(batch_size, size, dtype):
    size = list(size) if isinstance(size, (list, tuple)) else [size]
    if isinstance(batch_size, int):
        return array_ops.zeros([batch_size] + size, dtype=dtype)
    batch = convert_to_tensor(batch_size, dtype=dtypes.int32)
    static = None
    from estimator_npu.engine.shape import TensorShape
    return make_tensor("ZeroState", [batch], dtype, TensorShape([static] + size),
                       {"size": tuple(size), "dtype": dtype}, name="zeros")


def _zero_state_kernel(op, ctx):
    size, npd = op.attrs["size"], op.attrs["dtype"].np
    return lambda batch: np.zeros((int(batch),) + size, npd)


# zeros of a batch size known only at run time (the batch dim of the inputs)
OPS.define("ZeroState", kernel=_zero_state_kernel, grad=NOT_DIFFERENTIABLE)


class RNNCell:
    """Base class: ``__call__(inputs, state) -> (output, new_state)``."""

    _default_name = "rnn_cell"

    def __init__(self, num_units=None, activation=None, reuse=None, name=None, dtype=None):
        self._num_units = num_units
        self._activation = activation or math_ops.tanh
        self._reuse = reuse
        self._name = name
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._scope = None
        self._built = False
        self.variables = []

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def zero_state(self, batch_size, dtype):
        """Zeros of ``state_size`` (nested) for a batch of ``batch_size``."""
        return nest.map_structure(lambda s: _zeros(batch_size, s, dtypes.as_dtype(dtype)),
                                  self.state_size)

    def _variable(self, name, shape, dtype, initializer=None):
        v = get_variable(name, shape, dtype=dtype, initializer=initializer)
        self.variables.append(v)
        return v

    def __call__(self, inputs, state, scope=None):
        if self._scope is None:
            with variable_scope(scope, default_name=self._name or self._default_name,
                                reuse=self._reuse) as vs:
                self._scope = vs
                return self._first_call(inputs, state)
        g = get_default_graph()
        with g.name_scope(self._scope.name.rsplit("/", 1)[-1]):
            return self.call(inputs, state)

    def _first_call(self, inputs, state):
        flat = [convert_to_tensor(x) for x in nest.flatten(inputs)]
        depth = flat[0].shape.values[-1] if flat[0].shape.values else None
        if depth is None:
            raise ValueError(f"{type(self).__name__}: the last dimension of the inputs "
                             f"({flat[0].name}, shape {flat[0].shape}) must be known")
        self.build(depth, self._dtype or flat[0].dtype)
        self._built = True
        return self.call(inputs, state)

    def build(self, input_depth, dtype):
        pass

    def call(self, inputs, state):
        raise NotImplementedError


def _linear(args, kernel, bias):
    x = args[0] if len(args) == 1 else array_ops.concat(args, 1)
    y = math_ops.matmul(x, kernel)
    return nn_ops.bias_add(y, bias) if bias is not None else y


class BasicRNNCell(RNNCell):
    """``h' = activation([x, h] @ kernel + bias)``."""

    _default_name = "basic_rnn_cell"

    def build(self, depth, dtype):
        n = self._num_units
        self._kernel = self._variable("kernel", [depth + n, n], dtype)
        self._bias = self._variable("bias", [n], dtype, init_ops.zeros_initializer())

    def call(self, inputs, state):
        out = self._activation(_linear([inputs, state], self._kernel, self._bias))
        return out, out


class BasicLSTMCell(RNNCell):
    """The TF1 basic LSTM: no peepholes, ``forget_bias`` added to the forget gate."""

    _default_name = "basic_lstm_cell"

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None):
        super().__init__(num_units, activation, reuse, name, dtype)
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    def build(self, depth, dtype):
        n = self._num_units
        self._kernel = self._variable("kernel", [depth + n, 4 * n], dtype)
        self._bias = self._variable("bias", [4 * n], dtype, init_ops.zeros_initializer())

    def call(self, inputs, state):
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(state, 2, axis=1)
        if self._activation is math_ops.tanh:  # the fused kernel (same arithmetic)
            new_c, new_h = lstm_block(convert_to_tensor(inputs), c, h, self._kernel,
                                      self._bias, self._forget_bias)
        else:
            gates = _linear([inputs, h], self._kernel, self._bias)
            i, j, f, o = array_ops.split(gates, 4, axis=1)
            sig, act = math_ops.sigmoid, self._activation
            new_c = c * sig(f + self._forget_bias) + sig(i) * act(j)
            new_h = act(new_c) * sig(o)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else \
            array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(RNNCell):
    """TF1 ``LSTMCell``: optional peepholes, cell clipping and an output projection."""

    _default_name = "lstm_cell"

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None):
        super().__init__(num_units, activation, reuse, name, dtype)
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple

    @property
    def state_size(self):
        n, m = self._num_units, self._num_proj or self._num_units
        return LSTMStateTuple(n, m) if self._state_is_tuple else n + m

    @property
    def output_size(self):
        return self._num_proj or self._num_units

    def build(self, depth, dtype):
        n = self._num_units
        m = self._num_proj or n
        self._kernel = self._variable("kernel", [depth + m, 4 * n], dtype, self._initializer)
        self._bias = self._variable("bias", [4 * n], dtype, init_ops.zeros_initializer())
        if self._use_peepholes:
            self._w_f = self._variable("w_f_diag", [n], dtype, self._initializer)
            self._w_i = self._variable("w_i_diag", [n], dtype, self._initializer)
            self._w_o = self._variable("w_o_diag", [n], dtype, self._initializer)
        if self._num_proj is not None:
            with variable_scope("projection"):
                self._proj = self._variable("kernel", [n, self._num_proj], dtype,
                                            self._initializer)

    def call(self, inputs, state):
        n = self._num_units
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = state[:, :n]
            m_prev = state[:, n:]
        if not self._use_peepholes and self._cell_clip is None and self._num_proj is None \
                and self._activation is math_ops.tanh:  # plain LSTM: the fused kernel
            c, m = lstm_block(convert_to_tensor(inputs), c_prev, m_prev, self._kernel,
                              self._bias, self._forget_bias)
            new_state = LSTMStateTuple(c, m) if self._state_is_tuple else \
                array_ops.concat([c, m], 1)
            return m, new_state
        gates = _linear([inputs, m_prev], self._kernel, self._bias)
        i, j, f, o = array_ops.split(gates, 4, axis=1)
        sig, act = math_ops.sigmoid, self._activation
        if self._use_peepholes:
            c = sig(f + self._forget_bias + self._w_f * c_prev) * c_prev + \
                sig(i + self._w_i * c_prev) * act(j)
        else:
            c = sig(f + self._forget_bias) * c_prev + sig(i) * act(j)
        if self._cell_clip is not None:
            c = math_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sig(o + self._w_o * c) * act(c)
        else:
            m = sig(o) * act(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj)
            if self._proj_clip is not None:
                m = math_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else \
            array_ops.concat([c, m], 1)
        return m, new_state


class LSTMBlockCell(LSTMCell):
    """``tf.contrib.rnn.LSTMBlockCell``: TF1's fused LSTM (variables ``lstm_cell/kernel``,
    ``lstm_cell/bias``; gates ``i, j, f, o``), the same arithmetic as ``LSTMCell``."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                 reuse=None, dtype=None, name="lstm_cell"):
        super().__init__(num_units, use_peepholes=use_peephole,
                         cell_clip=cell_clip if cell_clip is not None and cell_clip > 0
                         else None, forget_bias=forget_bias, reuse=reuse, name=name,
                         dtype=dtype)


class GRUCell(RNNCell):
    """TF1 ``GRUCell``: ``gates/{kernel,bias}`` (reset, update) and ``candidate/...``."""

    _default_name = "gru_cell"

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None):
        super().__init__(num_units, activation, reuse, name, dtype)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    def build(self, depth, dtype):
        n = self._num_units
        with variable_scope("gates"):
            self._gate_kernel = self._variable("kernel", [depth + n, 2 * n], dtype,
                                               self._kernel_initializer)
            self._gate_bias = self._variable(
                "bias", [2 * n], dtype,
                self._bias_initializer or init_ops.constant_initializer(1.0))
        with variable_scope("candidate"):
            self._cand_kernel = self._variable("kernel", [depth + n, n], dtype,
                                               self._kernel_initializer)
            self._cand_bias = self._variable("bias", [n], dtype,
                                             self._bias_initializer or
                                             init_ops.zeros_initializer())

    def call(self, inputs, state):
        value = math_ops.sigmoid(_linear([inputs, state], self._gate_kernel, self._gate_bias))
        r, u = array_ops.split(value, 2, axis=1)
        c = self._activation(_linear([inputs, r * state], self._cand_kernel, self._cand_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class MultiRNNCell(RNNCell):
    """Stacks cells: cell ``i`` builds its variables under ``multi_rnn_cell/cell_i/``."""

    _default_name = "multi_rnn_cell"

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple

    @property
    def state_size(self):
        sizes = tuple(c.state_size for c in self._cells)
        return sizes if self._state_is_tuple else sum(sizes)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        return tuple(c.zero_state(batch_size, dtype) for c in self._cells)

    def _first_call(self, inputs, state):
        self._built = True
        return self.call(inputs, state)

    def call(self, inputs, state):
        cur = inputs
        new_states = []
        start = 0
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    s = state[i]
                else:
                    size = cell.state_size
                    s = state[:, start:start + size]
                    start += size
                cur, ns = cell(cur, s)
            new_states.append(ns)
        new = tuple(new_states) if self._state_is_tuple else array_ops.concat(new_states, 1)
        return cur, new


class _Wrapper(RNNCell):
    """A cell around another cell (no variables of its own, no scope of its own)."""

    def __init__(self, cell):
        super().__init__()
        self._cell = cell

    @property
    def state_size(self):
        return self._cell.state_size

    @property
    def output_size(self):
        return self._cell.output_size

    def zero_state(self, batch_size, dtype):
        return self._cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        return self.call(inputs, state)


class DropoutWrapper(_Wrapper):
    """Dropout on a cell's inputs, outputs and (not the ``c`` of an LSTM) state."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        super().__init__(cell)
        if variational_recurrent:
            raise NotImplementedError("DropoutWrapper(variational_recurrent=True) is not "
                                      "implemented (yet)")
        for name, p in (("input_keep_prob", input_keep_prob),
                        ("output_keep_prob", output_keep_prob),
                        ("state_keep_prob", state_keep_prob)):
            if isinstance(p, (int, float)) and not 0.0 < p <= 1.0:
                raise ValueError(f"Parameter {name} must be between 0 and 1: {p}")
        self._in, self._out, self._state = input_keep_prob, output_keep_prob, state_keep_prob
        self._seed = seed

    def _drop(self, x, keep, salt):
        if isinstance(keep, (int, float)) and keep == 1.0:
            return x
        seed = None if self._seed is None else self._seed + salt
        return nn_ops.dropout(x, keep_prob=keep, seed=seed)

    def call(self, inputs, state):
        inputs = nest.map_structure(lambda x: self._drop(x, self._in, 0), inputs)
        out, new_state = self._cell(inputs, state)
        if not (isinstance(self._state, (int, float)) and self._state == 1.0):
            if isinstance(new_state, LSTMStateTuple):  # TF1 keeps the memory cell c
                new_state = LSTMStateTuple(new_state.c, self._drop(new_state.h,
                                                                   self._state, 1))
            else:
                new_state = nest.map_structure(lambda s: self._drop(s, self._state, 1),
                                               new_state)
        out = nest.map_structure(lambda x: self._drop(x, self._out, 2), out)
        return out, new_state


class DeviceWrapper(_Wrapper):
    """``DeviceWrapper(cell, device)``: runs ``cell`` (placement is a no-op here)."""

    def __init__(self, cell, device):
        super().__init__(cell)
        self._device = device

    def call(self, inputs, state):
        return self._cell(inputs, state)


class ResidualWrapper(_Wrapper):
    """``output = inputs + cell(inputs)`` (or ``residual_fn(inputs, output)``)."""

    def __init__(self, cell, residual_fn=None):
        super().__init__(cell)
        self._residual_fn = residual_fn

    def call(self, inputs, state):
        out, new_state = self._cell(inputs, state)
        if self._residual_fn is not None:
            return self._residual_fn(inputs, out), new_state
        return nest.map_structure(lambda a, b: a + b, inputs, out), new_state


__all__ = ["RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "LSTMBlockCell", "GRUCell",
           "MultiRNNCell", "DropoutWrapper", "DeviceWrapper", "ResidualWrapper",
           "LSTMStateTuple"]

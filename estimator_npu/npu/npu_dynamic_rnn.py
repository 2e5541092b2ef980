"""``npu_bridge.estimator.npu.npu_dynamic_rnn``: the adapter's fused recurrent layers.

``DynamicRNN(hidden_size, dtype, forget_bias=0.0, ...)(x)`` runs an LSTM over a
time-major ``x`` of shape ``[time, batch, input_size]`` and returns eight tensors, each
``[time, batch, hidden_size]``::

    y, output_h, output_c, i, j, f, o, tanhc = DynamicRNN(64, tf.float32)(x)

with, at every step ``t`` (``[x_t, h]`` concatenated; ``w`` is ``[input + hidden, 4 *
hidden]``, ``b`` ``[4 * hidden]``, gate order i, j, f, o as TF's ``BasicLSTMCell``)::

    i, j, f, o = split([x_t, h] @ w + b, 4)
    i, j, f, o = sigmoid(i), tanh(j), sigmoid(f + forget_bias), sigmoid(o)
    c = f * c + i * j            (clipped to [-cell_clip, cell_clip] when cell_clip > 0)
    tanhc = tanh(c);  h = o * tanhc;  y = output_h = h;  output_c = c

``i, j, f, o`` are the activated gates (``f`` includes the forget bias). The variables
are ``<layer>/dynamicrnn/w`` (Glorot-uniform, seed 10) and ``<layer>/dynamicrnn/b``
(zeros); ``call(x, seq_length=None, init_h=None, init_c=None, weight=None, bias=None)``
takes ``[1, batch, hidden]`` initial states and may use other weights. With
``seq_length`` (int ``[batch]``) the outputs past each length are zero and the state stops
changing. ``DynamicGRUV2`` runs a GRU the same way (see its docstring). The step is built
from plain graph ops, so every one of the outputs has a gradient.
"""
import math

from estimator_npu.engine import dtypes, init_ops
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.variable_scope import get_variable, variable_scope
from estimator_npu.layers.base import Layer
from estimator_npu.rnn.cells import RNNCell
from estimator_npu.rnn.dynamic import dynamic_rnn

DYNAMIC_RNN_UNIDIRECTION = "UNIDIRECTIONAL"
DYNAMIC_RNN_BIDIRECTION = "BIDIRECTIONAL"


class _Step(RNNCell):
    """One step of the fused layer: ``step(x_t, state, weight, bias) -> (outputs, state)``."""

    def __init__(self, units, step, output_count, state_count):
        super().__init__(num_units=units)
        self._step, self._outputs, self._states = step, output_count, state_count

    @property
    def state_size(self):
        return (self._num_units,) * self._states

    @property
    def output_size(self):
        return (self._num_units,) * self._outputs

    def __call__(self, inputs, state, scope=None):
        return self._step(inputs, state)


def _unsupported(layer, **given):
    for what, (value, default) in given.items():
        if value != default:
            raise NotImplementedError(
                f"estimator_npu does not implement {type(layer).__name__}({what}={value!r}) "
                f"(yet); {what}={default!r} is supported")


class _DynamicBasic(Layer):
    """What the adapter's fused recurrent layers share: the arguments, time-major input."""

    def __init__(self, hidden_size, dtype, direction=DYNAMIC_RNN_UNIDIRECTION, cell_depth=1,
                 keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True,
                 activation="tanh", is_training=True):
        super().__init__(dtype=dtypes.as_dtype(dtype))
        if direction not in (DYNAMIC_RNN_UNIDIRECTION, DYNAMIC_RNN_BIDIRECTION):
            raise ValueError(f"Invalid direction: {direction}, expecting "
                             f"{DYNAMIC_RNN_UNIDIRECTION} or {DYNAMIC_RNN_BIDIRECTION}")
        _unsupported(self, direction=(direction, DYNAMIC_RNN_UNIDIRECTION),
                     cell_depth=(cell_depth, 1), keep_prob=(keep_prob, 1.0),
                     num_proj=(num_proj, 0), time_major=(time_major, True),
                     activation=(activation, "tanh"))
        self._hidden_size = int(hidden_size)
        self.direction, self.cell_depth, self.keep_prob = direction, cell_depth, keep_prob
        self.cell_clip, self.num_proj, self.time_major = cell_clip, num_proj, time_major
        self.activation, self.is_training = activation, is_training

    def _input(self, x):
        x = convert_to_tensor(x)
        if x.shape.ndims != 3 or x.shape.values[2] is None:
            raise ValueError(f"{type(self).__name__}: x must be [time, batch, input_size] "
                             f"with input_size known, got {x.name} of shape {x.shape}")
        return x

    def _initial(self, value, x, name):
        """``[1, batch, hidden]`` (or ``[batch, hidden]``) -> ``[batch, hidden]``."""
        if value is None:
            batch = x.shape.values[1]
            batch = batch if batch is not None else array_ops.shape(x)[1]
            return array_ops.zeros(array_ops.stack([batch, self._hidden_size])
                                   if not isinstance(batch, int)
                                   else [batch, self._hidden_size], dtype=self.dtype)
        value = convert_to_tensor(value, dtype=self.dtype)
        if value.shape.ndims == 3:
            value = array_ops.squeeze(value, [0], name=name)
        return value

    def _run(self, x, seq_length, step, outputs, states, initial):
        cell = _Step(self._hidden_size, step, outputs, states)
        out, _ = dynamic_rnn(cell, x, sequence_length=seq_length, initial_state=initial,
                             time_major=True, scope="rnn")
        return out


class DynamicRNN(_DynamicBasic):
    """The adapter's fused LSTM layer (see the module docstring)."""

    _default_name = "dynamic_rnn"

    def __init__(self, hidden_size, dtype, cell_type="LSTM",
                 direction=DYNAMIC_RNN_UNIDIRECTION, cell_depth=1, use_peephole=False,
                 keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True,
                 activation="tanh", forget_bias=0.0, is_training=True):
        super().__init__(hidden_size, dtype, direction=direction, cell_depth=cell_depth,
                         keep_prob=keep_prob, cell_clip=cell_clip, num_proj=num_proj,
                         time_major=time_major, activation=activation,
                         is_training=is_training)
        _unsupported(self, cell_type=(cell_type, "LSTM"), use_peephole=(use_peephole, False))
        self.cell_type, self.use_peephole = cell_type, use_peephole
        self.forget_bias = float(forget_bias)

    def _apply(self, x, scope, reuse, seq_length=None, init_h=None, init_c=None, weight=None,
               bias=None):
        x = self._input(x)
        n, depth = self._hidden_size, x.shape.values[2]
        with variable_scope(scope, reuse=reuse):
            w = get_variable("dynamicrnn/w", [depth + n, 4 * n], dtype=self.dtype,
                             initializer=init_ops.glorot_uniform_initializer(seed=10))
            b = get_variable("dynamicrnn/b", [4 * n], dtype=self.dtype,
                             initializer=init_ops.zeros_initializer())
            weight = w if weight is None else weight
            bias = b if bias is None else bias
            clip = float(self.cell_clip)

            def step(x_t, state):
                c, h = state
                z = math_ops.matmul(array_ops.concat([x_t, h], 1), weight) + bias
                i, j, f, o = array_ops.split(z, 4, axis=1)
                i, j, o = math_ops.sigmoid(i), math_ops.tanh(j), math_ops.sigmoid(o)
                f = math_ops.sigmoid(f + self.forget_bias)
                c = f * c + i * j
                if clip > 0:
                    c = math_ops.clip_by_value(c, -clip, clip)
                tanhc = math_ops.tanh(c)
                h = o * tanhc
                return (h, h, c, i, j, f, o, tanhc), (c, h)

            initial = (self._initial(init_c, x, "init_c"), self._initial(init_h, x, "init_h"))
            return self._run(x, seq_length, step, 8, 2, initial)

    @property
    def kernel(self):
        return self._var("dynamicrnn/w")

    @property
    def bias(self):
        return self._var("dynamicrnn/b")


class DynamicGRUV2(_DynamicBasic):
    """The adapter's fused GRU layer: ``(y, output_h, update, reset, new, hidden_new)`` for
    a time-major ``x``, each ``[time, batch, hidden]``, with gate order ``zrh``::

        xz, xr, xn = split(x_t @ weight_input + bias_input, 3)
        hz, hr, hn = split(h @ weight_hidden + bias_hidden, 3)
        z = sigmoid(xz + hz);  r = sigmoid(xr + hr)
        hidden_new = hn;  n = tanh(xn + r * hn)            (reset_after=True)
        h = z * h + (1 - z) * n;  y = output_h = h

    The four variables (``dynamicgruv2/weight_input`` ``[input, 3 hidden]``,
    ``weight_hidden`` ``[hidden, 3 hidden]``, ``bias_input``, ``bias_hidden``) start
    uniform in ``+-1/sqrt(hidden)``."""

    _default_name = "dynamic_gru_v2"

    def __init__(self, hidden_size, dtype, direction=DYNAMIC_RNN_UNIDIRECTION, cell_depth=1,
                 keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True,
                 activation="tanh", gate_order="zrh", reset_after=True, is_training=True):
        super().__init__(hidden_size, dtype, direction=direction, cell_depth=cell_depth,
                         keep_prob=keep_prob, cell_clip=cell_clip, num_proj=num_proj,
                         time_major=time_major, activation=activation,
                         is_training=is_training)
        _unsupported(self, gate_order=(gate_order, "zrh"), reset_after=(reset_after, True))
        self.gate_order, self.reset_after = gate_order, reset_after

    def _apply(self, x, scope, reuse, seq_length=None, init_h=None):
        x = self._input(x)
        n, depth = self._hidden_size, x.shape.values[2]
        stdv = 1.0 / math.sqrt(n)
        with variable_scope(scope, reuse=reuse):
            def var(name, shape):
                return get_variable("dynamicgruv2/" + name, shape, dtype=self.dtype,
                                    initializer=init_ops.random_uniform_initializer(-stdv,
                                                                                    stdv))
            wi, wh = var("weight_input", [depth, 3 * n]), var("weight_hidden", [n, 3 * n])
            bi, bh = var("bias_input", [3 * n]), var("bias_hidden", [3 * n])

            def step(x_t, state):
                (h,) = state
                xz, xr, xn = array_ops.split(math_ops.matmul(x_t, wi) + bi, 3, axis=1)
                hz, hr, hn = array_ops.split(math_ops.matmul(h, wh) + bh, 3, axis=1)
                z, r = math_ops.sigmoid(xz + hz), math_ops.sigmoid(xr + hr)
                new = math_ops.tanh(xn + r * hn)
                h = z * h + (1.0 - z) * new
                return (h, h, z, r, new, hn), (h,)

            return self._run(x, seq_length, step, 6, 1, (self._initial(init_h, x, "init_h"),))

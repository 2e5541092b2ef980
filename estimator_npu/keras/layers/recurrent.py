"""``tf.keras.layers`` recurrent layers: SimpleRNN, LSTM, GRU (TF1's Keras: recurrent
activation ``hard_sigmoid``, GRU with ``reset_after=False``), run over time by
``tf.nn.dynamic_rnn`` (``estimator_npu.rnn``), and the wrappers Bidirectional and
TimeDistributed.

Weights as TF names them: ``lstm/lstm_cell/kernel [in, 4n]``, ``.../recurrent_kernel
[n, 4n]``, ``.../bias [4n]`` (gates i, f, c, o; the forget bias starts at one), GRU gates
z, r, h, SimpleRNN one gate. ``dropout`` drops input features with one mask for all time
steps while training; ``recurrent_dropout`` is not implemented (a warning says so).
"""
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.shape import dimension_value
from estimator_npu.engine.ops.slice_ops import reverse
from estimator_npu.keras import activations, backend, constraints, initializers, regularizers
from estimator_npu.keras.engine.base_layer import Layer
from estimator_npu.layers import functional
from estimator_npu.rnn.cells import _zeros
from estimator_npu.rnn.dynamic import dynamic_rnn
from estimator_npu.utils import logging


class _Cell:
    """The ``RNNCell`` protocol ``dynamic_rnn`` drives, stepping a Keras RNN layer."""

    def __init__(self, layer):
        self.layer = layer

    @property
    def state_size(self):
        n = self.layer.units
        return (n, n) if isinstance(self.layer, LSTM) else n

    @property
    def output_size(self):
        return self.layer.units

    def zero_state(self, batch_size, dtype):
        n = self.layer.units
        if isinstance(self.layer, LSTM):
            return (_zeros(batch_size, n, dtype), _zeros(batch_size, n, dtype))
        return _zeros(batch_size, n, dtype)

    def __call__(self, inputs, state):
        return self.layer._step(inputs, state)


class _RNN(Layer):
    _gates = 1

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, reset_after=False,
                 time_major=False, implementation=1, **kwargs):
        self._config = {k: v for k, v in locals().items()
                        if k not in ("self", "kwargs", "__class__")}
        self._config.update({k: v for k, v in kwargs.items() if k != "name"})
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if stateful:
            raise ValueError(f"{type(self).__name__}: stateful=True is not implemented")
        if reset_after:
            raise ValueError(f"{type(self).__name__}: reset_after=True is not implemented")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias, self.unit_forget_bias = use_bias, unit_forget_bias
        self._init = [initializers.get(i) for i in (kernel_initializer,
                                                    recurrent_initializer, bias_initializer)]
        self._reg = [regularizers.get(r) for r in (kernel_regularizer, recurrent_regularizer,
                                                   bias_regularizer)]
        self._cons = [kernel_constraint, recurrent_constraint, bias_constraint]
        self.dropout, self.recurrent_dropout = float(dropout), float(recurrent_dropout)
        if self.recurrent_dropout:
            logging.warning("%s: recurrent_dropout is not implemented; ignored", self.name)
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.time_major = go_backwards, time_major
        self.reset_after, self.stateful = reset_after, stateful

    def _cell_name(self):
        return backend.to_snake_case(type(self).__name__) + "_cell"

    def build(self, input_shape):
        depth = dimension_value(input_shape[-1])
        if depth is None:
            raise ValueError(f"{type(self).__name__} {self.name}: the feature dimension of "
                             f"the inputs must be known, got shape {input_shape}")
        n, k, cell = self.units, self._gates, self._cell_name()
        self.kernel = self.add_weight(f"{cell}/kernel", [int(depth), k * n],
                                      initializer=self._init[0], regularizer=self._reg[0],
                                      constraint=self._cons[0])
        self.recurrent_kernel = self.add_weight(f"{cell}/recurrent_kernel", [n, k * n],
                                                initializer=self._init[1],
                                                regularizer=self._reg[1],
                                                constraint=self._cons[1])
        self.bias = None
        if self.use_bias:
            init = self._init[2]
            if isinstance(self, LSTM) and self.unit_forget_bias:
                init = _ForgetBiasInit(n)
            self.bias = self.add_weight(f"{cell}/bias", [k * n], initializer=init,
                                        regularizer=self._reg[2], constraint=self._cons[2])

    def _x(self, inputs):
        z = math_ops.matmul(inputs, self.kernel)
        return z + self.bias if self.bias is not None else z

    def call(self, inputs, training=None, initial_state=None, mask=None):
        x = convert_to_tensor(inputs)
        if self.time_major:
            x = array_ops.transpose(x, [1, 0, 2])
        if self.go_backwards:
            x = reverse(x, [1])
        if self.dropout:
            shape = array_ops.shape(x)
            x = functional.dropout(x, rate=self.dropout, training=training,
                                   noise_shape=array_ops.stack([shape[0], 1, shape[2]]))
        if initial_state is not None and isinstance(self, LSTM):
            initial_state = tuple(initial_state)
        elif initial_state is not None and isinstance(initial_state, (list, tuple)):
            initial_state = initial_state[0]
        outputs, state = dynamic_rnn(_Cell(self), x, initial_state=initial_state,
                                     dtype=x.dtype)
        out = outputs if self.return_sequences else outputs[:, -1]
        if self.return_sequences and self.time_major:
            out = array_ops.transpose(out, [1, 0, 2])
        if not self.return_state:
            return out
        return [out] + (list(state) if isinstance(state, tuple) else [state])

    def get_config(self):
        c, lstm_or_gru = self._config, not isinstance(self, SimpleRNN)
        config = dict(super().get_config(), return_sequences=c["return_sequences"],
                      return_state=c["return_state"], go_backwards=c["go_backwards"],
                      stateful=c["stateful"], unroll=c["unroll"], time_major=c["time_major"],
                      units=self.units, activation=activations.serialize(self.activation))
        if lstm_or_gru:
            config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["use_bias"] = self.use_bias
        for i, k in enumerate(("kernel", "recurrent", "bias")):
            config[f"{k}_initializer"] = initializers.serialize(self._init[i])
        if isinstance(self, LSTM):
            config["unit_forget_bias"] = self.unit_forget_bias
        for i, k in enumerate(("kernel", "recurrent", "bias")):
            config[f"{k}_regularizer"] = regularizers.serialize(self._reg[i])
        config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        for i, k in enumerate(("kernel", "recurrent", "bias")):
            config[f"{k}_constraint"] = constraints.serialize(constraints.get(self._cons[i]))
        config.update(dropout=self.dropout, recurrent_dropout=self.recurrent_dropout)
        if lstm_or_gru:
            config["implementation"] = c["implementation"]
        if isinstance(self, GRU):
            config["reset_after"] = self.reset_after
        return config

    @property
    def states(self):
        return [None, None] if isinstance(self, LSTM) else [None]


class _ForgetBiasInit(initializers.Initializer):
    def __init__(self, n):
        self.n = n

    def __call__(self, shape, dtype=None, partition_info=None):
        n = self.n
        return array_ops.concat([array_ops.zeros([n], dtype), array_ops.ones([n], dtype),
                                 array_ops.zeros([2 * n], dtype)], 0)


class SimpleRNN(_RNN):
    def __init__(self, units, activation="tanh", **kwargs):
        kwargs.pop("recurrent_activation", None)
        super().__init__(units, activation=activation, **kwargs)

    def _step(self, inputs, state):
        h = self.activation(self._x(inputs) + math_ops.matmul(state, self.recurrent_kernel))
        return h, h


class LSTM(_RNN):
    _gates = 4

    def _step(self, inputs, state):
        h_prev, c_prev = state
        z = self._x(inputs) + math_ops.matmul(h_prev, self.recurrent_kernel)
        i, f, c, o = array_ops.split(z, 4, axis=1)
        ra, act = self.recurrent_activation, self.activation
        c_new = ra(f) * c_prev + ra(i) * act(c)
        h = ra(o) * act(c_new)
        return h, (h, c_new)


class GRU(_RNN):
    _gates = 3

    def _step(self, inputs, state):
        n = self.units
        xz, xr, xh = array_ops.split(self._x(inputs), 3, axis=1)
        rk = self.recurrent_kernel
        ra = self.recurrent_activation
        hz = math_ops.matmul(state, rk[:, :2 * n])
        z = ra(xz + hz[:, :n])
        r = ra(xr + hz[:, n:])
        hh = self.activation(xh + math_ops.matmul(r * state, rk[:, 2 * n:]))
        h = z * state + (1.0 - z) * hh
        return h, h


class Bidirectional(Layer):
    """Runs ``layer`` forward and a copy of it backward over time and merges their
    outputs (``merge_mode``: ``concat`` (default), ``sum``, ``mul``, ``ave`` or None for
    the list)."""

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs):
        if merge_mode not in ("concat", "sum", "mul", "ave", None):
            raise ValueError(f"Invalid merge mode. Merge mode should be one of {{'sum', "
                             f"'mul', 'ave', 'concat', None}}, got {merge_mode!r}")
        super().__init__(**kwargs)
        self._wrapped, self._given_backward = layer, backward_layer
        cfg = dict(layer._config)
        self.forward_layer = type(layer)(name="forward_" + layer.name, **cfg)
        if backward_layer is None:
            cfg["go_backwards"] = not cfg.get("go_backwards", False)
            backward_layer = type(layer)(name="backward_" + layer.name, **cfg)
        self.backward_layer = backward_layer
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences

    def get_config(self):
        from estimator_npu.keras.engine.model_config import serialize_layer
        inner = serialize_layer(self._wrapped)
        if not self._wrapped.built:  # as Keras: the unbuilt layer's dtype, None if not given
            inner["config"]["dtype"] = self._wrapped._given_dtype
        config = dict(super().get_config(), layer=inner, merge_mode=self.merge_mode)
        if self._given_backward is not None:
            config["backward_layer"] = serialize_layer(self._given_backward)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from estimator_npu.keras.engine.model_config import deserialize_layer
        config = dict(config)
        config["layer"] = deserialize_layer(config["layer"], custom_objects)
        if config.get("backward_layer") is not None:
            config["backward_layer"] = deserialize_layer(config["backward_layer"],
                                                         custom_objects)
        return cls(**config)

    def call(self, inputs, training=None):
        fw = self.forward_layer(inputs, training=training)
        bw = self.backward_layer(inputs, training=training)
        if self.return_sequences:
            bw = reverse(bw, [1])
        if self.merge_mode == "concat":
            return array_ops.concat([fw, bw], -1)
        if self.merge_mode == "sum":
            return fw + bw
        if self.merge_mode == "mul":
            return fw * bw
        if self.merge_mode == "ave":
            return (fw + bw) / 2.0
        return [fw, bw]


class TimeDistributed(Layer):
    """Applies ``layer`` to every time step: ``[batch, time, ...]`` is folded to
    ``[batch * time, ...]``, passed through ``layer`` and unfolded."""

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer

    def get_config(self):
        from estimator_npu.keras.engine.model_config import serialize_layer
        return dict(super().get_config(), layer=serialize_layer(self.layer))

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from estimator_npu.keras.engine.model_config import deserialize_layer
        config = dict(config)
        config["layer"] = deserialize_layer(config["layer"], custom_objects)
        return cls(**config)

    def call(self, inputs, training=None):
        x = convert_to_tensor(inputs)
        shape = x.shape.values
        dyn = array_ops.shape(x)
        folded = array_ops.reshape(x, array_ops.concat([[-1], dyn[2:]], 0)) \
            if None in shape[2:] else array_ops.reshape(x, [-1, *shape[2:]])
        kwargs = {"training": training} if self.layer._call_takes("training") else {}
        if self.layer._scope is None:  # its weights are named time_distributed/kernel
            self.layer._scope = self._scope
        y = self.layer(folded, **kwargs)
        inner = y.shape.values[1:]
        if None in inner:
            out = array_ops.reshape(y, array_ops.concat([dyn[:2], array_ops.shape(y)[1:]],
                                                        0))
        else:
            steps = shape[1] if shape[1] is not None else -1
            out = array_ops.reshape(y, [-1, steps, *inner]) if shape[0] is None or \
                steps == -1 else array_ops.reshape(y, [shape[0], steps, *inner])
        out.set_shape([shape[0], shape[1], *inner])
        return out



"""``tf.keras.layers.Layer`` in TF1 graph mode.

A layer is named when it is made (``dense``, ``dense_1``, ... counted per graph by
``backend.get_uid``), builds its weights on its first call inside the name scope of its
name (so ``dense/kernel``, ``bar/dense_1/kernel`` under ``tf.name_scope('bar')``, as TF1's
Keras names them) and reuses them on later calls. Weights are plain variables (not in the
``get_variable`` store); regularization penalties and ``add_update`` ops are kept on the
layer (``layer.losses``, ``layer.updates``), not in graph collections, as in TF1's Keras.

Each call records a ``Node`` (inputs, outputs, call arguments), and its outputs remember
which layer made them (``backend.keras_history``): the functional ``Model`` walks these.
"""
import inspect

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.state_ops import Variable
from estimator_npu.engine.shape import TensorShape
from estimator_npu.engine.variable_scope import VariableScope
from estimator_npu.keras import backend, constraints, initializers, regularizers
from estimator_npu.utils import nest


class Node:
    """One call of a layer: ``input_tensors`` -> ``output_tensors`` (nested as given)."""

    def __init__(self, layer, input_tensors, output_tensors, args, kwargs):
        self.layer, self.input_tensors, self.output_tensors = layer, input_tensors, output_tensors
        self.args, self.kwargs = args, kwargs

    @property
    def input_shapes(self):
        return nest.map_structure(backend.int_shape, self.input_tensors)

    @property
    def output_shapes(self):
        return nest.map_structure(backend.int_shape, self.output_tensors)


class InputSpec:
    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None):
        self.dtype, self.shape, self.ndim = dtype, shape, ndim
        self.max_ndim, self.min_ndim, self.axes = max_ndim, min_ndim, axes or {}


def _shapes(inputs):
    return nest.map_structure(lambda t: TensorShape(backend.int_shape(t)), inputs)


class Layer:
    """Base class: override ``build(input_shape)`` (``add_weight`` there) and
    ``call(inputs, **kwargs)``; a ``call`` with a ``training`` argument gets the learning
    phase when the caller passes none."""

    # False for layers whose ``call`` applies a ``tf.layers`` function in ``weight_scope()``:
    # that function opens the layer's name scope itself.
    _opens_name_scope = True

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        allowed = {"input_shape", "batch_input_shape", "batch_size", "input_dim",
                   "activity_regularizer", "weights", "input_length", "autocast"}
        bad = set(kwargs) - allowed
        if bad:
            raise TypeError(f"{type(self).__name__}: unexpected keyword argument(s) "
                            f"{sorted(bad)}")
        object.__setattr__(self, "_sublayers", [])
        self.name = name or backend.unique_object_name(backend.to_snake_case(
            type(self).__name__))
        self.trainable = trainable
        self._given_dtype = dtype  # a wrapper's config shows None when none was given
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else backend.floatx()
        self.built = False
        self.supports_masking = False
        self.input_spec = None
        self._trainable_weights, self._non_trainable_weights = [], []
        self._updates, self._losses, self._constraints = [], [], []
        self._inbound_nodes = []
        self._scope = None
        self._initial_weights = kwargs.get("weights")
        self.activity_regularizer = regularizers.get(kwargs.get("activity_regularizer"))
        batch_shape = kwargs.get("batch_input_shape")
        if batch_shape is None:
            shape = kwargs.get("input_shape")
            if shape is None and kwargs.get("input_dim") is not None:
                shape = (kwargs["input_dim"],)
                if kwargs.get("input_length") is not None:
                    shape = (kwargs["input_length"],)
            if shape is not None:
                batch_shape = (kwargs.get("batch_size"),) + tuple(shape)
        self._batch_input_shape = tuple(batch_shape) if batch_shape is not None else None

    def __setattr__(self, name, value):
        subs = self.__dict__.get("_sublayers")
        if subs is not None and not name.startswith("_"):
            for v in (value if isinstance(value, (list, tuple)) else [value]):
                if isinstance(v, Layer) and v is not self and all(v is not s for s in subs):
                    subs.append(v)
        object.__setattr__(self, name, value)

    # ------------------------------------------------------------ to override
    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"{type(self).__name__}.compute_output_shape")

    def get_config(self):
        """TF 2.15's base config: ``name``, ``trainable``, ``batch_input_shape`` (when the
        layer was given an input shape) and ``dtype``; subclasses add their arguments."""
        config = {"name": self.name, "trainable": self.trainable}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = tuple(self._batch_input_shape)
        config["dtype"] = self.dtype
        return config

    def _weight_config(self, prefix, initializer, regularizer, constraint):
        """``<prefix>_initializer`` / ``_regularizer`` / ``_constraint`` config entries."""
        return {f"{prefix}_initializer": initializers.serialize(initializer),
                f"{prefix}_regularizer": regularizers.serialize(regularizer),
                f"{prefix}_constraint": constraints.serialize(constraint)}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    # ------------------------------------------------------------ weights
    def add_weight(self, name, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, **kwargs):
        shape = [int(d) for d in (shape or ())]
        dt = dtypes.as_dtype(dtype or self.dtype)
        init = initializers.get(initializer)
        if init is None:
            init = initializers.glorot_uniform() if dt.is_floating else initializers.Zeros()
        trainable = self.trainable if trainable is None else trainable and self.trainable
        given = self._initial_weights
        index = len(self._trainable_weights) + len(self._non_trainable_weights)
        if given is not None and index < len(given):  # ``weights=[...]``: initial values
            value = np.asarray(given[index], dtype=dt.np)
            init = lambda shape, dtype=None: convert_to_tensor(value)  # noqa: E731
        g = get_default_graph()
        with g.name_scope(None if self._scope is None else self._scope + "/"):
            v = Variable(lambda: init(shape, dtype=dt), trainable=trainable, name=name,
                         dtype=dt)
        (self._trainable_weights if trainable else self._non_trainable_weights).append(v)
        reg = regularizers.get(regularizer)
        if reg is not None:
            with g.name_scope(v.op.name + "/Regularizer/"):
                loss = reg(v)
            if loss is not None:
                self._losses.append(loss)
        constraint = constraints.get(constraint)
        if constraint is not None:
            self._constraints.append((v, constraint))
        return v

    add_variable = add_weight

    def weight_scope(self):
        """A variable scope in which a ``tf.layers`` function's ``get_variable`` calls
        create (first call) or return (later calls) this layer's weights."""
        return VariableScope(self._scope, custom_getter=self._weight_getter)

    def _weight_getter(self, getter, name, shape=None, dtype=None, initializer=None,
                       regularizer=None, trainable=None, constraint=None, **kwargs):
        base = name[len(self._scope) + 1:]
        for v in self._trainable_weights + self._non_trainable_weights:
            if v.op.name == name:
                return v
        return self.add_weight(base, shape, dtype, initializer, regularizer,
                               True if trainable is None else trainable,
                               constraint or self._constraint_of.get(base))

    _constraint_of = {}  # weight name -> constraint, for weights a tf.layers function makes

    def _gather(self, attr):
        out, seen = [], set()
        for item in getattr(self, attr) + [x for s in self._sublayers
                                           for x in s._gather(attr)]:
            if id(item) not in seen:
                seen.add(id(item))
                out.append(item)
        return out

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return self._gather("_trainable_weights")

    @property
    def non_trainable_weights(self):
        own = self._gather("_non_trainable_weights")
        return own if self.trainable else self._gather("_trainable_weights") + own

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def updates(self):
        return self._gather("_updates")

    @property
    def losses(self):
        return self._gather("_losses")

    @property
    def constraints(self):
        return self._gather("_constraints")

    @property
    def layers(self):
        return list(self._sublayers)

    def add_update(self, updates, inputs=None):
        for u in (updates if isinstance(updates, (list, tuple)) else [updates]):
            self._updates.append(u() if callable(u) and not hasattr(u, "op") else u)

    def add_loss(self, losses, inputs=None):
        for x in (losses if isinstance(losses, (list, tuple)) else [losses]):
            x = x() if callable(x) and not hasattr(x, "op") else x
            if x is not None:
                self._losses.append(convert_to_tensor(x))

    def get_updates_for(self, inputs):
        return self.updates

    def get_losses_for(self, inputs):
        return self.losses

    def get_weights(self):
        return backend.batch_get_value(self.weights)

    def set_weights(self, weights):
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on layer \"{self.name}\" with "
                             f"a weight list of length {len(weights)}, but the layer was "
                             f"expecting {len(params)} weights.")
        for p, w in zip(params, weights):
            w = np.asarray(w)
            if tuple(p.shape.as_list()) != w.shape:
                raise ValueError(f"Layer weight shape {tuple(p.shape.as_list())} not "
                                 f"compatible with provided weight shape {w.shape}")
        backend.batch_set_value(zip(params, weights))

    def count_params(self):
        return int(sum(np.prod(w.shape.as_list()) for w in self.weights))

    # ------------------------------------------------------------ calling
    def _call_takes(self, arg):
        try:
            return arg in inspect.signature(self.call).parameters
        except (TypeError, ValueError):
            return False

    def __call__(self, inputs, *args, **kwargs):
        g = get_default_graph()
        if kwargs.get("training") is None and self._call_takes("training"):
            kwargs["training"] = backend.learning_phase()
        inputs = nest.map_structure(_as_tensor, inputs)
        if self._scope is None and not self._opens_name_scope:
            self._scope = g.unique_name(self.name, mark_as_used=False)
        with g.name_scope(self.name) if self._opens_name_scope else _nullcontext() as scope:
            if self._scope is None:
                self._scope = scope[:-1]
            if not self.built:
                self.build(_shapes(inputs) if not isinstance(inputs, dict) else
                           {k: TensorShape(backend.int_shape(v)) for k, v in inputs.items()})
                self.built = True
            outputs = self.call(inputs, *args, **kwargs)
            if self.activity_regularizer is not None:
                for out in nest.flatten(outputs):
                    self.add_loss(self.activity_regularizer(out) /
                                  _batch_size(out))
        self._record(inputs, outputs, args, kwargs)
        return outputs

    def _record(self, inputs, outputs, args, kwargs):
        node = Node(self, inputs, outputs, args, kwargs)
        index = len(self._inbound_nodes)
        self._inbound_nodes.append(node)
        for i, t in enumerate(nest.flatten(outputs)):
            backend.set_keras_history(t, (self, index, i))

    apply = __call__

    # ------------------------------------------------------------ shapes of the calls
    def _node(self, what):
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} is not connected, no {what} to return.")
        return self._inbound_nodes[0]

    @property
    def input(self):
        return self._node("input").input_tensors

    @property
    def output(self):
        return self._node("output").output_tensors

    @property
    def input_shape(self):
        return self._node("input shape").input_shapes

    @property
    def output_shape(self):
        return self._node("output shape").output_shapes

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} name={self.name}>"


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _as_tensor(x):
    return x if hasattr(x, "op") and not hasattr(x, "_as_tensor") else convert_to_tensor(x)


def _batch_size(t):
    from estimator_npu.engine.ops import array_ops, math_ops
    return math_ops.cast(array_ops.shape(t)[0], t.dtype)

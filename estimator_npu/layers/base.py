"""``tf.layers.Layer``: an object that owns its variables across calls.

The first call opens a variable scope (``name``, or the class's default name made unique:
``dense``, ``dense_1``, ...), creates the variables there and remembers the scope; later
calls reuse it, so one instance applied twice shares its weights::

    layer = tf.layers.Dense(10)          # variables dense/kernel, dense/bias
    a, b = layer(x1), layer(x2)          # the same weights
    layer.variables, layer.trainable_weights, layer.kernel
"""
from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.variable_scope import VariableScope, variable_scope


class Layer:
    """Base class: subclasses implement ``_apply(inputs, scope, reuse, **kwargs)``."""

    _default_name = "layer"

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        self.trainable = trainable
        self._given_name = name
        # ``_scope`` / ``_reuse``: the variable scope (and its reuse) to build in, as TF's
        # Layer takes them from wrappers such as tf_slim's conv2d (its custom getter applies)
        scope = kwargs.get("_scope")
        self._scope = scope if isinstance(scope, VariableScope) else None
        self._reuse = kwargs.get("_reuse")
        self.dtype = dtype
        self.built = False
        self._variables = []

    @property
    def name(self):
        if self._scope is not None:
            return self._scope.name.rsplit("/", 1)[-1]
        return self._given_name or self._default_name

    @property
    def scope_name(self):
        return self._scope.name if self._scope is not None else None

    def __call__(self, inputs, *args, **kwargs):
        g = get_default_graph()
        if self._scope is None:
            with variable_scope(self._given_name, default_name=self._default_name) as scope:
                self._scope = scope
        before = set(map(id, g.get_collection(GraphKeys.GLOBAL_VARIABLES)))
        reuse = True if self.built or self._reuse else None
        out = self._apply(inputs, self._scope, reuse, *args, **kwargs)
        if not self.built:
            self._variables = [v for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES)
                               if id(v) not in before]
            self.built = True
        return out

    def apply(self, inputs, *args, **kwargs):
        return self.__call__(inputs, *args, **kwargs)

    def _apply(self, inputs, scope, reuse, *args, **kwargs):
        raise NotImplementedError

    @property
    def variables(self):
        return list(self._variables)

    weights = variables

    @property
    def trainable_variables(self):
        trainable = set(map(id, get_default_graph().get_collection(
            GraphKeys.TRAINABLE_VARIABLES)))
        return [v for v in self._variables if id(v) in trainable]

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self):
        ids = set(map(id, self.trainable_variables))
        return [v for v in self._variables if id(v) not in ids]

    non_trainable_weights = non_trainable_variables

    def _var(self, suffix):
        for v in self._variables:
            if v.op.name.endswith("/" + suffix):
                return v
        return None

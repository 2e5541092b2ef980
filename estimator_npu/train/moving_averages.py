"""``tf.train.ExponentialMovingAverage``: shadow copies of variables updated by
``shadow -= (1 - decay) * (shadow - var)``::

    ema = tf.train.ExponentialMovingAverage(0.999, num_updates=global_step)
    with tf.control_dependencies([train_op]):
        train_op = ema.apply(tf.trainable_variables())   # creates <var>/ExponentialMovingAverage
    saver = tf.train.Saver(ema.variables_to_restore())   # evaluation reads the averages

With ``num_updates`` the decay is ``min(decay, (1 + num_updates) / (10 + num_updates))``.
"""
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import (GraphKeys, add_to_collection, control_dependencies,
                                        get_collection, name_scope)
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.array_ops import zeros
from estimator_npu.engine.ops.core import convert_to_tensor, group
from estimator_npu.engine.ops.state_ops import Variable, assign_sub


def _zeros_like(t):
    if not t.shape.is_fully_defined():
        raise ValueError(f"ExponentialMovingAverage: the average of tensor {t.name} starts "
                         f"at zeros of its shape, which must be fully defined (got {t.shape})")
    return zeros(t.shape.as_list(), dtype=t.dtype)


class ExponentialMovingAverage:
    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        if zero_debias:
            raise NotImplementedError("ExponentialMovingAverage(zero_debias=True)")
        self._decay = decay
        self._num_updates = num_updates
        self._name = name
        self._averages = {}   # variable op -> shadow Variable

    @property
    def name(self):
        return self._name

    def _decay_tensor(self, dtype):
        decay = math_ops.cast(convert_to_tensor(self._decay), dtype)
        if self._num_updates is not None:
            n = math_ops.cast(convert_to_tensor(self._num_updates), dtype)
            decay = math_ops.minimum(decay, (1.0 + n) / (10.0 + n))
        return decay

    def apply(self, var_list=None):
        """Creates the shadow variables (first time) and returns the op updating them.

        Raises:
            TypeError: a variable that is not float32/float64/float16.
        """
        if var_list is None:
            var_list = get_collection(GraphKeys.TRAINABLE_VARIABLES)
        updates = []
        with name_scope(self._name):
            for var in var_list:
                t = convert_to_tensor(var)
                if t.dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
                    raise TypeError(f"ExponentialMovingAverage: {t.op.name} has dtype "
                                    f"{t.dtype.name}; only float variables can be averaged")
                shadow = self._averages.get(t.op)
                if shadow is None:
                    # created outside the caller's control dependencies (TF's init_scope)
                    is_variable = hasattr(var, "initialized_value")
                    with control_dependencies(None), name_scope(None):
                        # a variable's average starts at its initial value; a tensor's
                        # (a loss) at zeros, as TF1: its initializer must not compute the
                        # tensor (which may dequeue input before any queue runner runs)
                        init = var.initialized_value() if is_variable else _zeros_like(t)
                        shadow = Variable(init, trainable=False,
                                          name=t.op.name + "/" + self._name)
                    self._averages[t.op] = shadow
                    if is_variable:
                        add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                decay = self._decay_tensor(t.dtype)
                updates.append(assign_sub(shadow, (shadow - t) * (1.0 - decay)))
            return group(*updates, name=self._name)

    def average(self, var):
        """The shadow variable of ``var`` (``None`` if ``apply`` never saw it)."""
        return self._averages.get(convert_to_tensor(var).op)

    def average_name(self, var):
        return convert_to_tensor(var).op.name + "/" + self._name

    def variables_to_restore(self, moving_avg_variables=None):
        """``{name in the checkpoint: variable}``: each averaged variable restores from its
        average's name; every other global variable from its own."""
        if moving_avg_variables is None:
            moving_avg_variables = get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES) + \
                get_collection(GraphKeys.TRAINABLE_VARIABLES)
        averaged = {convert_to_tensor(v).op for v in moving_avg_variables}
        shadows = {s.op for s in self._averages.values()}
        out = {}
        for v in get_collection(GraphKeys.GLOBAL_VARIABLES):
            op = convert_to_tensor(v).op
            if op in shadows:
                continue
            out[self.average_name(v) if op in averaged else op.name] = v
        return out


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """TF1's ``moving_averages.assign_moving_average``: the op updating
    ``variable -= (variable - value) * (1 - decay)``.

    With ``zero_debias`` (TF1's default) the average is kept in ``<variable>/biased``
    with a ``<variable>/local_step`` counter (both non-trainable, starting at 0) and the
    variable is assigned ``biased / (1 - decay ** local_step)``, which removes the bias
    toward the variable's initial zeros.
    """
    from estimator_npu.engine import init_ops, variable_scope as vs
    from estimator_npu.engine.ops.state_ops import assign, assign_add
    var_t = convert_to_tensor(variable)
    with name_scope(name or "AssignMovingAvg"):
        value = convert_to_tensor(value, dtype=var_t.dtype)
        decay = math_ops.cast(convert_to_tensor(decay), var_t.dtype)
        if not zero_debias:
            return assign_sub(variable, (var_t - value) * (1.0 - decay))
        with control_dependencies(None), vs.variable_scope(var_t.op.name, reuse=vs.AUTO_REUSE):
            biased = vs.get_variable("biased", shape=var_t.shape, dtype=var_t.dtype,
                                     initializer=init_ops.zeros_initializer(),
                                     trainable=False)
            step = vs.get_variable("local_step", shape=[], dtype=var_t.dtype,
                                   initializer=init_ops.zeros_initializer(), trainable=False)
        new_biased = assign_sub(biased, (convert_to_tensor(biased) - value) * (1.0 - decay))
        new_step = assign_add(step, 1.0)
        with control_dependencies([new_biased, new_step]):
            done = 1.0 - math_ops.pow(decay, convert_to_tensor(step))
            return assign(variable, convert_to_tensor(biased) / done)

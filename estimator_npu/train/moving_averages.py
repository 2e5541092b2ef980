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
from estimator_npu.engine.ops.core import convert_to_tensor, group
from estimator_npu.engine.ops.state_ops import Variable, assign_sub


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
                    with control_dependencies(None), name_scope(None):
                        init = var.initialized_value() if hasattr(var, "initialized_value") \
                            else t
                        shadow = Variable(init, trainable=False,
                                          name=t.op.name + "/" + self._name)
                    self._averages[t.op] = shadow
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

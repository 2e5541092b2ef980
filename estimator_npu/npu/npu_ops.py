"""``npu_bridge.estimator.npu_ops``: the adapter's graph ops that scripts call directly."""
from estimator_npu.engine.ops.core import no_op
from estimator_npu.engine.ops.nn_ops import dropout as _dropout


def dropout(x, keep_prob, noise_shape=None, seed=None, name=None):
    """``tf.nn.dropout(x, keep_prob)``: keeps each element with probability ``keep_prob``
    (a float or a scalar tensor, e.g. a placeholder) and scales kept ones by
    ``1 / keep_prob``."""
    return _dropout(x, keep_prob=keep_prob, noise_shape=noise_shape, seed=seed, name=name)


def initialize_system(name=None):
    """A no-op op (the adapter's device start-up op)."""
    return no_op(name=name or "NPUInit")


def shutdown_system(name=None):
    """A no-op op (the adapter's device shutdown op)."""
    return no_op(name=name or "NPUShutdown")

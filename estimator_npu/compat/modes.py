"""TF1's execution-mode switches. estimator_npu always builds graphs and runs them in a
``Session`` (TF1's graph mode): the ``disable_*`` calls scripts make first are no-ops and
``executing_eagerly()`` is False; turning eager execution or TF2 behaviour on is an error."""

newaxis = None


class GraphModeOnlyError(NotImplementedError):
    """Raised by ``enable_eager_execution`` / ``enable_v2_behavior``."""


def _graph_mode_only(what):
    raise GraphModeOnlyError(
        f"{what}: estimator_npu runs in graph mode only (TF1 graphs run by tf.Session); "
        "eager execution is not supported. Remove the call, or call "
        "tf.compat.v1.disable_eager_execution() instead")


def disable_v2_behavior():
    """No-op: TF1 behaviour is the only one there is."""


def disable_eager_execution():
    """No-op: execution is always graph mode."""


def disable_resource_variables():
    """No-op."""


def enable_resource_variables():
    """No-op: variables behave as TF1 reference variables either way."""


def disable_control_flow_v2():
    """No-op."""


def disable_v2_tensorshape():
    """No-op: ``TensorShape`` dimensions are TF1's."""


def disable_tensor_equality():
    """No-op: ``Tensor.__eq__`` is identity, as in TF1."""


def executing_eagerly():
    """False: ops build graph nodes; values come from ``Session.run``."""
    return False


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Raises ``GraphModeOnlyError``."""
    _graph_mode_only("tf.enable_eager_execution()")


def enable_v2_behavior():
    """Raises ``GraphModeOnlyError``."""
    _graph_mode_only("tf.enable_v2_behavior()")

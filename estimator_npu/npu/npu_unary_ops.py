"""``npu_bridge.estimator.npu_unary_ops``: the adapter's fused unary ops, as the object
``npu_unary_ops`` (``from npu_bridge.estimator.npu_unary_ops import npu_unary_ops``;
``npu_unary_ops.gelu(x)``, as the ModelZoo BERTs call it in place of their own formula).

The Ascend ``Gelu`` kernel computes the tanh approximation
``x / (1 + exp(-sqrt(8/pi) * (x + 0.044715 x**3)))``, which equals
``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))``: here ``tf.nn.gelu(x,
approximate=True)``, with its gradient.
"""
from estimator_npu.engine.ops import nn_ops


class NPUUnaryOps:
    """The adapter's unary-op namespace."""

    def __repr__(self):
        return "npu_unary_ops (gelu)"

    @staticmethod
    def gelu(x, name=None):
        """GELU, tanh approximation (the Ascend ``Gelu`` kernel)."""
        return nn_ops.gelu(x, approximate=True, name=name)


npu_unary_ops = NPUUnaryOps()

__all__ = ["npu_unary_ops", "NPUUnaryOps"]

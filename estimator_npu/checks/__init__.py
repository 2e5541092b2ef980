"""TF1's run-time checks and printing above the engine: ``tf.Print`` / ``tf.print``,
``tf.Assert`` and the ``tf.assert_*`` / ``tf.debugging`` family (static checks at build
time when the values are known, an ``Assert`` op otherwise). The facades are
``estimator_npu`` and ``estimator_npu.debugging``."""


def _register_op_families():
    """Adds the logging ops' family to the engine's op table (the one place this package
    registers ops)."""
    from estimator_npu.engine import registry
    from estimator_npu.checks import logging_ops
    registry.register_families([logging_ops.OPS])


_register_op_families()

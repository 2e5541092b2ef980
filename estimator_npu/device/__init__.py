"""The device-loop layer: iterations_per_loop, the loop variables and the NPU settings.

One module owns the loop (``loop``); ``config`` validates the NPU settings and writes
them into a session config; ``util`` holds the adapter's ``sess.run``-style helpers.
"""


def _register_op_families():
    """Adds this layer's op families (each module's ``OPS``) to the engine's op table: the
    one place the device layer registers ops."""
    from estimator_npu.engine import registry
    from estimator_npu.device import loop
    registry.register_families([loop.OPS])


_register_op_families()

"""Image transforms above the engine (``tf.image`` crops, flips, colour); the facade is
``estimator_npu.image``."""


def _register_op_families():
    """Adds this package's op families (each module's ``OPS``) to the engine's op table: the
    one place the image layer registers ops."""
    from estimator_npu.engine import registry
    from estimator_npu.images import bounding_box, boxes, color, draw_boxes, resize_ops
    registry.register_families([resize_ops.OPS, bounding_box.OPS, color.OPS, boxes.OPS,
                                draw_boxes.OPS])


_register_op_families()

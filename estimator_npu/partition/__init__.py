"""Partitioned data above the engine: ``tf.dynamic_partition``, ``tf.dynamic_stitch`` /
``parallel_dynamic_stitch`` (with gradients), ``tf.nn.embedding_lookup`` and
``embedding_lookup_sparse`` over lists of shards (``partition_strategy`` ``mod`` /
``div``, ``max_norm``) and TF1's variable partitioners. The facades are
``estimator_npu`` and ``estimator_npu.nn``."""


def _register_op_families():
    """Adds the partition ops' family to the engine's op table (the one place this package
    registers ops)."""
    from estimator_npu.engine import registry
    from estimator_npu.partition import stitch_ops
    registry.register_families([stitch_ops.OPS])


_register_op_families()

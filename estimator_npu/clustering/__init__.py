"""Clustering above the engine: TF1's graph-level k-means (``tf.contrib.factorization``'s
``KMeans``); the facade is ``estimator_npu.contrib.factorization``."""


def _register_op_families():
    """Adds the k-means initializer's op family to the engine's op table (the one place
    this package registers ops)."""
    from estimator_npu.clustering import kmeans
    from estimator_npu.engine import registry
    registry.register_families([kmeans.OPS])


_register_op_families()

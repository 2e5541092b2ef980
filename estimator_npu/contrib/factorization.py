"""``tf.contrib.factorization``: TF1's graph-level ``KMeans``, its constants and the
``KMeansClustering`` Estimator."""
from estimator_npu.clustering.kmeans import (COSINE_DISTANCE, KMEANS_PLUS_PLUS_INIT,  # noqa
                                             KMC2_INIT, RANDOM_INIT,
                                             SQUARED_EUCLIDEAN_DISTANCE, KMeans)
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.estimator.canned.kmeans import KMeansClustering  # noqa: F401

__getattr__ = _module_getattr("tensorflow.contrib.factorization")

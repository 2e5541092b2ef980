"""TensorFlow import-path shims: ``estimator_npu.core`` mirrors ``tensorflow.core``."""

"""Image transforms above the engine (``tf.image`` crops, flips, colour); the facade is
``estimator_npu.image``."""

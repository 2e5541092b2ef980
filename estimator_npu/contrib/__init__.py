"""``tf.contrib``: the TF1 contrib modules estimator_npu provides (layers, slim, ...)."""

"""``tf.contrib``: TF1 contrib names mapped onto estimator_npu."""

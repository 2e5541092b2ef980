"""``tf.contrib.image``: importable (scripts import ``distort_image_ops`` from it without
always calling it); none of its ops (``rotate``, ``transform``, ``random_hsv_in_yiq`` ...)
exist yet, and using one raises "estimator_npu does not implement tf.contrib.image.X
(yet)"."""

"""Gradient-check cases for what the public-script corpus hit: a one-part tf.split (a
ShuffleNet group convolution with groups=1) whose single output feeds a kernel."""
import numpy as np

import estimator_npu as tf

CASES = []

CASES.append(("Split", "one_section",
              lambda x: tf.nn.relu(tf.split(x, 1, axis=1)[0]) * 2.0,
              lambda rng: [rng.standard_normal((2, 3)) + 0.1], {}))
CASES.append(("Split", "one_size",
              lambda x: tf.split(x, [4], axis=1)[0] * x,
              lambda rng: [rng.standard_normal((3, 4))], {}))

"""Records TF 2.15's tf.image colour ops on a fixed image for tests/compat/test_zoo_units.py
(run with real TF: /tmp/tf215/bin/python tools/record_zoo_color.py)."""
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
x = np.random.RandomState(0).rand(2, 3, 3).astype(np.float32)
with tf.Session() as sess:
    out = dict(image=x, hsv=sess.run(tf.image.rgb_to_hsv(x)),
               hue=sess.run(tf.image.adjust_hue(x, 0.2)),
               sat=sess.run(tf.image.adjust_saturation(x, 1.7)),
               hue8=sess.run(tf.image.adjust_hue((x * 255).astype(np.uint8), -0.3)))
np.savez("tests/compat/golden_zoo_color.npz", **out)

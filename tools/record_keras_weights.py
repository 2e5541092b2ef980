"""Writes a TF 2.15 Keras save_weights checkpoint (tf.compat.v1, disable_v2_behavior) of a
Dense(3, relu) -> Dropout -> Dense(2) Sequential on 4 inputs, and its weights, for
tests/keras/test_saving.py:  /tmp/tf215/bin/python tools/record_keras_weights.py"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "keras",
                   "tf_weights")


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.set_random_seed(1)
    m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,), activation="relu"),
                             tf.keras.layers.Dropout(0.5), tf.keras.layers.Dense(2)])
    m.compile("sgd", "mse")
    os.makedirs(OUT, exist_ok=True)
    m.save_weights(os.path.join(OUT, "ckpt"))
    os.remove(os.path.join(OUT, "checkpoint"))
    np.savez(os.path.join(OUT, "weights.npz"), *m.get_weights())


if __name__ == "__main__":
    main()

"""A TF1-era tf.keras script (written for the tests) that keeps its models in Keras's HDF5
files: ModelCheckpoint('weights.{epoch:02d}.hdf5', save_best_only=True), model.save /
load_model (then training goes on), save_weights / load_weights of an .h5 file,
to_json / model_from_json, a custom layer through custom_objects, and to_yaml's error.
It runs the same under TF 2.15 (tf.compat.v1) and under ``estimator-npu run``."""
import argparse
import glob
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
keras = tf.keras

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()


class Scale(keras.layers.Layer):
    """y = factor * x (a custom layer with a config)."""

    def __init__(self, factor=1.0, **kwargs):
        super(Scale, self).__init__(**kwargs)
        self.factor = factor

    def call(self, inputs):
        return inputs * self.factor

    def get_config(self):
        config = super(Scale, self).get_config()
        config["factor"] = self.factor
        return config


tf.set_random_seed(0)
rng = np.random.RandomState(0)
x_num = rng.normal(size=(200, 6)).astype("float32")
x_seq = rng.randint(0, 20, size=(200, 5))
labels = ((x_num[:, 0] + (x_seq[:, 0] > 9)) > 0.5).astype("int32")
y = keras.utils.to_categorical(labels, 2)

num_in = keras.Input(shape=(6,), name="numbers")
seq_in = keras.Input(shape=(5,), name="tokens")
h1 = keras.layers.Dense(8, activation="relu")(num_in)
h2 = keras.layers.Flatten()(keras.layers.Embedding(20, 3)(seq_in))
h = keras.layers.concatenate([h1, h2])
h = keras.layers.BatchNormalization()(h)
h = Scale(0.5)(h)
out = keras.layers.Dense(2, activation="softmax", name="label")(h)
model = keras.Model(inputs=[num_in, seq_in], outputs=out)
model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.02),
              loss="categorical_crossentropy", metrics=["accuracy"])

checkpoint = keras.callbacks.ModelCheckpoint("weights.{epoch:02d}.hdf5", monitor="loss",
                                             save_best_only=True)
model.fit([x_num, x_seq], y, batch_size=20, epochs=args.epochs, verbose=0, shuffle=False,
          callbacks=[checkpoint])
print("checkpoints:", sorted(glob.glob("weights.*.hdf5")))
score = model.evaluate([x_num, x_seq], y, verbose=0)
model.save("model.h5")
json_string = model.to_json()
model.save_weights("w.h5")
pred = model.predict([x_num, x_seq])

del model
keras.backend.clear_session()
try:
    keras.models.load_model("model.h5")
except ValueError as e:
    print("without custom_objects:", "Unknown layer" in str(e))
keras.backend.clear_session()
model = keras.models.load_model("model.h5", custom_objects={"Scale": Scale})
again = model.evaluate([x_num, x_seq], y, verbose=0)
print("loaded model evaluates the same:", np.allclose(score, again, rtol=1e-4))
print("layers:", [layer.name for layer in model.layers])
model.fit([x_num, x_seq], y, batch_size=20, epochs=1, verbose=0, shuffle=False)
print("training goes on:", model.evaluate([x_num, x_seq], y, verbose=0)[0] < again[0])

keras.backend.clear_session()
rebuilt = keras.models.model_from_json(json_string, custom_objects={"Scale": Scale})
rebuilt.load_weights("w.h5")
print("model_from_json + load_weights predicts the same:",
      np.allclose(rebuilt.predict([x_num, x_seq]), pred, atol=1e-5))
try:
    rebuilt.to_yaml()
except RuntimeError as e:
    print("to_yaml:", str(e).split(" due to")[0])
print("files:", sorted(p for p in os.listdir(".") if p.endswith(".h5")))

"""A TF1-era tf.keras script (written for the tests): a small CNN on synthetic 8x8
"digits", Sequential + compile + fit with validation and callbacks, evaluate, predict,
save_weights; then the same layers used as graph layers with a tf.train optimizer."""
import argparse
import os

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras.layers import (BatchNormalization, Conv2D, Dense, Dropout, Flatten,
                                     MaxPooling2D)

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--out", default="ckpt")
args = parser.parse_args()

tf.set_random_seed(1)
np.random.seed(1)
rng = np.random.RandomState(0)
labels = rng.randint(0, 4, 600)
images = rng.rand(600, 8, 8, 1).astype("float32") * 0.3
for k in range(4):
    images[labels == k, 2 * k:2 * k + 2, :, 0] += 1.0
y = keras.utils.to_categorical(labels, 4)
x_train, y_train, x_test, y_test = images[:500], y[:500], images[500:], y[500:]

model = keras.Sequential([
    Conv2D(8, (3, 3), activation="relu", padding="same", input_shape=(8, 8, 1)),
    BatchNormalization(),
    MaxPooling2D(pool_size=(2, 2)),
    Flatten(),
    Dense(32, activation="relu"),
    Dropout(0.25),
    Dense(4, activation="softmax"),
])
model.compile(loss=keras.losses.categorical_crossentropy,
              optimizer=keras.optimizers.Adam(lr=0.01), metrics=["accuracy"])
model.summary()
os.makedirs(args.out, exist_ok=True)
history = model.fit(x_train, y_train, batch_size=50, epochs=args.epochs, verbose=2,
                    validation_data=(x_test, y_test),
                    callbacks=[keras.callbacks.ModelCheckpoint(
                        os.path.join(args.out, "weights.{epoch:02d}"), save_weights_only=True,
                        monitor="val_acc", save_best_only=True)])
score = model.evaluate(x_test, y_test, verbose=0)
print("Test loss:", round(score[0], 4))
print("Test accuracy:", score[1])
print("history keys:", sorted(history.history))
pred = model.predict(x_test[:10])
print("predicted classes:", np.argmax(pred, 1).tolist())
print("true classes:", labels[500:510].tolist())
model.save_weights(os.path.join(args.out, "final"))

# graph-mode use of the same layer classes, trained with a tf.train optimizer
tf.keras.backend.clear_session()
x = tf.placeholder(tf.float32, [None, 8, 8, 1])
t = tf.placeholder(tf.float32, [None, 4])
h = Conv2D(4, 3, activation="relu")(x)
h = Flatten()(h)
logits = Dense(4)(h)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=t, logits=logits))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    first = sess.run(loss, {x: x_train, t: y_train})
    for _ in range(30):
        sess.run(train_op, {x: x_train, t: y_train})
    print("graph loss went down:", sess.run(loss, {x: x_train, t: y_train}) < first)
    print("graph variables:", [v.op.name for v in tf.trainable_variables()])

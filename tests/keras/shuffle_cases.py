"""Keras ``fit`` sample orders drawn from numpy's global RNG, written for TF 2.15 and
estimator_npu alike (``run(tf)``): ``shuffle=True`` with ``validation_split`` (TF's loop
shuffles the validation samples too, so the next epoch's order depends on it),
``validation_data`` with ``shuffle="batch"`` and a partial last batch, and shuffling
without validation, and a Dropout layer's masks across epochs with validation runs
in between; also the callbacks' messages and ``Model.summary()``'s table. Each case records the History, the trained weights and the next draw
of numpy's RNG after fit (the same RNG state). Recorded from TF by
``tools/record_keras_shuffle.py`` into ``golden/keras_shuffle_tf215.json``."""
import contextlib
import io
import re

import numpy as np


def _data(n):
    rng = np.random.RandomState(7)
    x = rng.rand(n, 4).astype(np.float32)
    return x, (x.sum(1) > 2).astype(np.int64)


def _case(tf, n, epochs, batch_size, dropout=False, **fit_args):
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    x, y = _data(n)
    np.random.seed(0)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(8, activation="relu", input_shape=(4,),
                              kernel_initializer=tf.keras.initializers.Constant(0.3))]
        + ([tf.keras.layers.Dropout(0.3)] if dropout else []) + [
        tf.keras.layers.Dense(2, activation="softmax",
                              kernel_initializer=tf.keras.initializers.Constant(0.2))])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    if "validation_data" in fit_args:
        vx, vy = _data(n + 13)
        fit_args["validation_data"] = (vx[n:], vy[n:])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        history = model.fit(x, y, batch_size=batch_size, epochs=epochs, verbose=2,
                            **fit_args)
    lines = [re.sub(r"\d+(ms|us|s)/", "T/", re.sub(r" - \d+s - ", " - Ts - ", line))
             for line in out.getvalue().splitlines() if " - " in line]
    return {
        "history": {k: [round(float(v), 5) for v in vs]
                    for k, vs in sorted(history.history.items())},
        "weights": [round(float(w.sum()), 4) for w in model.get_weights()],
        "next_draw": float(np.random.rand()),
        "epoch_lines": [re.sub(r"\d\.\d{4}", "X", line) for line in lines],
    }


def _callbacks_case(tf):
    """ModelCheckpoint / EarlyStopping / ReduceLROnPlateau / LearningRateScheduler messages
    (temporary paths replaced by ``D``), the History with the ``lr`` that
    ReduceLROnPlateau adds, and the files written."""
    import os
    import tempfile
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    x, y = _data(80)
    np.random.seed(0)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(8, activation="tanh", input_shape=(4,),
                              kernel_initializer=tf.keras.initializers.Constant(0.3)),
        tf.keras.layers.Dense(2, activation="softmax",
                              kernel_initializer=tf.keras.initializers.Constant(0.2))])
    model.compile(optimizer=tf.keras.optimizers.RMSprop(0.01),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    with tempfile.TemporaryDirectory() as d:
        callbacks = [
            tf.keras.callbacks.LearningRateScheduler(lambda epoch: 0.01 / (1 + epoch),
                                                     verbose=1),
            tf.keras.callbacks.ModelCheckpoint(os.path.join(d, "w-{epoch:02d}.h5"),
                                               save_best_only=True, verbose=1),
            tf.keras.callbacks.EarlyStopping(patience=1, verbose=1, min_delta=0.02),
            tf.keras.callbacks.ReduceLROnPlateau(patience=0, verbose=1, factor=0.5,
                                                 min_delta=0.02)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            history = model.fit(x, y, batch_size=16, epochs=8, verbose=0,
                                validation_split=0.25, callbacks=callbacks)
        files = sorted(os.listdir(d))
        text = out.getvalue().replace(d, "D")
    return {
        "messages": [re.sub(r"\d\.\d{5}", "X", line) for line in text.split("\n")],
        "history_keys": sorted(history.history),
        "lr": [round(float(v), 6) for v in history.history.get("lr", [])],
        "epochs": len(history.history["loss"]),
        "files": files,
    }


def _summaries(tf):
    """``Model.summary()`` lines: a chain (three columns), and two inputs joined by
    concatenate (four columns, ``Connected to``)."""
    tf.keras.backend.clear_session()
    lines = []
    seq = tf.keras.Sequential([
        tf.keras.layers.Conv2D(8, 3, input_shape=(28, 28, 1)),
        tf.keras.layers.BatchNormalization(), tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(10)])
    seq.summary(print_fn=lines.append)
    a, b = tf.keras.Input((4,), name="a"), tf.keras.Input((3,), name="b")
    joined = tf.keras.layers.concatenate([tf.keras.layers.Dense(5)(a), b])
    tf.keras.Model([a, b], tf.keras.layers.Dense(1, name="out")(joined)).summary(
        print_fn=lines.append)
    return lines


def run(tf):
    return {
        "summaries": _summaries(tf),
        "callbacks": _callbacks_case(tf),
        "split_shuffle": _case(tf, 60, 3, 16, validation_split=0.25, shuffle=True),
        "data_batch_shuffle": _case(tf, 50, 3, 16, validation_data=True, shuffle="batch"),
        "shuffle_only": _case(tf, 50, 2, 16, shuffle=True),
        # the dropout mask's random op runs only in training runs (TF's smart_cond): the
        # validation runs between epochs must not move its stream
        "dropout_validation": _case(tf, 60, 3, 16, dropout=True, validation_split=0.25),
    }

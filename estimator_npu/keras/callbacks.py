"""``tf.keras.callbacks`` and the progress line ``fit`` prints.

Values print as Keras prints them: ``%.4f``, or ``%.4e`` when the magnitude is 1e-3 or
less (``val_acc: 0.0000e+00``)."""
import os
import sys
import time

import numpy as np

from estimator_npu.utils import logging

_IMPORTED = set(globals())


def format_value(v):
    return f"{v:.4f}" if abs(v) > 1e-3 else f"{v:.4e}"


def format_logs(logs):
    return " - ".join(f"{k}: {format_value(v)}" for k, v in logs.items()
                      if k not in ("batch", "size") and isinstance(v, (int, float, np.number)))


class Progbar:
    """``verbose=1``: ``n/N [=====>....] - ETA`` while it runs (on a terminal), then
    ``N/N [==============================] - 0s 152us/sample - loss: ...``;
    ``verbose=2``: only ``N/N - 0s - loss: ... - 36ms/epoch - 448us/sample`` at the end."""

    def __init__(self, target, verbose=1, width=30, steps=False):
        self.target, self.verbose, self.width = target, verbose, width
        self.steps = steps  # counting batches (a dataset), not samples
        self.start = time.time()
        self._tty = hasattr(sys.stdout, "isatty") and sys.stdout.isatty()

    def _bar(self, current):
        if self.target is None:
            return f"{current}/Unknown"
        digits = len(str(self.target))
        done = int(self.width * current / max(self.target, 1))
        bar = "=" * max(done - 1, 0) + (">" if current < self.target else "=") \
            if done else ""
        bar = bar + "." * (self.width - len(bar))
        return f"{current:>{digits}}/{self.target} [{bar}]"

    def update(self, current, logs):
        self.current = current
        if self.verbose == 1 and self._tty and self.target and current < self.target:
            elapsed = time.time() - self.start
            eta = elapsed / max(current, 1) * (self.target - current)
            sys.stdout.write(f"\r{self._bar(current)} - ETA: {eta:.0f}s - "
                             f"{format_logs(logs)}")
            sys.stdout.flush()

    def finish(self, logs):
        elapsed = time.time() - self.start
        if self.target is None:
            self.target = getattr(self, "current", 0)
        per = elapsed / max(self.target, 1)
        what = "step" if self.steps else "sample"
        if self.verbose == 1:
            line = f"{self._bar(self.target)} - {elapsed:.0f}s{_per_unit(per, what)} - " \
                   f"{format_logs(logs)}"
            sys.stdout.write(("\r" if self._tty else "") + line + "\n")
        else:
            # as TF 2.15's Keras: the epoch's time and the time per sample (or step) last
            sys.stdout.write(f"{self.target}/{self.target} - {elapsed:.0f}s - "
                             f"{format_logs(logs)} -{_per_unit(elapsed, 'epoch')} -"
                             f"{_per_unit(per, what)}\n")
        sys.stdout.flush()


def _per_unit(seconds, unit):
    """`` 6ms/sample``: Keras's rounding to whole s, ms or us."""
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit}"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/{unit}"
    return f" {seconds * 1e6:.0f}us/{unit}"


class Callback:
    def __init__(self):
        self.model = None
        self.params = {}
        self.validation_data = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_batch_begin(self, batch, logs=None):
        pass

    def on_batch_end(self, batch, logs=None):
        pass

    def on_train_batch_begin(self, batch, logs=None):
        pass

    def on_train_batch_end(self, batch, logs=None):
        pass

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass


class CallbackList:
    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def _each(self, method, *args):
        for c in self.callbacks:
            getattr(c, method)(*args)

    def on_train_begin(self, logs=None):
        self._each("on_train_begin", logs or {})

    def on_train_end(self, logs=None):
        self._each("on_train_end", logs or {})

    def on_epoch_begin(self, epoch, logs=None):
        self._each("on_epoch_begin", epoch, logs or {})

    def on_epoch_end(self, epoch, logs=None):
        self._each("on_epoch_end", epoch, logs or {})

    def on_batch_begin(self, batch, logs=None):
        self._each("on_batch_begin", batch, logs)
        self._each("on_train_batch_begin", batch, logs)

    def on_batch_end(self, batch, logs=None):
        self._each("on_batch_end", batch, logs)
        self._each("on_train_batch_end", batch, logs)


class BaseLogger(Callback):
    """Kept for compatibility: ``fit`` already averages the batch values."""


class History(Callback):
    def on_train_begin(self, logs=None):
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


def _mode_op(mode, monitor):
    if mode not in ("auto", "min", "max"):
        logging.warning("mode %s is unknown, fallback to auto mode.", mode)
        mode = "auto"
    if mode == "max" or (mode == "auto" and ("acc" in monitor or
                                             monitor.startswith("fmeasure"))):
        return np.greater, -np.inf
    return np.less, np.inf


class EarlyStopping(Callback):
    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, int(patience), verbose
        self.baseline, self.restore_best_weights = baseline, restore_best_weights
        self.monitor_op, _ = _mode_op(mode, monitor)
        self.min_delta = abs(min_delta) * (1 if self.monitor_op == np.greater else -1)
        self.stopped_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch = 0, 0
        self.best = self.baseline if self.baseline is not None else (
            -np.inf if self.monitor_op == np.greater else np.inf)
        self.best_weights = None

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            logging.warning("Early stopping conditioned on metric `%s` which is not "
                            "available. Available metrics are: %s", self.monitor,
                            ",".join(logs or {}))
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best, self.wait = current, 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                if self.restore_best_weights and self.best_weights is not None:
                    self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


class ModelCheckpoint(Callback):
    """Saves after each ``period`` epochs at ``filepath.format(epoch=epoch + 1, **logs)``
    (with ``save_best_only`` only when ``monitor`` improved): to an ``.h5`` / ``.hdf5``
    name the whole model (``model.save``; its weights only with ``save_weights_only``),
    to any other name the weights as a TF checkpoint (TF would write a SavedModel there
    without ``save_weights_only``)."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch", period=1, **kwargs):
        super().__init__()
        self.filepath, self.monitor, self.verbose = os.fspath(filepath), monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.period = int(period)
        self.monitor_op, self.best = _mode_op(mode, monitor)
        self._since = 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self._since += 1
        if self._since < self.period:
            return
        self._since = 0
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                logging.warning("Can save best model only with %s available, skipping.",
                                self.monitor)
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from "
                          f"{self.best:.5f}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from "
                      f"{self.best:.5f} to {current:.5f}, saving model to {path}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        if self.save_weights_only or not path.endswith((".h5", ".hdf5")):
            self.model.save_weights(path)
        else:  # TF: the whole model (architecture, weights, optimizer) in an HDF5 file
            self.model.save(path, overwrite=True)


class LearningRateScheduler(Callback):
    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        from estimator_npu.keras import backend
        try:
            lr_var = self.model.optimizer.lr
        except AttributeError as e:
            raise ValueError('Optimizer must have a "lr" attribute.') from e
        try:
            lr = self.schedule(epoch, float(backend.get_value(lr_var)))
        except TypeError:
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.floating, int)):
            raise ValueError('The output of the "schedule" function should be float.')
        backend.set_value(lr_var, float(lr))
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning "
                  f"rate to {lr}.")


class ReduceLROnPlateau(Callback):
    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0, **kwargs):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor, self.factor, self.patience = monitor, float(factor), int(patience)
        self.verbose, self.min_delta, self.cooldown = verbose, min_delta, cooldown
        self.min_lr = min_lr
        self.monitor_op, self.best = _mode_op(mode, monitor)
        self.wait = self.cooldown_counter = 0

    def on_epoch_end(self, epoch, logs=None):
        from estimator_npu.keras import backend
        if logs is not None:
            # as TF: the epoch's learning rate joins the logs (History, CSVLogger)
            logs["lr"] = backend.get_value(self.model.optimizer.lr)
        current = (logs or {}).get(self.monitor)
        if current is None:
            return
        better = current < self.best - self.min_delta if self.monitor_op == np.less \
            else current > self.best + self.min_delta
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if better:
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                lr = float(backend.get_value(self.model.optimizer.lr))
                if lr > self.min_lr:
                    new = max(lr * self.factor, self.min_lr)
                    backend.set_value(self.model.optimizer.lr, new)
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing "
                              f"learning rate to {new}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0


class TerminateOnNaN(Callback):
    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class LambdaCallback(Callback):
    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_batch_begin", on_batch_begin), ("on_batch_end", on_batch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end)):
            if fn is not None:
                setattr(self, name, fn)


class CSVLogger(Callback):
    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.sep, self.append = os.fspath(filename), separator, append
        self._keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self._keys is None:
            self._keys = sorted(logs)
            mode = "a" if self.append and os.path.exists(self.filename) else "w"
            with open(self.filename, mode) as f:
                f.write(self.sep.join(["epoch"] + self._keys) + "\n")
        with open(self.filename, "a") as f:
            f.write(self.sep.join([str(epoch)] + [str(logs.get(k, "")) for k in self._keys])
                    + "\n")


class TensorBoard(Callback):
    """Writes each epoch's logs as scalar summaries to ``log_dir`` (graphs, histograms,
    images and profiling are not written; a log line says so)."""

    def __init__(self, log_dir="./logs", histogram_freq=0, write_graph=True,
                 write_images=False, update_freq="epoch", **kwargs):
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        self._writer = None
        logging.info("tf.keras.callbacks.TensorBoard: writing epoch scalars to %s (graphs, "
                     "histograms and images are not written)", self.log_dir)

    def on_epoch_end(self, epoch, logs=None):
        from estimator_npu.train.summary_writer import FileWriter
        from estimator_npu.train.summary_ops import Summary
        if self._writer is None:
            self._writer = FileWriter(self.log_dir)
        s = Summary(value=[Summary.Value(tag=k, simple_value=float(v))
                           for k, v in (logs or {}).items()
                           if isinstance(v, (int, float, np.number))])
        self._writer.add_summary(s, epoch)
        self._writer.flush()

    def on_train_end(self, logs=None):
        if self._writer is not None:
            self._writer.close()

__all__ = sorted(n for n in set(globals()) - _IMPORTED if not n.startswith("_"))

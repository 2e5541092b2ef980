"""``tf.keras.Model``: ``compile``, ``fit``, ``evaluate``, ``predict`` and the
``*_on_batch`` calls of TF1's graph-mode Keras, on numpy arrays (and lists / dicts of
them for several inputs or outputs), in the Keras session (``backend.get_session()``).

``fit`` prints ``Train on N samples[, validate on M samples]``, then per epoch
``Epoch i/n`` and a progress line (``verbose=1``: a bar; ``2``: one line) with the
epoch's running ``loss`` and metrics; it returns a ``History`` whose ``history`` maps
``loss``, the metric names and their ``val_`` versions to per-epoch values.
"""
import numpy as np

from estimator_npu.keras import backend, callbacks as callbacks_mod, optimizers
from estimator_npu.keras.engine.batches import DatasetBatches, array_batches, is_dataset
from estimator_npu.keras.engine.compiled import (Accumulator, CompiledGraph, as_arrays,
                                                 batch_values)
from estimator_npu.keras.engine.network import Network
from estimator_npu.utils import nest


class Model(Network):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.optimizer = None
        self._compiled_graph = None
        self.stop_training = False
        self.history = None

    # ------------------------------------------------------------ compile
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                sample_weight_mode=None, weighted_metrics=None, target_tensors=None,
                **kwargs):
        self.optimizer = optimizers.get(optimizer)
        self.loss = loss
        self._compile_metrics = metrics or []
        self._loss_weights = loss_weights
        self._compiled_graph = None
        if self._is_graph_network:
            self._compiled()

    def _compiled(self):
        if self.optimizer is None:
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")
        if self._compiled_graph is None:
            g = self.outputs[0].graph
            with g.as_default():
                self._compiled_graph = CompiledGraph(self)
        return self._compiled_graph

    @property
    def metrics_names(self):
        return list(self._compiled().names) if self.optimizer is not None else []

    # ------------------------------------------------------------ building from data
    def _ensure_built(self, xs):
        if self._is_graph_network:
            return
        from estimator_npu.keras.engine.input_layer import Input
        inputs = [Input(batch_shape=(None,) + tuple(a.shape[1:]),
                        dtype=backend.floatx() if a.dtype.kind == "f" else a.dtype.name)
                  for a in xs]
        self._build_from(inputs if len(inputs) > 1 else inputs[0])

    def _build_from(self, inputs):
        outputs = self(inputs)
        self.inputs = list(nest.flatten(inputs))
        self.outputs = list(nest.flatten(outputs))
        self._nested_inputs, self._nested_outputs = inputs, outputs
        self.input_names = [f"input_{i + 1}" for i in range(len(self.inputs))]
        self.output_names = [f"output_{i + 1}" for i in range(len(self.outputs))]
        self._subclass_built = True

    @property
    def _has_io(self):
        return self._is_graph_network or getattr(self, "_subclass_built", False)

    def _data(self, x, y=None, sample_weight=None):
        xs = as_arrays(x, getattr(self, "input_names", None) or ["input_1"] * (
            len(x) if isinstance(x, (list, tuple)) and not self._has_io else 1), "inputs")
        if not self._has_io:
            self._ensure_built(xs)
        ys = None if y is None else as_arrays(y, self.output_names, "targets")
        sws = None
        if sample_weight is not None:
            sws = [np.asarray(w, dtype=np.float32) for w in (
                sample_weight if isinstance(sample_weight, (list, tuple))
                else [sample_weight])]
        return xs, ys, sws

    # ------------------------------------------------------------ loops
    def _loop(self, cg, batches, train, callbacks=None, progress=None):
        acc = Accumulator(cg.names)
        seen = 0
        for b, (xs, ys, sws, size) in enumerate(batches):
            if callbacks is not None:
                callbacks.on_batch_begin(b, {"batch": b, "size": size})
            loss, stats = cg.run_batch(xs, ys, sws, train)
            acc.add(loss, stats, size)
            seen += size
            running = acc.values()
            if callbacks is not None:
                callbacks.on_batch_end(b, dict(running, batch=b, size=size, loss=loss))
            if progress is not None:
                progress.update(b + 1 if progress.steps else seen, running)
            if train and self.stop_training:
                break
        return acc.values()

    def _batches(self, x, y, sample_weight, batch_size, steps, shuffle=False):
        """``(source, n)``: an object whose ``epoch()`` yields batches, and the number of
        samples (arrays) or steps (datasets; None when unknown)."""
        if is_dataset(x):
            return DatasetBatches(x, steps, self._data), steps
        xs, ys, sws = self._data(x, y, sample_weight)

        class _Arrays:
            n = len(xs[0])
            data = (xs, ys, sws)

            def epoch(inner):
                return array_batches(xs, ys, sws, batch_size,
                                     _epoch_order(inner.n, shuffle, batch_size))
        return _Arrays(), len(xs[0])

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None,
            validation_steps=None, validation_freq=1, **kwargs):
        if x is None:
            raise ValueError("fit: x (the input data) is required")
        batch_size = 32 if batch_size is None else int(batch_size)
        if class_weight is not None and sample_weight is None and not is_dataset(x):
            sample_weight = _class_weights(y, class_weight)
        source, n = self._batches(x, y, sample_weight, batch_size, steps_per_epoch, shuffle)
        by_steps = is_dataset(x)
        if not by_steps and source.data[1] is None:
            raise ValueError("fit: y (the target data) is required")
        val = None
        if validation_data is not None:
            if is_dataset(validation_data):
                val = DatasetBatches(validation_data, validation_steps, self._data)
            else:
                vw = validation_data[2] if len(validation_data) > 2 else None
                vx, vy, vw = self._data(validation_data[0], validation_data[1], vw)
                val = _Fixed(vx, vy, vw, batch_size)
        elif validation_split and 0.0 < validation_split < 1.0 and not by_steps:
            xs, ys, sws = source.data
            split = int(n * (1.0 - validation_split))
            val = _Fixed([a[split:] for a in xs], [a[split:] for a in ys],
                         None if sws is None else [w[split:] for w in sws], batch_size)
            source, n = self._batches([a[:split] for a in xs], [a[:split] for a in ys],
                                      None if sws is None else [w[:split] for w in sws],
                                      batch_size, None, shuffle)
        cg = self._compiled()
        cg.train_op  # noqa: B018 - builds the optimizer's variables before the session
        self.history = callbacks_mod.History()
        cbs = callbacks_mod.CallbackList(list(callbacks or []) + [self.history])
        out_names = list(cg.names) + (["val_" + m for m in cg.names] if val else [])
        cbs.set_model(self)
        cbs.set_params({"batch_size": batch_size, "epochs": epochs,
                        "steps": n if by_steps else None,
                        "samples": None if by_steps else n, "verbose": verbose,
                        "do_validation": bool(val), "metrics": out_names})
        if verbose and not by_steps:
            print(f"Train on {n} samples" + (f", validate on {val.n} samples"
                                            if isinstance(val, _Fixed) else ""))
        self.stop_training = False
        cbs.on_train_begin()
        for epoch in range(initial_epoch, epochs):
            cbs.on_epoch_begin(epoch)
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs}")
            progress = callbacks_mod.Progbar(n, verbose, steps=by_steps) if verbose else None
            logs = self._loop(cg, source.epoch(), True, cbs, progress)
            if val and (epoch + 1) % validation_freq == 0:
                vlogs = self._loop(cg, val.epoch(), False)
                logs.update({"val_" + k: v for k, v in vlogs.items()})
            if progress is not None:
                progress.finish(logs)
            cbs.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        cbs.on_train_end()
        return self.history

    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
                 steps=None, callbacks=None, **kwargs):
        batch_size = 32 if batch_size is None else int(batch_size)
        source, n = self._batches(x, y, sample_weight, batch_size, steps)
        cg = self._compiled()
        progress = callbacks_mod.Progbar(n, verbose, steps=is_dataset(x)) \
            if verbose == 1 else None
        logs = self._loop(cg, source.epoch(), False, progress=progress)
        if progress is not None:
            progress.finish(logs)
        values = [logs[k] for k in cg.names]
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None, **kwargs):
        batch_size = 32 if batch_size is None else int(batch_size)
        if is_dataset(x):
            batches = DatasetBatches(x, steps, self._data, with_targets=False).epoch()
        else:
            xs, _, _ = self._data(x)
            batches = array_batches(xs, None, None, batch_size)
        outputs = list(self.outputs)
        sess = backend.get_session()
        chunks = [[] for _ in outputs]
        for xs, _, _, _ in batches:
            for i, v in enumerate(sess.run(outputs, dict(zip(self.inputs, xs)))):
                chunks[i].append(v)
        outs = [np.concatenate(c, 0) for c in chunks]
        return outs[0] if len(outs) == 1 else outs

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       reset_metrics=True):
        return self._on_batch(x, y, sample_weight, True)

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True):
        return self._on_batch(x, y, sample_weight, False)

    def _on_batch(self, x, y, sample_weight, train):
        xs, ys, sws = self._data(x, y, sample_weight)
        cg = self._compiled()
        loss, stats = cg.run_batch(xs, ys, sws, train)
        values = list(batch_values(cg.names, loss, stats).values())
        return values[0] if len(values) == 1 else values

    def predict_on_batch(self, x):
        return self.predict(x, batch_size=len(as_arrays(x, ["x"] * (
            len(x) if isinstance(x, (list, tuple)) else 1), "inputs")[0]))

    def fit_generator(self, generator, steps_per_epoch=None, epochs=1, verbose=1,
                      callbacks=None, validation_data=None, **kwargs):
        """Trains on ``steps_per_epoch`` batches ``(x, y)`` of ``generator`` per epoch."""
        if steps_per_epoch is None:
            steps_per_epoch = len(generator)
        history = callbacks_mod.History()
        cbs = callbacks_mod.CallbackList(list(callbacks or []) + [history])
        cbs.set_model(self)
        cbs.set_params({"epochs": epochs, "steps": steps_per_epoch, "verbose": verbose})
        self.history = history
        self.stop_training = False
        cbs.on_train_begin()
        it = iter(generator)
        for epoch in range(epochs):
            cbs.on_epoch_begin(epoch)
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs}")
            acc = None
            for step in range(steps_per_epoch):
                batch = next(it)
                xs, ys, sws = self._data(*batch[:3]) if len(batch) > 2 else \
                    self._data(batch[0], batch[1])
                cg = self._compiled()
                acc = acc or Accumulator(cg.names)
                loss, stats = cg.run_batch(xs, ys, sws, True)
                acc.add(loss, stats, len(xs[0]))
            logs = acc.values()
            if validation_data is not None:
                vals = self.evaluate(validation_data[0], validation_data[1], verbose=0)
                vals = vals if isinstance(vals, list) else [vals]
                logs.update({"val_" + k: v for k, v in zip(self._compiled().names, vals)})
            if verbose:
                print(f"{steps_per_epoch}/{steps_per_epoch} - " +
                      callbacks_mod.format_logs(logs))
            cbs.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        cbs.on_train_end()
        return history


class _Fixed:
    """Validation arrays by ``batch_size`` (in fit: shuffled, as TF's)."""

    def __init__(self, xs, ys, sws, batch_size):
        self.xs, self.ys, self.sws, self.batch_size = xs, ys, sws, batch_size
        self.n = len(xs[0])

    def epoch(self):
        # TF's v1 loop shuffles the validation samples too (its test loop inside fit keeps
        # model_iteration's default shuffle=True): the same draws from numpy's global RNG,
        # so the next epoch's training order is TF's
        return array_batches(self.xs, self.ys, self.sws, self.batch_size,
                             _epoch_order(self.n, True, self.batch_size))


def _epoch_order(n, shuffle, batch_size):
    """The sample order of one epoch, drawn as TF's Keras draws it from numpy's global RNG:
    a permutation (``shuffle=True``), whole batches permuted with the last partial batch
    kept at the end (``shuffle="batch"``), or None (in order)."""
    if not shuffle:
        return None
    if shuffle == "batch":
        full = n // batch_size * batch_size
        blocks = np.arange(full).reshape(-1, batch_size)
        np.random.shuffle(blocks)
        return np.append(blocks.ravel(), np.arange(full, n))
    return np.random.permutation(n)


def _class_weights(y, class_weight):
    """Per-sample weights ``class_weight[class of y]`` (one-hot or integer targets)."""
    y = np.asarray(y[0] if isinstance(y, (list, tuple)) else y)
    classes = np.argmax(y, -1) if y.ndim == 2 and y.shape[1] > 1 else \
        y.reshape(len(y)).astype(np.int64)
    return np.array([class_weight.get(int(c), 1.0) for c in classes], dtype=np.float32)

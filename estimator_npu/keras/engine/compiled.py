"""What ``Model.compile`` builds in the graph: target placeholders, the loss, the metric
sums and the train op, and the session calls on batches that ``fit`` / ``evaluate`` /
``predict`` / ``*_on_batch`` make (TF1's Keras training functions)."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops import array_ops, math_ops, state_ops

from estimator_npu.engine.ops.core import group, placeholder, placeholder_with_default
from estimator_npu.keras import backend, losses as losses_mod, metrics as metrics_mod


def _per_output(spec, names, what):
    """``spec`` (one value, a list or a dict by output name) as a list per output."""
    if isinstance(spec, dict):
        unknown = set(spec) - set(names)
        if unknown:
            raise ValueError(f"Unknown entries in {what} dictionary: {sorted(unknown)}. Only "
                             f"expected the following keys: {names}")
        return [spec.get(n) for n in names]
    if isinstance(spec, (list, tuple)) and what != "metrics":
        if len(spec) != len(names):
            raise ValueError(f"When passing a list as {what}, it should have one entry per "
                             f"model output. The model has {len(names)} outputs, but you "
                             f"passed {what}={spec!r}")
        return list(spec)
    return [spec] * len(names)


class CompiledGraph:
    """The compiled model's graph pieces for one graph."""

    def __init__(self, model, targets=None):
        """``targets``: one tensor per output to use as the labels (``model_to_estimator``)
        instead of the target placeholders ``fit`` feeds."""
        self.model = model
        g = self.graph = get_default_graph()
        outputs, names = model.outputs, model.output_names
        loss_fns = [losses_mod.get(s) if s is not None else None
                    for s in _per_output(model.loss, names, "loss")]
        weights = _per_output(model._loss_weights if model._loss_weights is not None
                              else 1.0, names, "loss_weights")
        metric_specs = model._compile_metrics
        if isinstance(metric_specs, dict):
            per_output_metrics = [metric_specs.get(n) or [] for n in names]
        else:
            per_output_metrics = [list(metric_specs or [])] * len(names)
        for i, m in enumerate(per_output_metrics):
            per_output_metrics[i] = m if isinstance(m, (list, tuple)) else [m]
        self.targets, self.sample_weights = [], []
        total, self.names, self.stats = None, ["loss"], []
        output_losses = []
        with g.name_scope("loss"):
            for i, (out, name, fn, w) in enumerate(zip(outputs, names, loss_fns, weights)):
                if fn is None:
                    self.targets.append(None)
                    self.sample_weights.append(None)
                    continue
                rank = out.shape.ndims
                target = placeholder(out.dtype, [None] * rank if rank else None,
                                     name=f"{name}_target") if targets is None else \
                    math_ops.cast(targets[i], out.dtype)
                per = fn(target, out)
                sw = placeholder_with_default(array_ops.ones_like(per), [None] * (
                    per.shape.ndims if per.shape.ndims is not None else 1),
                    name=f"{name}_sample_weights")
                value = math_ops.reduce_sum(per * sw) / math_ops.cast(array_ops.size(per),
                                                                      per.dtype)
                self.targets.append(target)
                self.sample_weights.append(sw)
                output_losses.append((name, value))
                term = value * float(w) if w != 1.0 else value
                total = term if total is None else total + term
            if total is None:
                raise ValueError("The model cannot be compiled because it has no loss to "
                                 "optimize.")
            extra = model.losses
            if extra:
                total = total + math_ops.add_n([math_ops.cast(x, total.dtype)
                                                for x in extra])
        self.total_loss = total
        if len(output_losses) > 1:
            for name, value in output_losses:
                self.names.append(f"{name}_loss")
                self.stats.append((value, None))
        with g.name_scope("metrics"):
            for out, name, fn, target, specs in zip(outputs, names, loss_fns, self.targets,
                                                    per_output_metrics):
                if target is None:
                    continue
                for spec in specs:
                    mname, mfn = metrics_mod.resolve(spec, fn, out)
                    values = math_ops.cast(mfn(target, out), dtypes.float32)
                    self.names.append(mname if len(outputs) == 1 else f"{name}_{mname}")
                    self.stats.append((math_ops.reduce_sum(values),
                                       math_ops.cast(array_ops.size(values), dtypes.float32)))
        self._train_op = None

    @property
    def train_op(self):
        if self._train_op is None:
            model = self.model
            with self.graph.name_scope("training"):
                step = model.optimizer.minimize(self.total_loss, model.trainable_weights)
                updates = [step] + list(model.updates)
                op = group(*updates)
                if model.constraints:
                    from estimator_npu.engine.graph import control_dependencies
                    with control_dependencies([op]):
                        op = group(*[state_ops.assign(v, c(v)) for v, c in model.constraints])
            self._train_op = op
        return self._train_op

    # ------------------------------------------------------------ feeds and runs
    def feed(self, xs, ys=None, sws=None, training=False):
        model = self.model
        feed = {}
        for t, a in zip(model.inputs, xs):
            feed[t] = a
        if ys is not None:
            for t, a in zip([t for t in self.targets if t is not None], ys):
                feed[t] = a
        if sws is not None:
            for t, a in zip([t for t in self.sample_weights if t is not None], sws):
                if a is not None:
                    feed[t] = a
        phase = backend._phase_placeholder(self.graph)
        if phase is not None and training:
            feed[phase] = True
        return feed

    def run_batch(self, xs, ys, sws, train):
        """``(loss, [(sum, count) or (value, None) per extra entry])`` for one batch."""
        sess = backend.get_session()
        fetches = [self.total_loss, [s for s, _ in self.stats],
                   [c if c is not None else s for s, c in self.stats]]
        if train:
            fetches.append(self.train_op)
            backend._initialize_variables(sess)
        out = sess.run(fetches, self.feed(xs, ys, sws, training=train))
        stats = [(float(s), None if c_t is None else float(c))
                 for (_, c_t), s, c in zip(self.stats, out[1], out[2])]
        return float(out[0]), stats

    def predict_batch(self, xs):
        sess = backend.get_session()
        return sess.run(list(self.model.outputs), self.feed(xs))


class Accumulator:
    """Epoch totals: the loss averaged by batch size, metrics as total / count."""

    def __init__(self, names):
        self.names = names
        self.loss_sum = 0.0
        self.n = 0
        self.sums = [0.0] * (len(names) - 1)
        self.counts = [0.0] * (len(names) - 1)

    def add(self, loss, stats, size):
        self.loss_sum += loss * size
        self.n += size
        for i, (s, c) in enumerate(stats):
            if c is None:  # an output's loss: averaged by batch size as the total loss
                self.sums[i] += s * size
                self.counts[i] += size
            else:
                self.sums[i] += s
                self.counts[i] += c

    def values(self):
        vals = [self.loss_sum / max(self.n, 1)]
        vals += [s / c if c else 0.0 for s, c in zip(self.sums, self.counts)]
        return dict(zip(self.names, vals))


def batch_values(names, loss, stats):
    vals = [loss] + [s if c is None else (s / c if c else 0.0) for s, c in stats]
    return dict(zip(names, vals))


def as_arrays(data, names, what):
    """A model's input or target data as a list of numpy arrays (1-D ones made 2-D)."""
    if data is None:
        return None
    if isinstance(data, dict):
        missing = [n for n in names if n not in data]
        if missing:
            raise ValueError(f"No data provided for {missing} ({what}); the model's {what} "
                             f"are {names}")
        data = [data[n] for n in names]
    elif not isinstance(data, (list, tuple)) or (len(names) == 1 and not (
            len(data) == 1 and hasattr(data[0], "shape"))):
        data = [data]
    arrays = []
    for a in data:
        a = np.asarray(a)
        if a.ndim == 1:
            a = a[:, None]
        arrays.append(a)
    if len(arrays) != len(names):
        raise ValueError(f"Error when checking model {what}: the list of Numpy arrays that "
                         f"you are passing to your model is not the size the model "
                         f"expected. Expected to see {len(names)} array(s), but instead got "
                         f"{len(arrays)}")
    n = {len(a) for a in arrays}
    if len(n) > 1:
        raise ValueError(f"All {what} arrays should have the same number of samples. Got "
                         f"array shapes: {[a.shape for a in arrays]}")
    return arrays

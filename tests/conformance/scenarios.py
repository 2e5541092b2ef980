"""Scenarios run both under real TF 2.15 (``tools/record_tf_golden.py``) and under
estimator_npu (``tests/conformance``): each takes the TF1 API as ``tf`` (real
``tensorflow.compat.v1`` or ``estimator_npu``) and returns plain JSON data.

Everything numeric that is computed outside the graph (the gradients fed to the
optimizers) uses only float32 ``+ - *`` in numpy, which round the same everywhere.
"""
import base64
import glob
import os
import re
import tempfile

import numpy as np

from tests.log_capture import capturing

STEPS = 200
F32 = np.float32


def encode(array):
    """A float32 array as base64 of its little-endian bytes (exact and compact)."""
    return base64.b64encode(np.ascontiguousarray(array, "<f4").tobytes()).decode("ascii")


def decode(text, shape=None):
    out = np.frombuffer(base64.b64decode(text), "<f4")
    return out if shape is None else out.reshape(shape)


# ---------------------------------------------------------------- optimizer trajectories
W0 = np.array([[0.5, -1.25], [2.0, 0.75]], F32)
B0 = np.array([0.1, -0.3], F32)
A = np.array([[0.9, 1.3], [0.4, 2.1]], F32)
T = np.array([[0.25, -0.5], [1.5, -2.0]], F32)


def noise(step, shape):
    """A deterministic float32 perturbation in [-1, 1) made of exact binary fractions."""
    idx = np.arange(int(np.prod(shape))).reshape(shape)
    return (((step * 7 + idx * 13) % 17 - 8) / 8.0).astype(F32)


def gradient(w, step):
    """``A * (w - T) + noise``, in float32."""
    return A * (w - T) + noise(step, w.shape) * F32(0.25)


OPTIMIZERS = {
    "GradientDescent": ("GradientDescentOptimizer", dict(learning_rate=0.1)),
    "Momentum": ("MomentumOptimizer", dict(learning_rate=0.05, momentum=0.9)),
    "MomentumNesterov": ("MomentumOptimizer", dict(learning_rate=0.05, momentum=0.9,
                                                  use_nesterov=True)),
    "Adam": ("AdamOptimizer", dict(learning_rate=0.01)),
    "AdamCustom": ("AdamOptimizer", dict(learning_rate=0.03, beta1=0.8, beta2=0.99,
                                         epsilon=1e-6)),
    "RMSProp": ("RMSPropOptimizer", dict(learning_rate=0.01)),
    "RMSPropCentered": ("RMSPropOptimizer", dict(learning_rate=0.01, centered=True)),
    "RMSPropMomentum": ("RMSPropOptimizer", dict(learning_rate=0.005, momentum=0.9,
                                                 decay=0.95, epsilon=1e-8)),
    "Adagrad": ("AdagradOptimizer", dict(learning_rate=0.1)),
    "LAMB": ("LAMBOptimizer", dict(learning_rate=0.01, weight_decay_rate=0.01,
                                   exclude_from_weight_decay=["bias"])),
}


def optimizer_trajectory(tf, name, make_optimizer=None):
    """Applies 200 fed gradients to ``w`` (2x2) and ``bias`` (2,); returns every step's
    values (base64 float32, ``[w, bias]`` flattened per step)."""
    cls, kwargs = OPTIMIZERS[name]
    graph = tf.Graph()
    with graph.as_default():
        with tf.variable_scope("layer"):
            w = tf.get_variable("w", initializer=tf.constant(W0), dtype=tf.float32)
            b = tf.get_variable("bias", initializer=tf.constant(B0), dtype=tf.float32)
        gw = tf.placeholder(tf.float32, [2, 2])
        gb = tf.placeholder(tf.float32, [2])
        gs = tf.train.get_or_create_global_step()
        opt = (make_optimizer or getattr(tf.train, cls))(**kwargs)
        train_op = opt.apply_gradients([(gw, w), (gb, b)], global_step=gs)
        rows = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            wv, bv = sess.run([w, b])
            for step in range(STEPS):
                g_w = gradient(wv, step)
                g_b = (bv - F32(0.5)) * F32(0.7) + noise(step + 3, (2,)) * F32(0.125)
                sess.run(train_op, {gw: g_w, gb: g_b})
                wv, bv = sess.run([w, b])
                rows.append(np.concatenate([wv.ravel(), bv.ravel()]))
            final_step = int(sess.run(gs))
    return {"steps": STEPS, "width": 6, "global_step": final_step,
            "trajectory": encode(np.stack(rows))}


# ---------------------------------------------------------------- float32 reductions
REDUCE_SIZES = [3, 8, 9, 31, 32, 33, 100, 257, 1000, 1023, 1024, 4096]


def reduce_input(n):
    """Squares of exact binary fractions with a varied spread (float32)."""
    i = np.arange(n)
    x = (((i * 37) % 101 - 50) / 16.0 * (1.0 + (i % 7) / 8.0)).astype(F32)
    return x * x


def reduce_sums(tf):
    """TF's ``reduce_sum`` of ``reduce_input(n)`` per size (base64 float32)."""
    out = {}
    with tf.Graph().as_default():
        with tf.Session() as sess:
            for n in REDUCE_SIZES:
                out[str(n)] = encode(np.asarray(sess.run(tf.reduce_sum(
                    tf.constant(reduce_input(n)))), F32).reshape(1))
    return out


# ---------------------------------------------------------------- estimator scenarios
X = (np.arange(40, dtype=F32).reshape(20, 2) % 7 - 3.0) / 4.0
Y = (X @ np.array([[0.5], [-1.0]], F32) + F32(0.25)).astype(F32)


def model_fn_factory(tf):
    def model_fn(features, labels, mode, params):
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features["x"], w) + b
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={
                "pred": pred, "flat": tf.reshape(pred, [-1]),
                "cls": tf.argmax(tf.concat([pred, -pred], 1), axis=1)})
        loss = tf.reduce_mean(tf.square(pred - labels))
        if mode == tf.estimator.ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(
                mode, loss=loss,
                eval_metric_ops={"mse": tf.metrics.mean_squared_error(labels, pred)})
        opt = tf.train.GradientDescentOptimizer(0.05)
        train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


def input_fn_factory(tf, finite=False, batch=4):
    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices(({"x": X}, Y))
        if not finite:
            ds = ds.repeat()
        return ds.batch(batch)
    return input_fn


def _listener_class(tf):
    class Listener(tf.train.CheckpointSaverListener):
        def __init__(self):
            self.calls = []

        def begin(self):
            self.calls.append(["begin"])

        def before_save(self, session, global_step_value):
            self.calls.append(["before_save", int(global_step_value)])

        def after_save(self, session, global_step_value):
            self.calls.append(["after_save", int(global_step_value)])

        def end(self, session, global_step_value):
            self.calls.append(["end", int(global_step_value)])
    return Listener


def _events(tf, model_dir):
    """``{tag: [steps]}`` of the scalar summaries and session logs in ``model_dir``."""
    out = {}
    for path in sorted(glob.glob(os.path.join(model_dir, "events.out.tfevents.*"))):
        for event in tf.train.summary_iterator(path):
            if event.HasField("summary"):
                for value in event.summary.value:
                    out.setdefault(value.tag, []).append(int(event.step))
            elif event.HasField("session_log"):
                out.setdefault(f"session_log:{event.session_log.status}", []).append(
                    int(event.step))
    return out


_LOG_PATTERNS = {
    "loss": re.compile(r"^loss = [-+0-9.e]+, step = (\d+)"),
    "saving": re.compile(r"^Saving checkpoints for (\d+) into "),
    "rate": re.compile(r"^global_step/sec: "),
    "final": re.compile(r"^Loss for final step: "),
    "skipping": re.compile(r"^Skipping training since max_steps has already saved"),
    # lines users grep for, counted
    "create_hook": re.compile(r"^Create CheckpointSaverHook\.$"),
    "restoring": re.compile(r"^Restoring parameters from "),
    "local_init": re.compile(r"^Done running local_init_op\.$"),
    "finalized": re.compile(r"^Graph was finalized\.$"),
    "listeners": re.compile(r"^Calling checkpoint listeners (before|after) saving checkpoint "
                            r"\d+\.\.\.$"),
}
_COUNTED = ("rate", "final", "skipping", "create_hook", "restoring", "local_init",
            "finalized", "listeners")


def _log_sequence(lines):
    """The schedule lines in the order they were logged: ``"saving 4"``, ``"rate"``,
    ``"loss 5"``, ... (TF logs a step's checkpoint, then its rate, then its loss)."""
    out = []
    for line in lines:
        for key in ("saving", "rate", "loss", "final"):
            m = _LOG_PATTERNS[key].match(line)
            if m:
                out.append(f"{key} {m.group(1)}" if key in ("loss", "saving") else key)
    return out


def _event_order(tf, model_dir):
    """Every event of ``model_dir``'s event files in file order, as ``"step kind"`` with
    the summary tags (``"11 summary global_step/sec"``, ``"20 session_log 3"``)."""
    out = []
    for path in sorted(glob.glob(os.path.join(model_dir, "events.out.tfevents.*"))):
        for event in tf.train.summary_iterator(path):
            if event.HasField("summary"):
                tags = ",".join(v.tag for v in event.summary.value)
                out.append(f"{event.step} summary {tags}")
            elif event.HasField("session_log"):
                out.append(f"{event.step} session_log {event.session_log.status}")
            elif event.HasField("graph_def"):
                out.append(f"{event.step} graph_def")
            elif event.HasField("meta_graph_def"):
                out.append(f"{event.step} meta_graph_def")
    return out


def _log_summary(lines):
    out = {k: [] for k in _LOG_PATTERNS}
    for line in lines:
        for key, pat in _LOG_PATTERNS.items():
            m = pat.match(line)
            if m:
                out[key].append(int(m.group(1)) if key in ("loss", "saving") else 1)
    for key in _COUNTED:
        out[key] = len(out[key])
    return out


# name -> (RunConfig kwargs, [train calls as (kind, value)], finite input)
HOOK_GRID = {
    "sum10_log4_ck4_25": (dict(save_summary_steps=10, log_step_count_steps=4,
                               save_checkpoints_steps=4), [("steps", 25)], False),
    "sum3_log5_ck7_12": (dict(save_summary_steps=3, log_step_count_steps=5,
                              save_checkpoints_steps=7), [("steps", 12)], False),
    "sum1_log1_ck1_4": (dict(save_summary_steps=1, log_step_count_steps=1,
                             save_checkpoints_steps=1), [("steps", 4)], False),
    "resume_steps6_twice_ck4": (dict(save_summary_steps=5, log_step_count_steps=3,
                                     save_checkpoints_steps=4),
                                [("steps", 6), ("steps", 6)], False),
    "resume_max_steps": (dict(save_summary_steps=4, log_step_count_steps=4,
                              save_checkpoints_steps=5),
                         [("max_steps", 7), ("max_steps", 7), ("max_steps", 15)], False),
    "finite_input_5_ck5": (dict(save_summary_steps=2, log_step_count_steps=2,
                                save_checkpoints_steps=5), [("steps", None)], True),
    "finite_input_5_ck3": (dict(save_summary_steps=10, log_step_count_steps=10,
                                save_checkpoints_steps=3), [("steps", None)], True),
    "finite_input_5_default_secs": (dict(save_summary_steps=100), [("steps", None)], True),
}


def hook_grid(tf, name, logger_name):
    """Runs one ``HOOK_GRID`` scenario; returns what each hook did, per train call."""
    config_kwargs, calls, finite = HOOK_GRID[name]
    with capturing(logger_name) as capture:
        with tempfile.TemporaryDirectory() as model_dir:
            config = tf.estimator.RunConfig(tf_random_seed=1, **config_kwargs)
            est = tf.estimator.Estimator(model_fn_factory(tf), model_dir=model_dir,
                                         config=config)
            runs = []
            for kind, value in calls:
                listener = _listener_class(tf)()
                capture.lines[:] = []
                est.train(input_fn_factory(tf, finite), saving_listeners=[listener],
                          **{kind: value})
                runs.append({"listener": listener.calls, "log": _log_summary(capture.lines),
                             "sequence": _log_sequence(capture.lines),
                             "global_step": int(est.get_variable_value("global_step"))})
            files = sorted(re.sub(r"^events\.out\.tfevents\..*", "events.out.tfevents.*", f)
                           for f in os.listdir(model_dir))
            events = _events(tf, model_dir)
            order = _event_order(tf, model_dir)
    return {"runs": runs, "events": events, "files": files, "event_order": order}


def evaluate_predict(tf):
    """Types and values ``evaluate`` returns and ``predict`` yields after 10 steps."""
    with tempfile.TemporaryDirectory() as model_dir:
        config = tf.estimator.RunConfig(tf_random_seed=1, save_summary_steps=5)
        est = tf.estimator.Estimator(model_fn_factory(tf), model_dir=model_dir,
                                     config=config)
        est.train(input_fn_factory(tf), steps=10)
        result = est.evaluate(input_fn_factory(tf, finite=True), steps=None)
        preds = list(est.predict(input_fn_factory(tf, finite=True)))
        batches = list(est.predict(input_fn_factory(tf, finite=True),
                                   yield_single_examples=False))
        eval_dir = os.path.join(model_dir, "eval")
        eval_events = _events(tf, eval_dir) if os.path.isdir(eval_dir) else {}
        eval_files = sorted(re.sub(r"^events\.out\.tfevents\..*", "events.out.tfevents.*", f)
                            for f in os.listdir(eval_dir)) if os.path.isdir(eval_dir) else []
    return {
        "evaluate": {k: {"type": type(v).__name__, "value": float(v)}
                     for k, v in sorted(result.items())},
        "predict_count": len(preds),
        "predict_first": {k: {"type": type(v).__name__, "dtype": str(np.asarray(v).dtype),
                              "shape": list(np.shape(v)),
                              "value": np.asarray(v, np.float64).ravel().tolist()}
                          for k, v in preds[0].items()},
        "predict_type": type(preds[0]).__name__,
        "predict_batches": len(batches),
        "predict_batch_first": {k: {"type": type(v).__name__,
                                    "dtype": str(np.asarray(v).dtype),
                                    "shape": list(np.shape(v))}
                                for k, v in batches[0].items()},
        "eval_events": eval_events,
        "eval_files": eval_files,
    }


RUN_CONFIG_PROPERTIES = ["task_type", "task_id", "is_chief", "num_ps_replicas",
                         "num_worker_replicas", "master", "evaluation_master",
                         "global_id_in_cluster", "service", "device_fn", "train_distribute",
                         "eval_distribute", "tf_random_seed", "save_summary_steps",
                         "save_checkpoints_steps", "save_checkpoints_secs",
                         "keep_checkpoint_max", "keep_checkpoint_every_n_hours",
                         "log_step_count_steps", "protocol", "experimental_max_worker_delay_secs",
                         "session_creation_timeout_secs", "checkpoint_save_graph_def"]


def run_config_properties(tf):
    config = tf.estimator.RunConfig()
    out = {}
    for name in RUN_CONFIG_PROPERTIES:
        v = getattr(config, name, "<missing>")
        out[name] = v if isinstance(v, (bool, int, float, str, type(None))) else repr(v)
    out["cluster_spec_empty"] = not bool(config.cluster_spec.as_dict()) if hasattr(
        config.cluster_spec, "as_dict") else repr(config.cluster_spec)
    return out


_NORMALIZE = [(re.compile(r"global_step/sec: [-+0-9.e]+"), "global_step/sec: N"),
              (re.compile(r"\(\d+\.\d+ sec\)"), "(N sec)"),
              (re.compile(r"Inference Time : [0-9.]+s"), "Inference Time : Ns"),
              (re.compile(r"\d{4}-\d\d-\d\d[T-]\d\d:\d\d:\d\d"), "DATE"),
              (re.compile(r" at 0x[0-9a-f]+"), " at 0xADDR")]


def _normalized(lines, model_dir):
    """Log messages with the model_dir, times and addresses replaced; TF's deprecation
    notices and its racy 'global step has not been increased' warning left out."""
    out = []
    for line in lines:
        if line.startswith("From ") and "deprecated" in line:
            continue
        if line.startswith("It seems that global step"):
            continue
        line = line.replace(model_dir, "MD")
        for pattern, text in _NORMALIZE:
            line = pattern.sub(text, line)
        out.append(line)
    return out


def estimator_log(tf, logger_name):
    """Every INFO/WARNING message of one train (5 steps), evaluate and predict, in order."""
    with capturing(logger_name) as capture:
        with tempfile.TemporaryDirectory() as model_dir:
            config = tf.estimator.RunConfig(tf_random_seed=1, save_summary_steps=2,
                                            log_step_count_steps=2, save_checkpoints_steps=3,
                                            keep_checkpoint_max=2)
            est = tf.estimator.Estimator(model_fn_factory(tf), model_dir=model_dir,
                                         config=config, params={})
            est.train(input_fn_factory(tf), steps=5)
            est.evaluate(input_fn_factory(tf, finite=True), steps=None)
            list(est.predict(input_fn_factory(tf, finite=True)))
            lines = _normalized(capture.lines, model_dir)
    return lines

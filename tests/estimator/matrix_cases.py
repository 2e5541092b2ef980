"""A matrix of small Estimator scenarios run by both frameworks: real TF 2.15
(``tools/record_estimator_matrix.py`` writes ``golden/estimator_matrix_tf215.json``) and
estimator_npu (``test_estimator_matrix.py`` compares). Each scenario takes the TF1 API as
``tf`` and the name of the logger its INFO lines go to, and returns plain JSON data:

* ``files``: model_dir's tree (event file names and export time stamps normalized);
* ``checkpoint``: the ``checkpoint`` state file with model_dir replaced by ``MD``;
* ``events``: per event file, ``[step, tag, value kind, value]`` of its summaries;
* ``hook``: what a custom hook saw (``begin``, the global step after session creation,
  the global step each ``after_run`` fetched, ``end``);
* ``log``: the schedule lines (``loss N``, ``saving N``, ``rate``, ``final``, ...);
* results of ``evaluate`` / ``predict`` / ``train_and_evaluate``.

The data and models are tiny and deterministic (zero-initialized linear model, float32).
"""
import glob
import math
import os
import re
import tempfile

import numpy as np

from tests.log_capture import capturing

F32 = np.float32
X = (np.arange(40, dtype=F32).reshape(20, 2) % 7 - 3.0) / 4.0
Y = (X @ np.array([[0.5], [-1.0]], F32) + F32(0.25)).astype(F32)


# ---------------------------------------------------------------- model and input
def model_fn_factory(tf, summaries=False):
    def model_fn(features, labels, mode, params):
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features["x"], w) + b
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={
                "pred": pred, "flat": tf.reshape(pred, [-1]),
                "cls": tf.argmax(tf.concat([pred, -pred], 1), axis=1)})
        loss = tf.reduce_mean(tf.square(pred - labels))
        if summaries:
            tf.summary.scalar("w_sum", tf.reduce_sum(w))
            tf.summary.histogram("w_hist", w)
        if mode == tf.estimator.ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(
                mode, loss=loss,
                eval_metric_ops={"mse": tf.metrics.mean_squared_error(labels, pred),
                                 "mean_pred": tf.metrics.mean(pred)})
        opt = tf.train.GradientDescentOptimizer(0.05)
        train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


def input_fn_factory(tf, finite=False, batch=4, rows=20):
    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices(({"x": X[:rows]}, Y[:rows]))
        if not finite:
            ds = ds.repeat()
        return ds.batch(batch)
    return input_fn


def recorder_hook(tf):
    """A hook that records what a user's hook sees, as ``[call, global step]`` rows."""
    class Recorder(tf.train.SessionRunHook):
        def __init__(self):
            self.calls = []

        def begin(self):
            self._gs = tf.train.get_global_step()
            self.calls.append(["begin"])

        def after_create_session(self, session, coord):
            self.calls.append(["after_create_session", int(session.run(self._gs))])

        def before_run(self, run_context):
            return tf.train.SessionRunArgs(self._gs)

        def after_run(self, run_context, run_values):
            self.calls.append(["after_run", int(run_values.results)])

        def end(self, session):
            self.calls.append(["end", int(session.run(self._gs))])
    return Recorder()


# ---------------------------------------------------------------- what a run left
_TS = re.compile(r"^\d{10}$")


def tree(model_dir):
    """Relative paths under ``model_dir``, sorted, with event-file names and export time
    stamps normalized (``events.out.tfevents.*``, ``export/best/<ts>/saved_model.pb``)."""
    out = []
    for root, dirs, files in os.walk(model_dir):
        rel = os.path.relpath(root, model_dir)
        parts = [] if rel == "." else rel.split(os.sep)
        parts = ["<ts>" if _TS.match(p) else p for p in parts]
        for f in files:
            if f.endswith(".input_state"):
                # estimator_npu's input position next to a checkpoint (exact resume,
                # beyond TF; removed when training ends normally): not in TF's listing
                continue
            f = re.sub(r"^events\.out\.tfevents\..*", "events.out.tfevents.*", f)
            out.append("/".join(parts + [f]))
        if not files and not dirs:
            out.append("/".join(parts) + "/")
    return sorted(out)


def checkpoint_state(model_dir):
    path = os.path.join(model_dir, "checkpoint")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read().replace(os.path.abspath(model_dir), "MD").replace(model_dir, "MD")
    return text.splitlines()


def _value(tf, value):
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        return [kind, round(float(value.simple_value), 5)]
    if kind == "histo":
        return [kind, int(value.histo.num)]
    if kind == "tensor":
        arr = tf.make_ndarray(value.tensor) if hasattr(tf, "make_ndarray") else None
        return [kind, None if arr is None else str(arr.dtype)]
    return [kind, None]


def events(tf, model_dir):
    """``{relative dir: [[step, what, tag or status, kind, value], ...]}`` for every
    event file under ``model_dir`` (files of one dir concatenated in name order), read
    after the cached writers are closed (TF leaves the last events of a run in its
    writer's buffer until then)."""
    tf.summary.FileWriterCache.clear()
    out = {}
    for path in sorted(glob.glob(os.path.join(model_dir, "**", "events.out.tfevents.*"),
                                 recursive=True)):
        rel = os.path.relpath(os.path.dirname(path), model_dir)
        rows = out.setdefault(rel, [])
        for event in tf.train.summary_iterator(path):
            if event.HasField("summary"):
                for value in event.summary.value:
                    kind, val = _value(tf, value)
                    if value.tag.endswith("/sec") or "fraction_over_" in value.tag:
                        # a rate or a queue's fill level: timing noise
                        val = None
                    rows.append([int(event.step), "summary", value.tag, kind, val])
            elif event.HasField("session_log"):
                rows.append([int(event.step), "session_log", int(event.session_log.status)])
            elif event.HasField("graph_def"):
                rows.append([int(event.step), "graph_def"])
            elif event.HasField("meta_graph_def"):
                rows.append([int(event.step), "meta_graph_def"])
    return out


_LINES = [
    ("loss", re.compile(r"^loss = ([-+0-9.e]+), step = (\d+)")),
    ("saving", re.compile(r"^Saving checkpoints for (\d+) into ")),
    ("rate", re.compile(r"^global_step/sec: ")),
    ("final", re.compile(r"^Loss for final step: ([-+0-9.e]+|nan|inf)\.$")),
    ("skipping", re.compile(r"^Skipping training since max_steps has already saved\.$")),
    ("restoring", re.compile(r"^Restoring parameters from MD/(\S+)$")),
    ("eval_start", re.compile(r"^Starting evaluation at ")),
    ("eval_step", re.compile(r"^Evaluation \[(\d+)/(\d+)\]$")),
    ("eval_count", re.compile(r"^Evaluation \[(\d+)\]$")),
    ("eval_done", re.compile(r"^Saving dict for global step (\d+): (.*)$")),
    ("eval_ckpt", re.compile(r"^Saving '(\S+)' summary for global step (\d+): MD/(\S+)$")),
    ("throttle", re.compile(r"^Skip the current checkpoint eval due to throttle secs")),
    ("no_ckpt", re.compile(r"^Could not find trained model in model_dir")),
    ("warm", re.compile(r"^Warm-starting from: (\S+)$")),
]


def log_rows(lines, model_dir):
    """The schedule lines in order: ``["loss", 0.123, 5]``, ``["saving", 5]``, ...; the
    numbers as logged (losses rounded to 5 significant digits)."""
    out = []
    for line in lines:
        line = line.replace(os.path.abspath(model_dir), "MD").replace(model_dir, "MD")
        for key, pat in _LINES:
            m = pat.match(line)
            if not m:
                continue
            groups = list(m.groups())
            if key == "loss":
                groups = [float(f"{float(groups[0]):.5g}"), int(groups[1])]
            elif key == "final":
                groups = [float(f"{float(groups[0]):.5g}")]
            elif key == "eval_done":
                groups = [int(groups[0]), sorted(p.split(" = ")[0]
                                                 for p in groups[1].split(", "))]
            else:
                groups = [int(g) if g.isdigit() else g for g in groups]
            out.append([key] + groups)
    return out


class Run:
    """Captures the INFO lines of ``logger_name`` and gives a fresh model_dir."""

    def __init__(self, logger_name):
        self.logger_name = logger_name

    def __enter__(self):
        self._capturing = capturing(self.logger_name)
        self.capture = self._capturing.__enter__()
        self.tmp = tempfile.TemporaryDirectory()
        self.model_dir = os.path.join(self.tmp.name, "model")
        return self

    def __exit__(self, *exc):
        self._capturing.__exit__(None, None, None)
        self.tmp.cleanup()

    def take_log(self):
        rows = log_rows(self.capture.lines, self.model_dir)
        self.capture.lines[:] = []
        return rows

    def state(self, tf, with_events=True):
        out = {"files": tree(self.model_dir), "checkpoint": checkpoint_state(self.model_dir)}
        if with_events:
            out["events"] = events(tf, self.model_dir)
        return out


def _number(v):
    v = np.asarray(v)
    return {"type": type(v.item()).__name__ if v.ndim == 0 else "ndarray",
            "dtype": str(v.dtype), "value": np.round(v.astype(np.float64), 5).tolist()}


def eval_result(result):
    return {k: dict(_number(v), pytype=type(v).__name__) for k, v in sorted(result.items())}


def prediction(p):
    if isinstance(p, dict):
        return {k: dict(_number(v), shape=list(np.shape(v))) for k, v in sorted(p.items())}
    return dict(_number(p), shape=list(np.shape(p)))


def variable(est, name):
    """A variable's value from the latest checkpoint (rounded list), or the error."""
    try:
        value = np.asarray(est.get_variable_value(name))
    except ValueError as e:
        return "ValueError: " + str(e).split(":")[0]
    return np.round(value.astype(np.float64), 5).tolist()


# ---------------------------------------------------------------- train scenarios
TRAIN = {
    # name: (RunConfig kwargs, [(kind, value, finite input rows or None)], summaries)
    "ckpt_steps3_sum2_log2": (dict(save_checkpoints_steps=3, save_summary_steps=2,
                                   log_step_count_steps=2), [("steps", 7, None)], True),
    "ckpt_secs_default": (dict(save_summary_steps=3, log_step_count_steps=3),
                          [("steps", 5, None)], False),
    "ckpt_secs_1000": (dict(save_checkpoints_secs=1000, save_summary_steps=0,
                            log_step_count_steps=4), [("steps", 6, None)], False),
    "ckpt_none": (dict(save_checkpoints_steps=None, save_checkpoints_secs=None,
                       save_summary_steps=2, log_step_count_steps=2),
                  [("steps", 5, None)], False),
    "summary0_log0": (dict(save_checkpoints_steps=2, save_summary_steps=0,
                           log_step_count_steps=None), [("steps", 4, None)], False),
    "keep_max2": (dict(save_checkpoints_steps=2, keep_checkpoint_max=2,
                       save_summary_steps=100), [("steps", 9, None)], False),
    "keep_max0": (dict(save_checkpoints_steps=2, keep_checkpoint_max=0,
                       save_summary_steps=100), [("steps", 5, None)], False),
    "max_steps_twice": (dict(save_checkpoints_steps=3, save_summary_steps=2,
                             log_step_count_steps=2),
                        [("max_steps", 5, None), ("max_steps", 5, None),
                         ("max_steps", 8, None)], False),
    "steps_twice": (dict(save_checkpoints_steps=4, save_summary_steps=3,
                         log_step_count_steps=3),
                    [("steps", 5, None), ("steps", 5, None)], True),
    "input_ends_early": (dict(save_checkpoints_steps=2, save_summary_steps=2,
                              log_step_count_steps=2), [("steps", 10, 14)], False),
    "input_ends_max_steps": (dict(save_checkpoints_steps=10, save_summary_steps=1,
                                  log_step_count_steps=1), [("max_steps", 10, 12)], False),
}


def train_scenario(tf, name, logger_name):
    config_kwargs, calls, summaries = TRAIN[name]
    with Run(logger_name) as run:
        config = tf.estimator.RunConfig(tf_random_seed=1, **config_kwargs)
        est = tf.estimator.Estimator(model_fn_factory(tf, summaries), model_dir=run.model_dir,
                                     config=config)
        runs = []
        for kind, value, rows in calls:
            hook = recorder_hook(tf)
            est.train(input_fn_factory(tf, finite=rows is not None, rows=rows or 20),
                      hooks=[hook], **{kind: value})
            runs.append({"hook": hook.calls, "log": run.take_log(),
                         "global_step": variable(est, "global_step"),
                         "w": variable(est, "w"),
                         "latest": os.path.basename(est.latest_checkpoint() or "")})
        out = run.state(tf)
        out["runs"] = runs
    return out


# ---------------------------------------------------------------- evaluate / predict
def evaluate_scenario(tf, logger_name):
    with Run(logger_name) as run:
        config = tf.estimator.RunConfig(tf_random_seed=1, save_summary_steps=5,
                                        save_checkpoints_steps=4)
        est = tf.estimator.Estimator(model_fn_factory(tf, True), model_dir=run.model_dir,
                                     config=config)
        out = {}
        try:
            est.evaluate(input_fn_factory(tf, finite=True), steps=2)
            out["untrained"] = "no error"
        except ValueError as e:
            out["untrained"] = "ValueError: " + re.sub(r"\S*model\S*", "MD", str(e))[:60]
        run.take_log()
        est.train(input_fn_factory(tf), steps=6)
        run.take_log()
        results = {}
        for key, kwargs in [("all", dict(steps=None)), ("steps2", dict(steps=2)),
                            ("named", dict(steps=3, name="foo")),
                            ("ckpt4", dict(steps=None, checkpoint_path=os.path.join(
                                run.model_dir, "model.ckpt-4")))]:
            hook = recorder_hook(tf)
            result = est.evaluate(input_fn_factory(tf, finite=True), hooks=[hook], **kwargs)
            results[key] = {"result": eval_result(result), "hook": hook.calls,
                            "log": run.take_log()}
        out["results"] = results
        out.update(run.state(tf))
    return out


def predict_scenario(tf, logger_name):
    with Run(logger_name) as run:
        config = tf.estimator.RunConfig(tf_random_seed=1, save_summary_steps=5)
        est = tf.estimator.Estimator(model_fn_factory(tf), model_dir=run.model_dir,
                                     config=config)
        est.train(input_fn_factory(tf), steps=8)
        run.take_log()
        out = {}
        for key, kwargs in [("single", {}), ("keys", dict(predict_keys=["pred"])),
                            ("key_str", dict(predict_keys="flat")),
                            ("batches", dict(yield_single_examples=False)),
                            ("batch_keys", dict(yield_single_examples=False,
                                                predict_keys=["cls", "flat"])),
                            ("ckpt", dict(checkpoint_path=est.latest_checkpoint()))]:
            hook = recorder_hook(tf)
            preds = list(est.predict(input_fn_factory(tf, finite=True, batch=6), hooks=[hook],
                                     **kwargs))
            out[key] = {"count": len(preds), "first": prediction(preds[0]),
                        "last": prediction(preds[-1]), "type": type(preds[0]).__name__,
                        "hook": hook.calls, "log": run.take_log()}
        try:
            list(est.predict(input_fn_factory(tf, finite=True), predict_keys=["nope"]))
            out["bad_key"] = "no error"
        except ValueError as e:
            out["bad_key"] = "ValueError"
        out.update(run.state(tf, with_events=False))
    return out


# ---------------------------------------------------------------- train_and_evaluate
def serving_fn_factory(tf):
    def serving_input_receiver_fn():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})
    return serving_input_receiver_fn


TAE = {
    # name: (RunConfig kwargs, max_steps, EvalSpec kwargs, exporters)
    "throttle0_ck3": (dict(save_checkpoints_steps=3), 8, dict(steps=2, throttle_secs=0,
                                                              start_delay_secs=0), []),
    "throttle_big_ck2": (dict(save_checkpoints_steps=2), 7,
                         dict(steps=None, throttle_secs=1000, start_delay_secs=0), []),
    "exporters": (dict(save_checkpoints_steps=4), 8,
                  dict(steps=2, throttle_secs=0, start_delay_secs=5, name="val"),
                  ["latest", "final", "best"]),
}


def tae_scenario(tf, name, logger_name):
    config_kwargs, max_steps, eval_kwargs, exporter_names = TAE[name]
    with Run(logger_name) as run:
        config = tf.estimator.RunConfig(tf_random_seed=1, save_summary_steps=100,
                                        log_step_count_steps=100, **config_kwargs)
        est = tf.estimator.Estimator(model_fn_factory(tf), model_dir=run.model_dir,
                                     config=config)
        serving = serving_fn_factory(tf)
        makers = {"latest": lambda: tf.estimator.LatestExporter("latest", serving,
                                                                exports_to_keep=1),
                  "final": lambda: tf.estimator.FinalExporter("final", serving),
                  "best": lambda: tf.estimator.BestExporter("best", serving,
                                                            exports_to_keep=2)}
        train_hook, eval_hook = recorder_hook(tf), recorder_hook(tf)
        result = tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(input_fn_factory(tf), max_steps=max_steps,
                                        hooks=[train_hook]),
            tf.estimator.EvalSpec(input_fn_factory(tf, finite=True), hooks=[eval_hook],
                                  exporters=[makers[n]() for n in exporter_names],
                                  **eval_kwargs))
        metrics, exports = result if result is not None else (None, None)
        out = {"metrics": None if metrics is None else eval_result(metrics),
               "exports": None if exports is None else [
                   "None" if e is None else ("<ts>" if _TS.match(os.path.basename(
                       e.decode() if isinstance(e, bytes) else e)) else str(e))
                   for e in exports],
               "train_hook": train_hook.calls, "eval_hook": eval_hook.calls,
               "log": run.take_log()}
        out.update(run.state(tf))
    return out


# ---------------------------------------------------------------- warm start
def warm_start_scenario(tf, logger_name):
    with Run(logger_name) as run:
        config = tf.estimator.RunConfig(tf_random_seed=1, save_summary_steps=100)
        src = os.path.join(run.model_dir, "src")
        est = tf.estimator.Estimator(model_fn_factory(tf), model_dir=src, config=config)
        est.train(input_fn_factory(tf), steps=5)
        run.take_log()
        out = {}
        for key, warm in [("dir", src),
                          ("settings_w", tf.estimator.WarmStartSettings(src, "w")),
                          ("settings_all", tf.estimator.WarmStartSettings(src))]:
            dst = os.path.join(run.model_dir, "dst_" + key)
            est2 = tf.estimator.Estimator(model_fn_factory(tf), model_dir=dst, config=config,
                                          warm_start_from=warm)
            hook = recorder_hook(tf)
            est2.train(input_fn_factory(tf), steps=2, hooks=[hook])
            out[key] = {"hook": hook.calls, "global_step": variable(est2, "global_step"),
                        "w": variable(est2, "w"), "b": variable(est2, "b"),
                        "log": [r for r in run.take_log() if r[0] in ("loss", "final")]}
        out["files"] = tree(run.model_dir)
    return out


def all_scenarios():
    """``{name: callable(tf, logger_name)}`` of every scenario of this module."""
    out = {f"train/{n}": (lambda tf, lg, n=n: train_scenario(tf, n, lg)) for n in TRAIN}
    out["evaluate"] = evaluate_scenario
    out["predict"] = predict_scenario
    out.update({f"tae/{n}": (lambda tf, lg, n=n: tae_scenario(tf, n, lg)) for n in TAE})
    out["warm_start"] = warm_start_scenario
    return out


def differences(got, want, path="", out=None):
    """Paths where ``got`` and ``want`` differ (floats to 1e-4 relative)."""
    out = [] if out is None else out
    if isinstance(want, float) or isinstance(got, float):
        if not (isinstance(got, (int, float)) and isinstance(want, (int, float))
                and not isinstance(got, bool)
                and (math.isclose(got, want, rel_tol=1e-4, abs_tol=1e-5)
                     or (math.isnan(got) and math.isnan(want)))):
            out.append(f"{path}: {got!r} != {want!r}")
    elif isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got)):
            if key not in got or key not in want:
                out.append(f"{path}/{key}: {'missing' if key not in got else 'extra'}")
            else:
                differences(got[key], want[key], f"{path}/{key}", out)
    elif isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            out.append(f"{path}: length {len(got)} != {len(want)}: {got!r} != {want!r}")
        else:
            for i, (g, w) in enumerate(zip(got, want)):
                differences(g, w, f"{path}[{i}]", out)
    elif got != want:
        out.append(f"{path}: {got!r} != {want!r}")
    return out

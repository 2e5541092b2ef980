"""User hooks and inputs in Estimator runs, by both frameworks (real TF 2.15 through
``tools/record_estimator_matrix.py hooks``, estimator_npu in ``test_estimator_matrix.py``):
built-in hooks a user passes (``LoggingTensorHook``, ``StopAtStepHook``, a
``CheckpointSaverHook`` or ``SummarySaverHook`` of their own), hooks from the
``EstimatorSpec``, a hook that requests a stop, ``numpy_input_fn`` / tensor-tuple inputs
that end early, and what each run leaves in model_dir and the log."""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matrix_cases as M  # noqa: E402

F32 = np.float32


def _user_log(lines):
    """The user-visible lines of LoggingTensorHook (``w_sum = ..., step_t = ...``)."""
    out = []
    for line in lines:
        if re.match(r"^(gs|w0|step_t) = ", line) or line.startswith("custom:"):
            out.append(re.sub(r"\(\d+\.\d+ sec\)", "(N sec)", line))
    return out


def _model_fn(tf, spec_hooks=None):
    base = M.model_fn_factory(tf)

    def model_fn(features, labels, mode, params):
        spec = base(features, labels, mode, params)
        if spec_hooks is None:
            return spec
        hooks = spec_hooks(tf, mode, spec)
        return spec._replace(**hooks)
    return model_fn


def _spec_hooks(tf, mode, spec):
    # (a variable fetched with the train op is racy in TF: logged are the step and loss)
    gs = tf.train.get_global_step()
    if mode == tf.estimator.ModeKeys.TRAIN:
        return {"training_hooks": [tf.train.LoggingTensorHook({"gs": gs, "w0": spec.loss},
                                                               every_n_iter=2)],
                "training_chief_hooks": [tf.train.StopAtStepHook(last_step=5)]}
    if mode == tf.estimator.ModeKeys.EVAL:
        return {"evaluation_hooks": [tf.train.LoggingTensorHook({"gs": gs}, every_n_iter=1,
                                                                at_end=True)]}
    return {}


def _stop_hook(tf, step):
    """A user's hook that requests a stop once the global step reaches ``step``."""
    class StopAt(tf.train.SessionRunHook):
        def begin(self):
            self._gs = tf.train.get_global_step()
            self.seen = []

        def before_run(self, run_context):
            return tf.train.SessionRunArgs(self._gs)

        def after_run(self, run_context, run_values):
            self.seen.append(int(run_values.results))
            if run_values.results >= step:
                run_context.request_stop()
    return StopAt()


def _summary_hooks(tf, mode, spec):
    if mode != tf.estimator.ModeKeys.TRAIN:
        return {}
    tf.summary.scalar("w0", spec.loss * 2.0)
    return {"training_hooks": [tf.train.SummarySaverHook(
        save_steps=2, output_dir=_USER_DIR[0], summary_op=tf.summary.merge_all())]}


_USER_DIR = [None]


def _numpy_input(tf, rows, batch, epochs, shuffle=False):
    return tf.estimator.inputs.numpy_input_fn({"x": M.X[:rows]}, M.Y[:rows], batch_size=batch,
                                              num_epochs=epochs, shuffle=shuffle)


def _tensor_input(tf):
    def input_fn():
        return {"x": tf.constant(M.X[:8])}, tf.constant(M.Y[:8])
    return input_fn


HOOKS = {
    # name: (RunConfig kwargs, make(tf, model_dir) -> train kwargs, spec hooks)
    "logging_every3_at_end": (
        dict(save_checkpoints_steps=5, log_step_count_steps=4),
        lambda tf, d: dict(steps=7, hooks=[tf.train.LoggingTensorHook(
            {"step_t": "global_step:0"}, every_n_iter=3, at_end=True)]), None),
    "logging_formatter": (
        dict(save_checkpoints_steps=5, log_step_count_steps=100),
        lambda tf, d: dict(steps=4, hooks=[tf.train.LoggingTensorHook(
            ["global_step"], every_n_iter=2,
            formatter=lambda v: "custom: %d" % v["global_step"])]), None),
    "stop_at_step_num_steps": (
        dict(save_checkpoints_steps=3),
        lambda tf, d: dict(steps=10, hooks=[tf.train.StopAtStepHook(num_steps=4)]), None),
    "request_stop_at_3": (
        dict(save_checkpoints_steps=2, save_summary_steps=2),
        lambda tf, d: dict(steps=10, hooks=[_stop_hook(tf, 3)]), None),
    "user_checkpoint_saver": (
        dict(save_checkpoints_steps=3),
        lambda tf, d: dict(steps=7, hooks=[tf.train.CheckpointSaverHook(d, save_steps=2)]),
        None),
    "user_summary_saver": (dict(save_summary_steps=100), lambda tf, d: dict(steps=6),
                           _summary_hooks),
    "spec_hooks": (dict(save_checkpoints_steps=4), lambda tf, d: dict(steps=10),
                   _spec_hooks),
    "numpy_input_one_epoch": (
        dict(save_checkpoints_steps=2, save_summary_steps=1, log_step_count_steps=1),
        lambda tf, d: dict(input_fn=_numpy_input(tf, 10, 4, 1)), None),
    "numpy_input_two_epochs_steps": (
        dict(save_checkpoints_steps=100, log_step_count_steps=2),
        lambda tf, d: dict(input_fn=_numpy_input(tf, 10, 4, 2), steps=20), None),
    "tensor_tuple_input": (
        dict(save_checkpoints_steps=2, log_step_count_steps=2),
        lambda tf, d: dict(input_fn=_tensor_input(tf), max_steps=3), None),
}


def hooks_scenario(tf, name, logger_name):
    config_kwargs, make, spec_hooks = HOOKS[name]
    with M.Run(logger_name) as run:
        _USER_DIR[0] = run.model_dir + "/user"
        config = tf.estimator.RunConfig(tf_random_seed=1, **config_kwargs)
        est = tf.estimator.Estimator(_model_fn(tf, spec_hooks), model_dir=run.model_dir,
                                     config=config)
        recorder = M.recorder_hook(tf)
        kwargs = make(tf, run.model_dir)
        kwargs.setdefault("input_fn", M.input_fn_factory(tf))
        user_hooks = list(kwargs.get("hooks", []))
        kwargs["hooks"] = user_hooks + [recorder]
        est.train(**kwargs)
        lines = list(run.capture.lines)
        out = {"hook": recorder.calls, "log": run.take_log(), "user_log": _user_log(lines),
               "global_step": M.variable(est, "global_step"), "w": M.variable(est, "w")}
        out.update({"stop_hook_seen": h.seen for h in user_hooks if hasattr(h, "seen")})
        if spec_hooks is not None:
            ev = est.evaluate(M.input_fn_factory(tf, finite=True), steps=3)
            lines = list(run.capture.lines)
            out["eval"] = {"result": M.eval_result(ev), "log": run.take_log(),
                           "user_log": _user_log(lines)}
        out.update(run.state(tf))
    return out


# ---------------------------------------------------------------- MonitoredTrainingSession
MTS = {
    # name: ([MonitoredTrainingSession kwargs per run], last_step per run)
    "steps3_sum2_log2": ([dict(save_checkpoint_steps=3, save_summaries_steps=2,
                               log_step_count_steps=2)], [7]),
    "defaults_resume": ([dict(), dict()], [4, 6]),
    "no_checkpoints": ([dict(save_checkpoint_secs=None, save_checkpoint_steps=None,
                             save_summaries_steps=3, log_step_count_steps=3)], [5]),
}


def _mts_graph(tf):
    ds = tf.data.Dataset.from_tensor_slices(({"x": M.X}, M.Y)).repeat().batch(4)
    features, labels = tf.data.make_one_shot_iterator(ds).get_next()
    gs = tf.train.get_or_create_global_step()
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
    tf.summary.scalar("loss", loss)
    train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=gs)
    return loss, train_op


def mts_scenario(tf, name, logger_name):
    runs_kwargs, last_steps = MTS[name]
    with M.Run(logger_name) as run:
        runs = []
        for kwargs, last in zip(runs_kwargs, last_steps):
            with tf.Graph().as_default():
                tf.set_random_seed(1)
                loss, train_op = _mts_graph(tf)
                recorder = M.recorder_hook(tf)
                losses = []
                with tf.train.MonitoredTrainingSession(
                        checkpoint_dir=run.model_dir, hooks=[
                            tf.train.StopAtStepHook(last_step=last), recorder],
                        **kwargs) as sess:
                    while not sess.should_stop():
                        losses.append(float(f"{sess.run([train_op, loss])[1]:.5g}"))
            runs.append({"hook": recorder.calls, "losses": losses, "log": run.take_log()})
        out = run.state(tf)
        out["runs"] = runs
    return out


# ---------------------------------------------------------------- odd corners
def _tensor_predictions_model_fn(tf):
    base = M.model_fn_factory(tf)

    def model_fn(features, labels, mode, params):
        spec = base(features, labels, mode, params)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return spec._replace(predictions=spec.predictions["pred"])
        if mode == tf.estimator.ModeKeys.TRAIN:
            # a user's saver keeping one checkpoint overrides keep_checkpoint_max
            return spec._replace(scaffold=tf.train.Scaffold(
                saver=tf.train.Saver(max_to_keep=1)))
        return spec
    return model_fn


def corners_scenario(tf, logger_name):
    with M.Run(logger_name) as run:
        config = tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=2,
                                        keep_checkpoint_max=5)
        est = tf.estimator.Estimator(_tensor_predictions_model_fn(tf),
                                     model_dir=run.model_dir, config=config)
        est.train(M.input_fn_factory(tf), steps=5)
        out = {"train_log": run.take_log(), "after_train": M.tree(run.model_dir),
               "checkpoint": M.checkpoint_state(run.model_dir)}
        ev = est.evaluate(M.input_fn_factory(tf, finite=True, rows=10), steps=5)
        out["eval_short_input"] = {"result": M.eval_result(ev), "log": run.take_log()}
        preds = list(est.predict(M.input_fn_factory(tf, finite=True, rows=6)))
        out["tensor_predictions"] = {"count": len(preds), "first": M.prediction(preds[0])}
        batches = list(est.predict(M.input_fn_factory(tf, finite=True, rows=6),
                                   yield_single_examples=False))
        out["tensor_batches"] = [M.prediction(b)["shape"] for b in batches]
        try:
            list(est.predict(M.input_fn_factory(tf, finite=True), predict_keys=["pred"]))
            out["keys_on_tensor"] = "no error"
        except ValueError:
            out["keys_on_tensor"] = "ValueError"
        run.take_log()
    return out


def tae_already_trained_scenario(tf, logger_name):
    """train_and_evaluate when max_steps is already reached: what it returns and logs."""
    with M.Run(logger_name) as run:
        config = tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=2)
        est = tf.estimator.Estimator(M.model_fn_factory(tf), model_dir=run.model_dir,
                                     config=config)
        est.train(M.input_fn_factory(tf), max_steps=4)
        run.take_log()
        result = tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(M.input_fn_factory(tf), max_steps=4),
            tf.estimator.EvalSpec(M.input_fn_factory(tf, finite=True), steps=2,
                                  throttle_secs=0))
        metrics, exports = result
        return {"metrics": None if metrics is None else M.eval_result(metrics),
                "exports": exports if exports is None else len(exports),
                "log": run.take_log(), "files": M.tree(run.model_dir)}


def nan_loss_scenario(tf, logger_name):
    """A loss that becomes NaN: NanTensorHook's error, what is left in model_dir."""
    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features["x"], w)
        gs = tf.train.get_global_step()
        # finite for steps 0..2, NaN from step 3 on
        bad = tf.cast(gs >= 3, tf.float32) * np.float32(np.nan)
        loss = tf.reduce_mean(tf.square(pred - labels)) + tf.where(gs >= 3, bad, 0.0)
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=gs)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    with M.Run(logger_name) as run:
        config = tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=2,
                                        log_step_count_steps=1, save_summary_steps=1)
        est = tf.estimator.Estimator(model_fn, model_dir=run.model_dir, config=config)
        hook = M.recorder_hook(tf)
        try:
            est.train(M.input_fn_factory(tf), steps=10, hooks=[hook])
            error = None
        except Exception as e:  # noqa: BLE001 - the class name is the result
            error = type(e).__name__
        lines = [line for line in run.capture.lines if "diverged" in line]
        out = {"error": error, "hook": hook.calls, "log": run.take_log(),
               "diverged": lines}
        out.update(run.state(tf))
    return out


def all_scenarios():
    out = {f"hooks/{n}": (lambda tf, lg, n=n: hooks_scenario(tf, n, lg)) for n in HOOKS}
    out.update({f"mts/{n}": (lambda tf, lg, n=n: mts_scenario(tf, n, lg)) for n in MTS})
    out["corners"] = corners_scenario
    out["tae/already_trained"] = tae_already_trained_scenario
    out["hooks/nan_loss"] = nan_loss_scenario
    return out

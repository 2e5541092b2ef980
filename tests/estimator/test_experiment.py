"""tf.contrib.learn's RunConfig, Experiment and learn_runner.run (estimator/experiment.py,
estimator/learn_run_config.py), as TF 1.x's contrib.learn ran a tf.estimator Estimator
(TF 2.15 has no contrib.learn: the facts come from TF 1.x's sources)."""
import os

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.compat import install, uninstall
from estimator_npu.estimator import experiment as experiment_lib

X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(8, 1)
Y = 3 * X + 1


def _model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
    pred = tf.matmul(features, w)
    loss = tf.reduce_mean(tf.square(pred - labels))
    step = tf.train.get_global_step()
    train_op = tf.train.GradientDescentOptimizer(params.learning_rate).minimize(
        loss, global_step=step)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops={
        "mae": tf.metrics.mean_absolute_error(labels, pred)})


def _input_fn():
    return tf.constant(X), tf.constant(Y)


class _CountEvals(tf.train.SessionRunHook):
    def __init__(self):
        self.evaluations = 0

    def begin(self):
        self.evaluations += 1


def _experiment_fn(counter=None, **kwargs):
    def build(run_config, hparams):
        est = tf.estimator.Estimator(_model_fn, config=run_config, params=hparams)
        return tf.contrib.learn.Experiment(
            est, train_input_fn=_input_fn, eval_input_fn=_input_fn,
            eval_hooks=[counter] if counter else None, **{
                "train_steps": 6, "eval_steps": 2, **kwargs})
    return build


def _run(tmp_path, schedule=None, counter=None, **kwargs):
    config = tf.contrib.learn.RunConfig(model_dir=str(tmp_path / "m"))
    return tf.contrib.learn.learn_runner.run(
        _experiment_fn(counter, **kwargs), schedule=schedule, run_config=config,
        hparams=tf.contrib.training.HParams(learning_rate=0.1))


def test_run_config_has_contrib_learn_defaults():
    config = tf.contrib.learn.RunConfig(model_dir="/tmp/m")
    assert (config.save_checkpoints_secs, config.save_checkpoints_steps) == (600, None)
    assert config.task_type is None
    assert (config.num_worker_replicas, config.num_ps_replicas, config.task_id) == (0, 0, 0)
    assert config.is_chief and config.environment == "local"
    assert (config.master, config.evaluation_master) == ("", "")
    assert config.tf_config.intra_op_parallelism_threads == 0
    steps = tf.contrib.learn.RunConfig(save_checkpoints_steps=5)
    assert (steps.save_checkpoints_secs, steps.save_checkpoints_steps) == (None, 5)
    replaced = config.replace(save_checkpoints_steps=7)
    assert type(replaced) is type(config)
    assert (replaced.save_checkpoints_secs, replaced.save_checkpoints_steps) == (None, 7)
    assert tf.contrib.learn.RunConfig(num_cores=3).tf_config.inter_op_parallelism_threads == 3
    with pytest.raises(ValueError, match="save_checkpoints_steps and save_checkpoints_secs"):
        tf.contrib.learn.RunConfig(save_checkpoints_secs=60, save_checkpoints_steps=5)


def test_uid_leaves_out_the_white_list():
    base = tf.contrib.learn.RunConfig(model_dir="/tmp/a")
    # every white-listed setting may change: same uid
    assert base.uid() == base.replace(save_summary_steps=7, tf_random_seed=3,
                                      keep_checkpoint_max=2).uid()
    assert base.uid() != base.replace(model_dir="/tmp/b").uid()
    assert base.uid() != tf.contrib.learn.RunConfig(model_dir="/tmp/a", num_cores=2).uid()
    assert base.uid(whitelist=[]) != base.replace(save_summary_steps=7).uid(whitelist=[])


def test_module_paths_and_white_list_as_scripts_import_them():
    install()
    try:
        from tensorflow.contrib.learn.python.learn import run_config
        from tensorflow.contrib.learn.python.learn import learn_runner
        import tensorflow
        assert "save_checkpoints_steps" in run_config._DEFAULT_UID_WHITE_LIST
        assert "model_dir" not in run_config._DEFAULT_UID_WHITE_LIST
        assert run_config.RunConfig is tensorflow.contrib.learn.RunConfig
        assert run_config.TaskType.MASTER == "master"
        assert learn_runner.run is tensorflow.contrib.learn.learn_runner.run

        class ScriptRunConfig(tensorflow.contrib.learn.RunConfig):  # the tutorial's subclass
            def uid(self, whitelist=None):
                return repr(sorted(self.__dict__.items()))
        config = ScriptRunConfig(model_dir="/tmp/s", session_config=tf.ConfigProto())
        assert config.model_dir == "/tmp/s" and config.is_chief
        assert config.replace(model_dir="/tmp/t").uid() == config.uid()
    finally:
        uninstall()
    with pytest.raises(AttributeError, match="does not implement tf.contrib.learn"):
        tf.contrib.learn.learn_runner.tune   # noqa: B018


def test_default_schedule_trains_validates_then_evaluates(tmp_path):
    counter = _CountEvals()
    metrics, exports = _run(tmp_path, counter=counter)
    assert exports == []
    assert metrics["global_step"] == 6 and metrics["mae"] < 3
    # the validation hook evaluates the step-0 checkpoint after the first step (the only
    # checkpoint before the end), then the final evaluation: two, both into model_dir/eval
    assert counter.evaluations == 2
    assert sorted(os.listdir(tmp_path / "m" / "eval"))[0].startswith("events.out.tfevents")
    assert not os.path.exists(tmp_path / "m" / "eval_one_pass")


def test_min_eval_frequency_zero_evaluates_only_at_the_end(tmp_path):
    counter = _CountEvals()
    metrics, _ = _run(tmp_path, counter=counter, min_eval_frequency=0)
    assert counter.evaluations == 1 and metrics["global_step"] == 6


def test_local_run_uses_local_eval_frequency(tmp_path):
    counter = _CountEvals()
    _run(tmp_path, schedule="local_run", counter=counter)   # local_eval_frequency None
    assert counter.evaluations == 1


def test_train_and_evaluate_schedules(tmp_path, monkeypatch):
    slept = []
    monkeypatch.setattr(experiment_lib.time, "sleep", slept.append)
    est = _run(tmp_path, schedule="train")
    assert isinstance(est, tf.estimator.Estimator)
    assert not os.path.exists(tmp_path / "m" / "eval")
    metrics = _run(tmp_path, schedule="evaluate")
    assert slept == [120]          # eval_delay_secs' default, as TF
    assert metrics["global_step"] == 6
    assert os.path.isdir(tmp_path / "m" / "eval_one_pass")


def test_continuous_train_and_eval_and_test(tmp_path):
    counter = _CountEvals()
    metrics, _ = _run(tmp_path, schedule="continuous_train_and_eval", counter=counter,
                      train_steps_per_iteration=2)
    assert metrics["global_step"] == 6 and counter.evaluations == 3
    result = _run(tmp_path / "t", schedule="test")
    assert result["global_step"] == 1


def test_continuous_eval_stops_at_train_steps(tmp_path, monkeypatch):
    monkeypatch.setattr(experiment_lib.time, "sleep", lambda s: None)
    _run(tmp_path, schedule="train")
    counter = _CountEvals()
    assert _run(tmp_path, schedule="continuous_eval", counter=counter) is None
    assert counter.evaluations == 1


def test_output_dir_form(tmp_path):
    def build(output_dir):
        est = tf.estimator.Estimator(_model_fn, model_dir=output_dir,
                                     params=tf.contrib.training.HParams(learning_rate=0.1))
        return tf.contrib.learn.Experiment(est, _input_fn, _input_fn, train_steps=2,
                                           eval_steps=1)
    tf.contrib.learn.learn_runner.run(build, output_dir=str(tmp_path), schedule="train")
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-2")


def test_bad_arguments(tmp_path):
    run = tf.contrib.learn.learn_runner.run
    config = tf.contrib.learn.RunConfig(model_dir=str(tmp_path))
    hp = tf.contrib.training.HParams(learning_rate=0.1)
    with pytest.raises(ValueError, match="Cannot provide both"):
        run(_experiment_fn(), output_dir="x", run_config=config)
    with pytest.raises(ValueError, match="Must set value for `output_dir` or `run_config`"):
        run(_experiment_fn())
    with pytest.raises(ValueError, match="must be `tf.contrib.learn.RunConfig`"):
        run(_experiment_fn(), run_config=tf.estimator.RunConfig(model_dir=str(tmp_path)))
    with pytest.raises(ValueError, match="Must specify a model directory"):
        run(_experiment_fn(), run_config=tf.contrib.learn.RunConfig())
    with pytest.raises(ValueError, match="`hparams` must be `HParams`"):
        run(_experiment_fn(), run_config=config, hparams={"learning_rate": 0.1})
    with pytest.raises(TypeError, match="did not return an Experiment"):
        run(lambda run_config, hparams: None, run_config=config, hparams=hp)
    with pytest.raises(ValueError, match="non-existent task bogus"):
        run(_experiment_fn(), schedule="bogus", run_config=config, hparams=hp)
    with pytest.raises(TypeError, match="non-callable member train_steps"):
        run(_experiment_fn(), schedule="train_steps", run_config=config, hparams=hp)

    def other_config(run_config, hparams):
        est = tf.estimator.Estimator(_model_fn, config=run_config.replace(
            model_dir=str(tmp_path / "other")), params=hparams)
        return tf.contrib.learn.Experiment(est, _input_fn, _input_fn)
    with pytest.raises(RuntimeError, match="`RunConfig` instance is expected to be used"):
        run(other_config, run_config=config, hparams=hp)
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path), params=hp)
    with pytest.raises(ValueError, match="`eval_metrics` must be `None`"):
        tf.contrib.learn.Experiment(est, _input_fn, _input_fn, eval_metrics={"a": None})
    with pytest.raises(ValueError, match="`estimator` must be a `tf.estimator.Estimator`"):
        tf.contrib.learn.Experiment(object(), _input_fn, _input_fn)
    with pytest.raises(ValueError, match="train_steps_per_iteration"):
        tf.contrib.learn.Experiment(est, _input_fn, _input_fn, train_steps_per_iteration=2.5)


def test_unimplemented_parts_say_so(tmp_path):
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path),
                                 params=tf.contrib.training.HParams(learning_rate=0.1))
    with pytest.raises(AttributeError, match=r"does not implement tf.contrib.learn.Experiment"
                                             r"\(export_strategies=...\)"):
        tf.contrib.learn.Experiment(est, _input_fn, _input_fn, export_strategies=[object()])
    ex = tf.contrib.learn.Experiment(est, _input_fn, _input_fn, checkpoint_and_export=True)
    with pytest.raises(AttributeError, match="checkpoint_and_export=True"):
        ex.train_and_evaluate()
    with pytest.raises(AttributeError, match="Experiment.run_std_server"):
        ex.run_std_server()

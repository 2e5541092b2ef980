"""Estimator.train end to end on a tiny linear model: argument rules, resume, final
checkpoint, logs, default hooks, model_fn/input_fn contracts, the runner plug."""
import functools
import glob
import logging
import os
import re

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import hooks as H
from estimator_npu.estimator import train_loop

RNG = np.random.default_rng(1234)
X = RNG.normal(size=(32, 3)).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.25).astype(np.float32)


def input_fn():
    return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(8)


def model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    pred = tf.matmul(features, w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": pred})
    loss = tf.reduce_mean(tf.square(pred - labels))
    opt = tf.train.GradientDescentOptimizer(params.get("lr", 0.05))
    train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def make(tmp_path, **config):
    config.setdefault("save_checkpoints_steps", 5)
    return tf.estimator.Estimator(model_fn, str(tmp_path), tf.estimator.RunConfig(**config),
                                  params={"lr": 0.05})


def ckpt_steps(model_dir):
    return sorted(int(p.rsplit("-", 1)[1].split(".")[0])
                  for p in glob.glob(os.path.join(model_dir, "model.ckpt-*.index")))


def messages(caplog):
    return [r.getMessage() for r in caplog.records]


# ------------------------------------------------------------------ steps / max_steps
def test_steps_and_max_steps_rules(tmp_path):
    est = make(tmp_path)
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps"):
        est.train(input_fn, steps=1, max_steps=2)
    for kw in ({"steps": 0}, {"steps": -3}, {"max_steps": 0}, {"max_steps": -1}):
        with pytest.raises(ValueError, match=r"Must specify \w+ > 0, given: -?\d"):
            est.train(input_fn, **kw)
    with pytest.raises(TypeError, match="steps must be a number"):
        est.train(input_fn, steps="2")
    with pytest.raises(TypeError, match="Hooks must be a SessionRunHook"):
        est.train(input_fn, steps=1, hooks=[lambda: None])
    with pytest.raises(TypeError, match="CheckpointSaverListener"):
        est.train(input_fn, steps=1, saving_listeners=[object()])
    assert est.latest_checkpoint() is None  # nothing ran


def test_float_step_counts_round_up_as_tf_stops(tmp_path):
    # TF 2.15 (checked): train(max_steps=3.0) ends at global step 3, then train(steps=2.0)
    # at 5, and TrainSpec takes max_steps=2.0 (scripts compute num_examples / batch_size);
    # TF stops at the first step >= the value, so 2.5 means 3.
    est = make(tmp_path)
    est.train(input_fn, max_steps=3.0)
    assert est.get_variable_value("global_step") == 3
    est.train(input_fn, steps=2.0)
    assert est.get_variable_value("global_step") == 5
    est.train(input_fn, steps=0.5)
    assert est.get_variable_value("global_step") == 6
    assert tf.estimator.TrainSpec(input_fn, max_steps=2.5).max_steps == 3


def test_resume_relative_absolute_and_skip(tmp_path, caplog):
    est = make(tmp_path)
    assert est.train(input_fn, steps=7) is est
    assert int(est.get_variable_value("global_step")) == 7
    w7 = est.get_variable_value("w")
    est.train(input_fn, steps=4)                      # relative: 7 + 4
    assert int(est.get_variable_value("global_step")) == 11
    assert not np.array_equal(w7, est.get_variable_value("w"))
    est.train(input_fn, max_steps=13)                 # absolute
    assert int(est.get_variable_value("global_step")) == 13
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        assert est.train(input_fn, max_steps=13) is est
    assert "Skipping training since max_steps has already saved." in messages(caplog)
    assert "Calling model_fn." not in messages(caplog)
    # as TF: each train() re-saves its restored step (7, 11), then every 5 after it
    assert ckpt_steps(str(tmp_path)) == [0, 5, 7, 11, 13]


def test_no_checkpoint_schedule_and_loss_line(tmp_path, caplog):
    est = make(tmp_path, save_checkpoints_steps=None, save_checkpoints_secs=None,
               log_step_count_steps=1)
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        est.train(input_fn, steps=6)
    assert ckpt_steps(str(tmp_path)) == []    # as TF 2.15: no schedule, no saver at all
    msgs = messages(caplog)
    final = [m for m in msgs if m.startswith("Loss for final step:")]
    assert len(final) == 1 and re.fullmatch(r"Loss for final step: [-+0-9.e]+\.", final[0])
    last_logged = [m for m in msgs if m.startswith("loss = ")][-1]
    assert last_logged.startswith("loss = %s, step = 6" % final[0][len("Loss for final "
                                                                       "step: "):-1])


def test_stops_at_the_end_of_input(tmp_path):
    est = make(tmp_path)

    def finite_input_fn():
        return tf.data.Dataset.from_tensor_slices((X, Y)).batch(8)  # 4 batches

    est.train(finite_input_fn)
    assert ckpt_steps(str(tmp_path)) == [0, 4]
    est.train(finite_input_fn, steps=100)              # input restarts on each train call
    assert int(est.get_variable_value("global_step")) == 8


def test_training_converges(tmp_path):
    est = make(tmp_path)
    est.train(input_fn, steps=400)
    np.testing.assert_allclose(est.get_variable_value("w").ravel(), [1.0, -2.0, 0.5],
                               atol=1e-3)
    np.testing.assert_allclose(est.get_variable_value("b"), [0.25], atol=1e-3)


# ------------------------------------------------------------------ default hooks
def test_default_hooks_log_count_and_write(tmp_path, caplog):
    est = make(tmp_path, log_step_count_steps=4, save_summary_steps=3)
    with caplog.at_level(logging.INFO, logger="estimator_npu"):
        est.train(input_fn, steps=10)
    msgs = messages(caplog)
    steps = [int(re.search(r"step = (\d+)", m).group(1)) for m in msgs
             if m.startswith("loss = ")]
    assert steps == [1, 5, 9]  # TF: its own iterations 0, 4, 8 -> steps 1, 5, 9
    # step counter: baseline at the first step, then rates at 5 and 9 (>= last + 4)
    assert len([m for m in msgs if m.startswith("global_step/sec: ")]) == 2
    events = []
    tf.summary.FileWriterCache.clear()  # close the writers: every event on disk
    for path in glob.glob(os.path.join(str(tmp_path), "events.out.tfevents.*")):
        for event in tf.train.summary_iterator(path):
            events += [(event.step, v.tag) for v in event.summary.value]
    assert sorted(s for s, tag in events if tag == "loss") == [1, 4, 7, 10]
    assert sorted(s for s, tag in events if tag == "global_step/sec") == [5, 9]


def test_user_checkpoint_hook_replaces_the_default_and_listeners(tmp_path):
    saves = []

    class Listener(H.CheckpointSaverListener):
        def after_save(self, session, step):
            saves.append(step)

    est = make(tmp_path)
    est.train(input_fn, steps=6, saving_listeners=[Listener()])
    assert saves == [0, 5, 6]
    other = str(tmp_path / "other")
    os.makedirs(other)
    custom = H.CheckpointSaverHook(other, save_steps=2, listeners=[Listener()])
    saves.clear()
    est.train(input_fn, steps=3, hooks=[custom])
    assert saves == [6, 8, 9]
    assert ckpt_steps(other) == [6, 8, 9]
    with pytest.raises(ValueError, match="saving_listeners.*CheckpointSaverHook"):
        est.train(input_fn, steps=1, hooks=[custom], saving_listeners=[Listener()])


def test_training_hooks_of_the_spec_and_user_hooks_run(tmp_path):
    seen = []

    class Count(H.SessionRunHook):
        def __init__(self, name):
            self.name = name

        def after_run(self, run_context, run_values):
            seen.append((self.name, run_values.global_step))

    def fn(features, labels, mode, params):
        spec = model_fn(features, labels, mode, params)
        return spec._replace(training_hooks=[Count("spec")])

    est = tf.estimator.Estimator(fn, str(tmp_path), params={})
    est.train(input_fn, steps=2, hooks=[Count("user")])
    assert seen == [("user", 1), ("spec", 1), ("user", 2), ("spec", 2)]


def test_nan_loss_fails_after_the_checkpoint_hook_of_its_step(tmp_path):
    def nan_model(features, labels, mode):
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.matmul(features, w)) + tf.constant(np.nan)
        train_op = tf.assign_add(tf.train.get_global_step(), 1)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tf.estimator.Estimator(nan_model, str(tmp_path),
                                 tf.estimator.RunConfig(save_checkpoints_steps=1))
    with pytest.raises(tf.estimator.NanLossDuringTrainingError):
        est.train(input_fn, steps=5)
    # TF's order: the checkpoint hook runs before NanTensorHook, so step 1 is saved
    # (TF 2.15 leaves model.ckpt-0 and model.ckpt-1 too), and no final save follows
    assert ckpt_steps(str(tmp_path)) == [0, 1]


# ------------------------------------------------------------------ model_fn contract
def test_model_fn_argument_checks(tmp_path, caplog):
    def no_features(labels, mode):
        pass

    def extra(features, labels, lr):
        pass

    def no_params(features, labels, mode):
        pass

    with pytest.raises(ValueError, match="must include features argument"):
        tf.estimator.Estimator(no_features, str(tmp_path))
    with pytest.raises(ValueError, match=r"has following not expected args: \['lr'\]"):
        tf.estimator.Estimator(extra, str(tmp_path))
    with pytest.raises(ValueError, match="does not include params argument"):
        tf.estimator.Estimator(no_params, str(tmp_path), params={"a": 1})
    with caplog.at_level(logging.WARNING, logger="estimator_npu"):
        tf.estimator.Estimator(model_fn, str(tmp_path))
    assert "includes params argument, but params are not passed" in caplog.text
    with pytest.raises(TypeError, match="model_fn must be callable"):
        tf.estimator.Estimator(None, str(tmp_path))


def test_model_fn_gets_only_what_it_declares(tmp_path):
    got = {}

    def fn(features, labels, config, mode):
        got.update(config=config, mode=mode)
        return model_fn(features, labels, mode, {})

    cfg = tf.estimator.RunConfig(save_checkpoints_steps=10)
    est = tf.estimator.Estimator(fn, str(tmp_path), cfg)
    est.train(input_fn, steps=1)
    assert got["mode"] == "train" and got["config"].save_checkpoints_steps == 10
    assert got["config"].model_dir == str(tmp_path)

    class Model:
        def fn(self, features, labels, mode, params, scale):
            return model_fn(features, labels, mode, params)

    est = tf.estimator.Estimator(functools.partial(Model().fn, scale=2), str(tmp_path / "p"),
                                 params={"lr": 0.1})
    est.train(input_fn, steps=1)


def test_model_fn_result_and_labels_checked(tmp_path):
    def no_labels(features, mode):
        return None

    est = tf.estimator.Estimator(no_labels, str(tmp_path))
    with pytest.raises(ValueError, match="model_fn does not take labels, but input_fn "
                                         "returns labels"):
        est.train(input_fn, steps=1)
    est = tf.estimator.Estimator(lambda features, labels: {"loss": 1}, str(tmp_path))
    with pytest.raises(ValueError, match="model_fn should return an EstimatorSpec"):
        est.train(input_fn, steps=1)


# ------------------------------------------------------------------ input_fn contract
def test_input_fn_variants(tmp_path):
    got = {}

    def tensors_input_fn(params, mode, config):
        got.update(params=params, mode=mode, config=config)
        return tf.constant(X), tf.constant(Y)

    est = make(tmp_path)
    est.train(tensors_input_fn, steps=3)
    assert got["params"] == {"lr": 0.05} and got["mode"] == "train"
    assert isinstance(got["config"], tf.estimator.RunConfig)
    assert int(est.get_variable_value("global_step")) == 3

    def dict_model(features, labels, mode):
        return model_fn(features["x"], labels, mode, {})

    est = tf.estimator.Estimator(dict_model, str(tmp_path / "d"))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(16), steps=5)
    assert int(est.get_variable_value("global_step")) == 2   # 2 batches, then end of input


def test_input_fn_result_checked(tmp_path):
    est = make(tmp_path)
    with pytest.raises(ValueError, match="len 2 tuple"):
        est.train(lambda: (tf.constant(X), tf.constant(Y), tf.constant(Y)), steps=1)
    with pytest.raises(TypeError, match="input_fn must return tensors"):
        est.train(lambda: (X, Y), steps=1)
    with pytest.raises(TypeError, match="input_fn must be callable"):
        est.train(None, steps=1)


# ------------------------------------------------------------------ construction
def test_model_dir_and_config(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="estimator_npu"):
        est = tf.estimator.Estimator(model_fn, params={})
    assert os.path.isdir(est.model_dir)
    assert f"Using temporary folder as model directory: {est.model_dir}" in caplog.text
    assert est.config.model_dir == est.model_dir
    cfg = tf.estimator.RunConfig(model_dir=str(tmp_path))
    assert tf.estimator.Estimator(model_fn, config=cfg, params={}).model_dir == str(tmp_path)
    with pytest.raises(ValueError, match="model_dir are set both in constructor and "
                                         "RunConfig, but with different values"):
        tf.estimator.Estimator(model_fn, str(tmp_path / "x"), cfg, params={})
    with pytest.raises(ValueError, match="config must be an instance of RunConfig"):
        tf.estimator.Estimator(model_fn, str(tmp_path), config={"a": 1})
    with pytest.raises(ValueError, match="warm_start_from must be"):
        tf.estimator.Estimator(model_fn, str(tmp_path), warm_start_from=3, params={})
    est = tf.estimator.Estimator(model_fn, str(tmp_path / "y"), params={"lr": 1})
    params = est.params
    params["lr"] = 2
    assert est.params == {"lr": 1}


def test_random_seed_makes_initialization_repeatable(tmp_path):
    def random_model(features, labels, mode):
        w = tf.get_variable("w", [3, 1])     # glorot uniform
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
        op = tf.train.GradientDescentOptimizer(0.0).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=op)

    values = []
    for name in ("a", "b"):
        est = tf.estimator.Estimator(random_model, str(tmp_path / name),
                                     tf.estimator.RunConfig(tf_random_seed=7))
        est.train(input_fn, steps=1)
        values.append(est.get_variable_value("w"))
    np.testing.assert_array_equal(values[0], values[1])


def test_variable_access_needs_a_checkpoint(tmp_path):
    est = make(tmp_path)
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        est.get_variable_value("w")
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        est.get_variable_names()
    est.train(input_fn, steps=1)
    assert est.get_variable_names() == ["b", "global_step", "w"]
    assert est.latest_checkpoint() == os.path.join(str(tmp_path), "model.ckpt-1")


# ------------------------------------------------------------------ the runner plug
def test_iterations_per_loop_clamps_the_last_host_call(tmp_path, monkeypatch):
    """The device loop's plug: k steps per host call, the last one clamped."""
    calls = []

    def make_runner(config, train_op):
        def runner(session, fetches, feed_dict, options, iterations):
            calls.append(iterations)
            for _ in range(iterations - 1):
                session.run(train_op, feed_dict)
            return session.run(fetches, feed_dict, options), iterations
        return runner, 4

    monkeypatch.setattr(train_loop, "make_runner", make_runner)
    est = make(tmp_path, save_checkpoints_steps=4)
    est.train(input_fn, steps=10)
    assert calls == [4, 4, 2]
    assert ckpt_steps(str(tmp_path)) == [0, 4, 8, 10]
    calls.clear()
    est.train(input_fn, max_steps=13)
    assert calls == [3]

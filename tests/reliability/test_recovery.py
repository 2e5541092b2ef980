"""Recovery, not restart (issue 17): a damaged latest checkpoint is skipped with a
warning, training resumes from the newest intact one, earlier checkpoints stay intact;
damaged files with none intact stop with an error listing them."""
import hashlib
import logging
import os

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.train import recovery

X = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)


def input_fn():
    return tf.data.Dataset.from_tensors((X, Y)).repeat()


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [3, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    train_op = tf.train.GradientDescentOptimizer(0.05).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class FirstStep(tf.train.SessionRunHook):
    def after_create_session(self, session, coord):
        self.step = int(session.run(tf.train.get_global_step()))


def estimator(model_dir):
    config = tf.estimator.RunConfig(save_checkpoints_steps=5, keep_checkpoint_max=10,
                                    save_summary_steps=0, log_step_count_steps=0)
    return tf.estimator.Estimator(model_fn, str(model_dir), config)


def digests(model_dir, steps):
    out = {}
    for s in steps:
        for f in recovery.checkpoint_files(os.path.join(model_dir, f"model.ckpt-{s}")):
            with open(f, "rb") as fh:
                out[f] = hashlib.sha256(fh.read()).hexdigest()
    return out


@pytest.fixture
def trained(tmp_path):
    model_dir = str(tmp_path / "m")
    estimator(model_dir).train(input_fn, max_steps=20)
    return model_dir


def _flip(path, offset=None):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        i = len(data) // 2 if offset is None else offset
        data[i] ^= 0xFF
        f.seek(0)
        f.write(data)


def _truncate(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


DAMAGES = {
    "missing index": lambda p: os.remove(p + ".index"),
    "missing data": lambda p: os.remove(p + ".data-00000-of-00001"),
    "flipped data byte": lambda p: _flip(p + ".data-00000-of-00001"),
    "flipped index byte": lambda p: _flip(p + ".index"),
    "truncated data": lambda p: _truncate(p + ".data-00000-of-00001"),
    "truncated index": lambda p: _truncate(p + ".index"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_damaged_latest_resumes_from_previous_with_warning(trained, damage, caplog):
    latest = os.path.join(trained, "model.ckpt-20")
    assert tf.train.latest_checkpoint(trained) == latest
    before = digests(trained, [0, 5, 10, 15])
    DAMAGES[damage](latest)
    hook = FirstStep()
    with caplog.at_level(logging.WARNING, logger="estimator_npu"):
        estimator(trained).train(input_fn, max_steps=25, hooks=[hook])
    assert hook.step == 15, "training must continue from the previous checkpoint"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    text = "\n".join(warnings)
    assert "model.ckpt-20" in text and "skipped" in text and "model.ckpt-15" in text, text
    assert digests(trained, [0, 5, 10, 15]) == before      # earlier checkpoints intact
    assert tf.train.latest_checkpoint(trained).endswith("model.ckpt-25")
    assert int(tf.train.load_variable(trained, "global_step")) == 25
    for s in (0, 5, 10, 15, 20, 25):
        recovery.verify_checkpoint(os.path.join(trained, f"model.ckpt-{s}"))


def test_latest_checkpoint_keeps_tf_contract(trained):
    os.remove(os.path.join(trained, "model.ckpt-20.index"))
    assert tf.train.latest_checkpoint(trained) is None        # as TF: the named one is gone
    assert recovery.latest_intact_checkpoint(trained).endswith("model.ckpt-15")


def test_no_intact_checkpoint_stops_with_listing(trained):
    for s in (0, 5, 10, 15, 20):
        _flip(os.path.join(trained, f"model.ckpt-{s}.data-00000-of-00001"))
    with pytest.raises(tf.errors.DataLossError) as info:
        estimator(trained).train(input_fn, max_steps=25)
    msg = str(info.value)
    for s in (0, 5, 10, 15, 20):
        assert f"model.ckpt-{s}" in msg
    assert "No intact checkpoint" in msg and "To proceed" in msg and "step 0" in msg
    # nothing was overwritten: still no intact checkpoint and no step-0 restart
    with pytest.raises(tf.errors.DataLossError):
        recovery.find(trained)


def test_state_file_naming_a_missing_checkpoint_does_not_restart(tmp_path):
    model_dir = tmp_path / "m"
    model_dir.mkdir()
    (model_dir / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-77"\n'
                                          'all_model_checkpoint_paths: "model.ckpt-77"\n')
    with pytest.raises(tf.errors.DataLossError, match="model.ckpt-77"):
        estimator(model_dir).train(input_fn, max_steps=5)
    assert "model.ckpt-77" in (model_dir / "checkpoint").read_text()   # not overwritten


def test_state_file_naming_a_missing_checkpoint_recovers_older(trained, caplog):
    with open(os.path.join(trained, "checkpoint"), "a") as f:
        f.write('model_checkpoint_path: "model.ckpt-77"\n')
    hook = FirstStep()
    with caplog.at_level(logging.WARNING, logger="estimator_npu"):
        estimator(trained).train(input_fn, max_steps=22, hooks=[hook])
    assert hook.step == 20
    assert "model.ckpt-77" in caplog.text


@pytest.mark.parametrize("content", ["", "garbage without colon\n"])
def test_unreadable_state_file_recovers_from_disk(trained, content, caplog):
    with open(os.path.join(trained, "checkpoint"), "w") as f:
        f.write(content)
    hook = FirstStep()
    with caplog.at_level(logging.WARNING, logger="estimator_npu"):
        estimator(trained).train(input_fn, max_steps=22, hooks=[hook])
    assert hook.step == 20
    assert "state file" in caplog.text


def test_empty_state_file_message_says_empty(tmp_path):
    (tmp_path / "checkpoint").write_text("")
    with pytest.raises(ValueError, match="is empty"):
        tf.train.get_checkpoint_state(str(tmp_path))


def test_missing_state_file_with_checkpoints_on_disk_resumes(trained, caplog):
    os.remove(os.path.join(trained, "checkpoint"))
    hook = FirstStep()
    with caplog.at_level(logging.WARNING, logger="estimator_npu"):
        estimator(trained).train(input_fn, max_steps=22, hooks=[hook])
    assert hook.step == 20
    assert "state file is missing" in caplog.text


def test_monitored_training_session_recovers(trained, caplog):
    os.remove(os.path.join(trained, "model.ckpt-20.index"))
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        tf.get_variable("w", [3, 1])
        with caplog.at_level(logging.WARNING, logger="estimator_npu"):
            with tf.train.MonitoredTrainingSession(checkpoint_dir=trained,
                                                   save_checkpoint_secs=None) as sess:
                assert int(sess.run(step)) == 15
    assert "model.ckpt-20" in caplog.text


def test_evaluate_uses_the_newest_intact_checkpoint(trained):
    _flip(os.path.join(trained, "model.ckpt-20.data-00000-of-00001"))

    def eval_model_fn(features, labels, mode):
        return model_fn(features, labels, mode)._replace(train_op=None)
    est = tf.estimator.Estimator(eval_model_fn, trained)
    result = est.evaluate(lambda: tf.data.Dataset.from_tensors((X, Y)), steps=1)
    assert result["global_step"] == 15


def _count_verifications(monkeypatch):
    calls = []
    original = recovery.verify_checkpoint

    def counting(prefix):
        calls.append(os.path.basename(prefix))
        return original(prefix)
    monkeypatch.setattr(recovery, "verify_checkpoint", counting)
    return calls


def test_resuming_reads_the_restored_checkpoint_once(trained, monkeypatch):
    """The restore is the check: no separate verification pass over an intact latest."""
    calls = _count_verifications(monkeypatch)
    hook = FirstStep()
    estimator(trained).train(input_fn, max_steps=22, hooks=[hook])
    assert hook.step == 20 and calls == []


@pytest.mark.parametrize("damage", ["flipped data byte", "truncated data", "missing data"])
def test_damaged_latest_found_by_the_restore_is_verified_then_skipped(trained, damage,
                                                                     monkeypatch, caplog):
    DAMAGES[damage](os.path.join(trained, "model.ckpt-20"))
    calls = _count_verifications(monkeypatch)
    hook = FirstStep()
    with caplog.at_level(logging.WARNING, logger="estimator_npu"):
        estimator(trained).train(input_fn, max_steps=22, hooks=[hook])
    assert hook.step == 15
    assert "model.ckpt-20" in caplog.text and "skipped" in caplog.text
    # the look-ahead reads indexes only; a truncated or missing data file fails it there
    assert calls in ([], ["model.ckpt-20"])


def _eval_estimator(model_dir):
    def eval_model_fn(features, labels, mode):
        y = tf.matmul(features, tf.get_variable("w", [3, 1]))
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"y": y})
        return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_mean(tf.square(y - labels)))
    return tf.estimator.Estimator(eval_model_fn, model_dir)


@pytest.mark.parametrize("damage", [None, "flipped data byte", "truncated data"])
def test_evaluate_and_predict_read_the_checkpoint_once(trained, damage, monkeypatch,
                                                       caplog):
    """No verification pass before the restore: the restore of the newest checkpoint is
    its check; a damaged one found by the restore is verified, skipped with a warning,
    and the newest intact one is evaluated (and named in the eval summary)."""
    if damage:
        DAMAGES[damage](os.path.join(trained, "model.ckpt-20"))
    calls = _count_verifications(monkeypatch)
    reads = []
    original = tf.train.Saver.restore

    def counting(self, sess, path):
        reads.append(os.path.basename(path))
        return original(self, sess, path)
    monkeypatch.setattr(tf.train.Saver, "restore", counting)
    est = _eval_estimator(trained)
    with caplog.at_level(logging.WARNING, logger="estimator_npu"):
        result = est.evaluate(lambda: tf.data.Dataset.from_tensors((X, Y)), steps=1)
        preds = list(est.predict(lambda: tf.data.Dataset.from_tensors(X)))
    want = 15 if damage else 20
    assert result["global_step"] == want
    w = tf.train.load_variable(os.path.join(trained, f"model.ckpt-{want}"), "w")
    np.testing.assert_allclose([p["y"] for p in preds], X @ w, rtol=1e-6)
    if damage is None:
        assert calls == [] and reads == ["model.ckpt-20"] * 2
    else:
        assert "model.ckpt-20" in caplog.text and "skipped" in caplog.text
        assert reads.count("model.ckpt-15") == 2
        assert set(calls) <= {"model.ckpt-20"}
    events = os.path.join(trained, "eval")
    assert os.path.isdir(events)


def test_max_steps_reached_by_a_damaged_latest_still_trains_from_the_intact_one(trained):
    _flip(os.path.join(trained, "model.ckpt-20.data-00000-of-00001"))
    hook = FirstStep()
    estimator(trained).train(input_fn, max_steps=20, hooks=[hook])
    assert hook.step == 15
    assert int(tf.train.load_variable(trained, "global_step")) == 20
    recovery.verify_checkpoint(os.path.join(trained, "model.ckpt-20"))


def test_a_graph_that_does_not_match_an_intact_checkpoint_raises_its_own_error(trained):
    def other_model_fn(features, labels, mode):
        tf.get_variable("not_in_the_checkpoint", [2])
        return model_fn(features, labels, mode)
    with pytest.raises(tf.errors.NotFoundError, match="not_in_the_checkpoint"):
        tf.estimator.Estimator(other_model_fn, trained, estimator(trained).config).train(
            input_fn, max_steps=25)
    assert tf.train.latest_checkpoint(trained).endswith("model.ckpt-20")  # nothing skipped


def test_restore_newest_changes_nothing_on_a_damaged_candidate(trained):
    _flip(os.path.join(trained, "model.ckpt-20.data-00000-of-00001"))
    tried = []

    def restore(prefix):
        tried.append(os.path.basename(prefix))
        tf.train.NewCheckpointReader(prefix).read_all()
    found = recovery.restore_newest(trained, restore, warn=False)
    assert found.path.endswith("model.ckpt-15") and tried == ["model.ckpt-20", "model.ckpt-15"]
    assert [os.path.basename(p) for p, _ in found.skipped] == ["model.ckpt-20"]
    assert "crc32c" in found.skipped[0][1]


@pytest.mark.parametrize("damage,error", [("missing index", tf.errors.NotFoundError),
                                          ("missing data", tf.errors.NotFoundError),
                                          ("truncated data", tf.errors.DataLossError),
                                          ("flipped index byte", tf.errors.DataLossError),
                                          ("truncated index", tf.errors.DataLossError)])
def test_quick_check_catches_what_it_can_without_reading_tensors(trained, damage, error):
    prefix = os.path.join(trained, "model.ckpt-20")
    recovery.quick_check(prefix)
    DAMAGES[damage](prefix)
    with pytest.raises(error, match="model.ckpt-20"):
        recovery.quick_check(prefix)

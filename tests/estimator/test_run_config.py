"""RunConfig: TF 1.15 defaults, mutual exclusions, validation, frozen, replace()."""
import attr
import pytest

import estimator_npu as tf
from estimator_npu.estimator import RunConfig


def test_tf115_defaults():
    c = RunConfig()
    assert (c.model_dir, c.tf_random_seed, c.save_summary_steps, c.save_checkpoints_steps,
            c.save_checkpoints_secs, c.session_config, c.keep_checkpoint_max,
            c.keep_checkpoint_every_n_hours, c.log_step_count_steps) == (
        None, None, 100, None, 600, None, 5, 10000, 100)
    assert c.is_chief and c.num_worker_replicas == 1 and c.task_id == 0


def test_checkpoint_interval_exclusions():
    assert RunConfig(save_checkpoints_steps=50).save_checkpoints_secs is None
    assert RunConfig(save_checkpoints_secs=30).save_checkpoints_steps is None
    c = RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None)
    assert (c.save_checkpoints_steps, c.save_checkpoints_secs) == (None, None)
    with pytest.raises(ValueError, match="save_checkpoints_steps and save_checkpoints_secs "
                                         "cannot be both set.*=10.*=20"):
        RunConfig(save_checkpoints_steps=10, save_checkpoints_secs=20)


def test_replace_keeps_exactly_one_interval():
    c = RunConfig(model_dir="/tmp/a")
    d = c.replace(save_checkpoints_steps=7)
    assert (d.save_checkpoints_steps, d.save_checkpoints_secs, d.model_dir) == (7, None,
                                                                                 "/tmp/a")
    e = d.replace(save_checkpoints_secs=9)
    assert (e.save_checkpoints_steps, e.save_checkpoints_secs) == (None, 9)
    assert c.save_checkpoints_secs == 600  # the original is unchanged
    with pytest.raises(ValueError, match="cannot be both set"):
        c.replace(save_checkpoints_steps=1, save_checkpoints_secs=1)
    with pytest.raises(ValueError, match="unknown RunConfig argument.*bogus"):
        c.replace(bogus=1)


def test_frozen():
    c = RunConfig()
    with pytest.raises(attr.exceptions.FrozenInstanceError):
        c.save_summary_steps = 3


@pytest.mark.parametrize("kwargs,err,match", [
    ({"model_dir": ""}, ValueError, "model_dir"),
    ({"model_dir": 3}, TypeError, "model_dir"),
    ({"save_summary_steps": -1}, ValueError, "save_summary_steps.*-1"),
    ({"save_summary_steps": 1.5}, TypeError, "save_summary_steps"),
    ({"save_checkpoints_steps": -5}, ValueError, "save_checkpoints_steps"),
    ({"save_checkpoints_secs": -1}, ValueError, "save_checkpoints_secs"),
    ({"keep_checkpoint_max": -1}, ValueError, "keep_checkpoint_max"),
    ({"keep_checkpoint_every_n_hours": 0}, ValueError, "keep_checkpoint_every_n_hours"),
    ({"log_step_count_steps": True}, TypeError, "log_step_count_steps"),
    ({"tf_random_seed": "1"}, TypeError, "tf_random_seed"),
    ({"session_config": {}}, TypeError, "session_config must be a ConfigProto"),
    ({"device_fn": 3}, TypeError, "device_fn"),
    ({"num_workers": 2, "worker_index": 2}, ValueError, "worker_index"),
])
def test_validation_names_the_argument(kwargs, err, match):
    with pytest.raises(err, match=match):
        RunConfig(**kwargs)


def test_accepts_session_config_and_paths(tmp_path):
    c = RunConfig(model_dir=tmp_path, session_config=tf.ConfigProto(), tf_random_seed=3)
    assert c.model_dir == str(tmp_path) and c.tf_random_seed == 3


def test_distributed_fields_are_explicit():
    c = RunConfig(num_workers=4, worker_index=2)
    assert not c.is_chief and c.num_worker_replicas == 4 and c.global_id_in_cluster == 2

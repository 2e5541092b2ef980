"""tf.DeviceSpec, nested tf.device scopes and tf.train.replica_device_setter give TF 2.15's
device strings (tests/train/device_setter_tf215.json, tools/record_tf_device_setter.py)."""
import json
import pathlib

import pytest

import estimator_npu as tf
from estimator_npu.contrib import training
from tests.train import device_setter_cases

GOLDEN = json.loads((pathlib.Path(__file__).parent / "device_setter_tf215.json").read_text())


def test_device_strings_equal_tf():
    assert device_setter_cases.run(tf) == GOLDEN


def test_sharded_save_writes_one_data_file_per_parameter_server(tmp_path):
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            vs = [tf.get_variable(f"v{i}", [2], initializer=tf.ones_initializer())
                  for i in range(3)]
        saver = tf.train.Saver(sharded=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "model.ckpt"))
    assert [v.device for v in vs] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"]
    data = sorted(p.name for p in tmp_path.iterdir() if ".data-" in p.name)
    assert len(data) == 2 and all(n.endswith("-of-00002") for n in data), data
    assert sorted(n for n, _ in tf.train.list_variables(prefix)) == ["v0", "v1", "v2"]


def test_greedy_strategy_balances_bytes():
    strategy = training.GreedyLoadBalancingStrategy(2, training.byte_size_load_fn)
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
            big = tf.get_variable("big", [100])
            small = [tf.get_variable(f"s{i}", [10]) for i in range(3)]
    assert big.device == "/job:ps/task:0"
    assert [v.device for v in small] == ["/job:ps/task:1"] * 3  # 120 bytes < 400 bytes


@pytest.mark.parametrize("bad", ["/job:ps/bogus:1", "/device:CPU:x", "/task:x"])
def test_bad_device_strings_name_the_part(bad):
    with pytest.raises(ValueError, match="DeviceSpec.*" + bad.split("/")[-1].split(":")[0]):
        tf.DeviceSpec.from_string(bad)


def test_replica_device_setter_argument_errors():
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        tf.train.replica_device_setter(ps_tasks=2, ps_strategy=3)
    with pytest.raises(ValueError, match="merge_devices"):
        tf.train.replica_device_setter(ps_tasks=2, merge_devices=False)
    with pytest.raises(TypeError, match="unknown fields"):
        tf.DeviceSpec().replace(host="x")

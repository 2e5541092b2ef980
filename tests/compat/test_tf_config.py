"""``tf.config`` on the host CPU, with the values TF 2.15 gives on a CPU-only machine
(printed by ``tf.config.list_physical_devices()`` & co. there): tensorflow/models'
official r1 scripts ask ``tf.config.list_physical_devices('GPU')`` to choose a data format."""
import pytest

import estimator_npu as tf


def test_devices_are_the_host_cpu():
    cpu = tf.config.list_physical_devices()
    assert repr(cpu) == "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]"
    assert tf.config.list_physical_devices("GPU") == []
    assert tf.config.experimental.list_physical_devices("cpu") == cpu
    assert repr(tf.config.list_logical_devices()) == \
        "[LogicalDevice(name='/device:CPU:0', device_type='CPU')]"
    assert tf.config.get_visible_devices() == cpu
    tf.config.set_visible_devices(cpu)
    tf.config.experimental.set_visible_devices([], "GPU")
    with pytest.raises(ValueError, match="CPU cannot be hidden"):
        tf.config.set_visible_devices([])
    with pytest.raises(ValueError, match="unrecognized device"):
        tf.config.set_visible_devices([tf.config.PhysicalDevice("/physical_device:GPU:0",
                                                                "GPU")])
    with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU"):
        tf.config.experimental.set_memory_growth(cpu[0], True)


def test_threading_and_soft_placement_settings_read_back():
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    assert tf.config.get_soft_device_placement() is True
    try:
        tf.config.threading.set_inter_op_parallelism_threads(3)
        tf.config.set_soft_device_placement(False)
        assert tf.config.threading.get_inter_op_parallelism_threads() == 3
        assert tf.config.get_soft_device_placement() is False
        with pytest.raises(ValueError, match="must be >= 0"):
            tf.config.threading.set_intra_op_parallelism_threads(-1)
    finally:
        tf.config.threading.set_inter_op_parallelism_threads(0)
        tf.config.set_soft_device_placement(True)


def test_missing_names_say_so():
    with pytest.raises(AttributeError, match="does not implement tf.config.experimental.xla"):
        tf.config.experimental.xla  # noqa: B018
    with pytest.raises(AttributeError, match="does not implement tf.config.optimizer"):
        tf.config.optimizer  # noqa: B018

"""Tests for estimator_npu.engine.config_pb and the core.protobuf import-path shims."""

import copy
import pickle

import numpy as np
import pytest

from estimator_npu.core.protobuf import config_pb2
from estimator_npu.core.protobuf import rewriter_config_pb2
from estimator_npu.core.protobuf.rewriter_config_pb2 import RewriterConfig
from estimator_npu.engine import config_pb


def _seed_config():
    # Verbatim from the seed script (000), with tf.ConfigProto spelled via config_pb2.
    config = config_pb2.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["use_off_line"].b = True
    custom_op.parameter_map["mix_compile_mode"].b = False
    custom_op.parameter_map["iterations_per_loop"].i = 10
    config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
    return config


def test_shims_reexport_the_same_classes():
    assert rewriter_config_pb2.RewriterConfig is config_pb.RewriterConfig
    for name in ("ConfigProto", "GPUOptions", "GraphOptions", "OptimizerOptions",
                 "RunOptions", "RunMetadata"):
        assert getattr(config_pb2, name) is getattr(config_pb, name), name


def test_seed_script_and_npu_settings():
    config = _seed_config()
    rewrite = config.graph_options.rewrite_options
    assert rewrite.remapping == 2
    assert len(rewrite.custom_optimizers) == 1
    entry = rewrite.custom_optimizers[0]
    assert config_pb.find_custom_optimizer(config) is entry
    assert isinstance(entry, config_pb.CustomOptimizer)
    assert entry.parameter_map["iterations_per_loop"].i == 10
    assert config_pb.npu_settings(config) == {
        "use_off_line": True, "mix_compile_mode": False, "iterations_per_loop": 10}
    types = {k: type(v) for k, v in config_pb.npu_settings(config).items()}
    assert types == {"use_off_line": bool, "mix_compile_mode": bool,
                     "iterations_per_loop": int}


def test_npu_settings_value_kinds_and_absent_entry():
    config = config_pb.ConfigProto()
    assert config_pb.npu_settings(config) == {}
    assert config_pb.npu_settings(None) == {}
    assert config_pb.find_custom_optimizer(None) is None
    other = config.graph_options.rewrite_options.custom_optimizers.add(name="Other")
    other.parameter_map["x"].i = 1
    assert config_pb.find_custom_optimizer(config) is None
    entry = config.graph_options.rewrite_options.custom_optimizers.add(name="NpuOptimizer")
    entry.parameter_map["precision_mode"].s = b"allow_mix_precision"
    entry.parameter_map["loss_scale"].f = 0.5
    entry.parameter_map["untouched"]  # pylint: disable=pointless-statement
    entry.parameter_map["dims"].list.i.extend([1, 2])
    assert config_pb.npu_settings(config) == {
        "precision_mode": "allow_mix_precision", "loss_scale": 0.5, "dims": [1, 2]}
    assert config_pb.find_custom_optimizer(config, "Other") is other
    with pytest.raises(TypeError, match="config must be a ConfigProto or None, got dict"):
        config_pb.npu_settings({})


def test_set_npu_settings_round_trip():
    config = config_pb.ConfigProto()
    entry = config_pb.set_npu_settings(config, {
        "iterations_per_loop": np.int64(5), "enable_data_pre_proc": True,
        "precision_mode": "force_fp32", "ratio": 0.25})
    assert entry.name == "NpuOptimizer"
    assert entry.parameter_map["enable_data_pre_proc"].WhichOneof("value") == "b"
    assert entry.parameter_map["iterations_per_loop"].WhichOneof("value") == "i"
    assert config_pb.npu_settings(config) == {
        "iterations_per_loop": 5, "enable_data_pre_proc": True,
        "precision_mode": "force_fp32", "ratio": 0.25}
    assert config_pb.set_npu_settings(config, {"iterations_per_loop": 7}) is entry
    assert len(config.graph_options.rewrite_options.custom_optimizers) == 1
    with pytest.raises(TypeError, match=r"settings\['bad'\] must be a bool, int, float or str"):
        config_pb.set_npu_settings(config, {"bad": [1]})
    with pytest.raises(TypeError, match="config must be a ConfigProto, got NoneType"):
        config_pb.set_npu_settings(None, {})


def test_defaults():
    config = config_pb.ConfigProto()
    assert config.allow_soft_placement is False
    assert config.log_device_placement is False
    assert config.inter_op_parallelism_threads == 0
    assert config.intra_op_parallelism_threads == 0
    assert config.gpu_options.allow_growth is False
    assert config.gpu_options.per_process_gpu_memory_fraction == 0.0
    rewrite = config.graph_options.rewrite_options
    assert rewrite.remapping == RewriterConfig.DEFAULT == 0
    assert rewrite.memory_optimization == RewriterConfig.DEFAULT_MEM_OPT == 0
    assert len(rewrite.custom_optimizers) == 0 and list(rewrite.optimizers) == []
    assert dict(config.device_count) == {}
    assert repr(config) == "ConfigProto()"


def test_constants():
    assert (RewriterConfig.DEFAULT, RewriterConfig.ON, RewriterConfig.OFF,
            RewriterConfig.AGGRESSIVE) == (0, 1, 2, 3)
    assert (RewriterConfig.NO_MEM_OPT, RewriterConfig.MANUAL, RewriterConfig.HEURISTICS,
            RewriterConfig.SWAPPING_HEURISTICS, RewriterConfig.RECOMPUTATION_HEURISTICS,
            RewriterConfig.SCHEDULING_HEURISTICS) == (1, 2, 3, 4, 5, 6)
    assert RewriterConfig.CustomGraphOptimizer is config_pb.CustomGraphOptimizer
    assert config_pb2.RunOptions.FULL_TRACE == 3 and config_pb2.RunOptions.NO_TRACE == 0
    assert config_pb2.OptimizerOptions.L0 == -1 and config_pb2.OptimizerOptions.ON_1 == 1
    assert config_pb.AttrValue.ListValue is config_pb.ListValue


def test_constructor_kwargs():
    config = config_pb.ConfigProto(
        allow_soft_placement=True, inter_op_parallelism_threads=2,
        intra_op_parallelism_threads=np.int32(4), device_count={"GPU": 0, "CPU": 1},
        gpu_options=config_pb.GPUOptions(allow_growth=True,
                                         per_process_gpu_memory_fraction=0.5),
        graph_options={"rewrite_options": {"remapping": RewriterConfig.OFF}},
        device_filters=["/job:worker"])
    assert config.allow_soft_placement is True
    assert type(config.intra_op_parallelism_threads) is int
    assert config.device_count["GPU"] == 0 and config.device_count["CPU"] == 1
    assert config.gpu_options.allow_growth and config.gpu_options.per_process_gpu_memory_fraction
    assert config.graph_options.rewrite_options.remapping == 2
    assert config.device_filters == ["/job:worker"]


def test_constructor_copies_message_arguments():
    gpu = config_pb.GPUOptions(allow_growth=True)
    config = config_pb.ConfigProto(gpu_options=gpu)
    gpu.allow_growth = False
    assert config.gpu_options.allow_growth is True


def test_unknown_fields():
    with pytest.raises(TypeError, match="ConfigProto got an unexpected field 'allow_soft'"):
        config_pb.ConfigProto(allow_soft=True)
    with pytest.raises(TypeError, match="GPUOptions got an unexpected field 'grow'"):
        config_pb.ConfigProto(gpu_options={"grow": True})
    config = config_pb.ConfigProto()
    with pytest.raises(AttributeError, match="RewriterConfig has no field 'remaping'"):
        config.graph_options.rewrite_options.remaping = RewriterConfig.OFF
    with pytest.raises(AttributeError):
        config.not_a_field  # pylint: disable=pointless-statement


def test_type_checked_assignment():
    config = config_pb.ConfigProto()
    with pytest.raises(TypeError, match=r"ConfigProto.inter_op_parallelism_threads must be an "
                                        r"int, got float: 2.5"):
        config.inter_op_parallelism_threads = 2.5
    with pytest.raises(TypeError, match="ConfigProto.allow_soft_placement must be a bool"):
        config.allow_soft_placement = "yes"
    with pytest.raises(TypeError, match="GPUOptions.per_process_gpu_memory_fraction"):
        config.gpu_options.per_process_gpu_memory_fraction = "0.5"
    with pytest.raises(ValueError, match="must fit in int64"):
        config.operation_timeout_in_ms = 2 ** 63
    with pytest.raises(TypeError, match="element of ConfigProto.device_filters must be a str"):
        config.device_filters.append(3)
    with pytest.raises(TypeError, match=r"ConfigProto.device_count\['GPU'\] must be an int"):
        config.device_count["GPU"] = "0"
    config.gpu_options.per_process_gpu_memory_fraction = 1
    assert type(config.gpu_options.per_process_gpu_memory_fraction) is float


def test_composite_fields_cannot_be_assigned():
    config = config_pb.ConfigProto()
    for field, value in (("gpu_options", config_pb.GPUOptions()), ("device_filters", []),
                         ("device_count", {})):
        with pytest.raises(AttributeError, match="Assignment not allowed to composite field "
                                                 "'%s'" % field):
            setattr(config, field, value)
    with pytest.raises(AttributeError, match="composite field 'list'"):
        config_pb.AttrValue().list = config_pb.ListValue()


def test_attr_value_oneof():
    attr = config_pb.AttrValue()
    assert attr.WhichOneof("value") is None
    assert (attr.b, attr.i, attr.f, attr.s, attr.type) == (False, 0, 0.0, b"", 0)
    attr.i = 3
    assert attr.WhichOneof("value") == "i" and attr.i == 3
    attr.b = True
    assert attr.WhichOneof("value") == "b"
    assert attr.i == 0 and attr.b is True  # setting one member clears the others
    attr.s = "allow_mix_precision"
    assert attr.s == b"allow_mix_precision" and attr.b is False
    attr.f = 2
    assert attr.WhichOneof("value") == "f" and attr.f == 2.0 and type(attr.f) is float
    assert attr.HasField("f") and attr.HasField("value") and not attr.HasField("s")
    with pytest.raises(ValueError, match="no oneof 'kind'"):
        attr.WhichOneof("kind")
    with pytest.raises(TypeError, match="AttrValue.i must be an int, got float: 1.5"):
        attr.i = 1.5
    with pytest.raises(TypeError, match="AttrValue.s must be bytes"):
        attr.s = 5
    with pytest.raises(AttributeError, match="AttrValue has no field 'x'"):
        attr.x = 1


def test_attr_value_list_member():
    attr = config_pb.AttrValue(i=4)
    lst = attr.list
    assert attr.WhichOneof("value") == "i"  # reading .list alone selects nothing
    lst.i.extend([1, 2])
    assert attr.WhichOneof("value") == "list" and attr.i == 0
    assert list(attr.list.i) == [1, 2]
    attr.b = True
    assert attr.WhichOneof("value") == "b" and list(attr.list.i) == []
    other = config_pb.AttrValue()
    other.list.s.append("a")
    assert other.list.s == [b"a"]
    assert config_pb.AttrValue(list={"f": [1.5]}).WhichOneof("value") == "list"
    assert config_pb.AttrValue(list=config_pb.ListValue()).WhichOneof("value") == "list"
    with pytest.raises(TypeError, match="at most one of"):
        config_pb.AttrValue(b=True, i=1)


def test_custom_optimizers_repeated_field():
    rewrite = config_pb.RewriterConfig()
    first = rewrite.custom_optimizers.add(name="A")
    second = rewrite.custom_optimizers.add()
    second.name = "B"
    rewrite.custom_optimizers.append(config_pb.CustomGraphOptimizer(name="C"))
    rewrite.custom_optimizers.extend([{"name": "D"}])
    assert len(rewrite.custom_optimizers) == 4
    assert [c.name for c in rewrite.custom_optimizers] == ["A", "B", "C", "D"]
    assert rewrite.custom_optimizers[0] is first and rewrite.custom_optimizers[-1].name == "D"
    assert [c.name for c in rewrite.custom_optimizers[1:3]] == ["B", "C"]
    del rewrite.custom_optimizers[0]
    assert rewrite.custom_optimizers[0] is second
    with pytest.raises(TypeError, match="must be a CustomGraphOptimizer or a dict"):
        rewrite.custom_optimizers.append("E")
    with pytest.raises(TypeError, match="RewriterConfig.custom_optimizers does not support item "
                                        "assignment"):
        rewrite.custom_optimizers[0] = config_pb.CustomGraphOptimizer()


def test_parameter_map():
    entry = config_pb.CustomGraphOptimizer()
    params = entry.parameter_map
    assert "a" not in params and params.get("a") is None and len(params) == 0
    created = params["a"]
    assert "a" in params and params["a"] is created and len(params) == 1
    assert isinstance(created, config_pb.AttrValue)
    with pytest.raises(ValueError, match="May not set values directly"):
        params["b"] = config_pb.AttrValue(b=True)
    with pytest.raises(TypeError, match="key of CustomGraphOptimizer.parameter_map must be a str"):
        params[1]  # pylint: disable=pointless-statement
    params["b"].CopyFrom(config_pb.AttrValue(i=2))
    assert sorted(params) == ["a", "b"] and params["b"].i == 2
    del params["a"]
    assert list(params) == ["b"]


def test_deepcopy_copy_and_copyfrom_are_independent():
    config = _seed_config()
    for clone in (copy.deepcopy(config), config.copy(), pickle.loads(pickle.dumps(config))):
        assert clone == config and clone is not config
        params = clone.graph_options.rewrite_options.custom_optimizers[0].parameter_map
        params["iterations_per_loop"].i = 1
        params["new"].b = True
        assert clone != config
        assert config_pb.npu_settings(config)["iterations_per_loop"] == 10
        assert "new" not in config_pb.npu_settings(config)
    target = config_pb.ConfigProto(allow_soft_placement=True)
    graph_options = target.graph_options
    target.CopyFrom(config)
    assert target == config and target.allow_soft_placement is False
    assert target.graph_options is not config.graph_options
    target.graph_options.rewrite_options.remapping = RewriterConfig.ON
    assert config.graph_options.rewrite_options.remapping == RewriterConfig.OFF
    del graph_options
    with pytest.raises(TypeError, match="CopyFrom of a ConfigProto needs a ConfigProto, got "
                                        "GPUOptions"):
        target.CopyFrom(config_pb.GPUOptions())


def test_copied_attr_value_keeps_its_oneof():
    attr = config_pb.AttrValue()
    attr.list.i.append(1)
    attr_copy = copy.deepcopy(attr)
    assert attr_copy.WhichOneof("value") == "list"
    attr_copy.b = True
    assert attr_copy.WhichOneof("value") == "b" and attr.WhichOneof("value") == "list"
    scalar = config_pb.AttrValue(i=5)
    target = config_pb.AttrValue()
    target.list.i.append(9)
    target.CopyFrom(scalar)
    assert target.WhichOneof("value") == "i" and target.i == 5


def test_merge_from_and_clear():
    base = config_pb.ConfigProto(allow_soft_placement=True, device_count={"CPU": 1})
    base.graph_options.rewrite_options.custom_optimizers.add(name="A")
    extra = config_pb.ConfigProto(inter_op_parallelism_threads=3, device_count={"GPU": 0})
    extra.graph_options.rewrite_options.custom_optimizers.add(name="B")
    extra.gpu_options.allow_growth = True
    base.MergeFrom(extra)
    assert base.allow_soft_placement is True and base.inter_op_parallelism_threads == 3
    assert dict(base.device_count) == {"CPU": 1, "GPU": 0}
    assert [c.name for c in base.graph_options.rewrite_options.custom_optimizers] == ["A", "B"]
    assert base.gpu_options.allow_growth is True
    gpu = base.gpu_options
    base.Clear()
    assert base == config_pb.ConfigProto()
    assert base.gpu_options.allow_growth is False
    del gpu


def test_messages_are_unhashable_and_compare_by_value():
    assert config_pb.GPUOptions(allow_growth=True) == config_pb.GPUOptions(allow_growth=True)
    assert config_pb.GPUOptions(allow_growth=True) != config_pb.GPUOptions()
    assert config_pb.GPUOptions() != config_pb.GraphOptions()
    with pytest.raises(TypeError):
        hash(config_pb.ConfigProto())


def test_run_options_and_metadata():
    options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
    assert options.trace_level == 3 and options.timeout_in_ms == 0
    assert repr(config_pb2.RunMetadata()) == "RunMetadata()"
    with pytest.raises(TypeError, match="RunOptions got an unexpected field 'trace'"):
        config_pb2.RunOptions(trace=1)


def test_gpu_options_experimental_fields():
    # tensorflow/benchmarks' create_config_proto sets these (TF 2.15's field names and
    # defaults); unknown ones still raise naming the field
    config = config_pb2.ConfigProto()
    exp = config.gpu_options.experimental
    assert (exp.collective_ring_order, exp.use_unified_memory,
            exp.kernel_tracker_max_interval, exp.internal_fragmentation_fraction) == \
        ("", False, 0, 0.0)
    exp.collective_ring_order = "0,1"
    exp.timestamped_allocator = True
    copied = copy.deepcopy(config)
    assert copied.gpu_options.experimental.collective_ring_order == "0,1"
    assert copied == config
    assert config_pb2.GPUOptions.Experimental is type(exp)
    with pytest.raises(TypeError):
        exp.kernel_tracker_max_bytes = "many"
    with pytest.raises(AttributeError, match="no_such_field"):
        exp.no_such_field = 1

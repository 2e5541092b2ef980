"""``NewCheckpointReader`` / ``list_variables`` / ``inspect_checkpoint`` print exactly what
real TF 2.15 prints for the golden checkpoints (tools/record_tf_inspect_checkpoint.py)."""
import contextlib
import io
import json
import os

import pytest

import estimator_npu as tf
from estimator_npu.train import checkpoint_inspect

GOLDEN = os.path.join(os.path.dirname(__file__), "golden_tf")
with open(os.path.join(GOLDEN, "inspect_checkpoint.json")) as _f:
    RECORDED = json.load(_f)


@pytest.mark.parametrize("ckpt", sorted(RECORDED))
def test_reader_maps_and_debug_string_match_tf(ckpt):
    want = RECORDED[ckpt]
    d = os.path.join(GOLDEN, ckpt)
    reader = tf.train.NewCheckpointReader(os.path.join(d, "model.ckpt"))
    assert reader.debug_string().decode() == want["debug_string"]
    assert {k: v.name for k, v in reader.get_variable_to_dtype_map().items()} == \
        want["dtypes"]
    assert [list(x) for x in tf.train.list_variables(d)] == want["list_variables"]
    shapes = reader.get_variable_to_shape_map()
    assert all(isinstance(s, list) for s in shapes.values())
    assert all(reader.has_tensor(k) for k in shapes) and not reader.has_tensor("nope")


@pytest.mark.parametrize("ckpt", sorted(RECORDED))
def test_print_tensors_in_checkpoint_file_prints_as_tf(ckpt):
    prefix = os.path.join(GOLDEN, ckpt, "model.ckpt")
    for kwargs, want in RECORDED[ckpt]["prints"]:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            checkpoint_inspect.print_tensors_in_checkpoint_file(prefix, **kwargs)
        assert buf.getvalue() == want, kwargs


def test_inspect_checkpoint_under_its_tf_module_path():
    from estimator_npu import compat
    compat.install()
    try:
        from tensorflow.python.tools import inspect_checkpoint
    finally:
        compat.uninstall()
    assert inspect_checkpoint.print_tensors_in_checkpoint_file is \
        checkpoint_inspect.print_tensors_in_checkpoint_file


def test_unreadable_checkpoint_prints_the_error(tmp_path, capsys):
    checkpoint_inspect.print_tensors_in_checkpoint_file(str(tmp_path / "none"), "", False)
    assert "none" in capsys.readouterr().out

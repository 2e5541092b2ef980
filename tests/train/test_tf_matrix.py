"""The TF <-> estimator_npu checkpoint matrix (issue 13, acceptance 2).

``tf_side/matrix.py`` is one script for both sides: ``write`` saves checkpoints of every
kind (every dtype TF writes, string scalars and arrays, 0-d and empty tensors,
partitioned variables, optimizer slots of Momentum / Adam / RMSProp, Slim names with
batch norm statistics, two data shards, an Estimator model_dir) and ``read`` lists,
loads, restores (``Saver.restore``, also by a ``var_list`` dict), warm-starts (``WarmStartSettings`` with
``var_name_to_prev_var_name`` and regexes) and ``init_from_checkpoint``s (an
``assignment_map``) from the other side's, reporting every value that is not exact.

Each direction runs with real TF 2.15 (``$TF_PYTHON`` or ``/tmp/tf215/bin/python``;
skipped, saying why, without one): TF writes -> we read, we write -> TF reads. Without
TF, the golden copy of TF's checkpoints (``golden_tf/matrix``, tools/record_tf_matrix.py)
is read, and our own files are read back by ourselves.
"""
import importlib.util
import json
import os
import subprocess

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.train import tensor_bundle

HERE = os.path.dirname(__file__)
GOLDEN = os.path.join(HERE, "golden_tf", "matrix")
TF_PYTHON = os.environ.get("TF_PYTHON", "/tmp/tf215/bin/python")

_spec = importlib.util.spec_from_file_location("tf_matrix",
                                               os.path.join(HERE, "tf_side", "matrix.py"))
matrix = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(matrix)

PLAIN = sorted(set(matrix._values()) | set(matrix.STRINGS) | {
    "global_step", "beta1_power", "beta2_power", "mom/w/Momentum", "adam/w/Adam",
    "adam/w/Adam_1", "rms/w/RMSProp", "rms/w/RMSProp_1"})
EST = ["global_step", "hidden/bias", "hidden/bias/Momentum", "hidden/kernel",
       "hidden/kernel/Momentum", "logits/bias", "logits/bias/Momentum", "logits/kernel",
       "logits/kernel/Momentum"]


def _tf(*args):
    if not os.path.exists(TF_PYTHON):
        pytest.skip(f"real TensorFlow not installed ({TF_PYTHON} missing; set TF_PYTHON)")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("PYTHONPATH", None)
    r = subprocess.run([TF_PYTHON, os.path.join(HERE, "tf_side", "matrix.py"), *args],
                       capture_output=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    return json.loads(r.stdout.decode().strip().splitlines()[-1])


def _check_report(report, with_est=True):
    assert report["mismatch"] == []
    assert sorted(report["plain_listed"]) == PLAIN
    assert report["plain_listed"]["part/emb"] == [10, 4]
    assert report["plain_listed"]["shapes/empty_int"] == [4, 0]
    assert report["plain_listed"]["text/scalar"] == [] and report["plain_latest"] == \
        "model.ckpt-7"
    assert sorted(report["sharded_listed"]) == ["shard/a", "shard/b", "shard/i", "shard/s"]
    if with_est:
        assert {"checkpoint", "graph.pbtxt", "model.ckpt-3.index", "model.ckpt-3.meta",
                "model.ckpt-3.data-00000-of-00001"} <= set(report["est_files"])
        assert report["est_state"][0] == "model.ckpt-3"
        assert report["est_meta_variables"] == EST
        assert report["est_warm_started_names"] == EST[1:]


def test_we_read_tfs_checkpoints(tmp_path):
    _tf("write", str(tmp_path / "tf"))
    os.makedirs(tmp_path / "work")
    _check_report(matrix.read(tf, str(tmp_path / "tf"), str(tmp_path / "work")))


def test_tf_reads_our_checkpoints(tmp_path):
    matrix.write(tf, str(tmp_path / "ours"))
    # ours as TF's: Saver(sharded=True) writes one data file per device (/cpu:0, /cpu:1)
    assert sorted(p for p in os.listdir(tmp_path / "ours" / "sharded") if ".data-" in p) == [
        "model.ckpt.data-00000-of-00002", "model.ckpt.data-00001-of-00002"]
    os.makedirs(tmp_path / "work")
    _check_report(_tf("read", str(tmp_path / "ours"), str(tmp_path / "work")))


def test_we_read_our_checkpoints(tmp_path):
    """The same matrix without TF: our files read back by ourselves."""
    matrix.write(tf, str(tmp_path / "ours"))
    os.makedirs(tmp_path / "work")
    _check_report(matrix.read(tf, str(tmp_path / "ours"), str(tmp_path / "work")))


def test_we_read_tfs_golden_matrix(tmp_path):
    """TF's recorded files: partitioned variables (slices), two data shards, every dtype."""
    _check_report(matrix.read(tf, GOLDEN, str(tmp_path)), with_est=False)


def test_partitioned_slices_are_read_from_tfs_keys():
    prefix = os.path.join(GOLDEN, "plain", "model.ckpt-7")
    with open(prefix + ".index", "rb") as f:
        reader = tensor_bundle.BundleReader(prefix, f.read())
    # TF stores part/tall [300, 2] in two slices of 150 rows (2-byte offsets in the keys)
    assert [label for _, label in reader.sliced["part/tall"]] == [
        "part/tall[0:150,0:2]", "part/tall[150:300,0:2]"]
    assert "part/tall[0:150,0:2]" not in reader.entries
    assert tensor_bundle.slice_key("part/emb", [(4, 3), (0, 4)]) == \
        b"\x00part/emb\x00\x01\x01\x02\x84\x83\x80\x84"
    with np.load(os.path.join(GOLDEN, "expected.npz"), allow_pickle=True) as npz:
        want = npz["part/tall"]
    np.testing.assert_array_equal(reader.read("part/tall"), want)
    reader.verify()


@pytest.mark.parametrize("value,code", [(0, "80"), (-1, "7f"), (63, "bf"), (64, "c040"),
                                        (-65, "3fbf"), (8192, "e02000"),
                                        (2 ** 40, "fd0000000000"),
                                        (-(2 ** 63), "003f8000000000000000")])
def test_ordered_code_signed_numbers(value, code):
    # TF's OrderedCode: a length prefix of 1 bits then 0, the number in the rest
    assert tensor_bundle._ordered_signed(value).hex() == code


def test_a_slice_whose_entry_is_missing_names_it(tmp_path):
    from estimator_npu import errors
    from estimator_npu.train import sstable
    prefix = os.path.join(GOLDEN, "plain", "model.ckpt-7")
    with open(prefix + ".index", "rb") as f:
        items = sstable.read_table(f.read())
    kept = [(k, v) for k, v in items if k != tensor_bundle.slice_key(
        "part/tall", [(150, 150), (0, 2)])]
    assert len(kept) == len(items) - 1
    with pytest.raises(errors.DataLossError, match=r"slice part/tall\[150:300,0:2\].*"
                       "no entry"):
        tensor_bundle.BundleReader(str(tmp_path / "x"), sstable.build_table(kept))


def test_the_least_data_size_counts_the_slices(tmp_path):
    # quick checks of a checkpoint (recovery) compare the data file's size with this:
    # a bundle holding only partitioned tensors ends where its last slice ends
    import shutil
    from estimator_npu.engine import tf_protos as pb
    from estimator_npu.train import sstable
    src = os.path.join(GOLDEN, "plain", "model.ckpt-7")
    with open(src + ".index", "rb") as f:
        items = sstable.read_table(f.read())
    kept = [(k, v) for k, v in items if not k or k.startswith((b"part/", b"\x00part/"))]
    ends = [pb.BundleEntryProto.FromString(v) for k, v in kept if k[:1] == b"\x00"]
    prefix = str(tmp_path / "model.ckpt")
    with open(prefix + ".index", "wb") as f:
        f.write(sstable.build_table(kept))
    shutil.copy(src + ".data-00000-of-00001", prefix + ".data-00000-of-00001")
    reader = tf.train.load_checkpoint(prefix)
    assert sorted(reader.get_variable_to_shape_map()) == ["part/emb", "part/tall"]
    (path, end), = reader.data_ends().items()
    assert end == max(e.offset + e.size for e in ends) > 0

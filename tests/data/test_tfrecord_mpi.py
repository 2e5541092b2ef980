"""Sharding a TFRecord file list across two MPI workers (``estimator-npu-run -n 2``):
each worker reads its own files, together they read every record once. Skipped, with
the reason printed, when MPI cannot start here."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get(
        "PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _mpi_unavailable_reason():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed (pip install -e '.[mpi]')"
    from estimator_npu.distribute import launcher
    if launcher.find_mpiexec() is None:
        return f"no mpiexec next to {sys.executable} or on PATH (pip install mpich)"
    return None


def test_file_list_shards_across_two_workers(tmp_path):
    reason = _mpi_unavailable_reason()
    if reason is not None:
        print(f"\nSKIPPED: {reason}")
        pytest.skip(reason)
    data = tmp_path / "data"
    data.mkdir()
    everything = []
    for k in range(5):
        recs = [f"{k}-{j}" for j in range(3)]
        everything += recs
        with tf.io.TFRecordWriter(str(data / f"part-{k}.tfrecord")) as w:
            for r in recs:
                w.write(r.encode())
    out = tmp_path / "out"
    out.mkdir()
    cmd = [sys.executable, "-m", "estimator_npu.distribute.launcher", "-n", "2", "--",
           "-W", "error", str(HERE / "tfrecord_shard_worker.py"), str(data), str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=_env(),
                         cwd=str(ROOT))
    assert res.returncode == 0, res.stderr[-3000:]
    ranks = [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]
    assert [r["size"] for r in ranks] == [2, 2]
    files0 = {rec.split("-")[0] for rec in ranks[0]["records"]}
    files1 = {rec.split("-")[0] for rec in ranks[1]["records"]}
    assert files0 == {"0", "2", "4"} and files1 == {"1", "3"}
    assert sorted(ranks[0]["records"] + ranks[1]["records"]) == sorted(everything)
    # cycle_length=2 over the worker's files: one record from each in turn
    assert ranks[1]["records"] == ["1-0", "3-0", "1-1", "3-1", "1-2", "3-2"]

"""The README's MPI example (issue 17): ``estimator-npu-run -n 2 -m model_zoo.mlp`` uses one
shared model_dir (with or without ``--model_dir``) and only rank 0 prints results."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get(
        "PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _mpi_or_skip():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        reason = "mpi4py is not installed (pip install -e '.[mpi]')"
        print(f"SKIP reason: {reason}")
        pytest.skip(reason)
    from estimator_npu.distribute import launcher
    if launcher.find_mpiexec() is None:
        reason = "no mpiexec (pip install mpich)"
        print(f"SKIP reason: {reason}")
        pytest.skip(reason)


@pytest.mark.parametrize("with_model_dir", [True, False])
def test_mpi_example_shares_model_dir_and_prints_once(tmp_path, with_model_dir):
    _mpi_or_skip()
    flags = ["--steps", "20", "--iterations_per_loop", "5"]
    if with_model_dir:
        flags += ["--model_dir", str(tmp_path / "shared")]
    cmd = [sys.executable, "-m", "estimator_npu.distribute.launcher", "-n", "2", "-m",
           "model_zoo.softmax_estimator", *flags]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=_env(),
                         cwd=str(ROOT))
    assert res.returncode == 0, res.stderr[-3000:]
    accuracies = re.findall(r"Test accuracy: ([0-9.]+)", res.stdout)
    assert len(accuracies) == 1, res.stdout
    steps = re.findall(r"at global step (\d+)", res.stdout)
    assert steps == ["20"], res.stdout
    dirs = set(re.findall(r"model_dir: (\S+)", res.stdout))
    assert len(dirs) == 1, res.stdout
    if with_model_dir:
        assert dirs == {str(tmp_path / "shared")}

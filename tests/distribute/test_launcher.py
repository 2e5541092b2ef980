"""``estimator-npu-run``: command-line parsing, the mpiexec command, and its errors."""
import os
import sys

import pytest

from estimator_npu.distribute import launcher


@pytest.mark.parametrize("argv, opts, rest", [
    (["-n", "2", "train.py", "--steps", "5"], {"n": 2}, ["train.py", "--steps", "5"]),
    (["-np", "4", "--hostfile", "hosts", "t.py"], {"n": 4, "hostfile": "hosts"}, ["t.py"]),
    (["-n", "2", "-m", "model_zoo.mlp", "-n", "3"], {"n": 2},
     ["-m", "model_zoo.mlp", "-n", "3"]),
    (["-n", "2", "--mpi-arg", "-v", "--", "-W", "error", "t.py"],
     {"n": 2, "mpi_args": ["-v"]}, ["-W", "error", "t.py"]),
    (["--dry-run", "-n", "1", "--hosts", "a,b", "t.py"],
     {"n": 1, "dry_run": True, "hosts": "a,b"}, ["t.py"]),
])
def test_parse_args(argv, opts, rest):
    got, got_rest = launcher.parse_args(argv)
    assert got_rest == rest
    for key, value in opts.items():
        assert got[key] == value


@pytest.mark.parametrize("argv, match", [
    (["train.py"], "-n N .* is required"),
    (["-n", "0", "t.py"], "must be a positive int, got '0'"),
    (["-n", "two", "t.py"], "must be a positive int, got 'two'"),
    (["-n"], "-n needs a value"),
    (["-n", "2"], "no script to run"),
    (["-n", "2", "-m"], "no script to run"),
    (["-n", "2", "--bogus", "t.py"], "unknown option '--bogus'"),
])
def test_parse_errors(argv, match):
    with pytest.raises(launcher.LaunchError, match=match):
        launcher.parse_args(argv)


def test_build_command_per_flavor():
    opts, rest = launcher.parse_args(["-n", "3", "--hostfile", "h", "--hosts", "a,b",
                                      "--mpi-arg", "-x", "t.py", "--lr", "1"])
    hydra = launcher.build_command(opts, rest, "/v/bin/mpiexec", "hydra", python="/v/bin/py")
    assert hydra == ["/v/bin/mpiexec", "-n", "3", "-f", "h", "-hosts", "a,b", "-x",
                     "/v/bin/py", "t.py", "--lr", "1"]
    ompi = launcher.build_command(opts, rest, "mpiexec", "openmpi", python="py")
    assert ompi[3:7] == ["--hostfile", "h", "--host", "a,b"]


def test_find_mpiexec_prefers_the_one_beside_python(tmp_path):
    venv_bin = tmp_path / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    other = tmp_path / "other"
    other.mkdir()
    for d in (venv_bin, other):
        exe = d / "mpiexec"
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    python = str(venv_bin / "python")
    assert launcher.find_mpiexec(python, path=str(other)) == str(venv_bin / "mpiexec")
    os.remove(venv_bin / "mpiexec")
    assert launcher.find_mpiexec(python, path=str(other)) == str(other / "mpiexec")
    assert launcher.find_mpiexec(python, path=str(tmp_path / "none")) is None


def test_mpi_flavor_reads_the_version(tmp_path):
    fake = tmp_path / "mpiexec"
    fake.write_text("#!/bin/sh\necho 'mpiexec (OpenRTE) 4.1.2'\n")
    fake.chmod(0o755)
    assert launcher.mpi_flavor(str(fake)) == "openmpi"
    fake.write_text("#!/bin/sh\necho 'HYDRA build details:'\n")
    assert launcher.mpi_flavor(str(fake)) == "hydra"
    assert launcher.mpi_flavor(str(tmp_path / "missing")) == "unknown"


def test_main_dry_run_and_errors(capsys, monkeypatch):
    assert launcher.main(["-n", "2", "--dry-run", "--mpiexec", "/x/mpiexec", "t.py"]) == 0
    assert capsys.readouterr().out.strip() == f"/x/mpiexec -n 2 {sys.executable} t.py"
    monkeypatch.setattr(launcher, "find_mpiexec", lambda *a, **k: None)
    assert launcher.main(["-n", "2", "t.py"]) == 2
    err = capsys.readouterr().err
    assert "no mpiexec found next to" in err and "estimator-npu[mpi]" in err
    assert launcher.main(["t.py"]) == 2
    assert "is required" in capsys.readouterr().err

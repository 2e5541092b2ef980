"""The collective interface in one process: the single backend, argument checks, and how
the backend is chosen from the environment (no MPI is initialized here)."""
import sys

import numpy as np
import pytest

from estimator_npu import distribute
from estimator_npu.distribute import collective


def test_plain_process_is_rank_0_of_1():
    assert not collective.launched_under_mpi()
    assert (distribute.rank(), distribute.size(), distribute.local_rank(),
            distribute.local_size()) == (0, 1, 0, 1)
    assert not distribute.is_distributed()
    assert distribute.get_backend().name == "single"
    assert "mpi4py.MPI" not in sys.modules  # a plain python never initializes MPI


def test_single_backend_collectives_leave_values_alone():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert collective.allreduce(a, "sum") is a
    np.testing.assert_array_equal(a, np.arange(6).reshape(2, 3))
    collective.allreduce(a, "mean")
    np.testing.assert_array_equal(a, np.arange(6).reshape(2, 3))
    req = collective.iallreduce(a, "max")
    assert req.test() is True
    req.wait()
    collective.broadcast(a, root=0)
    g = collective.allgather(a)
    assert g.shape == (1, 2, 3) and not np.shares_memory(g, a)
    collective.barrier()


@pytest.mark.parametrize("bad, exc, match", [
    ([1.0, 2.0], TypeError, "numpy ndarray"),
    (np.zeros((3, 4))[:, ::2], ValueError, "C-contiguous"),
    (np.array(["a"]), TypeError, "unsupported dtype"),
])
def test_allreduce_rejects_bad_buffers(bad, exc, match):
    with pytest.raises(exc, match=match):
        collective.allreduce(bad)


def test_allreduce_rejects_read_only_and_bad_ops():
    ro = np.zeros(3)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="writable"):
        collective.allreduce(ro)
    with pytest.raises(ValueError, match="op must be one of"):
        collective.allreduce(np.zeros(3), op="avg")
    with pytest.raises(TypeError, match="floating"):
        collective.iallreduce(np.zeros(3, np.int32), op="mean")
    with pytest.raises(TypeError, match="complex"):
        collective.allreduce(np.zeros(3, np.complex64), op="max")


def test_broadcast_checks_root():
    with pytest.raises(ValueError, match=r"root_rank must be in \[0, 1\)"):
        collective.broadcast(np.zeros(2), root=1)
    with pytest.raises(TypeError, match="root_rank must be an int"):
        collective.broadcast(np.zeros(2), root=0.0)


def test_use_backend_installs_and_restores():
    class Two(collective.SingleProcessBackend):
        size = 2
        rank = 1
    with collective.use_backend(Two()):
        assert (distribute.rank(), distribute.size()) == (1, 2)
    assert distribute.size() == 1


# ---------------------------------------------------------------- backend selection
@pytest.mark.parametrize("env, launched", [
    ({}, False), ({"RANK_SIZE": "1"}, False), ({"PMI_RANK": "0"}, True),
    ({"OMPI_COMM_WORLD_SIZE": "4"}, True), ({"MPI_LOCALNRANKS": "2"}, True),
    ({"PMI_SIZE": ""}, False),
])
def test_launch_detection(env, launched):
    assert collective.launched_under_mpi(env) is launched


def test_rank_size_env_without_launcher():
    assert collective.env_rank_size({}) == (None, None)
    assert collective.env_rank_size({"RANK_ID": "0", "RANK_SIZE": "1"}) == (0, 1)
    assert isinstance(collective.select_backend({"RANK_SIZE": "1", "RANK_ID": "0"}),
                      collective.SingleProcessBackend)
    with pytest.raises(RuntimeError, match=r"RANK_SIZE=4 but this process was not started "
                                           r"by an MPI launcher.*estimator-npu-run -n 4"):
        collective.select_backend({"RANK_SIZE": "4", "RANK_ID": "1"})


@pytest.mark.parametrize("env, match", [
    ({"RANK_SIZE": "two"}, "RANK_SIZE must be an integer, got 'two'"),
    ({"RANK_SIZE": "0"}, "RANK_SIZE must be >= 1"),
    ({"RANK_SIZE": "2", "RANK_ID": "2"}, r"RANK_ID must be in \[0, RANK_SIZE\)"),
    ({"RANK_ID": "1"}, r"RANK_ID must be in \[0, RANK_SIZE\) = \[0, 1\)"),
])
def test_malformed_rank_env(env, match):
    with pytest.raises(ValueError, match=match):
        collective.env_rank_size(env)


def test_launched_without_mpi4py(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # import fails
    with pytest.raises(RuntimeError, match=r"2 processes\) but mpi4py is not installed.*"
                                           r"estimator-npu\[mpi\]"):
        collective.select_backend({"PMI_SIZE": "2", "PMI_RANK": "0"})
    # one process under a launcher runs alone
    backend = collective.select_backend({"PMI_SIZE": "1", "PMI_RANK": "0"})
    assert backend.size == 1

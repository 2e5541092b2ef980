"""Acceptance under ``mpiexec -n 2``: two workers with batch B end with the weights of one
worker with batch 2B; an overflow on one rank skips the step on every rank; the default
gradient segments and the tailing optimization change no result; the collectives and
collective graph ops; the Estimator with sharded input, resuming from rank 0's checkpoint.

One launch (through ``estimator-npu-run``, i.e. ``python -m
estimator_npu.distribute.launcher -n 2``) runs every scenario of ``mpi_scenarios.py``;
the one-worker reference runs the same functions in this process. The module is skipped,
with the reason printed, only when MPI cannot start here (mpi4py or mpiexec missing, or
a two-process probe fails).
"""
import importlib.util
import os
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

from estimator_npu.distribute import launcher

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCENARIOS = HERE / "mpi_scenarios.py"
TIMEOUT_S = 120


def _load_scenarios():
    name = "estimator_npu_tests_distribute_mpi_scenarios"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SCENARIOS)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


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
    mpiexec = launcher.find_mpiexec()
    if mpiexec is None:
        return f"no mpiexec next to {sys.executable} or on PATH (pip install mpich)"
    probe = [mpiexec, "-n", "2", sys.executable, "-c",
             "from mpi4py import MPI; assert MPI.COMM_WORLD.Get_size() == 2"]
    try:
        res = subprocess.run(probe, capture_output=True, text=True, timeout=60, env=_env())
    except subprocess.TimeoutExpired:
        return f"'{' '.join(probe)}' did not finish within 60 s"
    if res.returncode != 0:
        return (f"'{' '.join(probe)}' failed with status {res.returncode}: "
                f"{(res.stderr or res.stdout)[-500:]}")
    return None


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    reason = _mpi_unavailable_reason()
    if reason is not None:
        print(f"\nSKIPPED MPI acceptance tests: {reason}")
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("mpi")
    cmd = [sys.executable, "-m", "estimator_npu.distribute.launcher", "-n", "2", "--",
           "-W", "error", str(SCENARIOS), str(out)]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                             env=_env(), cwd=str(ROOT))
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{' '.join(cmd)} did not finish within {TIMEOUT_S} s:\n"
                    f"{(e.stderr or b'')[-3000:]}")
    assert res.returncode == 0, (f"{' '.join(cmd)} failed ({res.returncode}):\n"
                                 f"{res.stdout[-2000:]}\n{res.stderr[-4000:]}")
    ranks = []
    for r in range(2):
        with open(out / f"rank{r}.pkl", "rb") as f:
            ranks.append(pickle.load(f))
    scenarios = _load_scenarios()
    ref_dir = out / "reference"
    ref_dir.mkdir()
    reference = scenarios.run_all(0, 1, str(ref_dir))
    return ranks, reference


def _rel_err(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def _assert_same_on_ranks(ranks, key):
    v0, v1 = ranks[0][key]["values"], ranks[1][key]["values"]
    for a, b in zip(v0, v1):
        np.testing.assert_array_equal(a, b, err_msg=f"{key}: ranks 0 and 1 differ")


def _assert_close_to_reference(ranks, reference, key):
    for got, want in zip(ranks[0][key]["values"], reference[key]["values"]):
        assert got.dtype == np.float64
        err = _rel_err(got, want)
        assert err < 1e-6, f"{key}: relative error {err:.3g} against one worker, batch 2B"
    assert ranks[0][key]["global_step"] == reference[key]["global_step"]


@pytest.mark.parametrize("kind", ["sgd", "adam", "lamb"])
def test_two_workers_equal_one_worker_with_double_batch(results, kind):
    ranks, reference = results
    key = f"feed_{kind}"
    _assert_same_on_ranks(ranks, key)
    _assert_close_to_reference(ranks, reference, key)
    assert ranks[1][key]["global_step"] == 5
    # the ranks started from different values; the broadcast made them rank 0's
    for a, b, c in zip(ranks[0][key]["initial"], ranks[1][key]["initial"],
                       ranks[1][key]["broadcast"]):
        assert not np.array_equal(a, b)
        np.testing.assert_array_equal(c, a)


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_iterations_per_loop_with_sharded_dataset(results, kind):
    ranks, reference = results
    key = f"loop_{kind}"
    _assert_same_on_ranks(ranks, key)
    _assert_close_to_reference(ranks, reference, key)
    assert ranks[0][key]["global_step"] == ranks[1][key]["global_step"] == 6


@pytest.mark.parametrize("key", ["overflow", "overflow_tail"])
def test_overflow_on_one_rank_skips_the_step_on_every_rank(results, key):
    ranks, reference = results
    for r in range(2):
        assert ranks[r][key]["applied"] == [True, True, False, True, True], r
        assert ranks[r][key]["global_step"] == 4
        assert ranks[r][key]["steps_reduced"] == 4   # no gradient all-reduce when skipped
    _assert_same_on_ranks(ranks, key)
    _assert_close_to_reference(ranks, reference, key)


def test_loss_scaling_overflow_on_one_rank_skips_and_shrinks_the_scale_everywhere(results):
    ranks, reference = results
    if reference["npu_opt"] is None:
        pytest.skip("NPUOptimizer / the loss-scale managers are not in the package yet")
    for key in ("npu_opt", "npu_opt_tail"):
        for r in range(2):
            assert ranks[r][key]["steps"] == [1, 2, 2, 3, 4], (key, r)
            assert ranks[r][key]["scales"] == [1024.0, 1024.0, 512.0, 512.0, 512.0], (key, r)
        _assert_same_on_ranks(ranks, key)
        _assert_close_to_reference(ranks, reference, key)
    for a, b in zip(ranks[0]["npu_opt"]["values"], ranks[0]["npu_opt_tail"]["values"]):
        np.testing.assert_array_equal(a, b)


def test_default_split_gives_two_segments(results):
    ranks, _ = results
    for key in ("feed_adam", "tail_adam"):
        assert ranks[0][key]["messages"] == 2 * 5, key   # [w1 b1 w2] (97 %) and [b2]
    assert ranks[0]["split3"]["messages"] == 3 * 5


@pytest.mark.parametrize("kind", ["sgd", "adam", "lamb"])
def test_tailing_optimization_changes_no_result(results, kind):
    ranks, _ = results
    for r in range(2):
        for a, b in zip(ranks[r][f"feed_{kind}"]["values"], ranks[r][f"tail_{kind}"]["values"]):
            np.testing.assert_array_equal(a, b)


def test_tailing_with_other_splits_changes_no_result(results):
    ranks, reference = results
    for r in range(2):
        for a, b in zip(ranks[r]["split3"]["values"], ranks[r]["split3_tail"]["values"]):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(ranks[r]["feed_adam"]["values"], ranks[r]["idx2_tail"]["values"]):
            np.testing.assert_array_equal(a, b)
    _assert_close_to_reference(ranks, reference, "split3_tail")


def test_collective_graph_ops(results):
    ranks, _ = results
    base = np.array([1.0, 2.0, 3.0])
    for r in range(2):
        got = ranks[r]["graph_ops"]
        np.testing.assert_array_equal(got["sum"], 3 * base)
        np.testing.assert_array_equal(got["mean"], 1.5 * base)
        np.testing.assert_array_equal(got["max"], 2 * base)
        np.testing.assert_array_equal(got["min"], base)
        np.testing.assert_array_equal(got["bcast"], 2 * base)
        np.testing.assert_array_equal(got["gather"], np.concatenate([base, 2 * base]))
        # d/dw_r of sum over ranks of sum(allreduce(v * w)) = size * v_r
        np.testing.assert_array_equal(got["grad"], 2 * (r + 1) * base)


def test_collectives(results):
    ranks, _ = results
    for r in range(2):
        got = ranks[r]["collectives"]
        assert (got["rank"], got["size"]) == (r, 2)
        assert (got["local_rank"], got["local_size"]) == (r, 2)
        np.testing.assert_array_equal(got["sum"], np.arange(4) * 3.0)
        assert got["f16_mean"].dtype == np.float16
        np.testing.assert_array_equal(got["f16_mean"], np.full(3, 0.75, np.float16))
        np.testing.assert_array_equal(got["bool_or"], [True, False, True])
        assert got["imax"] == (2.0, 2.0)
        np.testing.assert_array_equal(got["bcast"], np.ones((2, 2)))
        np.testing.assert_array_equal(got["gather"], [[0, 0], [1, 10]])


def test_estimator_resumes_from_rank0_and_only_rank0_writes(results):
    ranks, reference = results
    got0, got1, want = ranks[0]["estimator"], ranks[1]["estimator"], reference["estimator"]
    assert got0["global_step"] == got1["global_step"] == 6
    assert got0["checkpoint"] == "model.ckpt-6"
    assert got0["writes"]["checkpoints"] > 0 and got0["writes"]["summary_writers"] > 0
    assert got1["writes"] == {"checkpoints": 0, "summary_writers": 0}
    for name, value in want["final"].items():
        np.testing.assert_array_equal(got0["final"][name], got1["final"][name])
        assert _rel_err(got0["final"][name], value) < 1e-6, name


def test_estimator_configures_itself_under_mpi(results):
    ranks, reference = results
    if ranks[0]["estimator_auto"] is None:
        pytest.skip("the Estimator does not take num_workers/worker_index from MPI yet")
    got0, got1, want = (ranks[0]["estimator_auto"], ranks[1]["estimator_auto"],
                        reference["estimator_auto"])
    assert got0["global_step"] == got1["global_step"] == 6
    assert got0["saves"] > 0 and got1["saves"] == 0
    for name, value in want["final"].items():
        np.testing.assert_array_equal(got0["final"][name], got1["final"][name])
        assert _rel_err(got0["final"][name], value) < 1e-6, name

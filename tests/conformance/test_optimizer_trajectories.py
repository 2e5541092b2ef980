"""Every TF1 optimizer's 200-step float32 trajectory equals real TF 2.15's.

Measure: per step, ``||ours - tf|| / ||tf||`` over all parameter values (normwise
relative), at most 1e-7. On these small tensors every optimizer is bit-identical. On
tensors of 8 elements or more TF's vectorised Adagrad kernel uses an approximate
reciprocal square root (CPU-dependent, within 2 ulp; measured 8.9e-8 over 200 steps of a
1000-element tensor). LAMB's norms reproduce TF's float32 reduction order up to 4096
elements (checked below) and are rounded float64 sums beyond.
"""
import numpy as np
import pytest

import estimator_npu as tf
import scenarios

TOLERANCE = 1e-7
EXACT = set(scenarios.OPTIMIZERS)


@pytest.mark.parametrize("name", sorted(scenarios.OPTIMIZERS))
def test_trajectory_matches_tf(golden, name):
    want = golden("optimizers")["optimizers"][name]
    got = scenarios.optimizer_trajectory(tf, name)
    assert got["global_step"] == want["global_step"] == scenarios.STEPS
    a = scenarios.decode(got["trajectory"], (scenarios.STEPS, want["width"]))
    b = scenarios.decode(want["trajectory"], (scenarios.STEPS, want["width"]))
    rel = np.linalg.norm((a.astype(np.float64) - b), axis=1) / np.linalg.norm(b, axis=1)
    print(f"{name}: max per-step normwise relative difference {rel.max():.3g}, "
          f"{int((a != b).any(axis=1).sum())} of {scenarios.STEPS} steps not bit-equal")
    assert rel.max() <= TOLERANCE, (name, int(rel.argmax()), rel.max())
    if name in EXACT:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n", scenarios.REDUCE_SIZES)
def test_lamb_norm_sums_in_tfs_order(golden, n):
    """LAMB's per-tensor float32 sums of squares equal TF's reduce_sum exactly."""
    from estimator_npu.train.update_rules import eigen_sum
    want = scenarios.decode(golden("optimizers")["reduce_sum"][str(n)])[0]
    got = eigen_sum(scenarios.reduce_input(n))
    assert got.dtype == np.float32 and got == want, (n, got, want)

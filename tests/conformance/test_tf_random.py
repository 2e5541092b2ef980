"""Random values as TF's CPU kernels give them for the same seeds (Philox4x32-10 and its
distributions, each op's generator kept across runs), and the (seed, seed2) TF gives each
random op of a program, against goldens recorded from TF 2.15 by tools/record_tf_random.py."""
import json
import os

import numpy as np
import pytest

import estimator_npu as tf
import random_programs as rp

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def golden():
    with np.load(os.path.join(HERE, "golden", "tf_random.npz")) as z:
        arrays = {k: z[k] for k in z.files}
    with open(os.path.join(HERE, "golden", "tf_random_seeds.json")) as f:
        return arrays, json.load(f)


def _close(ours, theirs, key):
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, key
    if "computed" in key:        # sums of products: float32 rounding of another order
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=key)
    elif ours.dtype.kind == "f":   # libm may differ from glibc by an ulp in a sin/cos/log
        np.testing.assert_array_max_ulp(ours, theirs, maxulp=1)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=key)


@pytest.mark.parametrize("name", sorted(rp.PROGRAMS))
def test_values_and_seeds_match_tf(golden, name):
    arrays, seeds = golden
    values, ours = rp.run_program(tf, rp.PROGRAMS[name])
    assert ours == seeds[name]
    expected = {k[len(name) + 1:]: v for k, v in arrays.items() if k.startswith(name + "/")}
    assert sorted(values) == sorted(expected)
    for k in values:
        _close(values[k], expected[k], f"{name}/{k}")


@pytest.mark.parametrize("name", sorted(rp.TRAIN))
def test_seeded_training_losses_match_tf(golden, name):
    arrays, seeds = golden
    losses, ours = rp.run_training(tf, rp.TRAIN[name])
    assert ours == seeds[name]
    np.testing.assert_allclose(losses, arrays[f"{name}/losses"], rtol=2e-5)

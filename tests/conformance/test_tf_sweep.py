"""Replays the differential sweep (tests/conformance/sweep_specs.py, ~700 TF1 calls over
reductions, casts and dtype rules, math, array, nn, conv/pool, image, losses, metrics,
strings, sparse, tf.train.Example parsing, feature columns, layers and train helpers)
against real TF 2.15's results recorded by ``tools/tf_sweep.py`` (values, dtypes, static
shapes, error classes). No TF needed."""
import pathlib
import sys

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parents[1] / "tools"))
import tf_sweep  # noqa: E402
from sweep_runner import compare, run_spec  # noqa: E402
from sweep_specs import SPECS  # noqa: E402

GOLDEN = tf_sweep.load()

# Differences not fixed yet (each must still differ: strict xfail), with why.
KNOWN = {
    "str_unicode_decode": "not implemented in estimator_npu yet (TF 2.15 has it)",
}


def test_every_spec_has_a_golden_record():
    assert sorted(SPECS) == sorted(GOLDEN)
    assert len(SPECS) >= 300


def test_compare_catches_differences():
    want = {"outs": [{"dtype": "float32", "shape": [2], "value": np.array([1.0, np.nan])}]}
    same = {"outs": [{"dtype": "float32", "shape": [2], "value": np.array([1.0, np.nan])}]}
    assert compare(want, same) == []
    off = {"outs": [{"dtype": "float32", "shape": [2], "value": np.array([1.001, np.nan])}]}
    assert "values differ" in compare(want, off)[0]
    other = {"outs": [{"dtype": "float64", "shape": [None], "value": want["outs"][0]["value"]}]}
    assert len(compare(want, other)) == 2
    assert compare({"error": ["build", "TypeError"]}, same)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(
    strict=True, reason=KNOWN[n])) if n in KNOWN else n for n in sorted(SPECS)])
def test_sweep_matches_tf(name):
    diffs = compare(GOLDEN[name], run_spec(tf, SPECS[name]))
    assert not diffs, f"{name}: " + "; ".join(diffs)

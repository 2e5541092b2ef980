"""Premade estimators lay out their variables as TF 2.15's do (``canned_cases.py``,
golden recorded by ``tools/record_estimator_matrix.py canned``): every model variable is
a partitioned variable (one part unless a partitioner says more), slots are named
``<scope>/<part>/<slot>`` in the graph and saved under TF's checkpoint keys, and the
linear models reach the same numbers. ``PartitionedVariable.assign`` splits a full value
over the parts."""
import importlib.util
import json
import pathlib

import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).resolve().parent


def _load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


case = _load("canned_cases")
differences = _load("matrix_cases").differences
GOLDEN = json.loads((HERE / "golden" / "estimator_matrix_tf215.json").read_text())


@pytest.mark.parametrize("name", sorted(case.all_scenarios()))
def test_canned_scenario_matches_tf(name):
    want = GOLDEN["scenarios"][name]
    got = case.all_scenarios()[name](tf, "estimator_npu")
    diff = differences(json.loads(json.dumps(got)), want)
    assert not diff, "\n".join(diff[:40])

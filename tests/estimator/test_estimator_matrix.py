"""The Estimator scenario matrix (``matrix_cases.py``) run under estimator_npu equals what
real TF 2.15 did (``golden/estimator_matrix_tf215.json``, recorded by
``tools/record_estimator_matrix.py``): model_dir files, the checkpoint state file, event
contents, the steps a user's hook sees, the schedule log lines, and the results of
evaluate / predict / train_and_evaluate / warm start; and the user-hook and input
scenarios of ``hooks_cases.py``."""
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


case = _load("matrix_cases")
SCENARIOS = dict(case.all_scenarios(), **_load("hooks_cases").all_scenarios())
GOLDEN = json.loads((HERE / "golden" / "estimator_matrix_tf215.json").read_text())


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_matches_tf(name):
    want = GOLDEN["scenarios"][name]
    got = SCENARIOS[name](tf, "estimator_npu")
    # after an error the hooks get no end(), as in TF: compared like everything else
    diff = case.differences(json.loads(json.dumps(got)), want)
    assert not diff, "\n".join(diff[:40])


def test_differences_sees_a_change():
    want = GOLDEN["scenarios"]["train/keep_max2"]
    changed = json.loads(json.dumps(want))
    changed["files"] = changed["files"][1:]
    assert case.differences(changed, want)
    assert not case.differences(want, want)

"""Hook schedules, resume and end-of-input behaviour equal real TF 2.15's (recorded by
tools/record_tf_golden.py): the steps at which checkpoints are saved (and listeners
called), summaries and ``global_step/sec`` written, ``loss = ..., step = N`` logged
(and in which order), the events in the order they were written, and the files left in
model_dir."""
import pytest

import estimator_npu as tf
import scenarios


@pytest.mark.parametrize("name", sorted(scenarios.HOOK_GRID))
def test_hook_grid_matches_tf(golden, name):
    want = golden("hook_grid")["scenarios"][name]
    got = scenarios.hook_grid(tf, name, "estimator_npu")
    assert len(got["runs"]) == len(want["runs"])
    for i, (g, w) in enumerate(zip(got["runs"], want["runs"])):
        assert g["global_step"] == w["global_step"], (name, i)
        assert g["listener"] == w["listener"], (name, i)
        assert g["log"] == w["log"], (name, i)
        assert g["sequence"] == w["sequence"], (name, i)   # the order of the lines too
    assert got["events"] == want["events"]
    assert got["files"] == want["files"]
    assert got["event_order"] == want["event_order"]

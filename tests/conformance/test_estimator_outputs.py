"""What ``evaluate`` returns, what ``predict`` yields, the eval events and the
``RunConfig`` properties equal real TF 2.15's (recorded by tools/record_tf_golden.py)."""
import numpy as np

import estimator_npu as tf
import scenarios


def test_evaluate_and_predict_types_values_and_events(golden):
    want = golden("estimator_outputs")["eval_predict"]
    got = scenarios.evaluate_predict(tf)
    assert {k: v["type"] for k, v in got["evaluate"].items()} == \
        {k: v["type"] for k, v in want["evaluate"].items()}
    for key, w in want["evaluate"].items():
        np.testing.assert_allclose(got["evaluate"][key]["value"], w["value"], rtol=1e-6,
                                   err_msg=key)
    assert got["predict_count"] == want["predict_count"]
    assert got["predict_type"] == want["predict_type"]
    for key, w in want["predict_first"].items():
        g = got["predict_first"][key]
        assert (g["type"], g["dtype"], g["shape"]) == (w["type"], w["dtype"], w["shape"])
        np.testing.assert_allclose(g["value"], w["value"], rtol=1e-6)
    assert got["predict_batches"] == want["predict_batches"]
    assert got["predict_batch_first"] == want["predict_batch_first"]
    assert got["eval_events"] == want["eval_events"]
    assert got["eval_files"] == want["eval_files"]


def test_run_config_properties(golden):
    assert scenarios.run_config_properties(tf) == golden("estimator_outputs")["run_config"]


def test_log_lines_of_train_evaluate_predict(golden):
    """The messages TF logs, in TF's order and wording (model_dir, times, dates and
    addresses normalized; TF's deprecation notices left out)."""
    want = golden("estimator_outputs")["log"]
    got = scenarios.estimator_log(tf, "estimator_npu")
    assert got == want

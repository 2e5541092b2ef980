"""tf.metrics extras against values recorded from TF 2.15 (``tools/record_tf_metrics.py``):
every update_op result over three batches, and the final values."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "metrics_golden.json").read_text())


def _load():
    spec = importlib.util.spec_from_file_location("estimator_npu_tests_metric_cases",
                                                  HERE / "metric_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load()


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_metric_values_match_tf(name):
    got = CASES.run(tf, CASES.CASES[name])
    want = GOLDEN[name]
    assert got["dtypes"] == want["dtypes"]
    for step, (g, w) in enumerate(zip(got["updates"], want["updates"])):
        for i, (a, b) in enumerate(zip(g, w)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name} update {i} after batch {step}")
    for i, (a, b) in enumerate(zip(got["values"], want["values"])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"{name} value {i}")

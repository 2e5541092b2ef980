"""tf.Print / tf.print / tf.Assert / tf.assert_* against real TF 2.15: what each case of
checks_cases.py prints or raises equals what TF did (recorded by
``tools/record_tf_checks.py`` into checks_golden.json)."""
import importlib.util
import json
import pathlib

import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "checks_golden.json").read_text())
_spec = importlib.util.spec_from_file_location("estimator_npu_tests_checks_cases",
                                               HERE / "checks_cases.py")
CASES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES)


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_matches_tf(name):
    assert CASES.CASES[name](tf) == GOLDEN[name]

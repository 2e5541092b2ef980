"""String tensors come back from a session as TF 2.15 returns them: ``bytes`` when 0-d,
object arrays of ``bytes`` otherwise; a fetched feed is the fed value as an object array;
py_func gets bytes and numpy scalars. Goldens: tools/record_string_fetch_goldens.py."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine.dtypes import tf_string_value

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = json.loads((HERE / "golden" / "string_fetches_tf215.json").read_text())["cases"]
_spec = importlib.util.spec_from_file_location("string_fetch_cases",
                                               HERE / "string_fetch_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
OURS = cases.run_all(tf)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_string_values_match_tf(name):
    assert OURS[name] == GOLDEN[name], name


def test_golden_covers_the_cases():
    assert set(OURS) == set(GOLDEN) and len(GOLDEN) >= 20


def test_tf_string_value():
    assert tf_string_value("h\u00e9") == "h\u00e9".encode()
    assert tf_string_value(np.array("a", object)) == b"a"
    out = tf_string_value(np.array([["a", b"b"]], object))
    assert out.dtype == object and out.shape == (1, 2) and out.tolist() == [[b"a", b"b"]]
    assert tf_string_value(np.array(["x", "yz"])).tolist() == [b"x", b"yz"]

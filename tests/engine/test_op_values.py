"""Values of the issue-12 ops (nn extras, top_k, unique, eye, gather/scatter_nd,
strided_slice, cumsum, einsum, norm, variable scatters) against real TF 2.15's, recorded
by ``tools/record_tf_op_values.py``."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "op_values_golden.json").read_text())


def _load_cases():
    spec = importlib.util.spec_from_file_location("estimator_npu_tests_op_value_cases",
                                                  HERE / "op_value_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


CASES = _load_cases()


def test_every_case_has_a_golden_record():
    assert sorted(CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_values_match_tf(name):
    g = tf.Graph()
    with g.as_default():
        tensors = CASES[name](tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(tensors)
    want = GOLDEN[name]
    # TF returns variable scatters as float32_ref tensors; the base dtype is what counts
    assert [t.dtype.name for t in tensors] == [d.replace("_ref", "") for d in want["dtypes"]]
    for i, (v, w) in enumerate(zip(values, want["values"])):
        assert np.shape(v) == np.shape(w), f"{name}[{i}] ({tensors[i].name})"
        np.testing.assert_allclose(v, np.asarray(w), rtol=1e-5, atol=1e-5,
                                   err_msg=f"{name}[{i}] ({tensors[i].name})")

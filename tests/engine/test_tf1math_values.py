"""Values, dtypes and static shapes of the ``math_ops_extra`` ops against real TF 2.15's,
recorded by ``tools/record_tf1math.py`` from ``tf1math_cases.py``."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "tf1math_golden.json").read_text())


def _load_cases():
    spec = importlib.util.spec_from_file_location("estimator_npu_tests_tf1math_cases",
                                                  HERE / "tf1math_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


CASES = _load_cases()


def _decode(values, dtype):
    if dtype == "string":
        return np.array(list(values), object)
    if dtype.startswith(("float", "half", "double", "bfloat")):
        return np.array([np.nan if v is None else float(v) for v in values], np.float64)
    return np.array(values)


def test_every_case_has_a_golden_record():
    assert sorted(CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_static_shapes_match_tf(name):
    want = GOLDEN[name]
    g = tf.Graph()
    with g.as_default():
        tensors, feed = CASES[name](tf)
        shapes = [t.shape.as_list() if t.shape.ndims is not None else None for t in tensors]
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer(),
                      tf.tables_initializer()])
            values = sess.run(tensors, feed)
    assert [t.dtype.base_dtype.name for t in tensors] == want["dtypes"]
    for i, (t, v) in enumerate(zip(tensors, values)):
        label = f"{name}[{i}] ({t.name})"
        assert shapes[i] == want["shapes"][i], f"{label}: static shape"
        assert list(np.shape(v)) == want["value_shapes"][i], f"{label}: value shape"
        w = _decode(want["values"][i], want["dtypes"][i])
        got = np.asarray(v).reshape(-1)
        if w.dtype == object:
            got = [v.decode() if isinstance(v, bytes) else v for v in got]
            assert got == list(w), label
        else:
            np.testing.assert_allclose(got.astype(w.dtype), w, rtol=2e-5, atol=2e-6,
                                       err_msg=label)

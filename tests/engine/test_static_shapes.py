"""Static shapes follow TF1: every case of ``static_shape_cases.py`` gives the static and
runtime shapes real TensorFlow recorded (``tools/record_tf_static_shapes.py`` wrote
``static_shapes_golden.json``)."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "static_shapes_golden.json").read_text())


def _load_cases():
    spec = importlib.util.spec_from_file_location("estimator_npu_tests_static_shape_cases",
                                                  HERE / "static_shape_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


CASES = _load_cases()


def test_every_case_has_a_golden_record():
    assert sorted(CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_and_runtime_shapes_match_tf(name):
    g = tf.Graph()
    with g.as_default():
        tensors, feed = CASES[name](tf)
        with tf.Session() as sess:
            values = sess.run(tensors, feed)
    got = [{"static": None if t.shape.ndims is None else t.shape.as_list(),
            "runtime": list(np.shape(v))} for t, v in zip(tensors, values)]
    expected = GOLDEN[name]
    assert len(got) == len(expected)
    for i, (a, b) in enumerate(zip(got, expected)):
        assert a == b, f"{name}[{i}] ({tensors[i].name}): got {a}, TF gives {b}"

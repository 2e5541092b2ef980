"""slim.separable_conv2d / tf.contrib.layers.separable_conv2d against tf_slim 1.1 on
TF 2.15 (``tools/record_tf_slim_separable.py``): variable names and shapes, outputs for
pointwise / depthwise-only, strides, rate and no biases; arg_scope keys; bad input."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.contrib import layers as contrib_layers
from estimator_npu.contrib import slim

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "slim_separable_tf215.json").read_text())


def _load():
    spec = importlib.util.spec_from_file_location("estimator_npu_tests_slim_separable",
                                                  HERE / "slim_separable_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load()


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_matches_tf_slim(name):
    got = CASES.run(tf, slim, CASES.CASES[name])
    want = GOLDEN[name]
    assert got["variables"] == want["variables"]
    assert got["shape"] == want["shape"]
    np.testing.assert_allclose(got["output"], want["output"], rtol=1e-5, atol=1e-5)


def test_arg_scope_and_contrib_layers_name():
    assert contrib_layers.separable_conv2d is slim.separable_conv2d
    with tf.Graph().as_default():
        with slim.arg_scope([slim.conv2d, slim.separable_conv2d], padding="VALID",
                            activation_fn=None):
            y = slim.separable_conv2d(tf.zeros([1, 5, 5, 2]), 3, [3, 3], scope="sep")
        assert y.shape.as_list() == [1, 3, 3, 3]
        assert tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)[0].op.name == \
            "sep/depthwise_weights"


def test_bad_input():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="separable_conv2d: inputs must be 4-D"):
            slim.separable_conv2d(tf.zeros([5, 5, 2]), 3, 3)
        with pytest.raises(ValueError, match="data_format must be 'NHWC' or 'NCHW'"):
            slim.separable_conv2d(tf.zeros([1, 5, 5, 2]), 3, 3, data_format="HWC")
        with pytest.raises(ValueError, match="channel dimension must be known"):
            slim.separable_conv2d(tf.placeholder(tf.float32, [1, 5, 5, None]), 3, 3)

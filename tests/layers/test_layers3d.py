"""The 3-D tf.layers (conv3d, conv3d_transpose, max/average_pooling3d and their classes)
against real TF 2.15's outputs and gradients (tools/record_tf_layers3d.py), channels_first
against channels_last, a float64 finite-difference check and unknown static shapes."""
import pathlib
import sys

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = np.load(HERE / "golden" / "layers3d.npz")
sys.path.insert(0, str(HERE.parents[1] / "tools"))
from record_tf_layers3d import CASES  # noqa: E402


def _extra(name, fn):
    if not fn.startswith("conv"):
        return {}
    return dict(kernel_initializer=tf.constant_initializer(GOLDEN[f"{name}/kernel"]),
                bias_initializer=tf.constant_initializer(GOLDEN[f"{name}/bias"]))


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("static", [True, False])
def test_matches_tf(name, static):
    fn, shape, kw = CASES[name]
    x = GOLDEN[f"{name}/x"]
    with tf.Graph().as_default(), tf.Session() as s:
        xp = tf.placeholder(tf.float32, shape if static else [None, None, None, None, shape[-1]])
        y = getattr(tf.layers, fn)(xp, **kw, **_extra(name, fn))
        want = GOLDEN[f"{name}/y"]
        assert y.shape.as_list() == (list(want.shape) if static else [None] * 4 + [want.shape[-1]])
        assert y.op.name == str(GOLDEN[f"{name}/opname"]) or not static
        wrt = [xp] + tf.trainable_variables()
        assert [v.name for v in tf.trainable_variables()] == list(GOLDEN[f"{name}/names"])
        loss = tf.reduce_sum(y * GOLDEN[f"{name}/cot"])
        s.run(tf.global_variables_initializer())
        got = s.run([y] + tf.gradients(loss, wrt), {xp: x})
    np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[1], GOLDEN[f"{name}/dx"], rtol=1e-4, atol=1e-4)
    if fn.startswith("conv"):
        np.testing.assert_allclose(got[2], GOLDEN[f"{name}/dkernel"], rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(got[3], GOLDEN[f"{name}/dbias"], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["conv_same", "convt_valid", "max_same", "avg_same"])
def test_channels_first_and_classes_match_channels_last(name):
    fn, shape, kw = CASES[name]
    x = GOLDEN[f"{name}/x"]
    cls = {"conv3d": tf.layers.Conv3D, "conv3d_transpose": tf.layers.Conv3DTranspose,
           "max_pooling3d": tf.layers.MaxPooling3D,
           "average_pooling3d": tf.layers.AveragePooling3D}[fn]
    with tf.Graph().as_default(), tf.Session() as s:
        layer = cls(**kw, **_extra(name, fn), data_format="channels_first")
        xt = tf.constant(np.transpose(x, (0, 4, 1, 2, 3)))
        y = layer(xt)
        y2 = layer.apply(xt)                  # the same instance reuses its variables
        assert len(tf.trainable_variables()) == (2 if fn.startswith("conv") else 0)
        if fn.startswith("conv"):
            assert layer.kernel.shape.as_list() == list(GOLDEN[f"{name}/kernel"].shape)
        s.run(tf.global_variables_initializer())
        got, got2 = s.run([y, y2])
    want = np.transpose(GOLDEN[f"{name}/y"], (0, 4, 1, 2, 3))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(got, got2)


@pytest.mark.parametrize("fn,dynamic", [("conv3d", False), ("conv3d_transpose", "batch"),
                                        ("average_pooling3d", True)])
def test_float64_input_gradients_against_finite_differences(fn, dynamic, gradcheck):
    """The kernel/bias gradients are checked against TF above (float32)."""
    gc = gradcheck
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1, 3, 3, 2, 2))
    k = rng.normal(size=(2, 2, 1, 2, 2))

    def build(xs):
        if fn == "average_pooling3d":
            return tf.layers.average_pooling3d(xs, (2, 2, 1), (1, 2, 1), padding="same")
        return getattr(tf.layers, fn)(
            xs, 2, (2, 2, 1), strides=(1, 2, 1), padding="same",
            kernel_initializer=tf.constant_initializer(k),
            bias_initializer=tf.ones_initializer())
    gc.check_grads(build, [x], rng, rtol=1e-5, atol=1e-8, dynamic=dynamic)


def test_bad_arguments_are_named():
    with tf.Graph().as_default():
        x = tf.zeros([1, 4, 4, 4, 2])
        with pytest.raises(ValueError, match="conv3d: inputs must be 5-D"):
            tf.layers.conv3d(tf.zeros([1, 4, 4, 2]), 2, 3)
        with pytest.raises(ValueError, match="kernel_size must be a positive int or 3"):
            tf.layers.conv3d(x, 2, (3, 3))
        with pytest.raises(ValueError, match="max_pooling3d: padding must be"):
            tf.layers.max_pooling3d(x, 2, 2, padding="full")
        with pytest.raises(ValueError, match="channel dimension"):
            tf.layers.conv3d_transpose(tf.placeholder(tf.float32, [1, 4, 4, 4, None]), 2, 3)
        with pytest.raises(TypeError, match="floating-point"):
            tf.layers.average_pooling3d(tf.zeros([1, 4, 4, 4, 2], tf.int32), 2, 2)

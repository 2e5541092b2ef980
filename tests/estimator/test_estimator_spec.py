"""EstimatorSpec is validated per mode on construction; ModeKeys are TF1's."""
import pytest

import estimator_npu as tf
from estimator_npu import hooks as H
from estimator_npu.estimator import EstimatorSpec, ModeKeys


@pytest.fixture
def ops():
    with tf.Graph().as_default() as g:
        gs = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 2])
        loss = tf.reduce_mean(x)
        train_op = tf.assign_add(gs, 1).op
        yield g, x, loss, train_op


def test_mode_keys():
    assert (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT) == ("train", "eval", "infer")


def test_required_fields_per_mode(ops):
    g, x, loss, train_op = ops
    with pytest.raises(ValueError, match="Missing loss"):
        EstimatorSpec(ModeKeys.TRAIN, train_op=train_op)
    with pytest.raises(ValueError, match="Missing train_op"):
        EstimatorSpec(ModeKeys.TRAIN, loss=loss)
    with pytest.raises(ValueError, match="Missing loss"):
        EstimatorSpec(ModeKeys.EVAL, predictions=x)
    with pytest.raises(ValueError, match="Missing predictions"):
        EstimatorSpec(ModeKeys.PREDICT, loss=loss)
    with pytest.raises(ValueError, match="mode must be one of"):
        EstimatorSpec("training", loss=loss, train_op=train_op)
    spec = EstimatorSpec(ModeKeys.TRAIN, loss=loss, train_op=train_op)
    assert spec.eval_metric_ops == {} and spec.training_hooks == ()
    assert isinstance(spec.scaffold, H.Scaffold)
    assert EstimatorSpec(ModeKeys.PREDICT, predictions={"x": x}).predictions == {"x": x}


def test_field_types(ops):
    g, x, loss, train_op = ops
    with pytest.raises(ValueError, match="Loss must be scalar"):
        EstimatorSpec(ModeKeys.EVAL, loss=x)
    with pytest.raises(TypeError, match="loss must be a Tensor"):
        EstimatorSpec(ModeKeys.EVAL, loss=1.0)
    with pytest.raises(TypeError, match="train_op must be Operation or Tensor"):
        EstimatorSpec(ModeKeys.TRAIN, loss=loss, train_op="go")
    with pytest.raises(TypeError, match=r"predictions\['p'\] must be Tensor"):
        EstimatorSpec(ModeKeys.PREDICT, predictions={"p": 3})
    with pytest.raises(TypeError, match="eval_metric_ops must be"):
        EstimatorSpec(ModeKeys.EVAL, loss=loss, eval_metric_ops={"m": loss})
    with pytest.raises(TypeError, match="All hooks must be SessionRunHook instances"):
        EstimatorSpec(ModeKeys.TRAIN, loss=loss, train_op=train_op, training_hooks=[1])
    with pytest.raises(TypeError, match="scaffold must be tf.train.Scaffold"):
        EstimatorSpec(ModeKeys.TRAIN, loss=loss, train_op=train_op, scaffold=object())
    ok = EstimatorSpec(ModeKeys.EVAL, loss=loss, eval_metric_ops={
        "m": tf.metrics.mean(x)})
    assert set(ok.eval_metric_ops) == {"m"}


def test_tensors_must_come_from_the_default_graph(ops):
    g, x, loss, train_op = ops
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="loss must be from the default graph"):
            EstimatorSpec(ModeKeys.EVAL, loss=loss)


def test_replace_revalidates(ops):
    g, x, loss, train_op = ops
    spec = EstimatorSpec(ModeKeys.TRAIN, loss=loss, train_op=train_op)
    with pytest.raises(ValueError, match="Missing train_op"):
        spec._replace(train_op=None)

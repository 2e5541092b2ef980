"""Estimator.export_saved_model / export_savedmodel: TF's SavedModel layout, signatures from
export_outputs, and tf.saved_model.loader.load back into a session."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import tf_protos as pb


def _model_fn(features, labels, mode):
    x = features["x"]
    logits = tf.layers.dense(x, 3, name="logits")
    probs = tf.nn.softmax(logits, name="probs")
    predictions = {"probabilities": probs, "class_ids": tf.argmax(logits, 1)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _data():
    rng = np.random.RandomState(0)
    x = rng.rand(64, 4).astype(np.float32)
    y = (x[:, 0] * 3).astype(np.int32).clip(0, 2)
    return x, y


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    d = tmp_path_factory.mktemp("export")
    x, y = _data()
    est = tf.estimator.Estimator(_model_fn, model_dir=str(d / "model"))
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=16, num_epochs=2,
                                                 shuffle=False))
    return est, d, x


def _read_saved_model(export_dir):
    model = pb.SavedModel()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        model.ParseFromString(f.read())
    return model


def test_raw_receiver_export_writes_tf_layout_and_predict_signature(trained):
    est, d, x = trained
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4])})
    out = est.export_saved_model(str(d / "raw"), fn)
    assert isinstance(out, bytes)   # as TF returns it
    export_dir = out.decode()
    assert os.path.dirname(export_dir) == str(d / "raw")
    assert os.path.basename(export_dir).isdigit()
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(export_dir, "variables"))) == [
        "variables.data-00000-of-00001", "variables.index"]
    assert not [n for n in os.listdir(d / "raw") if n.startswith("temp-")]
    model = _read_saved_model(export_dir)
    assert model.saved_model_schema_version == 1
    (meta,) = model.meta_graphs
    assert list(meta.meta_info_def.tags) == ["serve"]
    sig = meta.signature_def["serving_default"]
    assert sig.method_name == "tensorflow/serving/predict"
    assert sorted(sig.inputs) == ["x"] and sorted(sig.outputs) == ["class_ids",
                                                                 "probabilities"]
    assert sig.inputs["x"].dtype == 1 and [dm.size for dm in
                                           sig.inputs["x"].tensor_shape.dim] == [-1, 4]
    # the variables are the checkpoint's
    reader = tf.train.load_checkpoint(os.path.join(export_dir, "variables", "variables"))
    np.testing.assert_array_equal(reader.get_tensor("logits/kernel"),
                                  est.get_variable_value("logits/kernel"))


def test_loader_load_serves_the_estimators_predictions(trained):
    est, d, x = trained
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4])})
    export_dir = est.export_savedmodel(str(d / "served"), fn)   # TF1's name
    want = np.stack([p["probabilities"] for p in est.predict(
        tf.estimator.inputs.numpy_input_fn({"x": x}, batch_size=64, shuffle=False))])
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING],
                                          export_dir)
        sig = meta.signature_def[
            tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        got = sess.run(sig.outputs["probabilities"].name, {sig.inputs["x"].name: x})
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_parsing_receiver_classify_signature_and_example_input(trained):
    est, d, x = trained

    def model_fn(features, labels, mode):
        spec = _model_fn(features, labels, mode)
        if mode != tf.estimator.ModeKeys.PREDICT:
            return spec
        p = spec.predictions
        classes = tf.as_string(tf.argmax(p["probabilities"], 1))
        return spec._replace(export_outputs={
            "serving_default": tf.estimator.export.ClassificationOutput(
                scores=p["probabilities"], classes=tf.reshape(classes, [-1, 1])),
            "predict": tf.estimator.export.PredictOutput(p)})

    est2 = tf.estimator.Estimator(model_fn, model_dir=est.model_dir)
    spec = {"x": tf.FixedLenFeature([4], tf.float32)}
    export_dir = est2.export_saved_model(
        str(d / "parsing"), tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    (meta,) = _read_saved_model(export_dir.decode()).meta_graphs
    assert sorted(meta.signature_def) == ["predict", "serving_default"]
    cls = meta.signature_def["serving_default"]
    assert cls.method_name == "tensorflow/serving/classify"
    assert sorted(cls.inputs) == ["inputs"] and sorted(cls.outputs) == ["classes", "scores"]
    assert cls.inputs["inputs"].name == "input_example_tensor:0"
    examples = [tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=row))})).SerializeToString()
        for row in x[:5]]
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        tf.saved_model.loader.load(sess, ["serve"], export_dir)
        scores = sess.run(cls.outputs["scores"].name, {cls.inputs["inputs"].name: examples})
    want = np.stack([p["probabilities"] for p in est.predict(
        tf.estimator.inputs.numpy_input_fn({"x": x[:5]}, batch_size=5, shuffle=False))])
    np.testing.assert_allclose(scores, want, rtol=1e-6)


def test_export_errors_name_what_is_wrong(tmp_path):
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path / "empty"))
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4])})
    with pytest.raises(ValueError, match="Couldn't find trained model"):
        est.export_saved_model(str(tmp_path / "out"), fn)
    with pytest.raises(ValueError, match="receiver_tensors"):
        tf.estimator.export.ServingInputReceiver({"x": tf.ones([1])}, {"x": 3})
    with pytest.raises(ValueError, match="scores must be a float Tensor"):
        tf.estimator.export.ClassificationOutput(scores=tf.constant([1]))
    with pytest.raises(IOError, match="SavedModel file does not exist"):
        with tf.Session(graph=tf.Graph()) as sess:
            tf.saved_model.loader.load(sess, ["serve"], str(tmp_path))


def test_real_tensorflow_loads_our_export(trained, run_real_tf):
    est, d, x = trained
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4])})
    export_dir = est.export_saved_model(str(d / "for_tf"), fn).decode()
    np.save(d / "x.npy", x)
    run_real_tf(textwrap.dedent(f"""
        with tf.Session(graph=tf.Graph()) as sess:
            meta = tf.saved_model.loader.load(sess, ["serve"], {export_dir!r})
            sig = meta.signature_def["serving_default"]
            out = sess.run(sig.outputs["probabilities"].name,
                           {{sig.inputs["x"].name: np.load({str(d / 'x.npy')!r})}})
        np.save({str(d / 'tf_out.npy')!r}, out)
    """))
    want = np.stack([p["probabilities"] for p in est.predict(
        tf.estimator.inputs.numpy_input_fn({"x": x}, batch_size=64, shuffle=False))])
    np.testing.assert_allclose(np.load(d / "tf_out.npy"), want, rtol=1e-5)


def test_module_is_importable_as_tf_path():
    code = ("import estimator_npu.compat as c; c.install(); import tensorflow as tf; "
            "print(tf.estimator.export.ServingInputReceiver.__name__, "
            "tf.saved_model.tag_constants.SERVING)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                             os.path.abspath(__file__)))))
    assert out.stdout.split() == ["ServingInputReceiver", "serve"], out.stderr[-2000:]


def test_loader_names_the_tags_it_did_not_find(trained):
    est, d, x = trained
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4])})
    export_dir = est.export_saved_model(str(d / "tags"), fn)
    with pytest.raises(RuntimeError, match=r"tags \['train'\].*has tags \[\['serve'\]\]"):
        with tf.Session(graph=tf.Graph()) as sess:
            tf.saved_model.loader.load(sess, ["train"], export_dir)


def test_train_and_evaluate_runs_the_eval_specs_exporters(tmp_path):
    x, y = _data()
    config = tf.estimator.RunConfig(save_checkpoints_steps=2)
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path / "m"), config=config)
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4])})
    train = tf.estimator.TrainSpec(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, y, batch_size=16, num_epochs=None, shuffle=False), max_steps=6)
    latest = tf.estimator.LatestExporter("latest", fn, exports_to_keep=1)
    final = tf.estimator.FinalExporter("final", fn)
    evals = tf.estimator.EvalSpec(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, y, batch_size=32, shuffle=False), steps=1, throttle_secs=0,
        exporters=[latest, final])
    metrics, exports = tf.estimator.train_and_evaluate(est, train, evals)
    assert metrics["global_step"] == 6
    base = tmp_path / "m" / "export"
    assert [p for p in exports if p is not None] and all(isinstance(p, bytes) for p in exports)
    assert len(os.listdir(base / "latest")) == 1       # older exports pruned
    assert len(os.listdir(base / "final")) == 1        # only after the final evaluation
    (meta,) = _read_saved_model(str(base / "final" / os.listdir(base / "final")[0])).meta_graphs
    assert "serving_default" in meta.signature_def


def test_best_exporter_exports_only_on_a_smaller_loss(tmp_path, trained):
    est, d, x = trained
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4])})
    best = tf.estimator.BestExporter("best", fn, exports_to_keep=None)
    ckpt = est.latest_checkpoint()
    path = str(tmp_path / "best")
    assert best.export(est, path, ckpt, {"loss": 1.0}, False) is not None
    assert best.export(est, path, ckpt, {"loss": 2.0}, False) is None
    import time
    time.sleep(1.1)  # export directories are named by the second
    assert best.export(est, path, ckpt, {"loss": 0.5}, False) is not None
    assert len(os.listdir(path)) == 2

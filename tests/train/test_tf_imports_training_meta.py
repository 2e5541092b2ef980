"""Real TF imports the training graph of an Estimator-trained model (our ``.meta``):
``tf.train.import_meta_graph``, restore of our checkpoint, one more step through the
imported ``train_op`` and the loss, all matching what estimator_npu computed."""
import glob
import json
import os

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import graph_def as gd
from estimator_npu.engine import tf_protos as pb

RNG = np.random.RandomState(0)
X = RNG.rand(8, 6, 6, 2).astype(np.float32)
Y = RNG.randint(0, 3, 8).astype(np.int32)
OPTIMIZERS = {"adam": lambda: tf.train.AdamOptimizer(0.01),
              "momentum": lambda: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
              "sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
              "adadelta": lambda: tf.train.AdadeltaOptimizer(0.5, rho=0.9, epsilon=1e-6),
              "ftrl": lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01,
                                                     l2_regularization_strength=0.02),
              "ftrl_v2": lambda: tf.train.FtrlOptimizer(
                  0.1, l1_regularization_strength=0.001,
                  l2_shrinkage_regularization_strength=0.05),
              "proximal_adagrad": lambda: tf.train.ProximalAdagradOptimizer(
                  0.1, l1_regularization_strength=0.001, l2_regularization_strength=0.02),
              "proximal_gd": lambda: tf.train.ProximalGradientDescentOptimizer(
                  0.1, l1_regularization_strength=0.001, l2_regularization_strength=0.02),
              "lamb": lambda: tf.train.LAMBOptimizer(
                  0.01, weight_decay_rate=0.01, exclude_from_weight_decay=["bias", "beta"]),
              # loss scaling: the update and the global step only when the gradients are
              # finite (a Switch in TF), the manager's rule (Selects, Assigns) every step
              "loss_scale": lambda: tf.npu.NPULossScaleOptimizer(
                  tf.train.MomentumOptimizer(0.05, 0.9),
                  tf.npu.ExponentialUpdateLossScaleManager(2 ** 10, incr_every_n_steps=2))}

TRAIN_OP = {"adam": "Adam", "momentum": "Momentum", "sgd": "GradientDescent",
            "adadelta": "Adadelta", "ftrl": "Ftrl", "ftrl_v2": "Ftrl",
            "proximal_adagrad": "ProximalAdagrad", "loss_scale": "NPULossScaleOptimizer_update",
            "proximal_gd": "ProximalGradientDescent", "lamb": "LAMBOptimizer"}


def _model_fn(optimizer):
    def model_fn(features, labels, mode):
        training = mode == tf.estimator.ModeKeys.TRAIN
        # no conv bias: batch norm cancels it, its gradient is rounding noise that Adam
        # would scale up to full steps (differently in TF and here)
        h = tf.layers.conv2d(features, 4, 3, padding="same", use_bias=False, name="conv")
        h = tf.layers.batch_normalization(h, training=training, name="bn")
        h = tf.layers.max_pooling2d(tf.nn.relu(h), 2, 2)
        h = tf.layers.dropout(tf.layers.flatten(h), 0.3, training=training)
        logits = tf.layers.dense(h, 3, name="logits")
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train_op = OPTIMIZERS[optimizer]().minimize(
                loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


class _Capture(tf.train.SessionRunHook):
    """Fetches the loss, the dropout noise and the batch of every step."""

    def __init__(self):
        self.steps = []

    def begin(self):
        g = tf.get_default_graph()
        noise = [op for op in g.get_operations() if op.name.startswith("dropout/") and
                 op.type.startswith("RandomUniform")]
        assert len(noise) == 1, [op.name for op in noise]
        self.fetches = {"noise": noise[0].outputs[0],
                        "loss": g.get_collection(tf.GraphKeys.LOSSES)[0],
            "x": g.get_tensor_by_name("IteratorGetNext:0"),
            "y": g.get_tensor_by_name("IteratorGetNext:1")}

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self.fetches)

    def after_run(self, run_context, run_values):
        self.steps.append(run_values.results)


def _meta(path):
    with open(path, "rb") as f:
        return pb.MetaGraphDef.FromString(f.read())


def _train(model_dir, optimizer):
    est = tf.estimator.Estimator(_model_fn(optimizer), model_dir,
                                 config=tf.estimator.RunConfig(tf_random_seed=1))
    est.train(lambda: tf.data.Dataset.from_tensors((X, Y)).repeat(), steps=3)
    capture = _Capture()
    est.train(lambda: tf.data.Dataset.from_tensors((X, Y)).repeat(), steps=1,
              hooks=[capture])
    return capture


def test_training_meta_graph_has_only_tf_op_types(tmp_path):
    _train(str(tmp_path), "adam")
    meta = _meta(tmp_path / "model.ckpt-3.meta")
    types = {n.op for n in meta.graph_def.node}
    for ours in ("ApplyUpdates", "BroadcastReduced", "SumToShape", "ReshapeLike",
                 "ReportUninitialized", "MakeIterator"):
        assert ours not in types
    assert {"ApplyAdam", "AssignAdd", "IteratorGetNext", "IteratorV2",
            "Conv2DBackpropFilter", "MaxPoolGrad"} <= types
    nodes = {n.name: n for n in meta.graph_def.node}
    assert len(nodes) == len(meta.graph_def.node)          # names are unique
    adam = nodes["Adam/update_conv/kernel/ApplyAdam"]
    assert list(adam.input) == ["conv/kernel", "conv/kernel/Adam", "conv/kernel/Adam_1",
                                "beta1_power", "beta2_power", "Adam/learning_rate",
                                "Adam/beta1", "Adam/beta2", "Adam/epsilon",
                                adam.input[-2], "^Adam/gradients_ready"]
    assert nodes["Adam"].op == "AssignAdd" and nodes["Adam"].input[0] == "global_step"
    lr = gd.tensor_proto_value(nodes["Adam/learning_rate"].attr["value"].tensor)
    assert lr.dtype == np.float32 and lr == np.float32(0.01)


_TF_STEP = """
import json, sys
model_dir, feeds = sys.argv[1], json.load(open(sys.argv[2]))
with tf.Session() as sess:
    saver = tf.train.import_meta_graph(model_dir + "/model.ckpt-3.meta")
    saver.restore(sess, model_dir + "/model.ckpt-3")
    g = tf.get_default_graph()
    feed = {g.get_tensor_by_name(k): np.asarray(v, dtype=np.float32 if k != "IteratorGetNext:1"
                                                 else np.int32) for k, v in feeds.items()}
    train_op = g.get_operation_by_name(sys.argv[4])
    loss = g.get_collection(tf.GraphKeys.LOSSES)[0]
    before, _ = sess.run([loss, train_op], feed)
    after = sess.run(loss, feed)
    names = [v.op.name for v in tf.global_variables()]
    values = sess.run(tf.global_variables())
out = {"before": float(before), "after": float(after),
       "vars": {n: np.asarray(v).tolist() for n, v in zip(names, values)}}
json.dump(out, open(sys.argv[3], "w"))
"""


@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_real_tf_imports_restores_and_trains_our_meta_graph(tmp_path, run_real_tf, optimizer):
    model_dir = str(tmp_path / "model")
    steps = _train(model_dir, optimizer).steps
    assert len(steps) == 1
    step = steps[0]
    np.testing.assert_array_equal(step["x"], X)
    noise_name = [n.name for n in _meta(os.path.join(model_dir, "model.ckpt-3.meta"))
                  .graph_def.node if n.name.startswith("dropout/") and n.op == "RandomUniform"]
    assert len(noise_name) == 1
    feeds = {"IteratorGetNext:0": X.tolist(), "IteratorGetNext:1": Y.tolist(),
             noise_name[0] + ":0": step["noise"].tolist()}
    feeds_path, out_path = tmp_path / "feeds.json", tmp_path / "out.json"
    feeds_path.write_text(json.dumps(feeds))
    code = _TF_STEP.replace("sys.argv[1]", repr(model_dir)).replace(
        "sys.argv[2]", repr(str(feeds_path))).replace("sys.argv[3]", repr(str(out_path))).replace("sys.argv[4]", repr(TRAIN_OP[optimizer]))
    run_real_tf(code)
    got = json.loads(out_path.read_text())
    # the loss of the step TF ran equals ours; after it every variable (weights, Adam's
    # slots and powers, batch norm's moving averages, the global step) equals our ckpt-4
    np.testing.assert_allclose(got["before"], step["loss"], rtol=1e-5)
    ours = tf.train.load_checkpoint(os.path.join(model_dir, "model.ckpt-4"))
    assert sorted(got["vars"]) == sorted(ours.get_variable_to_shape_map())
    for name, value in got["vars"].items():
        np.testing.assert_allclose(np.asarray(value), ours.get_tensor(name), rtol=2e-5,
                                   atol=1e-6, err_msg=name)
    assert got["vars"]["global_step"] == 4
    assert np.isfinite(got["after"]) and got["after"] != got["before"]
    assert glob.glob(os.path.join(model_dir, "model.ckpt-4.*"))


def _broad_graph(kind, model_dir):
    """Dense layers, concat, embedding lookup, one-hot, dense and sigmoid softmax
    losses, MSE, L2, average pooling, a decayed learning rate, global-norm clipping and
    summaries; one step, ckpt-1 (with .meta), a second step, ckpt-2."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        gs = tf.train.get_or_create_global_step()
        h = tf.layers.average_pooling2d(tf.layers.conv2d(x, 4, 3, activation=tf.nn.relu),
                                        2, 2)
        h = tf.layers.dense(tf.layers.flatten(h), 16, activation=tf.nn.tanh)
        h = tf.concat([h, tf.layers.dense(h, 16, activation=tf.nn.sigmoid)], axis=1)
        emb = tf.get_variable("emb", [10, 32])
        h = h + tf.reduce_mean(tf.nn.embedding_lookup(emb, y % 10), axis=0)
        logits = tf.layers.dense(h, 5)
        onehot = tf.one_hot(y, 5)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=onehot, logits=logits))
        loss += tf.losses.sigmoid_cross_entropy(onehot, logits) + 1e-3 * tf.nn.l2_loss(emb)
        loss += tf.losses.mean_squared_error(onehot, tf.nn.softmax(logits))
        lr = tf.train.exponential_decay(0.1, gs, 10, 0.9)
        opt = {"rmsprop_centered": lambda: tf.train.RMSPropOptimizer(lr, momentum=0.5,
                                                                     centered=True),
               "adagrad": lambda: tf.train.AdagradOptimizer(lr)}[kind]()
        grads, variables = zip(*opt.compute_gradients(loss))
        grads, _ = tf.clip_by_global_norm(grads, 5.0)
        train = opt.apply_gradients(zip(grads, variables), global_step=gs)
        tf.summary.scalar("loss", loss)
        tf.summary.histogram("logits", logits)
        tf.summary.merge_all()
        rng = np.random.RandomState(0)
        feed = {x: rng.rand(4, 8, 8, 3).astype(np.float32), y: rng.randint(0, 5, 4)}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, feed)
            saver = tf.train.Saver()
            saver.save(sess, os.path.join(model_dir, "model.ckpt"), global_step=1)
            loss_at_1, _ = sess.run([loss, train], feed)
            saver.save(sess, os.path.join(model_dir, "model.ckpt"), global_step=2,
                       write_meta_graph=False)
    return feed[x], feed[y], train.name, loss.name, loss_at_1


_TF_BROAD = """
import json, sys
d = sys.argv[1]
data = np.load(d + "/feed.npz")
with tf.Session() as sess:
    saver = tf.train.import_meta_graph(d + "/model.ckpt-1.meta")
    saver.restore(sess, d + "/model.ckpt-1")
    g = tf.get_default_graph()
    sess.run(g.get_operation_by_name(sys.argv[2]), {"x:0": data["x"], "y:0": data["y"]})
    names = [v.op.name for v in tf.global_variables()]
    values = sess.run(tf.global_variables())
np.savez(d + "/tf.npz", **dict(zip(names, values)))
"""


@pytest.mark.parametrize("kind", ["rmsprop_centered", "adagrad"])
def test_real_tf_trains_a_broad_graph_as_we_do(tmp_path, run_real_tf, kind):
    d = str(tmp_path)
    xs, ys, train, _, _ = _broad_graph(kind, d)
    np.savez(os.path.join(d, "feed.npz"), x=xs, y=ys)
    run_real_tf(_TF_BROAD.replace("sys.argv[1]", repr(d)).replace("sys.argv[2]",
                                                                  repr(train)))
    ours = tf.train.load_checkpoint(os.path.join(d, "model.ckpt-2"))
    with np.load(os.path.join(d, "tf.npz")) as got:
        assert sorted(got.files) == sorted(ours.get_variable_to_shape_map())
        for name in got.files:
            np.testing.assert_allclose(got[name], ours.get_tensor(name), rtol=1e-5,
                                       atol=1e-7, err_msg=name)


def test_our_import_of_a_training_meta_graph_computes_its_loss(tmp_path):
    """import_meta_graph here: the forward part of the training graph (gathers, one-hot,
    concat, both cross-entropies, fills) is rebuilt and computes the loss exactly; the
    update op comes back whole, as our ApplyUpdates (its record, graph_def_spec), rather
    than as TF's ApplyAdagrad nodes."""
    d = str(tmp_path)
    xs, ys, _, loss_name, want = _broad_graph("adagrad", d)
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(os.path.join(d, "model.ckpt-1.meta"))
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(d, "model.ckpt-1"))
            got = sess.run(loss_name, {"x:0": xs, "y:0": ys})
        skipped = set(getattr(g, "_skipped_imports", {}).values())
        types = {op.type for op in g.get_operations()}
        train_ops = [op.type for op in tf.get_collection(tf.GraphKeys.TRAIN_OP)]
    np.testing.assert_array_equal(got, want)
    assert not skipped and "ApplyAdagrad" not in types and train_ops == ["ApplyUpdates"]

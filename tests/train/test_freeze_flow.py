"""The classic TF1 inference flow: train, freeze (convert_variables_to_constants,
remove_training_nodes), write the .pb, import it and run it, here and in real TF."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import tf_protos as pb


def _train_and_freeze():
    rng = np.random.RandomState(0)
    xs = rng.rand(64, 8, 8, 1).astype(np.float32)
    ys = (xs.mean(axis=(1, 2, 3)) > 0.5).astype(np.int64)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="input")
        y = tf.placeholder(tf.int64, [None])
        training = tf.placeholder_with_default(False, [], name="is_training")
        net = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
        net = tf.layers.batch_normalization(net, training=training)
        net = tf.layers.dropout(tf.layers.flatten(net), 0.5, training=training)
        net = tf.identity(tf.layers.dense(net, 2), name="logits_id")
        prob = tf.nn.softmax(net, name="output")
        loss = tf.losses.sparse_softmax_cross_entropy(y, net)
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.AdamOptimizer(1e-2).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(10):
                sess.run(train, {x: xs[i * 6:i * 6 + 6], y: ys[i * 6:i * 6 + 6], training: True})
            frozen = tf.graph_util.convert_variables_to_constants(sess, sess.graph_def,
                                                                  ["output"])
            frozen = tf.graph_util.remove_training_nodes(frozen)
            want = sess.run(prob, {x: xs[:5]})
    return frozen, xs[:5], want


def test_frozen_graph_imports_and_matches_the_session():
    frozen, xs, want = _train_and_freeze()
    types = {n.op for n in frozen.node}
    assert "VariableV2" not in types and "Identity" not in types
    with tf.Graph().as_default() as g:
        tf.import_graph_def(pb.GraphDef.FromString(frozen.SerializeToString()), name="")
        with tf.Session(graph=g) as sess:
            got = sess.run("output:0", {"input:0": xs})
    np.testing.assert_array_equal(got, want)


def test_remove_training_nodes_splices_identities_and_drops_check_numerics():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [2], name="a")
        b = tf.identity(tf.identity(a, name="id1"), name="id2")
        c = tf.check_numerics(b, "bad", name="check")
        keep = tf.identity(a, name="kept")
        with tf.control_dependencies([keep]):
            tf.add(b, 1.0, name="out")
        tf.identity(c, name="guarded")
    out = tf.graph_util.remove_training_nodes(g.as_graph_def(), protected_nodes=["guarded"])
    nodes = {n.name: n for n in out.node}
    assert "id1" not in nodes and "id2" not in nodes and "check" not in nodes
    assert "kept" in nodes                       # a control input of "out"
    assert list(nodes["out"].input)[0] == "a" and "^kept" in nodes["out"].input
    assert "guarded" in nodes and list(nodes["guarded"].input) == []


def test_remove_training_nodes_rejects_what_is_not_a_graph_def():
    with pytest.raises(TypeError, match="input_graph must be a GraphDef, got Graph"):
        tf.graph_util.remove_training_nodes(tf.Graph())
    with pytest.raises(TypeError, match="protected_nodes must be a list"):
        tf.graph_util.remove_training_nodes(tf.Graph().as_graph_def(), "output")


def test_real_tensorflow_runs_the_frozen_graph(tmp_path, run_real_tf):
    frozen, xs, want = _train_and_freeze()
    (tmp_path / "frozen.pb").write_bytes(frozen.SerializeToString())
    np.save(tmp_path / "x.npy", xs)
    run_real_tf(
        f"gd = tf.GraphDef.FromString(open({str(tmp_path / 'frozen.pb')!r}, 'rb').read())\n"
        "with tf.Graph().as_default():\n"
        "    tf.import_graph_def(gd, name='')\n"
        "    with tf.Session() as s:\n"
        f"        out = s.run('output:0', {{'input:0': np.load({str(tmp_path / 'x.npy')!r})}})\n"
        f"np.save({str(tmp_path / 'out.npy')!r}, out)\n")
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), want, rtol=1e-5, atol=1e-6)

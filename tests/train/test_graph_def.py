"""Graphs in TF's format: GraphDef export with TF's op types and attrs, write_graph,
MetaGraphDef in .meta, import_graph_def / import_meta_graph of our graphs and real TF's
(golden files from tools/record_tf_checkpoints.py)."""
import glob
import os

import numpy as np
import pytest
from google.protobuf import text_format

import estimator_npu as tf
from estimator_npu.engine import tf_protos as pb

GRAPHS = os.path.join(os.path.dirname(__file__), "golden_tf", "graphs")
EXPECTED = np.load(os.path.join(GRAPHS, "mlp_expected.npz"))


def _text(path):
    with open(path) as f:
        return f.read()


def _bytes(path):
    with open(path, "rb") as f:
        return f.read()


def _mlp(w_value=None, b_value=None):
    """The golden MLP, built with our API (same names as TF's recorder script)."""
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(rng.standard_normal((3, 2)).astype(np.float32) if w_value is None
                    else w_value, name="w")
    b = tf.Variable(np.zeros(2, np.float32) if b_value is None else b_value, name="b")
    h = tf.nn.relu(tf.matmul(x, w) + b, name="hidden")
    y = tf.nn.softmax(tf.matmul(h, w, transpose_b=True), name="probs")
    total = tf.identity(tf.reduce_sum(y, axis=1), name="total")
    return x, w, b, h, total


def _nodes(gd):
    return {n.name: n for n in gd.node}


def test_graph_def_has_tf_op_types_attrs_and_control_edges():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 3], name="images")
        k = tf.Variable(np.ones((3, 3, 3, 4), np.float32), name="conv/weights")
        y = tf.nn.conv2d(x, k, [1, 2, 2, 1], "SAME", name="conv/Conv2D")
        p = tf.nn.max_pool(y, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", name="pool")
        m = tf.matmul(tf.reshape(p, [-1, 16]), tf.ones([16, 2]), transpose_a=False,
                      name="fc")
        with tf.control_dependencies([m]):
            tf.no_op(name="after")
        gd = g.as_graph_def()
    assert isinstance(gd, pb.GraphDef) and gd.versions.producer > 0
    n = _nodes(gd)
    assert n["images"].op == "Placeholder" and n["images"].attr["dtype"].type == 1
    assert [d.size for d in n["images"].attr["shape"].shape.dim] == [-1, 8, 8, 3]
    assert n["conv/weights"].op == "VariableV2"
    assert n["conv/weights/Assign"].op == "Assign"
    assert list(n["conv/weights/Assign"].input) == ["conv/weights", "conv/weights/initial_value"] \
        or n["conv/weights/Assign"].input[0] == "conv/weights"
    conv = n["conv/Conv2D"]
    assert conv.op == "Conv2D" and list(conv.input) == ["images", "conv/weights"]
    assert list(conv.attr["strides"].list.i) == [1, 2, 2, 1]
    assert conv.attr["padding"].s == b"SAME" and conv.attr["data_format"].s == b"NHWC"
    assert conv.attr["T"].type == 1
    assert list(n["pool"].attr["ksize"].list.i) == [1, 2, 2, 1]
    assert n["fc"].op == "MatMul" and n["fc"].attr["transpose_a"].b is False
    assert "transpose_b" in n["fc"].attr
    assert list(n["after"].input) == ["^fc"]
    reshape = [v for v in n.values() if v.op == "Reshape"][0]
    shape_const = n[reshape.input[1]]
    assert shape_const.op == "Const" and list(np.frombuffer(
        shape_const.attr["value"].tensor.tensor_content, np.int32)) == [-1, 16]


def test_our_mlp_graph_def_matches_tfs_node_layout():
    tf_gd = text_format.Parse(_text(os.path.join(GRAPHS, "mlp.pbtxt")), pb.GraphDef())
    g = tf.Graph()
    with g.as_default():
        _mlp()
        ours = g.as_graph_def()
    ours_by_op = {}
    for node in ours.node:
        ours_by_op.setdefault(node.op, node)
    for node in tf_gd.node:
        op = "Add" if node.op == "AddV2" else node.op
        assert op in ours_by_op, f"no {node.op} in our GraphDef"
        mine = ours_by_op[op]
        public = {k for k in node.attr if not k.startswith("_")}
        assert public == {k for k in mine.attr if not k.startswith("_")}, node.op
        for key in public:
            assert node.attr[key].WhichOneof("value") == mine.attr[key].WhichOneof("value")


def test_import_tf_graph_def_text_and_binary_and_run():
    text = text_format.Parse(_text(os.path.join(GRAPHS, "mlp.pbtxt")), pb.GraphDef())
    with open(os.path.join(GRAPHS, "mlp.pb"), "rb") as f:
        binary = pb.GraphDef.FromString(f.read())
    assert text == binary
    for gd, scope in [(text, None), (binary, "net")]:
        g = tf.Graph()
        with g.as_default():
            x_in = tf.placeholder(tf.float32, [None, 3], name="feed")
            total, op = tf.import_graph_def(gd, input_map={"x:0": x_in},
                                            return_elements=["total:0", "hidden"],
                                            name=scope)
            prefix = "import/" if scope is None else scope + "/"
            assert op.name == prefix + "hidden" and total.name == prefix + "total:0"
            with tf.Session() as sess:
                sess.run([g.get_operation_by_name(prefix + "w/Assign"),
                          g.get_operation_by_name(prefix + "b/Assign")])
                np.testing.assert_allclose(sess.run(total, {x_in: EXPECTED["x"]}),
                                           EXPECTED["total"], rtol=1e-6)


def test_import_tf_meta_graph_restore_and_get_tensor_by_name():
    g = tf.Graph()
    with g.as_default():
        saver = tf.train.import_meta_graph(os.path.join(GRAPHS, "mlp.ckpt.meta"))
        assert sorted(v.op.name for v in tf.global_variables()) == ["b", "w"]
        assert sorted(v.op.name for v in tf.trainable_variables()) == ["b", "w"]
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(GRAPHS, "mlp.ckpt"))
            hidden = g.get_tensor_by_name("hidden:0")
            out = sess.run(hidden, {g.get_tensor_by_name("x:0"): EXPECTED["x"]})
    np.testing.assert_allclose(out, EXPECTED["hidden"], rtol=1e-6)


def test_saver_meta_round_trip_inference_flow(tmp_path):
    g = tf.Graph()
    with g.as_default():
        x, w, b, h, total = _mlp()
        tf.add_to_collection("outputs", total)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(total, {x: EXPECTED["x"]})
            path = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"), global_step=3)
    meta = pb.MetaGraphDef.FromString(_bytes(path + ".meta"))
    assert meta.graph_def.node and "variables" in meta.collection_def
    names = [pb.VariableDef.FromString(v).variable_name
             for v in meta.collection_def["variables"].bytes_list.value]
    assert names == ["w:0", "b:0"]
    assert list(meta.collection_def["outputs"].node_list.value) == ["total:0"]
    g = tf.Graph()
    with g.as_default():
        saver = tf.train.import_meta_graph(path + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, path)
            out = tf.get_collection("outputs")[0]
            np.testing.assert_array_equal(sess.run(out, {"x:0": EXPECTED["x"]}), want)


def test_write_graph_text_and_binary(tmp_path):
    g = tf.Graph()
    with g.as_default():
        _mlp()
    p1 = tf.train.write_graph(g, str(tmp_path), "g.pbtxt")
    p2 = tf.train.write_graph(g.as_graph_def(), str(tmp_path / "sub"), "g.pb", as_text=False)
    a = text_format.Parse(_text(p1), pb.GraphDef())
    with open(p2, "rb") as f:
        assert a == pb.GraphDef.FromString(f.read()) == g.as_graph_def()


def test_unknown_op_type_names_itself():
    gd = pb.GraphDef()
    gd.node.add(name="weird", op="FancyNewOp")
    with tf.Graph().as_default(), pytest.raises(ValueError, match="FancyNewOp.*weird"):
        tf.import_graph_def(gd)


def test_estimator_writes_graph_pbtxt_and_meta_graph_event(tmp_path):
    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [1], initializer=tf.zeros_initializer())
        loss = tf.reduce_sum(tf.square(w - features["x"]))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_or_create_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(lambda: tf.data.Dataset.from_tensors(({"x": [1.0]}, [0.0])).repeat(), steps=2)
    gd = text_format.Parse(_text(tmp_path / "graph.pbtxt"), pb.GraphDef())
    assert {"VariableV2", "Assign"} <= {n.op for n in gd.node}
    events = [e for f in glob.glob(str(tmp_path / "events.out.tfevents.*"))
              for e in tf.train.summary_iterator(f)]
    metas = [e for e in events if e.meta_graph_def]
    assert metas, "no meta_graph event"
    meta = pb.MetaGraphDef.FromString(metas[0].meta_graph_def)
    assert any(n.name == "w" for n in meta.graph_def.node)
    assert any(e.graph_def for e in events), "no graph event"
    assert pb.MetaGraphDef.FromString(_bytes(est.latest_checkpoint() + ".meta")).graph_def.node


def test_frozen_graph_idiom_with_tf_names_and_pb2_paths():
    from estimator_npu.core.framework import graph_pb2, tensor_pb2
    from estimator_npu.core.protobuf import meta_graph_pb2, saver_pb2
    gd = tf.GraphDef()
    gd.ParseFromString(_bytes(os.path.join(GRAPHS, "mlp.pb")))
    assert isinstance(gd, graph_pb2.GraphDef) and meta_graph_pb2.MetaGraphDef and \
        saver_pb2.SaverDef
    assert {n.op for n in gd.node} >= {"MatMul", "VariableV2", "Softmax"}
    t = tf.make_tensor_proto(np.arange(6, dtype=np.int64).reshape(2, 3))
    assert isinstance(t, tensor_pb2.TensorProto) and t.dtype == 9
    np.testing.assert_array_equal(tf.make_ndarray(t), np.arange(6).reshape(2, 3))
    w_init = [n for n in gd.node if n.name == "w/initial_value"][0]
    np.testing.assert_array_equal(tf.make_ndarray(w_init.attr["value"].tensor).shape, [3, 2])


def test_default_op_names_are_tfs():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.nn.relu(tf.matmul(x, tf.ones([3, 3])) + 1.0) * 2.0
        assert [x.op.name, y.op.inputs[0].op.name, y.op.name] == ["Placeholder", "Relu", "mul"]
        assert tf.reduce_sum(y).op.name == "Sum"


def test_import_tf_training_meta_graph_for_inference(caplog):
    """A TF training graph (initializers, gradients, optimizer ops): the inference part
    imports, restores and runs; what was left out is named when asked for."""
    exp = np.load(os.path.join(GRAPHS, "train_expected.npz"))
    g = tf.Graph()
    with g.as_default():
        saver = tf.train.import_meta_graph(os.path.join(GRAPHS, "train.ckpt-1.meta"))
        assert sorted(v.op.name for v in tf.trainable_variables()) == [
            "dense/bias", "dense/kernel", "logits/bias", "logits/kernel"]
        assert [v.op.name for v in tf.get_collection("global_step")] == ["global_step"]
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(GRAPHS))
            assert sess.run(tf.get_collection("global_step")[0]) == 1
            np.testing.assert_allclose(sess.run("probs:0", {"x:0": exp["x"]}), exp["probs"],
                                       rtol=1e-6)
        with pytest.raises(KeyError, match="GradientDescent.*left out on import.*type"):
            g.get_operation_by_name("GradientDescent")
    assert any("ApplyGradientDescent" in r.getMessage() for r in caplog.records)


def test_freeze_graph_with_convert_variables_to_constants(tmp_path):
    g = tf.Graph()
    with g.as_default():
        x, w, b, h, total = _mlp()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(total, {x: EXPECTED["x"]})
            frozen = tf.graph_util.convert_variables_to_constants(sess, sess.graph_def,
                                                                  ["total"])
    assert not any(n.op in ("VariableV2", "Assign") for n in frozen.node)
    assert {"w", "b"} <= {n.name for n in frozen.node if n.op == "Const"}
    path = tf.train.write_graph(frozen, str(tmp_path), "frozen.pb", as_text=False)
    gd = tf.GraphDef()
    gd.ParseFromString(_bytes(path))
    g = tf.Graph()
    with g.as_default():
        out, = tf.import_graph_def(gd, return_elements=["total:0"], name="")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out, {"x:0": EXPECTED["x"]}), want)
    with pytest.raises(AssertionError, match="nope is not in graph"):
        tf.graph_util.extract_sub_graph(gd, ["nope"])


def test_import_tf_inference_graph_with_more_op_types():
    """Conv2D, FusedBatchNormV3 (inference), Relu6, LeakyRelu, Pad, ConcatV2, Squeeze,
    ExpandDims, Shape, StridedSlice, Pack, ArgMax, PlaceholderWithDefault from real TF."""
    exp = np.load(os.path.join(GRAPHS, "ops_expected.npz"))
    gd = tf.GraphDef()
    gd.ParseFromString(_bytes(os.path.join(GRAPHS, "ops.pb")))
    g = tf.Graph()
    with g.as_default():
        z, classes = tf.import_graph_def(gd, return_elements=["z:0", "classes:0"], name="")
        with tf.Session() as sess:
            got_z, got_c = sess.run([z, classes])
    np.testing.assert_allclose(got_z, exp["z"], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got_c, exp["classes"])
    assert g.get_operation_by_name("strided_slice").type == "Identity"
    assert g.get_operation_by_name("FusedBatchNormV3").type == "Identity"


def test_large_uniform_constants_are_one_repeated_value(tmp_path):
    # A zeros initializer of a big variable costs a few bytes in graph.pbtxt / .meta (as TF
    # writes tf.constant(0., shape=...)), and imports back to the same value.
    g = tf.Graph()
    with g.as_default():
        w = tf.get_variable("w", [300, 400], initializer=tf.zeros_initializer())
        tf.get_variable("h", [2000], tf.float16, initializer=tf.constant_initializer(-0.0))
        small = tf.constant([1.0] * 8, name="small")
        mixed = tf.constant(np.arange(2000, dtype=np.int32), name="mixed")
    gd = g.as_graph_def()
    assert gd.ByteSize() < 12000      # 'mixed' holds 8000 bytes; w alone would be 480000
    consts = {n.name: n.attr["value"].tensor for n in gd.node if n.op == "Const"}
    init = [t for n, t in consts.items() if n.startswith("w/")][0]
    assert list(init.float_val) == [0.0] and not init.tensor_content
    assert consts["small"].tensor_content and consts["mixed"].tensor_content
    tf.io.write_graph(gd, str(tmp_path), "g.pbtxt")
    assert os.path.getsize(tmp_path / "g.pbtxt") < 50000
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            values = sess.run({n: g2.get_tensor_by_name(n + ":0") for n in consts})
    for n, t in consts.items():
        np.testing.assert_array_equal(values[n], tf.make_ndarray(t))
    w_init = [v for n, v in values.items() if n.startswith("w/")][0]
    assert w_init.shape == (300, 400) and not w_init.any()
    h_init = [v for n, v in values.items() if n.startswith("h/")][0]
    assert h_init.dtype == np.float16 and np.signbit(h_init).all()
    np.testing.assert_array_equal(values["mixed"], np.arange(2000))
    del w, small, mixed

"""export_meta_graph -> import_meta_graph of graphs estimator_npu built: every op comes
back (queues and queue runners, LSTMBlock and its gradient, dynamic strided slices,
the fused optimizer updates, AssignAdd, summaries), and the imported train_op and
fetches give the numbers the original graph gives (the ptb_word_lm tutorial's idiom:
export, import into a new graph, train there)."""
import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import tf_protos as pb
from estimator_npu.train import graph_def_spec


def _reparse(meta):
    """The MetaGraphDef as a file would give it back (bytes, parsed again)."""
    return pb.MetaGraphDef.FromString(meta.SerializeToString())


def _lstm_model(optimizer):
    """A 2-step LSTMBlockCell model on a dynamically sliced input, trained by
    ``optimizer`` with a global step; fixed initial values."""
    rng = np.random.default_rng(0)
    data = tf.placeholder(tf.float32, [3, 8, 4], name="data")
    step = tf.placeholder(tf.int32, [], name="step")
    window = tf.strided_slice(data, [0, step * 2, 0], [3, (step + 1) * 2, 4])
    cell = tf.contrib.rnn.LSTMBlockCell(5, forget_bias=0.0)
    state = cell.zero_state(3, tf.float32)
    outputs = []
    with tf.variable_scope("rnn", initializer=tf.constant_initializer(0.1)):
        for t in range(2):
            if t:
                tf.get_variable_scope().reuse_variables()
            out, state = cell(window[:, t, :], state)
            outputs.append(out)
    w = tf.Variable(rng.standard_normal((5, 2)).astype(np.float32), name="w")
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.concat(outputs, 0), w)), name="loss")
    grads = tf.gradients(loss, tf.trainable_variables())
    clipped, _ = tf.clip_by_global_norm(grads, 1.0)
    train = optimizer.apply_gradients(zip(clipped, tf.trainable_variables()),
                                      global_step=tf.train.get_or_create_global_step())
    tf.summary.scalar("loss", loss)
    tf.add_to_collection("loss", loss)
    return train


def _train(sess, train_op, loss, data, step, feeds_data, steps=3):
    losses = []
    for i in range(steps):
        losses.append(sess.run([loss, train_op], {data: feeds_data, step: i % 4})[0])
    return losses


@pytest.mark.parametrize("make_opt", [lambda: tf.train.GradientDescentOptimizer(0.5),
                                      lambda: tf.train.MomentumOptimizer(0.1, 0.9,
                                                                         use_nesterov=True),
                                      lambda: tf.train.AdamOptimizer(0.05)],
                         ids=["sgd", "momentum", "adam"])
def test_lstm_training_graph_round_trips_and_trains_the_same(make_opt):
    feeds = np.random.default_rng(1).standard_normal((3, 8, 4)).astype(np.float32)
    g1 = tf.Graph()
    with g1.as_default():
        train = _lstm_model(make_opt())
        assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [train]   # as TF1
        meta = _reparse(tf.train.export_meta_graph())
        original_types = {op.name: op.type for op in g1.get_operations()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = _train(sess, train, "loss:0", "data:0", "step:0", feeds)
            want_vars = sess.run(tf.global_variables())
    records = {n.op for n in meta.graph_def.node if graph_def_spec.SPEC_ATTR in n.attr}
    assert {"LSTMBlock", "LSTMBlockGrad", "StridedSliceDynamic", "AssignAdd"} <= records
    g2 = tf.Graph()
    with g2.as_default():
        tf.train.import_meta_graph(meta)
        assert not getattr(g2, "_skipped_imports", {})
        for name, op_type in original_types.items():   # every op is back, as itself
            if op_type in ("LSTMBlock", "LSTMBlockGrad", "StridedSliceDynamic",
                           "ApplyUpdates", "AssignAdd", "ScalarSummary", "SliceGradDynamic"):
                assert g2.get_operation_by_name(name).type == op_type, name
        assert not [op for op in g2.get_operations() if op.type.startswith("Apply") and
                    op.type != "ApplyUpdates"]       # TF's helper nodes were not rebuilt
        train2, = tf.get_collection(tf.GraphKeys.TRAIN_OP)
        assert train2.type == "ApplyUpdates" or train2.name == train.name
        assert [v.op.name for v in tf.trainable_variables()] == \
            [v.op.name for v in g1.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)]
        loss2, = tf.get_collection("loss")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = _train(sess, train2, loss2, "data:0", "step:0", feeds)
            got_vars = sess.run(tf.global_variables())
            assert sess.run(tf.train.get_global_step()) == 3
            assert sess.run(tf.summary.merge_all(), {"data:0": feeds, "step:0": 0})
    np.testing.assert_array_equal(got, want)
    for a, b in zip(got_vars, want_vars):
        np.testing.assert_array_equal(a, b)


def _conv_bn():
    """Conv, training-mode batch norm (its moving-average updates), pooling, SGD."""
    x = tf.constant(np.random.default_rng(0).standard_normal((2, 6, 6, 3)).astype(np.float32))
    y = tf.layers.conv2d(x, 4, 3, padding="same",
                         kernel_initializer=tf.constant_initializer(0.1))
    y = tf.layers.batch_normalization(y, training=True)
    y = tf.nn.max_pool(tf.nn.relu(y), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    loss = tf.reduce_mean(tf.square(y))
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return loss, train


def _dropout():
    """Seeded random ops (dropout's noise, random_uniform) draw the same numbers."""
    tf.set_random_seed(1)
    x = tf.ones([4, 5])
    return tf.nn.dropout(x, 0.5, seed=3) + tf.random_uniform([4, 5], seed=2), tf.no_op()


def _sparse_adagrad():
    """An embedding whose gathered rows only are updated (SparseApplyUpdates)."""
    e = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2))
    loss = tf.reduce_sum(tf.nn.embedding_lookup(e, [1, 3, 3]) ** 2)
    return loss, tf.train.AdagradOptimizer(0.1).minimize(loss)


def _metric():
    """Streaming metrics: local variables and their update ops."""
    acc, update = tf.metrics.accuracy(tf.constant([1, 0, 1]), tf.constant([1, 1, 1]))
    return acc, update


@pytest.mark.parametrize("build", [_conv_bn, _dropout, _sparse_adagrad, _metric],
                         ids=["conv_bn", "dropout", "sparse_adagrad", "metric"])
def test_more_families_round_trip_with_the_same_numbers(build):
    def steps(fetch, train):
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            out = []
            for _ in range(3):
                out.append(sess.run(fetch))
                sess.run(train)
            return out + [sess.run(tf.global_variables() + tf.local_variables())]
    g1 = tf.Graph()
    with g1.as_default():
        fetch, train = build()
        meta = _reparse(tf.train.export_meta_graph())
        want = steps(fetch, train)
    with tf.Graph().as_default() as g2:
        tf.train.import_meta_graph(meta)
        assert not getattr(g2, "_skipped_imports", {})
        got = steps(g2.as_graph_element(fetch.name), g2.as_graph_element(train.name))
    for a, b in zip(got[:-1], want[:-1]):
        np.testing.assert_array_equal(a, b)
    assert len(got[-1]) == len(want[-1])
    for a, b in zip(got[-1], want[-1]):
        np.testing.assert_array_equal(a, b)


def test_queue_pipeline_and_its_runners_round_trip():
    data = np.arange(40, dtype=np.int32).reshape(4, 10)
    g1 = tf.Graph()
    with g1.as_default():
        i = tf.train.range_input_producer(5, shuffle=False, name="producer").dequeue()
        x = tf.strided_slice(data, [0, i * 2], [4, (i + 1) * 2], name="x")
        q = tf.FIFOQueue(8, [tf.float32], shapes=[[2]], name="floats")
        tf.train.add_queue_runner(tf.train.QueueRunner(
            q, [q.enqueue_many([tf.cast(x, tf.float32)])]))
        tf.identity(q.dequeue_many(3), name="batch")
        tf.identity(q.size(), name="size")
        meta = _reparse(tf.train.export_meta_graph())
        names = [r.queue.name for r in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]
    assert len(meta.collection_def["queue_runners"].bytes_list.value) == 2
    qr_def = pb.QueueRunnerDef.FromString(meta.collection_def["queue_runners"]
                                          .bytes_list.value[1])
    assert qr_def.queue_name == "floats" and list(qr_def.enqueue_op_name) == [
        "floats_EnqueueMany"] and qr_def.cancel_op_name == "floats_Close_1"

    def run(graph):
        with graph.as_default(), tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            out = [sess.run("batch:0") for _ in range(4)]
            coord.request_stop()
            coord.join(threads)
            assert sess.run("size:0") >= 0
        return out
    g2 = tf.Graph()
    with g2.as_default():
        tf.train.import_meta_graph(meta)
        runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        assert [r.queue.name for r in runners] == names and names[1] == "floats"
        assert g2.get_operation_by_name("floats").type == "FIFOQueueV2"
    want, got = run(g1), run(g2)
    np.testing.assert_array_equal(np.concatenate(got), np.concatenate(want))
    np.testing.assert_array_equal(np.concatenate(want)[:4], [[0, 1], [10, 11], [20, 21],
                                                             [30, 31]])


def test_an_op_that_cannot_be_carried_is_named_never_dropped_silently(caplog):
    """A py_func (a Python callable: no record) that a collection's tensor depends on:
    import_graph_def raises naming the type and node; import_meta_graph leaves it out and
    says which collection entry went with it."""
    g1 = tf.Graph()
    with g1.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        y = tf.py_func(lambda a: a * 2, [x], tf.float32, name="double")
        z = tf.identity(y + 1.0, name="z")
        tf.add_to_collection("outputs", z)
        keep = tf.identity(x * 3.0, name="keep")
        meta = _reparse(tf.train.export_meta_graph())
    node = next(n for n in meta.graph_def.node if n.name == "double")
    assert graph_def_spec.SPEC_ATTR not in node.attr
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=f"op type {node.op!r} \\(node 'double'\\)"):
            tf.import_graph_def(meta.graph_def, name="")
    with tf.Graph().as_default() as g2:
        tf.train.import_meta_graph(meta)
        assert tf.get_collection("outputs") == []
        with pytest.raises(KeyError, match="left out on import.*" + node.op):
            g2.get_operation_by_name("z")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(keep.name, {"x:0": [1.0, 2.0]}), [3.0, 6.0])
    assert any("'z:0' of 'outputs'" in r.getMessage() for r in caplog.records)


def test_records_rebuild_only_estimator_npu_update_rules():
    """A record naming another class is refused (a graph file never names code to run)."""
    with pytest.raises(ValueError, match="not an update rule of estimator_npu"):
        graph_def_spec._decode({"rule": "os:system", "state": {"dict": []}}, None)
    with pytest.raises(ValueError, match="not an update rule"):
        graph_def_spec._decode({"rule": "estimator_npu.engine.graph:Graph",
                                "state": {"dict": []}}, None)


def test_a_record_of_an_op_type_we_lack_names_the_node_and_type():
    """A record naming an op type this engine has not registered (a graph from a newer
    version, an edited file) fails with the node and the type named."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        i = tf.placeholder(tf.int32, [], name="i")
        tf.strided_slice(x, [i], [i + 1], name="cut")
        meta = _reparse(tf.train.export_meta_graph())
    node = next(n for n in meta.graph_def.node if graph_def_spec.SPEC_ATTR in n.attr and
                graph_def_spec.read_record(n)["type"] == "StridedSliceDynamic")
    node.attr[graph_def_spec.SPEC_ATTR].s = node.attr[graph_def_spec.SPEC_ATTR].s.replace(
        b'"type":"StridedSliceDynamic"', b'"type":"NoSuchOp"')
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=f"node {node.name!r} \\(op type 'NoSuchOp'\\)"):
            tf.train.import_meta_graph(meta)

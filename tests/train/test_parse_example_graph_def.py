"""tf.parse_example in GraphDefs: written as TF1's ParseExample op (keys and defaults as
Const inputs, TF's output order), rebuilt by our import_graph_def and run by real TF."""
import numpy as np

import estimator_npu as tf


def _examples():
    def ex(a, b, tags, ids):
        f = {"a": tf.train.Feature(float_list=tf.train.FloatList(value=a)),
             "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=tags)),
             "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=ids))}
        if b is not None:
            f["b"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[b]))
        return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()
    return [ex([1, 2], 5, [b"x", b"y"], [7]), ex([3, 4], None, [b"z"], [8, 9, 10])]


def _graph():
    g = tf.Graph()
    with g.as_default():
        s = tf.placeholder(tf.string, [None], name="serialized")
        out = tf.parse_example(s, {"a": tf.FixedLenFeature([2], tf.float32),
                                   "b": tf.FixedLenFeature([], tf.int64, default_value=-1),
                                   "tags": tf.VarLenFeature(tf.string),
                                   "ids": tf.VarLenFeature(tf.int64)})
        fetch = {"a": out["a"], "b": out["b"], "tags_i": out["tags"].indices,
                 "tags_v": out["tags"].values, "ids_i": out["ids"].indices,
                 "ids_v": out["ids"].values, "ids_s": out["ids"].dense_shape}
        names = {k: v.name for k, v in fetch.items()}
    return g, names


def _run(graph, names):
    with tf.Session(graph=graph) as sess:
        return sess.run(names, {"serialized:0": _examples()})


def _check(got):
    np.testing.assert_array_equal(got["a"], [[1, 2], [3, 4]])
    np.testing.assert_array_equal(got["b"], [5, -1])
    np.testing.assert_array_equal(got["tags_i"], [[0, 0], [0, 1], [1, 0]])
    assert [bytes(v) for v in got["tags_v"]] == [b"x", b"y", b"z"]
    np.testing.assert_array_equal(got["ids_i"], [[0, 0], [1, 0], [1, 1], [1, 2]])
    np.testing.assert_array_equal(got["ids_v"], [7, 8, 9, 10])
    np.testing.assert_array_equal(got["ids_s"], [2, 3])


def test_written_as_tf1_parse_example():
    g, names = _graph()
    gd = g.as_graph_def()
    (node,) = [n for n in gd.node if n.op == "ParseExample"]
    assert node.attr["Nsparse"].i == 2 and node.attr["Ndense"].i == 2
    assert len(node.input) == 2 + 2 + 2 + 2   # serialized, names, keys, defaults
    # TF's output order (sorted keys: "ids", "tags"): all sparse indices, then all
    # values, then all shapes, then dense; a consumer of ids' values reads output 2
    assert node.attr["sparse_types"].list.type == [9, 7]
    _check(_run(g, names))


def test_our_import_rebuilds_it_with_tf_output_order():
    g, names = _graph()
    gd = g.as_graph_def()
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="")
    # the GraphDef's tensor names (TF's order: keys sorted, sparse "ids" then "tags")
    tf_names = {"a": "ParseExample:6", "b": "ParseExample:7", "ids_i": "ParseExample:0",
                "tags_i": "ParseExample:1", "ids_v": "ParseExample:2",
                "tags_v": "ParseExample:3", "ids_s": "ParseExample:4"}
    _check(_run(g2, tf_names))


def test_real_tensorflow_runs_it(tmp_path, run_real_tf):
    g, _ = _graph()
    (tmp_path / "g.pb").write_bytes(g.as_graph_def().SerializeToString())
    np.save(tmp_path / "ex.npy", np.array(_examples(), dtype=object), allow_pickle=True)
    run_real_tf(
        f"gd = tf.GraphDef.FromString(open({str(tmp_path / 'g.pb')!r}, 'rb').read())\n"
        f"ex = list(np.load({str(tmp_path / 'ex.npy')!r}, allow_pickle=True))\n"
        "with tf.Graph().as_default():\n"
        "    tf.import_graph_def(gd, name='')\n"
        "    with tf.Session() as s:\n"
        "        r = s.run({k: 'ParseExample:%d' % i for k, i in [('ids_i', 0), ('tags_i', 1),"
        " ('ids_v', 2), ('tags_v', 3), ('ids_s', 4), ('a', 6), ('b', 7)]},"
        " {'serialized:0': ex})\n"
        f"np.save({str(tmp_path / 'out.npy')!r}, r, allow_pickle=True)\n")
    _check(np.load(tmp_path / "out.npy", allow_pickle=True).item())

"""Behaviours real public TF1 scripts relied on (found running a corpus of them)."""
import numpy as np
import pytest

import estimator_npu as tf


def test_random_ops_take_tensor_stddev_mean_and_bounds():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        std = 1. / tf.sqrt(50 / 2.)             # a Tensor, as in Xavier-style helpers
        a = tf.random_normal([4000], stddev=std, mean=tf.constant(2.0))
        b = tf.truncated_normal([4000], stddev=std)
        c = tf.random_uniform([4000], minval=tf.constant(-3.0), maxval=tf.constant(-1.0))
        assert a.shape.as_list() == [4000] and c.dtype == tf.float32
        with tf.Session() as s:
            va, vb, vc = s.run([a, b, c])
    assert abs(va.mean() - 2.0) < 0.02 and abs(va.std() - 0.2) < 0.01
    assert np.abs(vb).max() <= 0.4 + 1e-6
    assert vc.min() >= -3.0 and vc.max() < -1.0 and vc.mean() < -1.9


def test_float_array_fed_to_int_placeholder_is_truncated_as_tf1():
    # (numpy float arrays only, as the DCGAN example feeds; a Python float list still raises,
    # test_bad_inputs.py::feed_float_to_int)
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.int32, [None])
        with tf.Session() as s:
            out = s.run(p * 2, {p: np.array([1.7, 0.0, -1.2])})
    np.testing.assert_array_equal(out, [2, 0, -2])


def test_argmax_argmin_round_trip_through_graph_def():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        tf.argmax(x, 1, name="am")
        tf.argmin(x, axis=0, name="amin", output_type=tf.int32)
        gd = g.as_graph_def()
    nodes = {n.name: n for n in gd.node}
    assert nodes["am"].input[1] == "am/dimension"
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as s:
            am, amin = s.run(["am:0", "amin:0"],
                             {"x:0": np.array([[1, 5, 2], [7, 0, 1]], np.float32)})
    np.testing.assert_array_equal(am, [1, 0])
    np.testing.assert_array_equal(amin, [0, 1, 1])
    assert amin.dtype == np.int32


def test_contrib_learn_load_dataset_mnist_reads_the_tutorial_folder(tmp_path, mnist_dir,
                                                                    monkeypatch):
    from estimator_npu.compat.missing import NotImplementedName
    (tmp_path / "MNIST-data").symlink_to(mnist_dir, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    data = tf.contrib.learn.datasets.load_dataset("mnist")
    assert data.train.images.shape[1] == 784 and data.train.labels.ndim == 1
    assert data.test.num_examples == 200
    import pytest
    with pytest.raises(NotImplementedName, match=r"load_dataset\('iris'\) \(yet\)"):
        tf.contrib.learn.datasets.load_dataset("iris")
    with pytest.raises(NotImplementedName, match=r"tf\.contrib\.learn\.Estimator \(yet\)"):
        tf.contrib.learn.Estimator


def test_conv2d_transpose_static_shape_from_a_stacked_output_shape():
    g = tf.Graph()
    with g.as_default():
        h = tf.placeholder(tf.float32, [None, 4, 4, 16])
        k = tf.zeros([3, 3, 1, 16])
        batch = tf.shape(h)[0]
        for sizes in (tf.stack([batch, 8, 8, 1]), [batch, 8, 8, 1],
                      tf.concat([tf.shape(h)[:1], [8, 8, 1]], 0)):
            y = tf.nn.conv2d_transpose(h, k, sizes, strides=[1, 2, 2, 1])
            assert y.shape.as_list() == [None, 8, 8, 1]
        with tf.Session() as s:
            out = s.run(y, {h: np.ones((2, 4, 4, 16), np.float32)})
    assert out.shape == (2, 8, 8, 1)


def test_where_with_a_vector_condition_selects_rows_as_tf1():
    # TF1's tf.where (v1): a rank-1 condition picks whole rows of x / y; tf.where_v2
    # broadcasts it against the trailing axis instead.
    g = tf.Graph()
    with g.as_default():
        c = np.array([True, False, True])
        x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
        rows = tf.where(tf.constant(c), x, -x)
        cx = tf.constant(x)
        picked = tf.where(tf.constant(c), cx, tf.zeros_like(cx))
        dx, = tf.gradients(tf.reduce_sum(picked * 2.0), [cx])
        bcast = tf.where_v2(tf.constant([True, False, True, False]), x, -x)
        with pytest.raises(ValueError, match="broadcastable"):
            tf.where(tf.constant([True, False]), x, -x)
        with tf.Session() as s:
            v_rows, v_dx, v_b = s.run([rows, dx, bcast])
    np.testing.assert_array_equal(v_rows, np.where(c[:, None], x, -x))
    np.testing.assert_array_equal(v_dx, np.where(c[:, None], 2.0, 0.0) * np.ones((3, 4)))
    np.testing.assert_array_equal(v_b, np.where([True, False, True, False], x, -x))


def test_tf_internal_rnn_modules_import(aliases):
    from tensorflow.python.ops import rnn, rnn_cell, rnn_cell_impl
    import tensorflow as real_tf_alias
    assert rnn_cell.GRUCell is real_tf_alias.nn.rnn_cell.GRUCell
    assert rnn_cell_impl.LSTMStateTuple is real_tf_alias.nn.rnn_cell.LSTMStateTuple
    assert rnn.dynamic_rnn is real_tf_alias.nn.dynamic_rnn


def test_tf_version_module_as_tf1_15(aliases):
    # tensorflow-determinism and other helpers read tf.version.VERSION (TF >= 1.14).
    import tensorflow as tf_alias
    assert tf_alias.version.VERSION == tf_alias.VERSION == tf_alias.__version__
    assert tf_alias.version.VERSION.startswith("1.15")
    assert tf_alias.version.GIT_VERSION == tf_alias.GIT_VERSION
    assert isinstance(tf_alias.version.GRAPH_DEF_VERSION, int)


def test_softmax_xent_labels_of_another_rank_are_flattened_as_tf():
    # TF flattens the outer dimensions of labels and logits separately, so labels=[y]
    # (shape (1, N, C)) against (N, C) logits is the (N, C) loss (TF 2.15: shape (?,)).
    g = tf.Graph()
    with g.as_default():
        y = tf.placeholder(tf.float32, [None, 7])
        logits = tf.placeholder(tf.float32, [None, 7])
        wrapped = tf.nn.softmax_cross_entropy_with_logits_v2(
            logits=logits, labels=tf.stop_gradient([y]))
        plain = tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=y)
        assert wrapped.shape.as_list() == [None]
        dw, = tf.gradients(tf.reduce_mean(wrapped), [logits])
        dp, = tf.gradients(tf.reduce_mean(plain), [logits])
        assert dw.shape.as_list() == [None, 7]
        rng = np.random.RandomState(0)
        feed = {y: np.eye(7, dtype=np.float32)[rng.randint(0, 7, 4)],
                logits: rng.rand(4, 7).astype(np.float32)}
        with tf.Session() as s:
            a, b, ga, gb = s.run([wrapped, plain, dw, dp], feed)
    np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(ga, gb, rtol=1e-6)


def test_tuple_of_tensors_as_feed_key_as_tf1():
    # An LSTM's initial state fed with the LSTMStateTuple of arrays a previous run returned.
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        cell = tf.nn.rnn_cell.LSTMCell(3)
        x = tf.placeholder(tf.float32, [1, 4, 2])
        init = cell.zero_state(1, tf.float32)
        out, state = tf.nn.dynamic_rnn(cell, x, initial_state=init)
        xv = np.ones([1, 4, 2], np.float32)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            _, s1 = s.run([out, state], {x: xv})
            by_tuple = s.run(out, {x: xv, init: s1})
            by_parts = s.run(out, {x: xv, init.c: s1.c, init.h: s1.h})
            with pytest.raises(ValueError, match="2 parts"):
                s.run(out, {x: xv, init: np.zeros([1, 3])})
    np.testing.assert_array_equal(by_tuple, by_parts)

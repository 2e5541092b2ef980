"""Unit checks of what the Ascend ModelZoo scripts needed (behaviour as TF 2.15's
tf.compat.v1 where TF defines it; facts from TF noted per test)."""
import os
import threading

import numpy as np
import pytest

import estimator_npu as tf


def test_saver_creates_the_last_directory_level(tmp_path):
    # TF's checkpoint writer makes the checkpoint's own folder, not its parents.
    with tf.Graph().as_default():
        v = tf.Variable(3.0, name="v")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "ckpt" / "model.ckpt"))
            assert path == str(tmp_path / "ckpt" / "model.ckpt")
            assert tf.train.latest_checkpoint(str(tmp_path / "ckpt")) == path
            with pytest.raises(ValueError, match="doesn't exist"):
                saver.save(sess, str(tmp_path / "a" / "b" / "model.ckpt"))
            assert not (tmp_path / "a").exists()
            sess.run(v.assign(5.0))
            saver.restore(sess, path)
            assert sess.run(v) == 3.0


def test_numeric_strings_feed_numeric_placeholders():
    # TF converts with np.asarray(value, dtype): "5.1" feeds a float placeholder.
    with tf.Graph().as_default():
        x = tf.placeholder("float", [None, 2])
        i = tf.placeholder(tf.int32, [None])
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(x * 2, {x: [["1.5", "2"]]}), [[3.0, 4.0]])
            np.testing.assert_array_equal(sess.run(x * 2, {x: np.array([["1", "2"]])}),
                                          [[2.0, 4.0]])
            np.testing.assert_array_equal(sess.run(i + 1, {i: ["3", "4"]}), [4, 5])
            with pytest.raises(ValueError, match="could not convert"):
                sess.run(x, {x: [["a", "2"]]})
            with pytest.raises(ValueError, match="shape"):
                sess.run(x, {x: [["1", "2", "3"]]})


def test_slim_model_analyzer_counts_variables(capsys):
    with tf.Graph().as_default():
        tf.get_variable("w", [3, 4])
        tf.get_variable("b", [4], dtype=tf.float64)
        size, nbytes = tf.contrib.slim.model_analyzer.analyze_vars(tf.trainable_variables(),
                                                                    print_info=True)
        assert (size, nbytes) == (16, 12 * 4 + 4 * 8)
        out = capsys.readouterr().out
        assert "w:0" not in out and "w (float32 (3, 4)) [12, bytes: 48]" in out
        assert "Total size of variables: 16" in out
        ops_size, _ = tf.contrib.slim.model_analyzer.analyze_ops(tf.get_default_graph())
        assert ops_size >= 16


def test_initializers_module_names():
    init = tf.initializers
    assert isinstance(init.he_uniform(5), tf.variance_scaling_initializer)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        w = tf.get_variable("w", [200, 50], initializer=init.he_uniform(5))
        u = tf.get_variable("u", [200, 50], initializer=init.lecun_uniform())
        c = tf.get_variable("c", [2], initializer=init.constant(7.0))
        z = tf.get_variable("z", [2], initializer=init.zeros())
        with tf.Session() as sess:
            sess.run(init.global_variables())
            wv, uv = sess.run([w, u])
            assert np.abs(wv).max() <= np.sqrt(6.0 / 200) and wv.std() > 0.08
            assert np.abs(uv).max() <= np.sqrt(3.0 / 200) and uv.std() > 0.05
            assert sess.run(c).tolist() == [7.0, 7.0] and sess.run(z).tolist() == [0, 0]


def _boxes_run(seed, **kw):
    with tf.Graph().as_default():
        boxes = tf.constant([[[0.1, 0.2, 0.6, 0.9]]])
        begin, size, bbox = tf.image.sample_distorted_bounding_box(
            tf.constant([100, 80, 3]), boxes, seed=seed, **kw)
        assert begin.shape.as_list() == [3] and bbox.shape.as_list() == [1, 1, 4]
        with tf.Session() as sess:
            return [sess.run([begin, size, bbox]) for _ in range(30)]


def test_sample_distorted_bounding_box_windows():
    runs = _boxes_run(3, min_object_covered=0.5, aspect_ratio_range=(0.5, 2.0),
                      area_range=(0.1, 1.0))
    for b, s, box in runs:
        y, x, _ = b
        h, w, last = s
        assert b[2] == 0 and last == -1
        assert 0 <= y and y + h <= 100 and 0 <= x and x + w <= 80
        assert 0.1 * 8000 <= h * w <= 8000
        np.testing.assert_allclose(box[0, 0], [y / 100, x / 80, (y + h) / 100, (x + w) / 80],
                                   rtol=1e-6)
        inter = max(0, min(60, y + h) - max(10, y)) * max(0, min(72, x + w) - max(16, x))
        assert inter >= 0.5 * 50 * 56 - 1e-6 or (h, w) == (100, 80)
    assert len({tuple(s) for _, s, _ in runs}) > 5           # windows differ
    again = _boxes_run(3, min_object_covered=0.5, aspect_ratio_range=(0.5, 2.0),
                       area_range=(0.1, 1.0))
    assert all((a[1] == b[1]).all() for a, b in zip(runs, again))   # same seed, same draws


def test_sample_distorted_bounding_box_without_boxes():
    with tf.Graph().as_default():
        empty = tf.zeros([1, 0, 4])
        _, size, _ = tf.image.sample_distorted_bounding_box(
            [10, 10, 1], empty, use_image_if_no_bounding_boxes=True)
        _, bad, _ = tf.image.sample_distorted_bounding_box([10, 10, 1], empty)
        with tf.Session() as sess:
            h, w, _ = sess.run(size)
            assert 1 <= h <= 10 and 1 <= w <= 10
            with pytest.raises(tf.errors.InvalidArgumentError, match="no bounding boxes"):
                sess.run(bad)
        with pytest.raises(ValueError, match="area_range"):
            tf.image.sample_distorted_bounding_box([10, 10, 1], empty, area_range=(0.5, 0.1))


def test_threadpool_override_and_map_threads(aliases):
    from tensorflow.python.data.experimental.ops import threadpool
    ds = tf.data.Dataset.range(6)
    ds = threadpool.override_threadpool(ds, threadpool.PrivateThreadPool(
        16, display_name="input_pipeline_thread_pool"))
    assert ds.options().experimental_threading.private_threadpool_size == 16
    with pytest.raises(TypeError, match="PrivateThreadPool"):
        threadpool.override_threadpool(ds, 16)
    seen = set()

    def record(x):
        seen.add(threading.current_thread().name)
        return x * 2
    ds = tf.data.Dataset.range(64).map(
        lambda x: tf.py_func(record, [x], tf.int64), num_parallel_calls=216)
    with tf.Session() as sess:
        nxt = ds.make_one_shot_iterator().get_next()
        assert [sess.run(nxt) for _ in range(64)] == [2 * k for k in range(64)]
    # num_parallel_calls beyond the cores does not make more threads than cores
    assert len(seen) <= len(os.sched_getaffinity(0))


def test_contrib_image_paths_import(aliases):
    from tensorflow.contrib.image.python.ops import distort_image_ops
    with pytest.raises(AttributeError, match="does not implement tf.contrib.image"):
        distort_image_ops.random_hsv_in_yiq


def test_top_k_with_a_tensor_k():
    # the SWD script sorts columns with top_k(matrix_T, tf.shape(matrix)[0])
    rng = np.random.RandomState(0)
    xv = rng.randn(3, 5)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, None])
        k = tf.shape(x)[1] - 1
        values, indices = tf.nn.top_k(x, k)
        assert values.shape.ndims == 2
        loss = tf.reduce_sum(values * tf.constant(np.arange(4.0)))
        (g,) = tf.gradients(loss, [x])
        with tf.Session() as sess:
            v, i, gv = sess.run([values, indices, g], {x: xv})
            order = np.argsort(-xv, axis=1)[:, :4]
            np.testing.assert_array_equal(i, order)
            np.testing.assert_allclose(v, np.take_along_axis(xv, order, 1))
            want = np.zeros_like(xv)
            np.put_along_axis(want, order, np.arange(4.0)[None].repeat(3, 0), 1)
            np.testing.assert_allclose(gv, want)
            with pytest.raises(Exception, match="k=6"):
                sess.run(tf.nn.top_k(x, tf.shape(x)[1] + 1)[0], {x: xv})


def test_register_gradient_and_override_map_flip_the_gradient():
    # the DANN scripts' flip_gradient: identity forward, -l * grad backward
    @tf.RegisterGradient("ZooFlipGradient")
    def _flip(op, grad):
        return [tf.negative(grad) * 0.5]

    with pytest.raises(KeyError, match="two gradient"):
        tf.RegisterGradient("ZooFlipGradient")(_flip)
    with tf.Graph().as_default() as g:
        x = tf.constant([1.0, 2.0])
        with g.gradient_override_map({"Identity": "ZooFlipGradient"}):
            y = tf.identity(x)
        z = tf.identity(x)                       # outside: the ordinary gradient
        gy, = tf.gradients(tf.reduce_sum(3.0 * y), [x])
        gz, = tf.gradients(tf.reduce_sum(3.0 * z), [x])
        with g.gradient_override_map({"Identity": "ZooUnregistered"}):
            w = tf.identity(x)
        with tf.Session() as sess:
            assert sess.run(y).tolist() == [1.0, 2.0]
            assert sess.run(gy).tolist() == [-1.5, -1.5]
            assert sess.run(gz).tolist() == [3.0, 3.0]
        with pytest.raises(LookupError, match="ZooUnregistered"):
            tf.gradients(w, [x])
        tf.NotDifferentiable("ZooNoGrad")
        with g.gradient_override_map({"Identity": "ZooNoGrad"}):
            v = tf.identity(x)
        assert tf.gradients(v, [x]) == [None]


def test_register_gradient_through_the_ops_path(aliases):
    from tensorflow.python.framework import ops
    assert ops.RegisterGradient is tf.RegisterGradient


def test_conv2d_on_a_big_batch_runs_in_slices(monkeypatch):
    # DANN evaluates the whole 10000-image test set in one run: the patch matrix of
    # one conv was 5.8 GiB; the forward conv now slices the batch (same values).
    from estimator_npu.engine.ops import conv_ops
    rng = np.random.RandomState(0)
    xv = rng.randn(9, 8, 8, 3).astype(np.float32)
    wv = rng.randn(3, 3, 3, 4).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 3])
        y = tf.nn.conv2d(x, tf.constant(wv), [1, 2, 2, 1], "SAME")
        with tf.Session() as sess:
            whole = sess.run(y, {x: xv})
        monkeypatch.setattr(conv_ops, "_MAX_COLS_BYTES", 4 * 4 * 9 * 3 * 4 * 2)
        calls = []
        real = conv_ops._im2col
        monkeypatch.setattr(conv_ops, "_im2col",
                            lambda *a, **k: calls.append(a[1].shape[0]) or real(*a, **k))
        with tf.Session() as sess:
            sliced = sess.run(y, {x: xv})
    # the whole batch goes through the banded-filter path, the slices through im2col:
    # the same sums in another order
    np.testing.assert_allclose(whole, sliced, rtol=1e-5, atol=1e-5)
    assert sorted(calls) == [1, 2, 2, 2, 2]


def test_range_takes_the_widest_argument_type():
    # SphereFace: tf.stack([tf.range(0, N, 1), labels]) with N = tf.shape(x, out_type=int64)[0]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        n64 = tf.shape(x, out_type=tf.int64)[0]
        r = tf.range(0, n64, 1)
        assert r.dtype == tf.int64
        assert tf.range(0, tf.shape(x)[0]).dtype == tf.int32
        assert tf.range(0.0, tf.cast(n64, tf.float64)).dtype == tf.float64
        idx = tf.stack([r, tf.constant([4, 5], tf.int64)], axis=1)
        with tf.Session() as sess:
            assert sess.run(idx, {x: np.zeros((2, 3))}).tolist() == [[0, 4], [1, 5]]


def test_contrib_python_paths_import(aliases):
    # TCN: from tensorflow.contrib.framework.python.ops import add_arg_scope
    from tensorflow.contrib.framework.python.ops import add_arg_scope, arg_scope
    from tensorflow.contrib.layers.python.layers import initializers, layers
    assert add_arg_scope is tf.contrib.framework.add_arg_scope
    assert arg_scope is tf.contrib.framework.arg_scope
    assert layers.conv2d is tf.contrib.layers.conv2d
    assert initializers.xavier_initializer is tf.contrib.layers.xavier_initializer


def test_convolution_of_1d_inputs_with_dilation():
    # TCN: tf.nn.convolution(x [N, W, C], W [K, C, O], "VALID", [1], [dilation])
    rng = np.random.RandomState(0)
    xv = rng.randn(2, 9, 3)
    wv = rng.randn(2, 3, 4)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        y = tf.nn.convolution(x, tf.constant(wv), "VALID", [1], [3])
        assert y.shape.as_list() == [2, 6, 4]
        with tf.Session() as sess:
            got = sess.run(y)
    want = np.stack([xv[:, t] @ wv[0] + xv[:, t + 3] @ wv[1] for t in range(6)], 1)
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_colour_ops_match_tf():
    # golden values from TF 2.15 (tools/record_zoo_color.py); ShuffleNetV2's augmentation
    gold = np.load(os.path.join(os.path.dirname(__file__), "golden_zoo_color.npz"))
    x = gold["image"]
    with tf.Graph().as_default(), tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.image.rgb_to_hsv(x)), gold["hsv"], atol=1e-6)
        np.testing.assert_allclose(sess.run(tf.image.adjust_hue(x, 0.2)), gold["hue"],
                                   atol=1e-6)
        np.testing.assert_allclose(sess.run(tf.image.adjust_saturation(x, 1.7)), gold["sat"],
                                   atol=1e-5)
        np.testing.assert_array_equal(
            sess.run(tf.image.adjust_hue((x * 255).astype(np.uint8), -0.3)), gold["hue8"])
        back = sess.run(tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)))
        np.testing.assert_allclose(back, x, atol=1e-6)
        g = sess.run(tf.image.grayscale_to_rgb(tf.constant(x[..., :1])))
        assert g.shape == (2, 3, 3) and (g == x[..., :1]).all()
        r = sess.run(tf.image.random_saturation(tf.constant(x), 0.5, 1.5, seed=1))
        assert r.shape == x.shape and not np.allclose(r, x)
        r = sess.run(tf.image.random_hue(tf.constant(x), 0.1, seed=1))
        assert r.shape == x.shape
    with pytest.raises(ValueError, match="max_delta"):
        tf.image.random_hue(x, 0.7)


def test_known_dimensions_answer_value():
    # TF1 scripts (ShuffleNetV2) read x.shape[3].value
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 5, 6])
        d = x.shape[3]
        assert d == 6 and d.value == 6 and isinstance(d, int) and repr(d) == "6"
        assert x.get_shape()[1].value * 2 == 8
        assert x.shape[0].value is None and repr(x.shape[0]) == "Dimension(None)"  # as TF1
        assert tf.zeros([x.shape[3], 2]).shape.as_list() == [6, 2]


def test_int_trainable_variable_gets_no_gradient():
    # TF: global_step = tf.Variable(0) is trainable; minimize() skips it (gradient None)
    with tf.Graph().as_default():
        gs = tf.Variable(0)
        w = tf.Variable(1.0)
        loss = tf.square(w - 3.0)
        opt = tf.train.GradientDescentOptimizer(0.1)
        assert [g is None for g, _ in opt.compute_gradients(loss)] == [True, False]
        train = opt.minimize(loss, global_step=gs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            assert sess.run(gs) == 1 and abs(sess.run(w) - 1.4) < 1e-6
        with pytest.raises(ValueError, match="Invalid type int32"):
            opt.compute_gradients(loss, var_list=[gs])


@pytest.mark.parametrize("optimizer", ["SGD", "instance", "class"])
def test_contrib_optimize_loss(optimizer):
    # LSTM-HAR: tf.contrib.layers.optimize_loss(loss, tf.Variable(0), lr, AdamOptimizer(..),
    # clip_gradients=..., gradient_noise_scale=None)
    with tf.Graph().as_default():
        gs = tf.Variable(0)
        w = tf.Variable([3.0, -4.0])
        loss = tf.reduce_sum(tf.square(w))
        opt = {"SGD": "SGD", "instance": tf.train.GradientDescentOptimizer(0.1),
               "class": tf.train.GradientDescentOptimizer}[optimizer]
        train = tf.contrib.layers.optimize_loss(loss, gs, 0.1, opt, clip_gradients=1.0)
        summaries = {op.name for op in tf.get_default_graph().get_operations()
                     if op.type.endswith("Summary")}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(train)
            # the gradient [6, -8] (norm 10) is clipped to norm 1: w moves by 0.1 * [.6, -.8]
            np.testing.assert_allclose(sess.run(w), [3.0 - 0.06, -4.0 + 0.08], rtol=1e-6)
            assert before == 25.0 and sess.run(gs) == 1
    assert any("loss" in n for n in summaries) and any("learning_rate" in n
                                                         for n in summaries)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Optimizer name should be one of"):
            tf.contrib.layers.optimize_loss(tf.reduce_sum(tf.Variable([1.0])),
                                            tf.Variable(0), 0.1, "Nope")


def test_expand_dims_takes_a_one_element_axis_list():
    # TF 2.15 (checked): expand_dims(x, axis=[-1]) of a [2, 3] tensor is [2, 3, 1] (ALBERT's
    # embedding_lookup_factorized writes it so); axis=[0, 1] is a ValueError ('dim' input
    # must be a tensor with a single value).
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [2, 3])
        y = tf.expand_dims(x, axis=[-1])
        z = tf.expand_dims(x, axis=np.array([1]))
        assert y.shape.as_list() == [2, 3, 1] and z.shape.as_list() == [2, 1, 3]
        with tf.Session() as sess:
            yv, zv = sess.run([y, z], {x: np.arange(6).reshape(2, 3)})
        np.testing.assert_array_equal(yv, np.arange(6).reshape(2, 3, 1))
        np.testing.assert_array_equal(zv, np.arange(6).reshape(2, 1, 3))
        with pytest.raises(ValueError, match="single value"):
            tf.expand_dims(x, axis=[0, 1])


def test_variable_scope_variable_as_streaming_metric_helpers_call_it(aliases):
    # Bert-NER's metrics.py (after TF's metrics_impl.metric_variable): a zero-initialised
    # local variable from a callable, ON_READ synchronization -> not trainable (TF's rule).
    from tensorflow.python.ops import variable_scope
    with tf.Graph().as_default():
        v = variable_scope.variable(
            lambda: tf.zeros([2, 3], tf.float64),
            collections=[tf.GraphKeys.LOCAL_VARIABLES, tf.GraphKeys.METRIC_VARIABLES],
            validate_shape=True, synchronization=variable_scope.VariableSynchronization.ON_READ,
            aggregation=variable_scope.VariableAggregation.SUM, name="total_confusion")
        w = variable_scope.variable(1.5, name="w")
        assert v in tf.local_variables() and v not in tf.trainable_variables()
        assert w in tf.trainable_variables() and v.shape.as_list() == [2, 3]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            np.testing.assert_array_equal(sess.run(v), np.zeros((2, 3)))


def test_confusion_matrix_takes_an_int64_num_classes_tensor():
    # Bert-NER's streaming_confusion_matrix (after TF's) passes math_ops.to_int64(num_classes);
    # TF casts it. A constant one still gives the static [n, n] shape.
    with tf.Graph().as_default():
        labels = tf.constant([0, 1, 2, 2], tf.int64)
        preds = tf.constant([0, 2, 2, 1], tf.int64)
        cm = tf.confusion_matrix(labels, preds, tf.to_int64(3), dtype=tf.float64)
        n = tf.placeholder(tf.int64, [])
        cm_fed = tf.confusion_matrix(labels, preds, n)
        assert cm.shape.as_list() == [3, 3]
        with tf.Session() as sess:
            got, fed = sess.run([cm, cm_fed], {n: 4})
    want = np.zeros((3, 3))
    for i, j in ((0, 0), (1, 2), (2, 2), (2, 1)):
        want[i, j] += 1
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(fed[:3, :3], want)
    assert fed.shape == (4, 4) and fed.dtype == np.int32


def test_shape_lists_may_hold_constant_scalar_tensors():
    # SqueezeNext's parser: image_size = tf.cast(227, tf.int32), then
    # tf.reshape(image, [image_size, image_size, 3]); TF packs the list (static [227, 227, 3]).
    with tf.Graph().as_default():
        n = tf.cast(2, tf.int32)
        x = tf.placeholder(tf.float32, [None])
        y = tf.reshape(x, [n, tf.constant(3), -1])
        t = tf.tile(tf.ones([1, 2]), [n, 1])
        assert y.shape.as_list() == [2, 3, None] and t.shape.as_list() == [2, 2]
        with tf.Session() as sess:
            assert sess.run(y, {x: np.arange(12, dtype=np.float32)}).shape == (2, 3, 2)


def test_aggregation_method_has_tfs_values_and_is_accepted():
    # TF: ADD_N = DEFAULT = 0, EXPERIMENTAL_TREE = 1, EXPERIMENTAL_ACCUMULATE_N = 2
    # (SqueezeNext passes aggregation_method=tf.AggregationMethod.ADD_N to create_train_op).
    am = tf.AggregationMethod
    assert (am.ADD_N, am.DEFAULT, am.EXPERIMENTAL_TREE, am.EXPERIMENTAL_ACCUMULATE_N) == \
        (0, 0, 1, 2)
    with tf.Graph().as_default():
        x = tf.constant(3.0)
        (g,) = tf.gradients(x * x + x, [x], aggregation_method=am.ADD_N)
        with tf.Session() as sess:
            assert sess.run(g) == 7.0


def test_operation_node_def_is_a_nodedef_proto():
    # SqueezeNext's stats hook reads op.node_def.attr["shape"].shape.dim of its weights.
    with tf.Graph().as_default():
        w = tf.get_variable("conv/weights", [3, 3, 2, 8])
        nd = w.op.node_def
        assert nd.name == "conv/weights" and nd.op == w.op.type
        assert [int(d.size) for d in nd.attr["shape"].shape.dim] == [3, 3, 2, 8]

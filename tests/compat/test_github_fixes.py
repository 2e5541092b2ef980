"""Behaviours popular standalone TF1 repositories rely on (tools/corpus/github.tsv)."""
import numpy as np
import pytest

import estimator_npu as tf


def test_concat_of_one_tensor_is_its_identity():
    # hzy46/Char-RNN-TensorFlow: tf.concat(dynamic_rnn_outputs, 1) with one Tensor
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3, 2])
        y = tf.concat(x, 1, name="joined")
        z = tf.concat([x], 1)
        assert y.shape.as_list() == [None, 3, 2] and y.op.name == "joined"
        assert y is not x and z is not x and z.op.type == "Identity"
        grad, = tf.gradients(tf.reduce_sum(y * 2.0), x)
        with tf.Session() as s:
            v = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
            out, gv = s.run([y, grad], {x: v})
    np.testing.assert_array_equal(out, v)
    np.testing.assert_array_equal(gv, np.full_like(v, 2.0))


@pytest.mark.parametrize("axis, shape", [([-1], [None, 5, 1]), (np.array([1]), [None, 1, 5]),
                                          ((0,), [1, None, 5]), (np.int64(2), [None, 5, 1])])
def test_expand_dims_takes_a_one_element_axis_list(axis, shape):
    # google-research/bert modeling.embedding_lookup: tf.expand_dims(ids, axis=[-1])
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [None, 5])
        y = tf.expand_dims(x, axis=axis)
        assert y.shape.as_list() == shape
        with tf.Session() as s:
            out = s.run(y, {x: np.arange(10).reshape(2, 5)})
    assert list(out.shape) == [2 if d is None else d for d in shape]


def test_expand_dims_axis_from_a_constant_tensor_and_bad_axes():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 5])
        assert tf.expand_dims(x, tf.constant([1])).shape.as_list() == [None, 1, 5]
        assert tf.expand_dims(x, dim=0).shape.as_list() == [1, None, 5]
        with pytest.raises(ValueError, match=r"single value \(one static int\), got \[0, 1\]"):
            tf.expand_dims(x, [0, 1])
        with pytest.raises(TypeError, match="axis must be a list of ints"):
            tf.expand_dims(x, 1.0)


def test_integer_random_uniform_with_tensor_bounds_gives_tfs_values():
    # Kyubyong/transformer: tf.random_uniform((), 0, tf.shape(y_hat)[0] - 1, tf.int32).
    # The values are TF 2.15's for the same seeds (RandomUniformInt: word modulo range).
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(5)
        x = tf.placeholder(tf.int32, [None])
        a = tf.random_uniform((), 0, tf.shape(x)[0] - 1, tf.int32)
        b = tf.random_uniform([6], tf.constant(-3, tf.int64), 10, tf.int64, seed=3)
        assert a.shape.as_list() == [] and b.shape.as_list() == [6] and b.dtype == tf.int64
        with tf.Session() as s:
            runs = [s.run([a, b], {x: np.zeros(20)}) for _ in range(2)]
            with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval"):
                s.run(a, {x: np.zeros(1)})
    assert [int(r[0]) for r in runs] == [1, 2]
    np.testing.assert_array_equal(runs[0][1], [6, 8, 4, 1, -1, 4])
    np.testing.assert_array_equal(runs[1][1], [6, 4, -2, 0, -3, 3])


def test_one_hot_of_a_large_depth_needs_only_the_outputs_memory():
    # Kyubyong/transformer: one_hot(y, depth=32000); a depth x depth table was 7.6 GiB
    import resource
    g = tf.Graph()
    with g.as_default():
        y = tf.placeholder(tf.int32, [None, None])
        oh = tf.one_hot(y, depth=32000, on_value=2.0, off_value=-1.0, axis=1)
        with tf.Session() as s:
            limit = resource.getrlimit(resource.RLIMIT_AS)
            try:   # 1 GiB more than now is plenty for a (2, 32000, 3) float32 output
                used = _address_space_bytes()
                resource.setrlimit(resource.RLIMIT_AS, (used + 2 ** 30, limit[1]))
                out = s.run(oh, {y: np.array([[0, 31999, -1], [5, 32000, 7]])})
            finally:
                resource.setrlimit(resource.RLIMIT_AS, limit)
    assert out.shape == (2, 32000, 3) and out.dtype == np.float32
    assert out[0, 0, 0] == 2.0 and out[0, 31999, 1] == 2.0 and out[1, 5, 0] == 2.0
    assert out[0, :, 2].tolist() == [-1.0] * 32000 and out[1, :, 1].tolist() == [-1.0] * 32000
    assert (out == 2.0).sum() == 4


def _address_space_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * 4096


def test_from_generator_hands_args_as_tf_does():
    # Kyubyong/transformer: generator_fn(sents1, sents2, vocab_fpath) opens vocab_fpath and
    # decodes each sentence, so strings arrive as bytes and 0-d values as numpy scalars
    got = []

    def gen(path, sents, n, weights):
        got.extend([path, sents, n, weights])
        yield 1
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.from_generator(gen, tf.int32, (),
                                            args=("vocab.txt", ["ab", "c"], 3, [1.5, 2.0]))
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as s:
            assert s.run(nxt) == 1
    path, sents, n, weights = got
    assert type(path) is bytes and path == b"vocab.txt"
    assert sents.dtype == object and sents.tolist() == [b"ab", b"c"]
    assert type(n) is np.int32 and n == 3
    assert weights.dtype == np.float32 and weights.tolist() == [1.5, 2.0]


def test_dataset_functions_capture_outer_constants():
    # kratzert/finetune_alexnet_with_tensorflow: IMAGENET_MEAN = tf.constant(...) at module
    # level, subtracted inside the map function (TF captures it into the function)
    g = tf.Graph()
    with g.as_default():
        mean = tf.constant([1.0, 2.0, 3.0])
        scale = tf.constant(10.0)

        def parse(x):
            return (tf.cast(x, tf.float32) - mean) * scale + tf.reduce_sum(mean)

        ds = tf.data.Dataset.from_tensor_slices(np.arange(6).reshape(2, 3)).map(parse)
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as s:
            rows = [s.run(nxt) for _ in range(2)]
        np.testing.assert_allclose(rows, (np.arange(6).reshape(2, 3) - [1, 2, 3]) * 10 + 6)
        p = tf.placeholder(tf.float32, [])
        with pytest.raises(ValueError, match="uses tensor Placeholder:0 \\(Placeholder\\) of "
                                             "another graph; a dataset function may only use "
                                             "its arguments, constants"):
            tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) + p)


def test_map_takes_tf12_contrib_data_arguments():
    # tf.contrib.data.Dataset.map(f, num_threads=8, output_buffer_size=...) (TF 1.2-1.3)
    g = tf.Graph()
    with g.as_default():
        ds = tf.contrib.data.Dataset.range(5).map(lambda x: x * 2, num_threads=3,
                                                 output_buffer_size=4)
        it = tf.contrib.data.Iterator.from_structure(ds.output_types, ds.output_shapes)
        init, nxt = it.make_initializer(ds), it.get_next()
        with tf.Session() as s:
            s.run(init)
            assert [s.run(nxt) for _ in range(5)] == [0, 2, 4, 6, 8]
        with pytest.raises(ValueError, match="num_parallel_calls or num_threads"):
            ds.map(lambda x: x, num_parallel_calls=2, num_threads=2)


def test_sparse_placeholder_takes_a_shape_tensor_and_sparse_times_dense():
    # tkipf/gcn: sparse_placeholder(tf.float32, shape=tf.constant(shape, dtype=tf.int64)),
    # sparse dropout's sparse_retain(x, mask) * (1. / keep_prob)
    g = tf.Graph()
    with g.as_default():
        sp = tf.sparse_placeholder(tf.float32, shape=tf.constant([3, 4], dtype=tf.int64))
        assert sp.shape.as_list() == [3, 4]
        dyn = tf.sparse_placeholder(tf.float32, shape=tf.placeholder(tf.int64, [2]))
        assert dyn.indices.shape.as_list() == [None, 2]
        keep = tf.placeholder_with_default(0.5, shape=())
        halved = sp * (1. / keep)
        rows = tf.constant([[1.0], [2.0], [3.0]])
        scaled = sp * rows                               # dense broadcast to [3, 4]
        divided = sp / tf.constant([1.0, 2.0, 4.0, 8.0])
        w = tf.Variable(tf.ones([4, 2]))
        loss = tf.reduce_sum(tf.sparse_tensor_dense_matmul(scaled, w))
        grad, = tf.gradients(loss, w)
        value = tf.SparseTensorValue([[0, 1], [2, 3]], np.array([4.0, 8.0], np.float32), [3, 4])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            h, sc, dv, gv = s.run([halved, scaled, divided, grad], {sp: value})
    assert isinstance(h, tf.SparseTensorValue)
    np.testing.assert_array_equal(h.indices, [[0, 1], [2, 3]])
    np.testing.assert_allclose(h.values, [8.0, 16.0])
    np.testing.assert_allclose(sc.values, [4.0, 24.0])
    np.testing.assert_allclose(dv.values, [2.0, 1.0])
    np.testing.assert_allclose(gv, [[0, 0], [4, 4], [0, 0], [24, 24]])


def test_contrib_layers_bias_add_makes_a_biases_variable():
    # PetarV-/GAT: tf.contrib.layers.bias_add(vals) on [1, nodes, features]
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [1, None, 3])
        y = tf.contrib.layers.bias_add(x, activation_fn=tf.nn.relu,
                                       initializer=tf.constant_initializer([1.0, -5.0, 0.5]))
        z = tf.contrib.slim.bias_add(tf.ones([2, 3, 4, 4]), data_format="NCHW", scope="nc")
        names = [v.op.name for v in tf.global_variables()]
        assert names == ["BiasAdd/biases", "nc/biases"]
        assert tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)[0].op.name == "BiasAdd/biases"
        assert tf.global_variables()[1].shape.as_list() == [3]
        grad, = tf.gradients(tf.reduce_sum(y), tf.global_variables()[0])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            out, gv, zv = s.run([y, grad, z], {x: np.array([[[1.0, 2.0, 3.0]] * 2], np.float32)})
        with pytest.raises(ValueError, match="data_format has to be either NCHW or NHWC"):
            tf.contrib.layers.bias_add(x, data_format="NCW")
    np.testing.assert_allclose(out, [[[2.0, 0.0, 3.5]] * 2])
    np.testing.assert_allclose(gv, [2.0, 0.0, 2.0])
    assert zv.shape == (2, 3, 4, 4) and (zv == 1.0).all()

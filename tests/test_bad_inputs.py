"""Bad inputs across the public API (issue 17): every one raises the documented exception
type with a message holding the words it must contain (the argument, the value, what is
accepted). Each case is one distinct bad input; ``test_case_count`` keeps at least 150.
"""
import os

import numpy as np
import pytest
import estimator_npu as tf
from estimator_npu import errors
from estimator_npu.npu import NPURunConfig

CASES = []


def case(cid, exc, *words):
    def deco(fn):
        CASES.append((cid, fn, exc, words))
        return fn
    return deco


def g():
    graph = tf.Graph()
    return graph.as_default()


def in_graph(fn):
    def run(tmp):
        with tf.Graph().as_default():
            return fn(tmp)
    return run


# ---- Python values to tensors
TYPE_NAMES = {"None": "NoneType", "dict": "dict", "object": "object", "lambda": "function",
              "set": "set", "list_of_none": "NoneType", "nested_dict": "dict",
              "frozenset": "frozenset", "type": "type", "module": "module"}
for name, value in [("None", None), ("dict", {"a": 1}), ("object", object()),
                    ("lambda", lambda: 1), ("set", {1, 2}), ("list_of_none", [None, None]),
                    ("nested_dict", [[{"a": 1}]]), ("frozenset", frozenset([1])),
                    ("type", int), ("module", os)]:
    CASES.append((f"convert_to_tensor_{name}", in_graph(lambda tmp, v=value:
                   tf.convert_to_tensor(v)), TypeError, ("Failed to convert", TYPE_NAMES[name])))
for name, value, dt in [("str_to_float", "abc", tf.float32), ("float_to_int", 1.5, tf.int32),
                        ("dict_to_float", {"a": 1}, tf.float32), ("ragged", [[1, 2], [3]], None),
                        ("ragged3", [[[1], [2, 3]]], None), ("overflow_int32", 2**40, tf.int32),
                        ("overflow_uint8", 300, tf.uint8), ("negative_uint8", -1, tf.uint8),
                        ("huge_int", 2**70, None), ("None_float", None, tf.float32)]:
    CASES.append((f"constant_{name}", in_graph(lambda tmp, v=value, d=dt:
                   tf.constant(v, dtype=d)), (TypeError, ValueError), ()))
CASES.append(("constant_bad_shape", in_graph(lambda tmp: tf.constant([1, 2, 3], shape=[2, 2])),
              ValueError, ()))
CASES.append(("add_dict", in_graph(lambda tmp: tf.constant(1.0) + {"a": 1}), TypeError, ()))
CASES.append(("matmul_str", in_graph(lambda tmp: tf.matmul(tf.ones([2, 2]), "abc")),
              TypeError, ()))
CASES.append(("add_None", in_graph(lambda tmp: tf.add(tf.ones([2]), None)), TypeError, ()))
CASES.append(("mul_set", in_graph(lambda tmp: tf.multiply(tf.ones([2]), {1})), TypeError, ()))


# ---- shapes at build time
def shapes(cid, fn, exc=ValueError):
    CASES.append((cid, in_graph(lambda tmp: fn()), exc, ()))


shapes("matmul_inner", lambda: tf.matmul(tf.ones([2, 3]), tf.ones([4, 5])))
shapes("matmul_rank1", lambda: tf.matmul(tf.ones([3]), tf.ones([3, 2])))
shapes("add_broadcast", lambda: tf.add(tf.ones([2, 3]), tf.ones([4])))
shapes("sub_broadcast", lambda: tf.ones([2, 3]) - tf.ones([2, 2]))
shapes("reshape_size", lambda: tf.reshape(tf.ones([2, 3]), [4, 2]))
shapes("reshape_two_unknown", lambda: tf.reshape(tf.ones([2, 3]), [-1, -1]))
shapes("concat_axis_out", lambda: tf.concat([tf.ones([2, 3]), tf.ones([2, 3])], 5))
shapes("concat_shapes", lambda: tf.concat([tf.ones([2, 3]), tf.ones([2, 4])], 0))
shapes("concat_ranks", lambda: tf.concat([tf.ones([2, 3]), tf.ones([2])], 0))
shapes("stack_shapes", lambda: tf.stack([tf.ones([2]), tf.ones([3])]))
shapes("transpose_perm", lambda: tf.transpose(tf.ones([2, 3]), [0, 0]))
shapes("transpose_perm_len", lambda: tf.transpose(tf.ones([2, 3]), [0, 1, 2]))
shapes("reduce_axis", lambda: tf.reduce_sum(tf.ones([2, 3]), axis=2))
shapes("reduce_mean_axis", lambda: tf.reduce_mean(tf.ones([2, 3]), axis=-3))
shapes("argmax_axis", lambda: tf.argmax(tf.ones([2, 3]), axis=3))
shapes("split_uneven", lambda: tf.split(tf.ones([5, 2]), 2))
shapes("split_sizes", lambda: tf.split(tf.ones([5, 2]), [2, 2]))
shapes("squeeze_non1", lambda: tf.squeeze(tf.ones([2, 3]), axis=[0]))
shapes("expand_dims_axis", lambda: tf.expand_dims(tf.ones([2]), 5))
shapes("tile_len", lambda: tf.tile(tf.ones([2, 3]), [2]))
shapes("pad_len", lambda: tf.pad(tf.ones([2, 3]), [[1, 1]]))
shapes("gather_float_indices", lambda: tf.gather(tf.ones([3]), tf.constant([0.5])),
       (TypeError, ValueError))
shapes("one_hot_float", lambda: tf.one_hot(tf.constant([0.5]), 3), (TypeError, ValueError))
shapes("one_hot_depth_neg", lambda: tf.one_hot([0, 1], -1))
shapes("where_shapes", lambda: tf.where(tf.constant([True, False]), tf.ones([2]),
                                        tf.ones([3])))
shapes("slice_out", lambda: tf.ones([2, 3])[5])
shapes("slice_too_many", lambda: tf.ones([2, 3])[0, 0, 0])
shapes("cast_bad_dtype", lambda: tf.cast(tf.ones([2]), "no_such_dtype"), (TypeError, ValueError))
shapes("placeholder_bad_dtype", lambda: tf.placeholder("floatz"), (TypeError, ValueError))
shapes("placeholder_bad_shape", lambda: tf.placeholder(tf.float32, shape="abc"),
       (TypeError, ValueError))
shapes("zeros_negative", lambda: tf.zeros([-2, 3]))
shapes("conv2d_channels", lambda: tf.nn.conv2d(tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 4, 2]),
                                               [1, 1, 1, 1], "SAME"))
shapes("conv2d_padding", lambda: tf.nn.conv2d(tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 3, 2]),
                                              [1, 1, 1, 1], "FULL"))
shapes("conv2d_rank", lambda: tf.nn.conv2d(tf.ones([5, 5, 3]), tf.ones([3, 3, 3, 2]),
                                           [1, 1, 1, 1], "SAME"))
shapes("conv2d_format", lambda: tf.nn.conv2d(tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 3, 2]),
                                             [1, 1, 1, 1], "SAME", data_format="NWHC"))
shapes("bias_add_size", lambda: tf.nn.bias_add(tf.ones([2, 3]), tf.ones([4])))
shapes("xent_shapes", lambda: tf.nn.softmax_cross_entropy_with_logits_v2(
    labels=tf.ones([2, 3]), logits=tf.ones([2, 4])))
shapes("sparse_xent_rank", lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=tf.ones([2, 3], tf.int32), logits=tf.ones([2, 4])))
shapes("sparse_xent_float_labels", lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=tf.ones([2]), logits=tf.ones([2, 4])), (TypeError, ValueError))
shapes("sigmoid_xent_shapes", lambda: tf.nn.sigmoid_cross_entropy_with_logits(
    labels=tf.ones([2, 3]), logits=tf.ones([2, 4])))
shapes("dropout_rate", lambda: tf.nn.dropout(tf.ones([2]), rate=1.5))
shapes("dropout_rate_neg", lambda: tf.nn.dropout(tf.ones([2]), rate=-0.1))
shapes("softmax_int", lambda: tf.nn.softmax(tf.constant([1, 2])), (TypeError, ValueError))
shapes("dense_units_zero", lambda: tf.layers.dense(tf.ones([2, 3]), 0))
shapes("dense_unknown_last", lambda: tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 2))
shapes("conv2d_layer_filters", lambda: tf.layers.conv2d(tf.ones([1, 5, 5, 3]), 0, 3))
shapes("max_pooling2d_pool", lambda: tf.layers.max_pooling2d(tf.ones([1, 4, 4, 1]), 0, 2))
shapes("dense_kernel_rank", lambda: tf.layers.dense(tf.ones([3]), 2))
shapes("mixed_graphs", lambda: _mixed_graphs())
shapes("mixed_dtypes", lambda: tf.add(tf.ones([2]), tf.ones([2], tf.int32)), (TypeError, ValueError))
shapes("matmul_dtypes", lambda: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2], tf.float64)),
       (TypeError, ValueError))
shapes("variable_no_initial", lambda: tf.Variable(None), (TypeError, ValueError))
shapes("get_variable_no_shape", lambda: tf.get_variable("v"), (TypeError, ValueError))
shapes("get_variable_twice", lambda: (tf.get_variable("v", [2]), tf.get_variable("v", [2])))
shapes("get_variable_reuse_missing", lambda: _reuse_missing())
shapes("get_variable_shape_mismatch", lambda: _shape_mismatch())
shapes("assign_shape", lambda: tf.assign(tf.Variable(tf.ones([2])), tf.ones([3])))
shapes("assign_add_dtype", lambda: tf.assign_add(tf.Variable(tf.ones([2])),
                                                  tf.ones([2], tf.int32)), (TypeError, ValueError))
shapes("clip_global_norm_not_list", lambda: tf.clip_by_global_norm(tf.ones([2]), 1.0),
       TypeError)


def _mixed_graphs():
    with tf.Graph().as_default():
        a = tf.constant(1.0, name="a_other")
    return tf.add(tf.constant(2.0, name="b_here"), a)


def _reuse_missing():
    with tf.variable_scope("s", reuse=True):
        return tf.get_variable("missing", [2])


def _shape_mismatch():
    tf.get_variable("w", [2])
    with tf.variable_scope(tf.get_variable_scope(), reuse=True):
        return tf.get_variable("w", [3])


# ---- Session.run feeds and fetches
def sess_case(cid, fn, exc):
    def run(tmp):
        with tf.Graph().as_default() as graph:
            ints = tf.placeholder(tf.int32, [None], name="ints")
            floats = tf.placeholder(tf.float32, [None, 3], name="floats")
            u8 = tf.placeholder(tf.uint8, [2], name="bytes_in")
            v = tf.Variable(tf.ones([2]), name="weights")
            sess = tf.Session(graph=graph)
            try:
                return fn(sess, ints, floats, u8, v)
            finally:
                sess.close()
    CASES.append((cid, run, exc, ()))


sess_case("feed_overflow_int32", lambda s, i, f, u, v: s.run(i, {i: [2**40]}), ValueError)
sess_case("feed_overflow_int32_np", lambda s, i, f, u, v: s.run(i, {i: np.array([2**33])}),
          ValueError)
sess_case("feed_underflow_int32", lambda s, i, f, u, v: s.run(i, {i: [-2**40]}), ValueError)
sess_case("feed_overflow_uint8", lambda s, i, f, u, v: s.run(u, {u: np.array([1, 256])}),
          ValueError)
sess_case("feed_negative_uint8", lambda s, i, f, u, v: s.run(u, {u: np.array([1, -1])}),
          ValueError)
sess_case("feed_huge_python_int", lambda s, i, f, u, v: s.run(i, {i: [2**70]}), ValueError)
sess_case("feed_ragged", lambda s, i, f, u, v: s.run(f, {f: [[1, 2, 3], [1, 2]]}), ValueError)
sess_case("feed_ragged_deep", lambda s, i, f, u, v: s.run(i, {i: [[1], [2, 3]]}), ValueError)
sess_case("feed_wrong_shape", lambda s, i, f, u, v: s.run(f, {f: np.ones((2, 4))}), ValueError)
sess_case("feed_wrong_rank", lambda s, i, f, u, v: s.run(f, {f: np.ones(3)}), ValueError)
sess_case("feed_string_to_float", lambda s, i, f, u, v: s.run(f, {f: [["a", "b", "c"]]}),
          ValueError)
sess_case("feed_None", lambda s, i, f, u, v: s.run(i, {i: None}), TypeError)
sess_case("feed_dict_value", lambda s, i, f, u, v: s.run(i, {i: {"a": 1}}), TypeError)
sess_case("feed_object", lambda s, i, f, u, v: s.run(i, {i: [object()]}), TypeError)
sess_case("feed_key_int", lambda s, i, f, u, v: s.run(i, {5: [1]}), TypeError)
sess_case("feed_key_float", lambda s, i, f, u, v: s.run(i, {1.5: [1]}), TypeError)
sess_case("feed_key_missing_name", lambda s, i, f, u, v: s.run(i, {"nope:0": [1]}),
          (KeyError, ValueError))
sess_case("feed_key_op", lambda s, i, f, u, v: s.run(i, {i.op: [1]}), TypeError)
sess_case("feed_dict_not_dict", lambda s, i, f, u, v: s.run(i, [(i, [1])]), TypeError)
sess_case("unfed_placeholder", lambda s, i, f, u, v: s.run(i), errors.InvalidArgumentError)
sess_case("uninitialized_variable", lambda s, i, f, u, v: s.run(v),
          errors.FailedPreconditionError)
sess_case("fetch_None", lambda s, i, f, u, v: s.run(None), TypeError)
sess_case("fetch_int", lambda s, i, f, u, v: s.run(5), TypeError)
sess_case("fetch_missing_name", lambda s, i, f, u, v: s.run("nope:0"), (KeyError, ValueError))
sess_case("fetch_other_graph", lambda s, i, f, u, v: s.run(_other_graph_tensor()), ValueError)
sess_case("run_closed", lambda s, i, f, u, v: (s.close(), s.run(i, {i: [1]})), RuntimeError)
sess_case("fetch_bad_name_format", lambda s, i, f, u, v: s.run("ints:7"), (KeyError, ValueError))


def _other_graph_tensor():
    with tf.Graph().as_default():
        return tf.constant(1.0, name="elsewhere")


# ---- optimizers
for opt, kwargs in [("GradientDescentOptimizer", {}), ("AdamOptimizer", {}),
                    ("MomentumOptimizer", {"momentum": 0.9}), ("RMSPropOptimizer", {}),
                    ("AdagradOptimizer", {})]:
    for bad in (-1.0, float("nan"), float("inf")):
        CASES.append((f"{opt}_lr_{bad}", lambda tmp, o=opt, k=kwargs, b=bad:
                      getattr(tf.train, o)(learning_rate=b, **k), ValueError,
                      ("learning_rate", repr(bad))))
    CASES.append((f"{opt}_lr_str", lambda tmp, o=opt, k=kwargs:
                  getattr(tf.train, o)(learning_rate="0.1", **k), TypeError,
                  ("learning_rate", "str", "'0.1'")))
CASES.append(("minimize_no_variables", in_graph(lambda tmp: tf.train.GradientDescentOptimizer(
    0.1).minimize(tf.constant(1.0))), ValueError, ()))
CASES.append(("minimize_int_loss", in_graph(lambda tmp: (tf.Variable(1.0),
              tf.train.GradientDescentOptimizer(0.1).minimize(tf.constant(1)))),
              (TypeError, ValueError), ()))
CASES.append(("apply_gradients_empty", in_graph(lambda tmp: tf.train.GradientDescentOptimizer(
    0.1).apply_gradients([])), ValueError, ()))
CASES.append(("apply_gradients_not_var", in_graph(lambda tmp: tf.train.GradientDescentOptimizer(
    0.1).apply_gradients([(tf.ones([2]), tf.ones([2]))])), (TypeError, ValueError), ()))
CASES.append(("exponential_decay_no_step", in_graph(lambda tmp: tf.train.exponential_decay(
    0.1, None, 100, 0.9)), ValueError, ()))
CASES.append(("piecewise_lengths", in_graph(lambda tmp: tf.train.piecewise_constant(
    tf.train.get_or_create_global_step(), [10, 20], [1.0, 0.5])), ValueError, ()))
CASES.append(("exponential_decay_steps_zero", in_graph(lambda tmp: tf.train.exponential_decay(
    0.1, tf.train.get_or_create_global_step(), 0, 0.9)), ValueError, ()))


# ---- checkpoints
def _one_var_session():
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(np.ones(2, np.float32), name="v")
        saver = tf.train.Saver()
        sess = tf.Session(graph=graph)
        sess.run(v.initializer)
    return graph, sess, saver


def ckpt_case(cid, fn, exc):
    def run(tmp):
        graph, sess, saver = _one_var_session()
        with graph.as_default():
            return fn(tmp, sess, saver)
    CASES.append((cid, run, exc, ()))


def _touch(path, text=""):
    with open(path, "w") as f:
        f.write(text)
    return path


ckpt_case("saver_max_to_keep_neg", lambda t, s, sv: tf.train.Saver(max_to_keep=-1), ValueError)
ckpt_case("saver_var_list_bad", lambda t, s, sv: tf.train.Saver(var_list=[1, 2]), TypeError)
ckpt_case("saver_no_variables", lambda t, s, sv: _empty_saver(), ValueError)
ckpt_case("save_parent_missing", lambda t, s, sv: sv.save(s, os.path.join(t, "no", "dir",
                                                                       "model.ckpt")), ValueError)
ckpt_case("save_parent_is_file", lambda t, s, sv: sv.save(s, os.path.join(
    _touch(os.path.join(t, "f")), "model.ckpt")), ValueError)
ckpt_case("save_path_not_str", lambda t, s, sv: sv.save(s, 5), TypeError)
ckpt_case("save_latest_filename_dir", lambda t, s, sv: sv.save(
    s, os.path.join(t, "m"), latest_filename="a/b"), ValueError)
ckpt_case("restore_None", lambda t, s, sv: sv.restore(s, None), ValueError)
ckpt_case("restore_missing", lambda t, s, sv: sv.restore(s, os.path.join(t, "nope")),
          ValueError)
ckpt_case("restore_corrupt_index", lambda t, s, sv: (
    sv.save(s, os.path.join(t, "m")), _touch(os.path.join(t, "m.index"), "junk"),
    sv.restore(s, os.path.join(t, "m"))), errors.DataLossError)
ckpt_case("restore_missing_data", lambda t, s, sv: (
    sv.save(s, os.path.join(t, "m")), os.remove(os.path.join(t, "m.data-00000-of-00001")),
    sv.restore(s, os.path.join(t, "m"))), errors.NotFoundError)
ckpt_case("restore_missing_key", lambda t, s, sv: _restore_other_model(t, s, sv),
          errors.NotFoundError)
ckpt_case("restore_shape_mismatch", lambda t, s, sv: _restore_other_shape(t, s, sv),
          errors.InvalidArgumentError)
ckpt_case("latest_checkpoint_empty_state", lambda t, s, sv: (
    _touch(os.path.join(t, "checkpoint")), tf.train.get_checkpoint_state(t)), ValueError)
ckpt_case("state_file_garbage", lambda t, s, sv: (
    _touch(os.path.join(t, "checkpoint"), "nonsense"), tf.train.get_checkpoint_state(t)),
          ValueError)
ckpt_case("load_variable_missing_dir", lambda t, s, sv: tf.train.load_variable(t, "v"),
          ValueError)
ckpt_case("load_variable_missing_key", lambda t, s, sv: (
    sv.save(s, os.path.join(t, "m"), global_step=1), tf.train.load_variable(t, "nope")),
          errors.NotFoundError)
ckpt_case("list_variables_missing", lambda t, s, sv: tf.train.list_variables(
    os.path.join(t, "nope")), errors.NotFoundError)


def _empty_saver():
    with tf.Graph().as_default():
        return tf.train.Saver()


def _restore_other_model(t, s, sv):
    path = sv.save(s, os.path.join(t, "m"))
    with tf.Graph().as_default() as graph:
        tf.Variable(np.ones(2, np.float32), name="other_name")
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            saver.restore(sess, path)


def _restore_other_shape(t, s, sv):
    path = sv.save(s, os.path.join(t, "m"))
    with tf.Graph().as_default() as graph:
        tf.Variable(np.ones(3, np.float32), name="v")
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            saver.restore(sess, path)


# ---- data
def ds(cid, fn, exc):
    CASES.append((cid, in_graph(lambda tmp: fn()), exc, ()))


R = lambda: tf.data.Dataset.range(10)  # noqa: E731
ds("slices_ragged", lambda: tf.data.Dataset.from_tensor_slices([[1, 2], [3]]), ValueError)
ds("slices_ragged_tuple", lambda: tf.data.Dataset.from_tensor_slices(([[1, 2], [3]], [1, 2])),
   ValueError)
ds("slices_ragged_dict", lambda: tf.data.Dataset.from_tensor_slices({"img": [[1], [2, 3]]}),
   ValueError)
ds("slices_scalar", lambda: tf.data.Dataset.from_tensor_slices(5), ValueError)
ds("slices_lengths", lambda: tf.data.Dataset.from_tensor_slices((np.ones(3), np.ones(4))),
   ValueError)
ds("slices_None", lambda: tf.data.Dataset.from_tensor_slices(None), TypeError)
ds("slices_object", lambda: tf.data.Dataset.from_tensor_slices([object(), object()]), TypeError)
ds("slices_empty_tuple", lambda: tf.data.Dataset.from_tensor_slices(()), ValueError)
ds("tensors_None_component", lambda: tf.data.Dataset.from_tensors((1, None)), TypeError)
ds("batch_zero", lambda: R().batch(0), ValueError)
ds("batch_negative", lambda: R().batch(-3), ValueError)
ds("batch_float", lambda: R().batch(2.5), TypeError)
ds("batch_str", lambda: R().batch("2"), TypeError)
ds("shuffle_zero", lambda: R().shuffle(0), ValueError)
ds("shuffle_float", lambda: R().shuffle(1.5), TypeError)
ds("repeat_float", lambda: R().repeat(1.5), TypeError)
ds("repeat_minus2", lambda: R().repeat(-2), ValueError)
ds("take_float", lambda: R().take(1.5), TypeError)
ds("skip_str", lambda: R().skip("a"), TypeError)
ds("shard_index", lambda: R().shard(2, 2), ValueError)
ds("shard_zero", lambda: R().shard(0, 0), ValueError)
ds("prefetch_neg", lambda: R().prefetch(-5), ValueError)
ds("map_not_callable", lambda: R().map(5), TypeError)
ds("filter_not_callable", lambda: R().filter("x"), TypeError)
ds("filter_returns_float", lambda: R().filter(lambda x: tf.cast(x, tf.float32)),
   (TypeError, ValueError))
ds("map_parallel_zero", lambda: R().map(lambda x: x, num_parallel_calls=0), ValueError)
ds("zip_not_datasets", lambda: tf.data.Dataset.zip((R(), 5)), TypeError)
ds("concatenate_mismatch", lambda: R().concatenate(tf.data.Dataset.from_tensors(1.0)),
   (TypeError, ValueError))
ds("range_float_step", lambda: tf.data.Dataset.range(0, 10, 0), ValueError)
ds("generator_not_callable", lambda: tf.data.Dataset.from_generator(5, tf.int32), TypeError)
ds("padded_batch_zero", lambda: R().padded_batch(0, []), ValueError)


def _exhausted():
    it = tf.data.Dataset.range(1).make_one_shot_iterator()
    x = it.get_next()
    with tf.Session() as sess:
        sess.run(x)
        sess.run(x)


def _uninitialized_iterator():
    it = tf.data.Dataset.range(1).make_initializable_iterator()
    x = it.get_next()
    with tf.Session() as sess:
        sess.run(x)


def _map_bad_output():
    ds = tf.data.Dataset.range(3).map(lambda x: None)
    return ds


ds("iterator_exhausted", _exhausted, errors.OutOfRangeError)
ds("iterator_uninitialized", _uninitialized_iterator, errors.FailedPreconditionError)
ds("map_returns_None", _map_bad_output, (TypeError, ValueError))


# ---- estimator, run configs, hooks, metrics
def _model_fn(features, labels, mode):
    w = tf.get_variable("w", [1])
    loss = tf.reduce_sum(w)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=tf.assign_add(
        tf.train.get_global_step(), 1))


def est_case(cid, fn, exc):
    CASES.append((cid, lambda tmp: fn(tmp), exc, ()))


def E(tmp, **kw):
    return tf.estimator.Estimator(_model_fn, model_dir=os.path.join(tmp, "m"), **kw)


def IN():
    return tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])).repeat()


est_case("runconfig_both_intervals", lambda t: tf.estimator.RunConfig(
    save_checkpoints_steps=10, save_checkpoints_secs=10), ValueError)
est_case("runconfig_neg_steps", lambda t: tf.estimator.RunConfig(save_checkpoints_steps=-1),
         ValueError)
est_case("runconfig_keep_float", lambda t: tf.estimator.RunConfig(keep_checkpoint_max=1.5),
         TypeError)
est_case("runconfig_summary_str", lambda t: tf.estimator.RunConfig(save_summary_steps="10"),
         TypeError)
est_case("runconfig_model_dir_int", lambda t: tf.estimator.RunConfig(model_dir=5), TypeError)
est_case("runconfig_model_dir_empty", lambda t: tf.estimator.RunConfig(model_dir=""), ValueError)
est_case("runconfig_seed_float", lambda t: tf.estimator.RunConfig(tf_random_seed=1.5), TypeError)
est_case("runconfig_session_config", lambda t: tf.estimator.RunConfig(session_config={}),
         TypeError)
est_case("runconfig_replace_unknown", lambda t: tf.estimator.RunConfig().replace(bogus=1),
         ValueError)
est_case("runconfig_worker_index", lambda t: tf.estimator.RunConfig(num_workers=2,
                                                                    worker_index=2), ValueError)
est_case("npu_iterations_float", lambda t: NPURunConfig(iterations_per_loop=1.5), TypeError)
est_case("npu_iterations_zero", lambda t: NPURunConfig(iterations_per_loop=0), ValueError)
est_case("npu_mix_compile_str", lambda t: NPURunConfig(mix_compile_mode="yes"), TypeError)
est_case("npu_mix_with_loop", lambda t: NPURunConfig(mix_compile_mode=True,
                                                     iterations_per_loop=10), ValueError)
est_case("estimator_config_dict", lambda t: E(t, config={}), ValueError)
est_case("estimator_model_dir_mismatch", lambda t: tf.estimator.Estimator(
    _model_fn, model_dir=os.path.join(t, "a"),
    config=tf.estimator.RunConfig(model_dir=os.path.join(t, "b"))), ValueError)
est_case("estimator_model_fn_no_features", lambda t: tf.estimator.Estimator(
    lambda labels, mode: None, model_dir=t), ValueError)
est_case("estimator_params_not_accepted", lambda t: tf.estimator.Estimator(
    lambda features, labels: None, model_dir=t, params={"a": 1}), ValueError)
est_case("estimator_model_fn_unknown_arg", lambda t: tf.estimator.Estimator(
    lambda features, banana: None, model_dir=t), ValueError)
est_case("train_steps_and_max", lambda t: E(t).train(IN, steps=1, max_steps=2), ValueError)
est_case("train_steps_zero", lambda t: E(t).train(IN, steps=0), ValueError)
est_case("train_max_steps_neg", lambda t: E(t).train(IN, max_steps=-5), ValueError)
est_case("train_steps_str", lambda t: E(t).train(IN, steps="2"), TypeError)  # 2.5 rounds up
est_case("train_hooks_not_hooks", lambda t: E(t).train(IN, steps=1, hooks=[5]), TypeError)
est_case("train_listeners_bad", lambda t: E(t).train(IN, steps=1, saving_listeners=[5]),
         TypeError)
est_case("train_input_fn_returns_int", lambda t: E(t).train(lambda: 5, steps=1),
         (TypeError, ValueError))
est_case("train_model_fn_returns_None", lambda t: tf.estimator.Estimator(
    lambda features, labels, mode: None, model_dir=t).train(IN, steps=1), (TypeError, ValueError))
est_case("evaluate_steps_zero", lambda t: E(t).evaluate(IN, steps=0), ValueError)
est_case("evaluate_name_int", lambda t: E(t).evaluate(IN, steps=1, name=5), TypeError)
est_case("get_variable_value_untrained", lambda t: E(t).get_variable_value("w"), ValueError)
est_case("spec_bad_mode", lambda t: tf.estimator.EstimatorSpec("fly", loss=tf.constant(1.0)),
         ValueError)
est_case("spec_train_no_train_op", lambda t: _in_graph(lambda: tf.estimator.EstimatorSpec(
    tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0))), ValueError)
est_case("spec_loss_not_scalar", lambda t: _in_graph(lambda: tf.estimator.EstimatorSpec(
    tf.estimator.ModeKeys.EVAL, loss=tf.ones([2]))), (TypeError, ValueError))
est_case("spec_predict_no_predictions", lambda t: _in_graph(lambda: tf.estimator.EstimatorSpec(
    tf.estimator.ModeKeys.PREDICT)), ValueError)
est_case("spec_hooks_bad", lambda t: _in_graph(lambda: tf.estimator.EstimatorSpec(
    tf.estimator.ModeKeys.EVAL, loss=tf.constant(1.0), evaluation_hooks=[5])), TypeError)
est_case("stop_at_step_both", lambda t: tf.train.StopAtStepHook(num_steps=1, last_step=2),
         ValueError)
est_case("stop_at_step_none", lambda t: tf.train.StopAtStepHook(), ValueError)
est_case("checkpoint_hook_two_intervals", lambda t: tf.train.CheckpointSaverHook(
    t, save_secs=1, save_steps=1), ValueError)
est_case("checkpoint_hook_no_interval", lambda t: tf.train.CheckpointSaverHook(t), ValueError)
est_case("checkpoint_hook_dir_int", lambda t: tf.train.CheckpointSaverHook(5, save_steps=1),
         TypeError)
est_case("step_counter_two", lambda t: tf.train.StepCounterHook(every_n_steps=1,
                                                                every_n_secs=1), ValueError)
est_case("logging_hook_no_interval", lambda t: tf.train.LoggingTensorHook({"a": "b"}),
         ValueError)
est_case("logging_hook_bad_n", lambda t: tf.train.LoggingTensorHook({"a": "b"},
                                                                    every_n_iter=0), ValueError)
est_case("summary_hook_neither", lambda t: tf.train.SummarySaverHook(save_steps=1,
                                                                     output_dir=t), ValueError)
est_case("monitored_hooks_bad", lambda t: _in_graph(lambda: tf.train.MonitoredSession(
    hooks=[5])), TypeError)
est_case("metrics_accuracy_shapes", lambda t: _in_graph(lambda: tf.metrics.accuracy(
    tf.ones([2]), tf.ones([3]))), ValueError)
est_case("metrics_mean_weights", lambda t: _in_graph(lambda: tf.metrics.mean(
    tf.ones([2]), weights=tf.ones([3]))), ValueError)
est_case("metrics_auc_thresholds", lambda t: _in_graph(lambda: tf.metrics.auc(
    tf.ones([2]), tf.ones([2]), num_thresholds=1)), ValueError)
est_case("set_iteration_per_loop_zero", lambda t: _in_graph(lambda: tf.npu.util.
    set_iteration_per_loop(tf.Session(), tf.no_op(), 0)), (TypeError, ValueError))
est_case("loss_scale_manager_neg", lambda t: tf.npu.FixedLossScaleManager(-1.0), ValueError)
est_case("exp_loss_scale_bad", lambda t: tf.npu.ExponentialUpdateLossScaleManager(
    init_loss_scale=2**10, incr_every_n_steps=0), ValueError)


def _in_graph(fn):
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        return fn()


# ---- datasets
def _mnist_dir(tmp, labels=None, truncate=False):
    from estimator_npu.datasets import mnist
    d = os.path.join(tmp, "mnist")
    os.makedirs(d, exist_ok=True)
    n = 20
    mnist.write_idx(os.path.join(d, mnist.TRAIN_IMAGES + ".gz"), np.zeros((n, 28, 28), np.uint8))
    lab = np.arange(n, dtype=np.uint8) % 10 if labels is None else labels
    mnist.write_idx(os.path.join(d, mnist.TRAIN_LABELS + ".gz"), lab)
    mnist.write_idx(os.path.join(d, mnist.TEST_IMAGES + ".gz"), np.zeros((n, 28, 28), np.uint8))
    mnist.write_idx(os.path.join(d, mnist.TEST_LABELS + ".gz"), lab)
    if truncate:
        p = os.path.join(d, mnist.TRAIN_IMAGES + ".gz")
        with open(p, "r+b") as f:
            f.truncate(os.path.getsize(p) // 2)
    return d


def _read(d, **kw):
    from estimator_npu.datasets import mnist
    return mnist.read_data_sets(d, validation_size=5, **kw)


CASES.append(("mnist_missing_dir", lambda t: _read(os.path.join(t, "none")), FileNotFoundError,
              ()))
CASES.append(("mnist_label_12", lambda t: _read(_mnist_dir(t, labels=np.full(20, 12, np.uint8))),
              ValueError, ()))
CASES.append(("mnist_label_12_one_hot", lambda t: _read(_mnist_dir(
    t, labels=np.full(20, 12, np.uint8)), one_hot=True), ValueError, ()))
CASES.append(("mnist_truncated_gz", lambda t: _read(_mnist_dir(t, truncate=True)), ValueError,
              ()))
CASES.append(("mnist_validation_too_big", lambda t: _read(_mnist_dir(t)) if False else
              __import__("estimator_npu.datasets.mnist", fromlist=["x"]).read_data_sets(
                  _mnist_dir(t), validation_size=100), ValueError, ()))
CASES.append(("mnist_dtype_int32", lambda t: _read(_mnist_dir(t), dtype=np.int32), TypeError,
              ()))
CASES.append(("one_hot_out_of_range", lambda t: __import__(
    "estimator_npu.datasets.mnist", fromlist=["x"]).dense_to_one_hot(np.array([11])),
    ValueError, ()))


# ---- more build-time arguments
def _more(cid, fn, exc, *words):
    CASES.append((cid, in_graph(lambda tmp: fn()), exc, words))


_more("reduce_axis_float", lambda: tf.reduce_sum(tf.ones([2, 3]), axis=1.5), TypeError,
      "axis", "1.5")
_more("one_hot_depth_float", lambda: tf.one_hot([0, 1], 2.5), TypeError, "depth", "2.5")
_more("one_hot_depth_str", lambda: tf.one_hot([0, 1], "3"), TypeError, "depth", "'3'")
_more("gather_axis_out", lambda: tf.gather(tf.ones([2, 3]), [0], axis=5), ValueError,
      "axis 5", "rank 2")
_more("cast_None", lambda: tf.cast(tf.ones([2]), None), TypeError, "None", "dtype")
_more("adam_beta1_2", lambda: tf.train.AdamOptimizer(0.1, beta1=2.0), ValueError, "beta1",
      "2.0", "< 1.0")
_more("adam_beta2_1", lambda: tf.train.AdamOptimizer(0.1, beta2=1.0), ValueError, "beta2",
      "< 1.0")
_more("adam_epsilon_neg", lambda: tf.train.AdamOptimizer(0.1, epsilon=-1.0), ValueError,
      "epsilon", "-1.0")
_more("momentum_negative", lambda: tf.train.MomentumOptimizer(0.1, -0.5), ValueError,
      "momentum", "-0.5")
_more("placeholder_negative_dim", lambda: tf.placeholder(tf.float32, [-2]), ValueError,
      "-2", ">= 0")
_more("reshape_float_dim", lambda: tf.reshape(tf.ones([2, 3]), [2.5, 2]), TypeError,
      "shape", "2.5")
_more("zeros_float_dim", lambda: tf.zeros([2.0, 3]), TypeError, "shape", "2.0")
_more("dataset_range_str", lambda: tf.data.Dataset.range("a"), TypeError, "'a'")


WORDS = {'matmul_inner': ['MatMul', '(2, 3)', '(4, 5)'], 'matmul_rank1': ['rank', '(3,)'], 'add_broadcast': ['broadcastable', '(2, 3)', '(4,)'], 'sub_broadcast': ['broadcastable', '(2, 2)'], 'reshape_size': ['reshape', '(2, 3)', '[4, 2]'], 'reshape_two_unknown': ['-1'], 'concat_axis_out': ['axis 5', 'rank 2'], 'concat_shapes': ['(2, 3)', '(2, 4)'], 'concat_ranks': ['ranks', '(2,)'], 'stack_shapes': ['(1, 2)', '(1, 3)'], 'transpose_perm': ['perm', '[0, 0]'], 'transpose_perm_len': ['perm', '[0, 1, 2]'], 'reduce_axis': ['axis 2', 'rank 2'], 'reduce_mean_axis': ['axis -3', 'rank 2'], 'argmax_axis': ['axis 3', 'rank 2'], 'split_uneven': ['size 5', '2 parts'], 'split_sizes': ['[2, 2]', 'size 5'], 'squeeze_non1': ['squeeze', 'size 2'], 'expand_dims_axis': ['axis 5', 'rank 1'], 'tile_len': ['multiples', '[2]', 'rank 2'], 'pad_len': ['paddings', 'rank 2'], 'gather_float_indices': ['indices', 'float32'], 'one_hot_float': ['indices', 'float32'], 'one_hot_depth_neg': ['-1'], 'where_shapes': ['(2,)', '(3,)'], 'slice_out': ['Index 5', 'size 2'], 'slice_too_many': ['Too many indices', 'rank 2'], 'cast_bad_dtype': ['no_such_dtype', 'dtype'], 'placeholder_bad_dtype': ['floatz', 'dtype'], 'placeholder_bad_shape': ['shape', 'abc'], 'zeros_negative': ['-2', '>= 0'], 'conv2d_channels': ['channels 3', 'in_channels 4'], 'conv2d_padding': ['padding', 'FULL'], 'conv2d_rank': ['4-D', '(5, 5, 3)'], 'conv2d_format': ['data_format', 'NWHC'], 'bias_add_size': ['(4,)', 'channel dim 3'], 'xent_shapes': ['labels', '(2, 3)', '(2, 4)'], 'sparse_xent_rank': ['labels', '(2, 3)', '(2, 4)'], 'sparse_xent_float_labels': ['labels', 'float32'], 'sigmoid_xent_shapes': ['(2, 4)', '(2, 3)'], 'dropout_rate': ['rate', '1.5'], 'dropout_rate_neg': ['rate', '-0.1'], 'softmax_int': ['floating', 'int32'], 'dense_units_zero': ['units', '0'], 'dense_unknown_last': ['last dimension', '(?, ?)'], 'conv2d_layer_filters': ['filters', '0'], 'max_pooling2d_pool': ['ksize', '[0, 0]'], 'dense_kernel_rank': ['rank', '(3,)'], 'mixed_graphs': ['a_other:0', 'b_here:0', 'graph'], 'mixed_dtypes': ['float32', 'int32'], 'matmul_dtypes': ['float32', 'float64'], 'variable_no_initial': ['initial_value'], 'get_variable_no_shape': ['v', 'shape'], 'get_variable_twice': ['v', 'already exists', 'reuse'], 'get_variable_reuse_missing': ['s/missing', 'does not exist'], 'get_variable_shape_mismatch': ['w', '(3,)', '(2,)'], 'assign_shape': ['(3,)', '(2,)'], 'assign_add_dtype': ['float32', 'int32'], 'clip_global_norm_not_list': ['t_list', 'Tensor'], 'constant_str_to_float': ['float32', "'abc'", 'str'], 'constant_float_to_int': ['int32', '1.5', 'float'], 'constant_dict_to_float': ['dict'], 'constant_ragged': ['non-rectangular', '[2, 1]'], 'constant_ragged3': ['non-rectangular', '[1, 2]'], 'constant_overflow_int32': ['1099511627776', 'int32', '2147483647'], 'constant_overflow_uint8': ['300', 'uint8', '255'], 'constant_negative_uint8': ['-1', 'uint8', '[0, 255]'], 'constant_huge_int': ['1180591620717411303424', 'int64'], 'constant_None_float': ['NoneType'], 'constant_bad_shape': ['(3,)', '(2, 2)'], 'add_dict': ['dict'], 'matmul_str': ['float32', "'abc'"], 'add_None': ['NoneType'], 'mul_set': ['set'], 'feed_overflow_int32': ['ints', '1099511627776', 'int32', '2147483647'], 'feed_overflow_int32_np': ['ints', '8589934592', 'int32'], 'feed_underflow_int32': ['ints', '-1099511627776', '-2147483648'], 'feed_overflow_uint8': ['bytes_in', 'uint8'], 'feed_negative_uint8': ['bytes_in', 'uint8'], 'feed_huge_python_int': ['ints', '1180591620717411303424', 'int32'], 'feed_ragged': ['floats', 'ragged', '[3, 2]'], 'feed_ragged_deep': ['ints', 'ragged', '[1, 2]'], 'feed_wrong_shape': ['floats', '(2, 4)', '(?, 3)'], 'feed_wrong_rank': ['floats', '(3,)', '(?, 3)'], 'feed_float_to_int': ['ints', 'float64', 'int32'], 'feed_string_to_float': ['floats', 'float32'], 'feed_None': ['ints', 'NoneType'], 'feed_dict_value': ['ints', 'dict'], 'feed_object': ['ints', 'object'], 'feed_key_int': ['feed_dict key', '5', 'int'], 'feed_key_float': ['feed_dict key', '1.5', 'float'], 'feed_key_missing_name': ['nope'], 'feed_key_op': ['feed_dict key', 'ints', 'Operation'], 'feed_dict_not_dict': ['feed_dict', 'list'], 'unfed_placeholder': ['ints', 'feed'], 'uninitialized_variable': ['uninitialized', 'weights'], 'fetch_None': ['Fetch argument None'], 'fetch_int': ['Fetch argument 5', 'int'], 'fetch_missing_name': ['nope'], 'fetch_other_graph': ['elsewhere:0', 'graph'], 'run_closed': ['closed Session'], 'fetch_bad_name_format': ['ints:7', '1 outputs'], 'minimize_no_variables': ['No variables'], 'minimize_int_loss': ['int32', 'float32'], 'apply_gradients_empty': ['No variables'], 'apply_gradients_not_var': ['Variable', 'Tensor'], 'exponential_decay_no_step': ['global_step'], 'piecewise_lengths': ['boundaries', 'values'], 'exponential_decay_steps_zero': ['decay_steps', '0'], 'saver_max_to_keep_neg': ['max_to_keep', '-1'], 'saver_var_list_bad': ['var_list', 'int'], 'saver_no_variables': ['No variables'], 'save_parent_missing': ['Parent directory', "doesn't exist"], 'save_parent_is_file': ['is a file', 'not a directory'], 'save_path_not_str': ['save_path', 'int'], 'save_latest_filename_dir': ['latest_filename', 'a/b'], 'restore_None': ['save_path', 'None'], 'restore_missing': ['not a valid checkpoint', 'nope'], 'restore_corrupt_index': ['m.index', 'no known format'], 'restore_missing_data': ['m.data-00000-of-00001', 'missing'], 'restore_missing_key': ['other_name', 'not found'], 'restore_shape_mismatch': ['Shape mismatch', '[3]', '[2]'], 'latest_checkpoint_empty_state': ['Invalid checkpoint state', 'is empty'], 'state_file_garbage': ['Invalid checkpoint state', 'nonsense'], 'load_variable_missing_dir': ['checkpoint', 'directory'], 'load_variable_missing_key': ['nope', 'not found'], 'list_variables_missing': ['nope', 'Failed to find'], 'slices_ragged': ['from_tensor_slices', 'ragged', '[2, 1]'], 'slices_ragged_tuple': ['component [0]', 'ragged', '[2, 1]'], 'slices_ragged_dict': ["component ['img']", 'ragged', '[1, 2]'], 'slices_scalar': ['scalar', 'component 0'], 'slices_lengths': ['component 0 has 3', 'component 1 has 4'], 'slices_None': ['None'], 'slices_object': ['object'], 'slices_empty_tuple': ['at least one component'], 'tensors_None_component': ['None', 'component [1]'], 'batch_zero': ['batch_size', '0'], 'batch_negative': ['batch_size', '-3'], 'batch_float': ['batch_size', '2.5'], 'batch_str': ['batch_size', "'2'"], 'shuffle_zero': ['buffer_size', '0'], 'shuffle_float': ['buffer_size', '1.5'], 'repeat_float': ['count', '1.5'], 'repeat_minus2': ['count', '-2'], 'take_float': ['count', '1.5'], 'skip_str': ['count', "'a'"], 'shard_index': ['index', 'num_shards', '2'], 'shard_zero': ['num_shards', '0'], 'prefetch_neg': ['buffer_size', '-5'], 'map_not_callable': ['map', 'callable', '5'], 'filter_not_callable': ['filter', 'callable'], 'filter_returns_float': ['predicate', 'boolean', 'float32'], 'map_parallel_zero': ['num_parallel_calls', '0'], 'zip_not_datasets': ['zip', 'Datasets'], 'concatenate_mismatch': ['concatenate', 'int64', 'float32'], 'range_float_step': ['step', '0'], 'generator_not_callable': ['generator', 'callable'], 'padded_batch_zero': ['batch_size', '0'], 'iterator_exhausted': ['End of sequence'], 'iterator_uninitialized': ['not been initialized', 'initializer'], 'map_returns_None': ['map', 'None'], 'runconfig_both_intervals': ['save_checkpoints_steps', 'save_checkpoints_secs'], 'runconfig_neg_steps': ['save_checkpoints_steps', '-1'], 'runconfig_keep_float': ['keep_checkpoint_max', '1.5'], 'runconfig_summary_str': ['save_summary_steps', "'10'"], 'runconfig_model_dir_int': ['model_dir', 'int'], 'runconfig_model_dir_empty': ['model_dir', "''"], 'runconfig_seed_float': ['tf_random_seed', '1.5'], 'runconfig_session_config': ['session_config', 'ConfigProto', 'dict'], 'runconfig_replace_unknown': ['bogus', 'accepted'], 'runconfig_worker_index': ['worker_index', 'num_workers'], 'npu_iterations_float': ['iterations_per_loop', '1.5'], 'npu_iterations_zero': ['iterations_per_loop', '0'], 'npu_mix_compile_str': ['mix_compile_mode', "'yes'"], 'npu_mix_with_loop': ['mix_compile_mode', 'iterations_per_loop=10'], 'estimator_config_dict': ['config', 'RunConfig', 'dict'], 'estimator_model_dir_mismatch': ['model_dir', '/a', '/b'], 'estimator_model_fn_no_features': ['features'], 'estimator_params_not_accepted': ['params'], 'estimator_model_fn_unknown_arg': ['banana', 'accepted'], 'train_steps_and_max': ['steps', 'max_steps'], 'train_steps_zero': ['steps', '0'], 'train_max_steps_neg': ['max_steps', '-5'], 'train_steps_str': ['steps', "'2'"], 'train_hooks_not_hooks': ['SessionRunHook', '5'], 'train_listeners_bad': ['saving_listeners', 'CheckpointSaverListener'], 'train_input_fn_returns_int': ['input_fn', 'int'], 'train_model_fn_returns_None': ['model_fn', 'EstimatorSpec', 'None'], 'evaluate_steps_zero': ['steps', '0'], 'evaluate_name_int': ['name', 'int'], 'get_variable_value_untrained': ['trained model', 'model_dir'], 'spec_bad_mode': ['mode', "'fly'"], 'spec_train_no_train_op': ['train_op', 'TRAIN'], 'spec_loss_not_scalar': ['Loss', 'scalar', '(2,)'], 'spec_predict_no_predictions': ['predictions', 'PREDICT'], 'spec_hooks_bad': ['SessionRunHook', 'evaluation_hooks'], 'stop_at_step_both': ['num_steps', 'last_step'], 'stop_at_step_none': ['num_steps', 'last_step'], 'checkpoint_hook_two_intervals': ['save_secs', 'save_steps'], 'checkpoint_hook_no_interval': ['save_secs', 'save_steps'], 'checkpoint_hook_dir_int': ['checkpoint_dir', 'int'], 'step_counter_two': ['every_n_secs', 'every_n_steps'], 'logging_hook_no_interval': ['every_n_iter', 'every_n_secs'], 'logging_hook_bad_n': ['every_n_iter', '0'], 'summary_hook_neither': ['scaffold', 'summary_op'], 'monitored_hooks_bad': ['SessionRunHook', 'int'], 'metrics_accuracy_shapes': ['(3,)', '(2,)'], 'metrics_mean_weights': ['(2,)', '(3,)'], 'metrics_auc_thresholds': ['num_thresholds', '1'], 'set_iteration_per_loop_zero': ['iterations_per_loop', '0'], 'loss_scale_manager_neg': ['loss_scale', '-1.0'], 'exp_loss_scale_bad': ['incr_every_n_steps', '0'], 'mnist_missing_dir': ['train-images-idx3-ubyte', 'does not exist'], 'mnist_label_12': ['train-labels-idx1-ubyte.gz', 'label 12', '[0, 9]'], 'mnist_label_12_one_hot': ['train-labels-idx1-ubyte.gz', 'label 12'], 'mnist_truncated_gz': ['train-images-idx3-ubyte.gz', 'truncated'], 'mnist_validation_too_big': ['validation_size', '100'], 'mnist_dtype_int32': ['dtype', 'int32'], 'one_hot_out_of_range': ['labels', '11']}


# The exact type where a case's table entry accepts several (the one we document).
EXACT_TYPES = {
    'apply_gradients_not_var': 'TypeError',
    'assign_add_dtype': 'ValueError',
    'cast_bad_dtype': 'TypeError',
    'concatenate_mismatch': 'TypeError',
    'constant_None_float': 'TypeError',
    'constant_dict_to_float': 'TypeError',
    'constant_float_to_int': 'TypeError',
    'constant_huge_int': 'ValueError',
    'constant_negative_uint8': 'ValueError',
    'constant_overflow_int32': 'ValueError',
    'constant_overflow_uint8': 'ValueError',
    'constant_ragged': 'ValueError',
    'constant_ragged3': 'ValueError',
    'constant_str_to_float': 'TypeError',
    'feed_key_missing_name': 'KeyError',
    'fetch_bad_name_format': 'KeyError',
    'fetch_missing_name': 'KeyError',
    'filter_returns_float': 'TypeError',
    'gather_float_indices': 'TypeError',
    'get_variable_no_shape': 'ValueError',
    'map_returns_None': 'TypeError',
    'matmul_dtypes': 'TypeError',
    'minimize_int_loss': 'ValueError',
    'mixed_dtypes': 'TypeError',
    'one_hot_float': 'TypeError',
    'placeholder_bad_dtype': 'TypeError',
    'placeholder_bad_shape': 'TypeError',
    'set_iteration_per_loop_zero': 'ValueError',
    'softmax_int': 'TypeError',
    'sparse_xent_float_labels': 'TypeError',
    'spec_loss_not_scalar': 'ValueError',
    'train_input_fn_returns_int': 'TypeError',
    'train_model_fn_returns_None': 'ValueError',
    'variable_no_initial': 'ValueError',
}


def _words(cid, given):
    return tuple(given) or tuple(WORDS[cid])


def test_case_count():
    ids = [c[0] for c in CASES]
    assert len(set(ids)) == len(ids), "duplicate case ids"
    assert len(ids) >= 150, len(ids)
    for cid, _, _, given in CASES:
        assert _words(cid, given), f"{cid} asserts no words"


@pytest.mark.parametrize("cid,fn,exc,given", CASES, ids=[c[0] for c in CASES])
def test_bad_input(cid, fn, exc, given, tmp_path):
    with pytest.raises(exc) as info:
        fn(str(tmp_path))
    if isinstance(exc, tuple):
        assert type(info.value).__name__ == EXACT_TYPES[cid], (cid, type(info.value))
    message = str(info.value)
    if isinstance(info.value, KeyError) and info.value.args:
        message = str(info.value.args[0])
    for word in _words(cid, given):
        assert word in message, f"{cid}: {word!r} not in {message!r}"

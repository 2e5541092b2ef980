"""TF 0.x-style calls still found in old scripts: the error kind TF1 gives (checked against
TF 2.15's compat.v1 and TF 1.15's ``_sentinel`` argument), with a message that says what
to write instead; the deprecated TF 0.x aliases TF1 kept still work."""
import numpy as np
import pytest

import estimator_npu as tf


@pytest.fixture
def xy():
    with tf.Graph().as_default():
        yield tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[0.0, 1.0], [1.0, 0.0]])


# TF1 refused positional cross-entropy calls (a ``_sentinel`` first parameter, against TF
# 0.x's (logits, labels) order); TF 2.15's compat.v1, the oracle (SPEC 12), dropped the
# sentinel and takes (labels, logits) positionally, so we do the same (values checked
# against TF in tests/conformance: nn_sce_positional_err).
@pytest.mark.parametrize("fn", ["softmax_cross_entropy_with_logits",
                                "sigmoid_cross_entropy_with_logits",
                                "sparse_softmax_cross_entropy_with_logits"])
def test_positional_cross_entropy_is_labels_then_logits(xy, fn):
    x, y = xy
    labels = tf.constant([1, 0]) if fn.startswith("sparse") else y
    with tf.Session() as sess:
        a, b = sess.run([getattr(tf.nn, fn)(labels, x),
                         getattr(tf.nn, fn)(labels=labels, logits=x)])
    np.testing.assert_array_equal(a, b)


def test_sigmoid_cross_entropy_without_labels_is_a_value_error(xy):
    with pytest.raises(ValueError, match="both labels and logits"):
        tf.nn.sigmoid_cross_entropy_with_logits(logits=xy[0])


def test_concat_and_split_with_the_axis_first(xy):
    x, y = xy
    for axis in (0, tf.constant(1)):
        with pytest.raises(ValueError, match=r"TF 0\.x's tf\.concat\(concat_dim, values\) "
                                             r"order; since TF 1\.0 write tf\.concat\(values"):
            tf.concat(axis, [x, y])
    with pytest.raises(TypeError, match=r"TF 0\.x's tf\.split\(split_dim, num_split, value\)"):
        tf.split(0, 2, x)
    with pytest.raises(TypeError, match=r"tf\.split\(value, num_or_size_splits, axis\)"):
        tf.split(1, 2, np.ones((2, 2), np.float32))
    assert [t.shape.as_list() for t in tf.split(x, 2, 1)] == [[2, 1], [2, 1]]
    assert tf.concat([x, y], 0).shape.as_list() == [4, 2]


@pytest.mark.parametrize("old, new", [("mul", "tf.multiply"), ("sub", "tf.subtract"),
                                      ("neg", "tf.negative"), ("select", "tf.where"),
                                      ("pack", "tf.stack"), ("unpack", "tf.unstack"),
                                      ("batch_matmul", "tf.matmul"),
                                      ("merge_all_summaries", "tf.summary.merge_all"),
                                      ("inv", "tf.reciprocal"),
                                      ("scalar_summary", "tf.summary.scalar")])
def test_names_removed_in_tf1_name_their_replacement(old, new):
    with pytest.raises(AttributeError, match=rf"tf\.{old}: it is TF 0\.x's name, removed in TF "
                                             rf"1\.0 .*; use {new}$"):
        getattr(tf, old)
    assert not hasattr(tf, old)


def test_renamed_names_under_the_tensorflow_alias(run_script, tmp_path):
    script = tmp_path / "old.py"
    script.write_text("import tensorflow as tf\nw = tf.train.SummaryWriter('logs')\n")
    proc = run_script(script, cwd=tmp_path, expect_rc=1)
    assert ("tf.train.SummaryWriter: it is TF 0.x's name, removed in TF 1.0 (TF1 has no "
            "tf.train.SummaryWriter either); use tf.summary.FileWriter") in proc.stderr


def test_deprecated_aliases_tf1_kept_still_work():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        loc = tf.Variable(2.0, collections=[tf.GraphKeys.LOCAL_VARIABLES])
        assert tf.all_variables() == [v]
        with tf.Session() as sess:
            sess.run(tf.initialize_all_variables())
            sess.run(tf.initialize_local_variables())
            sess.run(tf.initialize_variables([v], name="just_v"))
            assert sess.run([v, loc]) == [1.0, 2.0]


def test_nce_loss_with_tf0_argument_order():
    with tf.Graph().as_default():
        w, b = tf.ones([5, 2]), tf.zeros([5])
        embed = tf.ones([2, 2])
        labels = tf.constant([[1], [2]], tf.int64)
        for fn in (tf.nn.nce_loss, tf.nn.sampled_softmax_loss):
            with pytest.raises(ValueError, match=r"TF 0\.x's argument order \(weights, biases, "
                                                 r"inputs, labels\)"):
                fn(w, b, embed, labels, 2, 5)


def test_resize_images_with_tf0_height_width_arguments():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"'size' must be a 1-D Tensor of 2 elements.*"
                                             r"resize_images\(images, \[new_height, new_width\]\)"):
            tf.image.resize_images(tf.zeros([1, 4, 4, 1]), 2, 2)
        assert tf.image.resize_images(tf.zeros([1, 4, 4, 1]), [2, 2]).shape.as_list() == \
            [1, 2, 2, 1]

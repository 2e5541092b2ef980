"""``smart_cond`` at TF's module paths (``tensorflow.python.layers.utils`` and
``tensorflow.python.framework.smart_cond``): a known predicate calls its branch directly,
an unknown one builds ``tf.cond``; values checked against TF 2.15 by hand."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.math_ops_extra.tensor_utils import smart_cond


def test_known_predicates_call_the_branch_and_unknown_ones_build_a_cond():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        training = tf.placeholder_with_default(False, [])
        a = smart_cond(True, lambda: x * 2, lambda: x)
        c = smart_cond(tf.constant(False), lambda: x * 2, lambda: x - 1)
        d = smart_cond(1, lambda: x + 1, lambda: x)
        b = smart_cond(training, lambda: x * 2, lambda: x)
        assert (a.op.type, c.op.type, d.op.type) == ("Mul", "Sub", "Add")
        feed = {x: [[1., 2., 3.]]}
        with tf.Session() as sess:
            got = sess.run([a, b, c, d], feed)
            np.testing.assert_array_equal(got[1], [[1., 2., 3.]])
            np.testing.assert_array_equal(got[2], [[0., 1., 2.]])
            np.testing.assert_array_equal(sess.run(b, {**feed, training: True}),
                                          [[2., 4., 6.]])
        with pytest.raises(TypeError, match="`pred` must be a Tensor.*got str"):
            smart_cond("yes", lambda: x, lambda: x)
        with pytest.raises(TypeError, match="`false_fn` must be callable"):
            smart_cond(True, lambda: x, x)


def test_scripts_import_it_from_tf_paths(tmp_path):
    script = tmp_path / "selu_net.py"
    script.write_text(textwrap.dedent("""
        import tensorflow as tf
        from tensorflow.python.layers import utils
        from tensorflow.python.framework import smart_cond as sc
        x = tf.placeholder(tf.float32, [None, 2])
        is_training = tf.placeholder(tf.bool, [])
        y = utils.smart_cond(is_training, lambda: tf.nn.dropout(x, 0.5), lambda: x)
        z = sc.smart_cond(False, lambda: x, lambda: x * 3)
        with tf.Session() as sess:
            print(sess.run([y, z], {x: [[1., 2.]], is_training: False}))
    """))
    out = subprocess.run([sys.executable, "-m", "estimator_npu.run", str(script)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "array([[1., 2.]], dtype=float32), array([[3., 6.]], dtype=float32)" in out.stdout

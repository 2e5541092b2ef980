"""tf.linalg and its TF1 aliases against real TF 2.15 (values recorded by
``tools/record_tf_linalg.py``), their static shapes and errors."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).parent
GOLDEN = json.loads((HERE / "linalg_golden.json").read_text())
_spec = importlib.util.spec_from_file_location("estimator_npu_tests_linalg_cases",
                                               HERE / "linalg_cases.py")
CASES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES)


def test_every_case_has_a_golden_record():
    assert sorted(CASES.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_values_match_tf(name, check_recorded_values):
    check_recorded_values(CASES.CASES[name], GOLDEN[name], rtol=2e-5, atol=2e-5)


def _shapes(ts):
    return [t.shape.as_list() if t.shape.ndims is not None else None for t in ts]


def test_static_shapes_as_tf():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 4, 3])
        s = tf.placeholder(tf.float32, [None, 3, 3])
        assert _shapes(tf.linalg.qr(p)) == [[None, 4, 3], [None, 3, 3]]
        assert _shapes(tf.linalg.qr(p, full_matrices=True)) == [[None, 4, 4], [None, 4, 3]]
        assert _shapes(tf.linalg.svd(p)) == [[None, 3], [None, 4, 3], [None, 3, 3]]
        assert _shapes(tf.linalg.svd(p, full_matrices=True)) == [[None, 3], [None, 4, 4],
                                                                  [None, 3, 3]]
        assert _shapes(tf.linalg.slogdet(s)) == [[None], [None]]
        assert _shapes(tf.linalg.eigh(s)) == [[None, 3], [None, 3, 3]]
        assert _shapes([tf.linalg.det(s), tf.linalg.logdet(s), tf.linalg.trace(p),
                        tf.linalg.diag_part(p), tf.linalg.transpose(p),
                        tf.tensordot(p, tf.zeros([3, 5]), 1), tf.linalg.lstsq(p, p),
                        tf.linalg.solve(s, p[:, :3, :2]), tf.diag(tf.zeros([2, 3])),
                        tf.linalg.inv(tf.placeholder(tf.float32))]) == [
            [None], [None], [None], [None, 3], [None, 3, 4], [None, 4, 5], [None, 3, 3],
            [None, 3, 2], [2, 3, 2, 3], None]


def test_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="square"):
            tf.linalg.inv(tf.placeholder(tf.float32, [None, 4, 3]))
        with pytest.raises(ValueError, match="rank >= 2"):
            tf.linalg.inv(tf.zeros([3]))
        with pytest.raises(TypeError, match="int32"):
            tf.linalg.inv(tf.zeros([3, 3], tf.int32))
        x = tf.placeholder(tf.float64, [2, 2])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="MatrixInverse"):
                sess.run(tf.linalg.inv(x), {x: np.ones((2, 2))})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Cholesky"):
                sess.run(tf.cholesky(x), {x: -np.eye(2)})

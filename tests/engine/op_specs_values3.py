"""Gradient-check cases for what the third issue-12 value round added (values checked
against TF 2.15 by tests/conformance/test_tf_sweep.py): TF2's ``tf.image.resize``
(half-pixel centres, antialias, the ScaleAndTranslate kernels) and ``tf.image.ssim``.
Every case also runs fed through ``shape=None`` and ``[None, ...]`` placeholders
(test_gradients)."""
import numpy as np

import estimator_npu as tf
from estimator_npu.images import resize_ops
from estimator_npu.images import ssim as ssim_ops
from op_spec_tools import case_list, normal

CASES, case = case_list(order=1)



def _resize(x, size, method="bilinear", antialias=False):
    """TF2's resize kernels on float64 (``tf.image.resize`` itself returns float32, as TF's
    does, so the float64 check builds the same Resize op directly)."""
    kind = method if not antialias and method in ("bilinear", "bicubic") else \
        "scale:%s:%d" % (resize_ops._V2_METHODS[method], antialias)
    return resize_ops._resize(tf.convert_to_tensor(x), {
        "size": tuple(size), "method": kind, "align_corners": False, "half_pixel": True})


case("Resize", "v2_bilinear_up", lambda x: _resize(x, [5, 7]), normal((1, 3, 4, 2)))
case("Resize", "v2_bilinear_antialias_down", lambda x: _resize(x, [2, 3], antialias=True),
     normal((1, 5, 6, 1)))
case("Resize", "v2_lanczos3_up", lambda x: _resize(x, [4, 5], method="lanczos3"),
     normal((3, 3, 1)))
case("Resize", "v2_gaussian_antialias_down", lambda x: _resize(
    x, [2, 2], method="gaussian", antialias=True), normal((1, 5, 4, 2)))


def _ssim(x, y):
    """TF's ssim core on float64 (``tf.image.ssim`` itself computes in float32, as TF's)."""
    per_channel, cs = ssim_ops._ssim_per_channel(tf.convert_to_tensor(x),
                                                 tf.convert_to_tensor(y), 1.0, 3, 1.5,
                                                 0.01, 0.03)
    return per_channel + 0.5 * cs


case("Conv2D", "ssim_per_channel", _ssim, lambda rng: [rng.uniform(0, 1, (2, 5, 4, 2)),
                                                     rng.uniform(0, 1, (2, 5, 4, 2))])


# sparse: the values' gradient flows through the gathers merge and split are made of
_IDX = np.array([[1, 0], [0, 0], [1, 1]], np.int64)
case("GatherV2", "sparse_merge_values", lambda v: tf.sparse_merge(
    tf.SparseTensor(_IDX, np.array([2, 0, 1], np.int64), [2, 2]),
    tf.SparseTensor(_IDX, v, [2, 2]), 3).values * [1.0, 2.0, 3.0], normal((3,)))
case("GatherV2", "sparse_split_values", lambda v: tf.concat([s.values for s in (
    tf.sparse.split(sp_input=tf.SparseTensor([[0, 0], [1, 2], [1, 3]], v, [2, 4]),
                    num_split=2, axis=1))], 0) * [1.0, 2.0, 3.0], normal((3,)))


def _ctc(x, **kw):
    labels = tf.SparseTensor(np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.int64),
                             np.array([1, 1, 0, 2], np.int32), [2, 2])
    return tf.nn.ctc_loss(labels, x, [4, 3], **kw)


case("CTCLoss", "ctc_loss", _ctc, normal((4, 2, 4)))
case("CTCLoss", "ctc_loss_no_merge", lambda x: _ctc(x, ctc_merge_repeated=False),
     normal((4, 2, 4)))

"""Gradient-check cases for the TF1 ops of issue 12's ``tf1ops`` work: ``tf.Print``
(identity), the partition/stitch ops, sharded embedding lookups and ``tf.linalg``.

Each case is ``(op_type, case_id, build, make_inputs[, options])`` (see ``gradcheck``).
"""
import numpy as np

import estimator_npu as tf
from op_spec_tools import case_list, normal

CASES, case = case_list()


case("Print", "identity_with_data",
     lambda x, y: tf.Print(x, [y, tf.shape(x)], message="never printed: ", first_n=0) * y,
     normal((2, 3), (2, 3)))

# ------------------------------------------------------------------ partition / stitch
PARTS = np.array([2, 0, 2, 1, 0], np.int32)
case("DynamicPartition", "rows_weighted",
     lambda x: tf.add_n([tf.reduce_sum(p * (k + 1.0)) for k, p in
                         enumerate(tf.dynamic_partition(x, PARTS, 3))]), normal((5, 3)))
case("DynamicPartition", "one_output_used_2d_partitions",
     lambda x: tf.dynamic_partition(x, np.array([[1, 0, 1], [0, 0, 1]], np.int32), 2)[1],
     normal((2, 3, 2)))
case("DynamicStitch", "two_lists",
     lambda a, b: tf.dynamic_stitch([[0, 3], [[2], [1]]], [a, b]), normal((2, 2), (2, 1, 2)))
case("DynamicStitch", "partition_round_trip",
     lambda x: tf.dynamic_stitch(tf.dynamic_partition(tf.range(5), PARTS, 3),
                                 tf.dynamic_partition(x * x, PARTS, 3)), normal((5, 2)))

# ------------------------------------------------------------------ sharded lookups
IDS = np.array([[7, 0], [4, 2]], np.int32)
for _strategy in ("mod", "div"):
    case("GatherV2", f"embedding_lookup_shards_{_strategy}",
         lambda a, b, c, s=_strategy: tf.nn.embedding_lookup([a, b, c], IDS,
                                                             partition_strategy=s),
         normal((3, 2), (3, 2), (2, 2)),
         unknown_shape_skip={"rank": "placing ids needs each shard's row count; with "
                                     "shards of unknown rank TF's lookup cannot either"}
         if _strategy == "mod" else None)
case("GatherV2", "embedding_lookup_max_norm",
     lambda a, b: tf.nn.embedding_lookup([a, b], IDS % 4, max_norm=0.5), normal((2, 3), (2, 3)))
case("GatherV2", "embedding_lookup_single_max_norm",
     lambda a: tf.nn.embedding_lookup(a, IDS % 3, max_norm=0.5), normal((3, 3)))

# ------------------------------------------------------------------ tf.linalg
def well_conditioned(*shapes):
    """Square inputs ``n I + noise`` (batched): far from singular."""
    def make(rng):
        out = []
        for s in shapes:
            a = rng.standard_normal(s) * 0.3
            out.append(a + s[-1] * np.eye(s[-1]) if s[-1] == s[-2] else a)
        return out
    return make


def flat(*ts):
    """The outputs of a decomposition as one vector."""
    return tf.concat([tf.reshape(t, [-1]) for t in ts], 0)


def spd(a):
    """A symmetric positive definite matrix from any square ``a`` (batched)."""
    n = a.shape[-1] if a.shape.ndims is not None and a.shape[-1].value else 3
    return tf.matmul(a, a, transpose_b=True) + n * tf.eye(n, dtype=a.dtype)


_SIGN_FREE = {"rank": "the decomposition's static output shapes need the input's rank"}
case("MatrixInverse", "batched", lambda a: tf.linalg.inv(a), well_conditioned((2, 3, 3)))
case("MatrixInverse", "adjoint", lambda a: tf.matrix_inverse(a, adjoint=True),
     well_conditioned((3, 3)))
case("MatrixDeterminant", "batched", lambda a: tf.linalg.det(a), well_conditioned((2, 3, 3)))
case("LogMatrixDeterminant", "log_abs_det", lambda a: tf.linalg.slogdet(a)[1] * 1.5,
     well_conditioned((2, 3, 3)))
case("MatrixSolve", "batched", lambda a, b: tf.linalg.solve(a, b),
     well_conditioned((2, 3, 3), (2, 3, 2)))
case("MatrixSolve", "adjoint", lambda a, b: tf.matrix_solve(a, b, adjoint=True),
     well_conditioned((3, 3), (3, 2)))
for _lower in (True, False):
    for _adj in (False, True):
        case("MatrixTriangularSolve", f"lower_{_lower}_adjoint_{_adj}",
             lambda a, b, lo=_lower, ad=_adj: tf.linalg.triangular_solve(a, b, lower=lo,
                                                                          adjoint=ad),
             well_conditioned((2, 3, 3), (2, 3, 2)))
case("Cholesky", "of_spd", lambda a: tf.linalg.cholesky(spd(a)), normal((2, 3, 3)),
     unknown_shape_skip=_SIGN_FREE)
case("Cholesky", "cholesky_solve_logdet",
     lambda a, b: tf.linalg.cholesky_solve(tf.cholesky(spd(a)), b) *
     tf.expand_dims(tf.expand_dims(tf.linalg.logdet(spd(a)), -1), -1),
     normal((2, 3, 3), (2, 3, 2)), unknown_shape_skip=_SIGN_FREE)
case("MatrixTriangularSolve", "lstsq_tall", lambda a, b: tf.linalg.lstsq(a, b, 0.1),
     normal((4, 3), (4, 2)))
case("MatrixTriangularSolve", "lstsq_wide", lambda a, b: tf.matrix_solve_ls(a, b),
     well_conditioned((2, 3), (2, 2)))
case("Qr", "tall_reduced",
     lambda a: flat(*[tf.square(x) for x in tf.linalg.qr(a)]), normal((2, 4, 3)),
     unknown_shape_skip="the QR gradient needs the matrix's static rows and columns, as TF")
case("Qr", "square", lambda a: tf.abs(tf.qr(a)[1]), well_conditioned((3, 3)),
     unknown_shape_skip="the QR gradient needs the matrix's static rows and columns, as TF")
case("SelfAdjointEigV2", "values_and_vectors",
     lambda a: flat(tf.linalg.eigh(a + tf.linalg.matrix_transpose(a))[0],
                    tf.square(tf.linalg.eigh(a + tf.linalg.matrix_transpose(a))[1])),
     normal((2, 3, 3)))
case("SelfAdjointEigV2", "eigvalsh_lower_triangle_only",
     lambda a: tf.linalg.eigvalsh(a), normal((3, 3)))
case("Svd", "singular_values", lambda a: tf.linalg.svd(a, compute_uv=False),
     normal((2, 4, 3)))
case("Svd", "vectors_tall",
     lambda a: flat(*[tf.square(x) for x in tf.linalg.svd(a)]), normal((4, 3)))
case("Svd", "vectors_wide",
     lambda a: flat(*[tf.square(x) for x in tf.svd(a)[1:]]), normal((2, 3, 4)))
case("MatrixDiag", "batched", lambda d: tf.linalg.diag(d) * 2.0, normal((2, 3)))
case("MatrixDiagPart", "rectangular", lambda a: tf.linalg.diag_part(a), normal((2, 3, 4)))
case("MatrixDiagPart", "trace", lambda a: tf.linalg.trace(a), normal((2, 3, 3)))
case("MatrixSetDiag", "both_inputs", lambda a, d: tf.linalg.set_diag(a, d),
     normal((2, 3, 4), (2, 3)))
case("MatrixBandPart", "lower_1_upper_0", lambda a: tf.linalg.band_part(a, 1, 0),
     normal((2, 4, 4)))
case("MatrixTranspose", "batched", lambda a: tf.linalg.transpose(a) * 3.0, normal((2, 3, 4)))
case("MatMul", "tensordot_axes_1",
     lambda a, b: tf.tensordot(a, b, 1), normal((2, 3), (3, 4)),
     unknown_shape_skip={"rank": "tensordot needs the inputs' ranks, as TF"})
case("MatMul", "tensordot_axes_lists",
     lambda a, b: tf.linalg.tensordot(a, b, [[0, 2], [1, 0]]), normal((2, 3, 4), (4, 2, 5)),
     unknown_shape_skip={"rank": "tensordot needs the inputs' ranks, as TF"})
case("Reshape", "tf_diag_and_diag_part",
     lambda d: tf.diag_part(tf.diag(d) * 2.0), normal((2, 3)),
     unknown_shape_skip={"rank": "diag_part needs its input's rank, as TF"})

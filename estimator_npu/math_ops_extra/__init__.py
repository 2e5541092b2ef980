"""TF1 ops above the engine's core: special and less common elementwise math, the array
ops of ``tf.*`` / ``tf.math`` / ``tf.image`` the engine lacks (sort, roll, space_to_depth,
extract_image_patches, ...), 3-D convolution and pooling, incomplete gamma / beta and
Bessel functions, edit distance and CTC greedy decoding, segment reductions, tensor /
variable scatters, ``tf.sparse_*`` and TF1's variable utilities (``make_template``, the
orthogonal initializer, ...). The facades (``estimator_npu``, ``math``, ``nn``, ``image``, ``sparse``)
re-export them."""


def _register_op_families():
    """Adds this package's op families to the engine's op table (the one place this package
    registers ops)."""
    from estimator_npu.engine import registry
    from estimator_npu.math_ops_extra import (array_extra, elementwise, more_math, scatters,
                                              segments, space_ops, sparse_more, sparse_ops,
                                              ctc_loss,
                                              tensor_utils,
                                              incomplete, sequence_decode, variable_utils,
                                              window3d, pool_argmax)
    registry.register_families([elementwise.OPS, array_extra.OPS, space_ops.OPS,
                                tensor_utils.OPS, segments.OPS, scatters.OPS,
                                variable_utils.OPS, sparse_ops.OPS, more_math.OPS,
                                window3d.OPS, incomplete.OPS, sequence_decode.OPS, sparse_more.OPS,
                                ctc_loss.OPS, pool_argmax.OPS])


_register_op_families()

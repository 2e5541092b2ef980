"""Input pipelines (``tf.data`` of TF1): ``Dataset`` transformations in numpy, and
iterators whose ``get_next`` is an op of the graph.

    import estimator_npu as tf
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000, seed=0).batch(32)
    images, labels = tf.data.make_one_shot_iterator(ds).get_next()
"""
from estimator_npu.data import experimental  # noqa: F401
from estimator_npu.data.base import AUTOTUNE  # noqa: F401
from estimator_npu.data.dataset import (Dataset, get_output_classes,  # noqa: F401
                                        get_output_shapes, get_output_types)
from estimator_npu.data.readers import (FixedLengthRecordDataset, TextLineDataset,  # noqa
                                        TFRecordDataset)
from estimator_npu.data.options import Options  # noqa: F401
from estimator_npu.data.iterator_ops import (Iterator, make_initializable_iterator,  # noqa
                                             make_one_shot_iterator)

__all__ = ["Dataset", "Iterator", "make_one_shot_iterator", "make_initializable_iterator",
           "get_output_types", "get_output_shapes", "get_output_classes", "experimental",
           "AUTOTUNE", "TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset",
           "Options"]


def _register_op_families():
    """Adds this layer's op families (each module's ``OPS``) to the engine's op table: the
    one place the data layer registers ops."""
    from estimator_npu.engine import registry
    from estimator_npu.data import (csv_ops, example_parsing, image_codecs, iterator_ops, raw_ops,
                                    readers, sequence_parsing, sparse, string_format,
                                    string_ops)
    registry.register_families([csv_ops.OPS, example_parsing.OPS, image_codecs.OPS,
                                iterator_ops.OPS, raw_ops.OPS, readers.OPS, sequence_parsing.OPS,
                                sparse.OPS, string_ops.OPS, string_format.OPS])


_register_op_families()

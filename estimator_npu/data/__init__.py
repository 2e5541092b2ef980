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

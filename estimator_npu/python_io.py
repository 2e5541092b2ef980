"""``tf.python_io``: TF1's TFRecord reading and writing (re-exports only)."""
from estimator_npu.data.tfrecord import TFRecordCompressionType  # noqa: F401
from estimator_npu.data.tfrecord import TFRecordOptions  # noqa: F401
from estimator_npu.data.tfrecord import TFRecordWriter  # noqa: F401
from estimator_npu.data.tfrecord import tf_record_iterator  # noqa: F401

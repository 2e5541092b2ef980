"""``tf.data.experimental`` names used by TF1 input pipelines."""
from estimator_npu.data.base import AUTOTUNE  # noqa: F401
from estimator_npu.data.csv_ops import make_csv_dataset  # noqa: F401
from estimator_npu.data.readers import CsvDataset  # noqa: F401
from estimator_npu.data.readers import TFRecordWriter  # noqa: F401
from estimator_npu.data.readers import ignore_errors  # noqa: F401
from estimator_npu.data.readers import parallel_interleave  # noqa: F401

__all__ = ["AUTOTUNE", "ignore_errors", "CsvDataset", "make_csv_dataset",
           "parallel_interleave", "TFRecordWriter"]

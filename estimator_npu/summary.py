"""``tf.summary``: summary ops and the event-file writer (re-exported from ``train``)."""
from estimator_npu.train.summary_ops import (Summary, SummaryValue, get_summary_description,  # noqa
                                             histogram, image, merge, merge_all, scalar, text)
from estimator_npu.train.summary_writer import (FileWriter, FileWriterCache,  # noqa: F401
                                                summary_iterator)

__all__ = ["Summary", "SummaryValue", "scalar", "histogram", "image", "text", "merge",
           "merge_all", "FileWriter", "FileWriterCache", "summary_iterator",
           "get_summary_description"]

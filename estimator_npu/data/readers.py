"""The file-reading ``Dataset`` classes of ``tf.data`` and ``Dataset.list_files``.

    files = Dataset.list_files("/data/train-*.tfrecord", shuffle=True, seed=1)
    ds = files.shard(num_workers, rank).interleave(
        lambda f: TFRecordDataset(f, compression_type="GZIP"), cycle_length=4)
"""
import glob
import os

import numpy as np

from estimator_npu import errors
from estimator_npu.data import file_sources
from estimator_npu.data.base import Node
from estimator_npu.data.dataset import Dataset
from estimator_npu.data.structure import Spec
from estimator_npu.engine import dtypes
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


class TFRecordDataset(Dataset):
    """``tf.data.TFRecordDataset(filenames, compression_type=None, buffer_size=None,
    num_parallel_reads=None)``: the records of TFRecord files, as scalar strings.

    With ``num_parallel_reads`` files are read that many at a time, one record from each
    in turn (TF's deterministic order).
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        super().__init__(file_sources.TFRecordNode(filenames, compression_type, buffer_size,
                                                   num_parallel_reads))


class TextLineDataset(Dataset):
    """``tf.data.TextLineDataset(filenames, compression_type=None, buffer_size=None,
    num_parallel_reads=None)``: the lines of text files, without line endings."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        super().__init__(file_sources.TextLineNode(filenames, compression_type, buffer_size,
                                                   num_parallel_reads))


class FixedLengthRecordDataset(Dataset):
    """``tf.data.FixedLengthRecordDataset(filenames, record_bytes, header_bytes=None,
    footer_bytes=None, buffer_size=None, compression_type=None)``."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None,
                 name=None):
        super().__init__(file_sources.FixedLengthRecordNode(
            filenames, record_bytes, header_bytes, footer_bytes, buffer_size,
            compression_type))


class CsvDataset(Dataset):
    """``tf.data.experimental.CsvDataset(filenames, record_defaults, compression_type=None,
    buffer_size=None, header=False, field_delim=',', use_quote_delim=True, na_value='',
    select_cols=None)``: a tuple of scalars per CSV line (see ``csv_ops``)."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None, name=None):
        from estimator_npu.data import csv_ops
        super().__init__(csv_ops.CsvNode(filenames, record_defaults, compression_type,
                                         buffer_size, header, field_delim, use_quote_delim,
                                         na_value, select_cols))


class ListFilesNode(Node):
    """The files matching glob patterns, sorted per pattern; resolved when iterated."""

    def __init__(self, patterns):
        self._patterns = file_sources.Filenames(patterns, "list_files")
        self.inputs = self._patterns.inputs()
        self.spec = Spec(None, [dtypes.string], [TensorShape([])])

    def captures(self):
        return self._patterns.captures()

    def matches(self, env):
        patterns = list(self._patterns.resolve(env))
        out = []
        for p in patterns:
            out.extend(sorted(glob.glob(p)))
        if not out:
            raise errors.InvalidArgumentError(
                None, None, f"Expected 'file_pattern' to match at least one file, but no "
                f"file matched {patterns if len(patterns) != 1 else patterns[0]!r} (in "
                f"{os.getcwd()})")
        return out

    def iterate(self, env):
        for name in self.matches(env):
            yield (file_sources.scalar_string(name.encode()),)


def list_files(file_pattern, shuffle=None, seed=None, name=None):
    """``Dataset.list_files``: the filenames matching ``file_pattern`` (a glob or list of
    globs), shuffled (the default) with ``seed``, in a new order each epoch.

    Raises (when iterated):
        InvalidArgumentError: no file matches, naming the pattern.
    """
    ds = Dataset(ListFilesNode(file_pattern))
    if shuffle is None or shuffle:
        ds = ds.shuffle(np.iinfo(np.int64).max, seed=seed)
    return ds


def ignore_errors(log_warning=False):
    """``tf.data.experimental.ignore_errors()``: a transformation (for ``apply``) that
    drops elements whose computation raised an error; after a corrupt record, the rest
    of that file is skipped, as in TF."""
    def apply(dataset):
        return Dataset(file_sources.IgnoreErrorsNode(dataset._node))
    return apply


class TFRecordWriter:
    """``tf.data.experimental.TFRecordWriter(filename, compression_type=None)``:
    ``write(dataset)`` is an op that writes every element (scalar strings) of
    ``dataset`` as a record of ``filename``."""

    def __init__(self, filename, compression_type=None):
        from estimator_npu.data import tfrecord
        self._filename = os.fspath(filename)
        self._compression = tfrecord.compression_name(compression_type)

    def write(self, dataset):
        from estimator_npu.data.base import all_captures
        from estimator_npu.engine.ops.core import make_op
        spec = dataset._node.spec
        if spec.types != [dtypes.string] or spec.shapes[0].values not in (None, ()):
            raise TypeError(f"TFRecordWriter.write: the dataset must have scalar string "
                            f"elements, got types {dataset.output_types} and shapes "
                            f"{dataset.output_shapes}")
        captured = all_captures(dataset._node)
        return make_op("WriteDatasetToTFRecord", list(captured), [],
                       {"dataset": dataset._node, "captured": tuple(captured),
                        "filename": self._filename, "compression": self._compression},
                       name="WriteDatasetToTFRecord")


def _write_dataset_kernel(op, ctx):
    from estimator_npu.data import tfrecord
    from estimator_npu.data.base import Env
    a = op.attrs

    def run(*values):
        env = Env(dict(zip(a["captured"], values)))
        with tfrecord.TFRecordWriter(a["filename"], a["compression"]) as w:
            for (record,) in a["dataset"].elements(env):
                w.write(np.asarray(record, dtype=object)[()])
    return run


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """``tf.data.experimental.parallel_interleave`` (``tf.contrib.data`` in TF1): a
    transformation for ``apply`` that interleaves ``map_func``'s datasets, as
    ``Dataset.interleave``; the datasets are read in the deterministic order (which
    ``sloppy=True`` allows TF to relax)."""
    def apply(dataset):
        return dataset.interleave(map_func, cycle_length=cycle_length,
                                  block_length=block_length)
    return apply


OPS.define("WriteDatasetToTFRecord", kernel=_write_dataset_kernel, grad=NOT_DIFFERENTIABLE,
           stateful=True)

__all__ = ["TFRecordWriter", "parallel_interleave", "TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset", "CsvDataset",
           "list_files",
           "ignore_errors"]

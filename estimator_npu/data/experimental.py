"""``tf.data.experimental`` names used by TF1 input pipelines.

The transformations are functions returning ``dataset -> dataset`` callables for
``Dataset.apply``, as in TF, built from the core ``Dataset`` methods.
"""
from estimator_npu.data.base import AUTOTUNE  # noqa: F401
from estimator_npu.data.csv_ops import make_csv_dataset  # noqa: F401
from estimator_npu.data.readers import CsvDataset  # noqa: F401
from estimator_npu.data.readers import TFRecordWriter  # noqa: F401
from estimator_npu.data.readers import ignore_errors  # noqa: F401
from estimator_npu.data.readers import parallel_interleave  # noqa: F401
from estimator_npu.data.options import (DistributeOptions, OptimizationOptions,  # noqa: F401
                                        Options, StatsOptions, ThreadingOptions)


def prefetch_to_device(device, buffer_size=None):
    """Prefetches ``buffer_size`` elements (there is one device, the host)."""
    return lambda dataset: dataset.prefetch(1 if buffer_size is None else buffer_size)


def copy_to_device(target_device, source_device="/cpu:0"):
    """The dataset unchanged (there is one device, the host)."""
    return lambda dataset: dataset




def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """``dataset.shuffle(buffer_size, seed).repeat(count)``: each repetition is a fresh
    shuffle."""
    return lambda dataset: dataset.shuffle(buffer_size, seed=seed).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """``dataset.map(map_func).batch(batch_size, drop_remainder)``."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("map_and_batch takes num_parallel_batches or num_parallel_calls, "
                         "not both")
    return lambda dataset: dataset.map(map_func).batch(batch_size,
                                                       drop_remainder=drop_remainder)




def unbatch():
    """``dataset.unbatch()``."""
    return lambda dataset: dataset.unbatch()


def enumerate_dataset(start=0):
    """``dataset.enumerate(start)``."""
    return lambda dataset: dataset.enumerate(start)


__all__ = ["AUTOTUNE", "Options", "OptimizationOptions", "ThreadingOptions",
           "DistributeOptions", "StatsOptions", "prefetch_to_device", "copy_to_device",
           "ignore_errors", "shuffle_and_repeat", "map_and_batch", "parallel_interleave",
           "unbatch", "enumerate_dataset", "CsvDataset", "make_csv_dataset", "TFRecordWriter"]

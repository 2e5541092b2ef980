"""``tf.contrib.data``: the ``tf.data.experimental`` transformations under their contrib
names, plus ``batch_and_drop_remainder``; other names come from ``tf.data``."""
from estimator_npu.data.experimental import (AUTOTUNE, copy_to_device,  # noqa: F401
                                             enumerate_dataset, ignore_errors,
                                             map_and_batch, parallel_interleave,
                                             prefetch_to_device, shuffle_and_repeat, unbatch)


def batch_and_drop_remainder(batch_size):
    """``dataset.batch(batch_size, drop_remainder=True)``."""
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def __getattr__(name):
    import estimator_npu.data as data
    from estimator_npu.compat.missing import NotImplementedName
    if not name.startswith("__") and hasattr(data, name):
        return getattr(data, name)
    raise NotImplementedName(f"tf.contrib.data.{name}")

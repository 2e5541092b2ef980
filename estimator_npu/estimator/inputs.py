"""Calling ``input_fn`` and reading what it returns.

``input_fn`` may declare any of ``params``, ``mode``, ``config`` (it gets those; under a
``RunConfig`` distribution strategy also ``input_context``) and must
return either a ``Dataset`` — wrapped here in an initializable iterator, whose initializer
a hook runs right after the session is created (and which the device loop can drive) —
or ``(features, labels)``, or ``features`` alone. A dataset element is likewise
``(features, labels)`` or ``features``.
"""
import numpy as np

from estimator_npu import data
from estimator_npu.distribute.strategy import InputContext
from estimator_npu.engine.graph import Operation, Tensor
from estimator_npu.estimator.model_fn_call import fn_args
from estimator_npu.hooks.session_run_hook import PRIORITY_WRITER, SessionRunHook
from estimator_npu.utils import logging, nest, validation

INPUT_FN_ARGS = ("params", "mode", "config")


class DatasetInitializerHook(SessionRunHook):
    """Runs an iterator's ``initializer`` once the session exists (before other hooks)."""

    priority = PRIORITY_WRITER

    def __init__(self, iterator):
        self.iterator = iterator

    def after_create_session(self, session, coord):
        session.run(self.iterator.initializer)


def call_input_fn(input_fn, mode, params, config, strategy=None):
    """Calls ``input_fn`` with the arguments it declares among ``params, mode, config``,
    and, under a distribution strategy, ``input_context`` (as TF's Estimator does)."""
    validation.check_callable("input_fn", input_fn)
    names = fn_args(input_fn)
    values = {"params": params, "mode": mode, "config": config}
    kwargs = {k: values[k] for k in INPUT_FN_ARGS if k in names}
    if strategy is not None and "input_context" in names:
        logging.info("The `input_fn` accepts an `input_context` which will be given by "
                     "DistributionStrategy")
        kwargs["input_context"] = InputContext(
            num_replicas_in_sync=strategy.num_replicas_in_sync)
    return input_fn(**kwargs)


def _check_tensors(what, structure):
    for leaf in nest.flatten(structure):
        if not isinstance(leaf, Tensor) and not hasattr(leaf, "_as_tensor"):
            kind = "an Operation" if isinstance(leaf, Operation) else type(leaf).__name__
            raise TypeError(f"input_fn must return tensors; {what} contains {kind}: {leaf!r}")


def parse_input_fn_result(result):
    """``(features, labels, hooks)`` from what ``input_fn`` returned.

    Raises:
        ValueError: a tuple/list that is not ``(features, labels)``.
        TypeError: a result that is not a Dataset or tensors.
    """
    hooks = []
    if isinstance(result, data.Dataset):
        iterator = data.make_initializable_iterator(result)
        hooks.append(DatasetInitializerHook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple, got "
                             f"a {type(result).__name__} of length {len(result)}")
        features, labels = result
    else:
        features, labels = result, None
    if features is None:
        raise ValueError("input_fn returned no features (None)")
    _check_tensors("features", features)
    if labels is not None:
        _check_tensors("labels", labels)
    return features, labels, hooks


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000,
                   num_threads=1):
    """TF1's ``tf.estimator.inputs.numpy_input_fn``: an ``input_fn`` over numpy arrays.

    Batches come in row order without shuffling, across epoch boundaries as in TF (10
    rows, batches of 4, 2 epochs: rows 0-3, 4-7, 8, 9, 0, 1, ...), the last one smaller.
    Their static shapes are TF's: ``[None, ...]``, or ``[batch_size, ...]`` when
    ``num_epochs`` is ``None`` (every batch is full then). With ``shuffle=True`` the rows
    are shuffled with a buffer of ``queue_capacity``; TF's shuffled order is not
    reproducible (its queue starts each run at a random row drawn from the system's
    entropy, whatever the graph seed), so ours follows the graph seed instead.

    Args:
        x: a numpy array or a dict of arrays (the features), first dimension = examples.
        y: labels: an array, a dict of arrays, or ``None``.
        batch_size: examples per batch (the last batch may be smaller).
        num_epochs: passes over the data; ``None`` repeats forever.
        shuffle: required bool (as in TF1); shuffles with a buffer of ``queue_capacity``.

    Returns:
        An ``input_fn`` returning a ``Dataset`` of ``(features, labels)`` batches (or
        features alone when ``y`` is ``None``).

    Raises:
        ValueError: ``shuffle`` is not a bool, ``x`` or ``y`` is empty, a key is in both,
            or the arrays' lengths differ.
        TypeError: ``x`` is not an array or a dict.
    """
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided and explicitly set as boolean (it is "
                         f"recommended to set it as True for training); got {shuffle!r}")
    validation.check_positive_int("batch_size", batch_size)
    if num_epochs is not None:
        validation.check_positive_int("num_epochs", num_epochs)
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
    elif isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
    else:
        raise TypeError(f"x must be a dict or array; got {type(x).__name__}")
    if isinstance(y, dict):
        if not y:
            raise ValueError("y cannot be empty dict, use None instead.")
        both = set(x) & set(y) if isinstance(x, dict) else set()
        if both:
            raise ValueError(f"{len(both)} duplicate keys are found in both x and y: "
                             f"{sorted(both)}")
    arrays = [v for part in (x, y) if part is not None
              for v in (part.values() if isinstance(part, dict) else [part])]
    lengths = {len(v) for v in arrays}
    if len(lengths) > 1:
        shapes = {k: np.shape(v) for k, v in x.items()} if isinstance(x, dict) else \
            np.shape(x)
        y_shapes = {k: np.shape(v) for k, v in y.items()} if isinstance(y, dict) else \
            None if y is None else np.shape(y)
        raise ValueError(f"numpy_input_fn: x and y must have the same number of examples, "
                         f"got lengths {sorted(lengths)} (shapes in x: {shapes}, in y: "
                         f"{y_shapes})")

    def input_fn():
        _queue_summary(shuffle, queue_capacity)
        ds = data.Dataset.from_tensor_slices(x if y is None else (x, y))
        if shuffle:
            ds = ds.shuffle(queue_capacity)
        # forever: every batch is full, so the batch dimension is static, as TF's
        # dequeue_many gives it (dequeue_up_to, for a number of epochs, gives None)
        return ds.repeat(num_epochs).batch(batch_size, drop_remainder=num_epochs is None)
    return input_fn


def _queue_summary(shuffle, capacity):
    """The summary TF's queue-fed ``numpy_input_fn`` adds (the fill level of its queue:
    ``enqueue_input/queue/enqueue_input/fifo_queuefraction_over_0_of_1000_full``), so
    the event files carry the same tags. Here the input is a Dataset with nothing
    queued ahead of the step, so the level it reports is 0."""
    from estimator_npu.engine.graph import get_default_graph
    from estimator_npu.train import summary_ops
    low = int(capacity / 4) if shuffle else 0
    queue = "random_shuffle_queue" if shuffle else "fifo_queue"
    with get_default_graph().name_scope("enqueue_input/"):
        summary_ops.scalar(f"queue/enqueue_input/{queue}fraction_over_{low}_of_"
                           f"{capacity - low}_full", np.float32(0.0))


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000,
                    num_threads=1, target_column="target"):
    """TF1's ``tf.estimator.inputs.pandas_input_fn``: a DataFrame ``x`` (columns become the
    feature dict) and a Series ``y``; needs pandas (an optional extra)."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("pandas_input_fn needs pandas: pip install pandas") from e
    if not isinstance(x, pd.DataFrame):
        raise TypeError(f"x must be a pandas DataFrame, got {type(x).__name__}")
    if y is not None:
        if target_column in x.columns:
            raise ValueError(f"Cannot use name {target_column} for target column: DataFrame "
                             f"already has a column with that name: {list(x.columns)}")
        if not np.array_equal(x.index, y.index):
            raise ValueError(f"Index for x and y are mismatched.\nIndex for x: {x.index}\n"
                             f"Index for y: {y.index}\n")
    feats = {str(k): np.asarray(x[k].values) for k in x.columns}
    labels = None if y is None else np.asarray(y.values)
    return numpy_input_fn(feats, labels, batch_size=batch_size, num_epochs=num_epochs,
                          shuffle=shuffle, queue_capacity=queue_capacity,
                          num_threads=num_threads)

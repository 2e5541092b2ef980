"""Where ``fit`` / ``evaluate`` / ``predict`` take their batches from: numpy arrays
(sliced by ``batch_size``, in a shuffled order when asked) or a ``tf.data.Dataset`` of
``(x, y)`` / ``(x, y, sample_weight)`` batches (``steps_per_epoch`` batches per epoch from
one pass that continues across epochs, or each epoch one full pass)."""
import numpy as np


def is_dataset(x):
    return hasattr(x, "as_numpy_iterator") and hasattr(x, "make_one_shot_iterator")


def array_batches(xs, ys, sws, batch_size, order=None):
    n = len(xs[0])
    order = np.arange(n) if order is None else order
    for start in range(0, n, batch_size):
        idx = order[start:start + batch_size]
        yield ([a[idx] for a in xs], None if ys is None else [a[idx] for a in ys],
               None if sws is None else [w[idx] for w in sws], len(idx))


class DatasetBatches:
    """Batches of a dataset, converted by ``convert(x, y, sample_weight)`` to arrays."""

    def __init__(self, dataset, steps, convert, with_targets=True):
        self.dataset, self.steps, self.convert = dataset, steps, convert
        self.with_targets = with_targets
        self._it = None

    def _element(self, elem):
        if isinstance(elem, tuple) and self.with_targets:
            if len(elem) not in (2, 3):
                raise ValueError(f"A dataset given to fit/evaluate must yield (x, y) or "
                                 f"(x, y, sample_weight) batches, got {len(elem)} items")
            return self.convert(*elem)
        if isinstance(elem, tuple):
            elem = elem[0]
        return self.convert(elem)

    def epoch(self):
        if self.steps is None:
            it = self.dataset.as_numpy_iterator()
            for elem in it:
                xs, ys, sws = self._element(elem)
                yield xs, ys, sws, len(xs[0])
            return
        if self._it is None:
            self._it = self.dataset.as_numpy_iterator()
        for _ in range(self.steps):
            try:
                elem = next(self._it)
            except StopIteration:
                return
            xs, ys, sws = self._element(elem)
            yield xs, ys, sws, len(xs[0])

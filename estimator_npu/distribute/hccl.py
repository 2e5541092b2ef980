"""Gradient segments: how the gradients are cut into all-reduce messages (``npu.hccl``).

All gradients of one update live back to back in flat buffers. Instead of one all-reduce
per gradient (many small messages) or one for everything (nothing to overlap), the adapter
cuts the gradient list into a few *segments* and all-reduces each as one message. As in the
adapter (HCCL gradient fusion), a segment holds whole gradients, in gradient order, and
there are at most ``MAX_SEGMENTS`` of them::

    set_split_strategy_by_size([60, 20, 20])   # by cumulative share of gradient bytes
    set_split_strategy_by_idx([20, 100, 159])  # by the index of each segment's last grad

* by size: segment ``k`` ends with the first gradient at which the cumulative byte count
  reaches ``sum(percentages[:k + 1])`` % of all gradient bytes (segments that would be
  empty are dropped, so small models may get fewer segments).
* by index: ``indices`` are strictly increasing; segment ``k`` ends with gradient
  ``indices[k]``; the last index must be the last gradient (``count - 1``).
* default (neither set): ``DEFAULT_SPLIT_PERCENTAGES``, the adapter's two segments of
  96.54 % and 3.46 % of the gradient bytes.
* both set: by size wins (as in the adapter).

The strategy is process-wide configuration, as in the adapter: set it before building the
training graph. ``segment_tensors`` applies it to a list of gradient byte sizes and
``segment_layouts`` maps the segments onto the flat buffers of the fused update.
"""
import math
import numbers

import numpy as np

MAX_SEGMENTS = 8
DEFAULT_SPLIT_PERCENTAGES = (96.54, 3.46)
WORLD_GROUP = "hccl_world_group"

_strategy = {"size": None, "idx": None}
_version = [0]


def _check_group(group):
    if group != WORLD_GROUP:
        raise ValueError(f"group must be {WORLD_GROUP!r} (the only group), got {group!r}")


def _as_list(name, values):
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a list, got {type(values).__name__}: {values!r}")
    values = list(values)
    if not values:
        raise ValueError(f"{name} must not be empty")
    if len(values) > MAX_SEGMENTS:
        raise ValueError(f"{name} gives {len(values)} segments; at most {MAX_SEGMENTS} are "
                         f"allowed, got {values!r}")
    return values


def set_split_strategy_by_size(dataSizeList, group=WORLD_GROUP):  # noqa: N803 - adapter name
    """Cuts the gradients into segments by share of gradient bytes.

    Args:
        dataSizeList: percentages (numbers > 0, at most 8) that add up to 100, e.g.
            ``[60, 20, 20]``.
        group: only ``"hccl_world_group"``.

    Raises:
        TypeError: not a list of numbers.
        ValueError: empty, more than 8 entries, an entry <= 0, or a sum other than 100.
    """
    _check_group(group)
    values = _as_list("dataSizeList", dataSizeList)
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            raise TypeError(f"dataSizeList entries must be numbers, got "
                            f"{type(v).__name__}: {v!r} in {values!r}")
        if not math.isfinite(v) or v <= 0:
            raise ValueError(f"dataSizeList entries must be > 0, got {v!r} in {values!r}")
    total = math.fsum(values)
    if abs(total - 100.0) > 1e-6:
        raise ValueError(f"dataSizeList must add up to 100, got {values!r} (sum {total:g})")
    _strategy["size"] = tuple(float(v) for v in values)
    _version[0] += 1


def set_split_strategy_by_idx(idxList, group=WORLD_GROUP):  # noqa: N803 - adapter name
    """Cuts the gradients into segments by gradient index.

    Args:
        idxList: strictly increasing non-negative ints (at most 8): the index of the last
            gradient of each segment; the last must be the number of gradients minus one
            (checked when the training graph is built).
        group: only ``"hccl_world_group"``.

    Raises:
        TypeError: not a list of ints.
        ValueError: empty, more than 8 entries, a negative or non-increasing entry.
    """
    _check_group(group)
    values = _as_list("idxList", idxList)
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"idxList entries must be ints, got {type(v).__name__}: {v!r} "
                            f"in {values!r}")
    if values[0] < 0:
        raise ValueError(f"idxList entries must be >= 0, got {values!r}")
    if any(b <= a for a, b in zip(values, values[1:])):
        raise ValueError(f"idxList must be strictly increasing, got {values!r}")
    _strategy["idx"] = tuple(int(v) for v in values)
    _version[0] += 1


def reset_split_strategy():
    """Forgets both strategies (back to the default split)."""
    _strategy["size"] = _strategy["idx"] = None
    _version[0] += 1


def get_split_strategy():
    """``("size", percentages)`` or ``("idx", indices)``: the strategy in effect."""
    if _strategy["size"] is not None:
        return "size", _strategy["size"]
    if _strategy["idx"] is not None:
        return "idx", _strategy["idx"]
    return "size", DEFAULT_SPLIT_PERCENTAGES


def strategy_version():
    """A counter that changes whenever a strategy is set or reset (for caches)."""
    return _version[0]


def check_gradient_count(count, strategy=None):
    """Checks an index strategy against the number of gradients.

    Raises:
        ValueError: the last index of ``set_split_strategy_by_idx`` is not ``count - 1``.
    """
    kind, values = strategy or get_split_strategy()
    if kind == "idx" and values[-1] != count - 1:
        raise ValueError(f"set_split_strategy_by_idx: the last index must be the last "
                         f"gradient, {count - 1} (there are {count} gradients), got "
                         f"idxList={list(values)}")


def segment_tensors(nbytes, strategy=None):
    """Cuts tensors of the given byte sizes into segments of whole tensors.

    Args:
        nbytes: byte size of each gradient, in gradient order.
        strategy: ``(kind, values)`` as ``get_split_strategy()`` returns (default: the
            one in effect).

    Returns:
        A list of ``(first, stop)`` tensor index ranges covering ``range(len(nbytes))``
        in order, none empty.
    """
    n = len(nbytes)
    if n == 0:
        return []
    kind, values = strategy or get_split_strategy()
    if kind == "idx":
        check_gradient_count(n, (kind, values))
        ends = [i + 1 for i in values]
    else:
        total = float(sum(nbytes))
        cum = np.cumsum(np.asarray(nbytes, dtype=np.float64))
        ends = []
        share = 0.0
        for pct in values[:-1]:
            share += pct
            threshold = total * share / 100.0
            # the first tensor at which the cumulative size reaches the threshold
            i = int(np.searchsorted(cum, threshold * (1 - 1e-12), side="left"))
            ends.append(min(i + 1, n))
        ends.append(n)
    out = []
    start = 0
    for end in ends:
        if end > start:
            out.append((start, end))
            start = end
    return out


def segment_layouts(layouts, itemsizes, strategy=None):
    """Maps gradient segments onto flat buffers.

    Args:
        layouts: one per flat buffer, each with ``sizes`` and ``offsets`` (element counts
            and element offsets of its tensors, as ``train.update_rules.Layout``); the
            gradients are taken buffer by buffer, in order.
        itemsizes: the element byte size of each buffer.
        strategy: as for ``segment_tensors``.

    Returns:
        A list of ``(buffer index, start, stop)`` element ranges, in segment order; a
        segment whose tensors span two buffers gives one range per buffer.
    """
    owners = []   # (buffer, start, stop) per tensor, in gradient order
    nbytes = []
    for b, (lay, itemsize) in enumerate(zip(layouts, itemsizes)):
        for off, n in zip(lay.offsets, lay.sizes):
            owners.append((b, off, off + n))
            nbytes.append(n * itemsize)
    ranges = []
    for first, stop in segment_tensors(nbytes, strategy):
        cur = None
        for b, a, e in owners[first:stop]:
            if cur is not None and cur[0] == b:
                cur[2] = e
            else:
                if cur is not None:
                    ranges.append(tuple(cur))
                cur = [b, a, e]
        ranges.append(tuple(cur))
    return ranges


__all__ = ["set_split_strategy_by_size", "set_split_strategy_by_idx",
           "reset_split_strategy", "get_split_strategy", "check_gradient_count",
           "segment_tensors", "segment_layouts", "MAX_SEGMENTS", "DEFAULT_SPLIT_PERCENTAGES"]

"""``tf.nn.embedding_lookup`` / ``embedding_lookup_sparse`` over one table or a list of
shards, and TF1's variable partitioners.

With several shards, id ``i`` lives (``partition_strategy``):

* ``"mod"``: in shard ``i % n`` at row ``i // n``;
* ``"div"``: in contiguous blocks; with ``N`` ids in all, the first ``N % n`` shards hold
  ``N // n + 1`` ids and the others ``N // n``.

The ids are split with ``dynamic_partition``, each shard gathers its rows and
``dynamic_stitch`` puts them back in the ids' order, so the gradient into each shard is the
gradient of a gather (applied to only the rows looked up; see ``train.sparse_apply``).
``max_norm`` clips each embedding to that L2 norm.

The partitioners (``tf.fixed_size_partitioner`` ...) return TF's partition lists;
``get_variable(..., partitioner=...)`` makes a ``PartitionedVariable`` of them (see
``engine.partitioned``), which ``embedding_lookup`` takes as its list of shards.
"""
import math

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import name_scope
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.clip_ops import clip_by_norm
from estimator_npu.engine.ops.core import convert_to_tensor, identity
from estimator_npu.engine.ops.math_extra_ops import div_no_nan
from estimator_npu.engine.ops.scatter_ops import unsorted_segment_sum
from estimator_npu.engine.shape import TensorShape
from estimator_npu.engine.sparse_tensor import SparseTensor
from estimator_npu.partition.stitch_ops import dynamic_partition, dynamic_stitch


def _shards(params):
    if hasattr(params, "_get_variable_list"):      # a PartitionedVariable-like list
        params = params._get_variable_list()
    if not isinstance(params, (list, tuple)):
        params = [params]
    if not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    return [convert_to_tensor(p) for p in params]


def _clip(emb, ids, max_norm):
    if max_norm is None:
        return emb
    if ids.shape.ndims is not None and emb.shape.ndims is not None:
        return clip_by_norm(emb, max_norm, axes=list(range(ids.shape.ndims, emb.shape.ndims)))
    rows = array_ops.reshape(emb, array_ops.stack([array_ops.size(ids), -1]))
    return array_ops.reshape(clip_by_norm(rows, max_norm, axes=[1]), array_ops.shape(emb))


def _total_rows(shards):
    sizes = [s.shape.values[0] if s.shape.ndims else None for s in shards]
    if None not in sizes:
        return sum(sizes)
    return math_ops.add_n([array_ops.shape(s)[0] for s in shards])


def _assign(flat_ids, shards, strategy):
    """``(shard of each id, row of each id in its shard)``."""
    n = len(shards)
    if strategy == "mod":
        return flat_ids % n, flat_ids // n
    total = _total_rows(shards)
    per = total // n
    extras = total % n
    if not isinstance(total, int):
        per, extras = (math_ops.cast(v, flat_ids.dtype) for v in (per, extras))
    which = math_ops.maximum(flat_ids // (per + 1), (flat_ids - extras) // per)
    row = array_ops.where(math_ops.less(which, extras), flat_ids % (per + 1),
                          (flat_ids - extras) % per)
    return which, row


def embedding_lookup(params, ids, partition_strategy="mod", name=None,
                     validate_indices=True, max_norm=None):
    """The rows ``ids`` of ``params`` (a table or a list of shards): shape
    ``ids.shape + params.shape[1:]``."""
    shards = _shards(params)
    with name_scope(name, "embedding_lookup"):
        ids = convert_to_tensor(ids, name="ids")
        if not ids.dtype.is_integer:
            raise TypeError(f"embedding_lookup: ids must be int32 or int64, got "
                            f"{ids.dtype.name} ({ids.name})")
        if len(shards) == 1:
            return identity(_clip(array_ops.gather(shards[0], ids), ids, max_norm))
        if partition_strategy not in ("mod", "div"):
            raise ValueError(f"Unrecognized partition strategy: {partition_strategy}."
                             "Must be one of either `mod` or `div`.")
        flat = array_ops.reshape(ids, [-1])
        positions = array_ops.range(array_ops.size(flat))
        which, rows = _assign(flat, shards, partition_strategy)
        which = math_ops.cast(which, dtypes.int32)
        shard_rows = dynamic_partition(rows, which, len(shards))
        shard_positions = dynamic_partition(positions, which, len(shards))
        parts = [array_ops.gather(s, r) for s, r in zip(shards, shard_rows)]
        stitched = dynamic_stitch(shard_positions, parts)
        inner = TensorShape(None)
        for s in shards:
            if s.shape.ndims:
                inner = inner.merge_with(s.shape.values[1:])
        if inner.is_fully_defined():
            tail = list(inner.values)
        else:
            tail = array_ops.shape(stitched)[1:]
        if isinstance(tail, list) and ids.shape.is_fully_defined():
            out = array_ops.reshape(stitched, list(ids.shape.values) + tail)
        else:
            out = array_ops.reshape(stitched, array_ops.concat([array_ops.shape(ids), tail], 0))
            if ids.shape.ndims is not None and isinstance(tail, list):
                out.set_shape(list(ids.shape.values) + tail)
        return _clip(out, ids, max_norm)


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod",
                            name=None, combiner="mean", max_norm=None):
    """Combines the embeddings of each row's ids (a ``SparseTensor`` ``[batch, ...]``),
    weighted by ``sp_weights`` (or 1), with ``combiner`` ``sum``, ``mean`` or ``sqrtn``."""
    if combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"embedding_lookup_sparse: combiner must be 'sum', 'mean' or "
                         f"'sqrtn', got {combiner!r}")
    sp_ids = SparseTensor.from_value(sp_ids)
    rows = array_ops.slice(sp_ids.indices, [0, 0], [-1, 1])
    rows = array_ops.reshape(math_ops.cast(rows, dtypes.int32), [-1])
    n_rows = math_ops.cast(array_ops.slice(sp_ids.dense_shape, [0], [1]), dtypes.int32)
    n_rows = array_ops.reshape(n_rows, [])
    emb = embedding_lookup(params, sp_ids.values, partition_strategy, max_norm=max_norm)
    if sp_weights is not None:
        w = math_ops.cast(SparseTensor.from_value(sp_weights).values, emb.dtype)
        emb = emb * array_ops.expand_dims(w, -1)
    else:
        w = array_ops.ones_like(math_ops.cast(sp_ids.values, emb.dtype))
    total = unsorted_segment_sum(emb, rows, n_rows)
    if combiner == "sum":
        return identity(total, name=name) if name else total
    if combiner == "mean":
        den = unsorted_segment_sum(w, rows, n_rows)
    else:
        den = math_ops.sqrt(unsorted_segment_sum(w * w, rows, n_rows))
    return div_no_nan(total, array_ops.expand_dims(den, -1), name=name)


# ------------------------------------------------------------------ partitioners
def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner splitting ``axis`` into ``num_shards`` parts."""
    def partitioner(shape, dtype=None, **unused):
        parts = [1] * len(shape)
        parts[axis] = int(num_shards)
        return parts
    return partitioner


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16,
                                   max_shards=None):
    """A partitioner giving shards of at most ``max_shard_bytes`` along ``axis``."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be "
                         "positive.")
    if max_shards is not None and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def partitioner(shape, dtype, **unused):
        dims = [int(d) for d in shape]
        dt = dtypes.as_dtype(dtype)
        elem = bytes_per_string_element if dt == dtypes.string else dt.np.itemsize
        slice_bytes = elem
        for i, d in enumerate(dims):
            if i != axis:
                slice_bytes *= d
        per_shard = max(1, max_shard_bytes // max(slice_bytes, 1))
        shards = int(math.ceil(dims[axis] / per_shard))
        if max_shards is not None:
            shards = min(shards, max_shards)
        parts = [1] * len(dims)
        parts[axis] = max(1, shards)
        return parts
    return partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10,
                                 bytes_per_string_element=16):
    """A partitioner making slices of at least ``min_slice_size`` bytes, at most
    ``max_partitions`` of them."""
    def partitioner(shape, dtype, **unused):
        dims = [int(d) for d in shape]
        dt = dtypes.as_dtype(dtype)
        elem = bytes_per_string_element if dt == dtypes.string else dt.np.itemsize
        total = elem
        for d in dims:
            total *= d
        parts = [1] * len(dims)
        parts[axis] = max(1, min(int(max_partitions), dims[axis],
                                 int(math.ceil(total / min_slice_size))))
        return parts
    return partitioner

"""``tf.nn.nce_loss`` and ``tf.nn.sampled_softmax_loss``: losses over the true classes and
``num_sampled`` sampled ones instead of all ``num_classes``.

For each example ``b`` with true classes ``t_b1 .. t_bT`` (``T = num_true``) and the batch's
sampled classes ``s_1 .. s_S``, the logits are ``x_b . w_c + bias_c`` for
``c in (t_b1 .. t_bT, s_1 .. s_S)``; with ``subtract_log_q`` each has the log of its
expected count (from the sampler) subtracted; with ``remove_accidental_hits`` a sampled
class that is one of the row's true classes gets ``-FLT_MAX`` added. The labels are
``1 / T`` for the true columns and 0 for the sampled ones. NCE sums the sigmoid cross
entropies of a row; sampled softmax takes the softmax cross entropy of the row. Gradients
reach ``weights``, ``biases`` and ``inputs`` through the lookups and products.
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import constant, convert_to_tensor, stop_gradient
from estimator_npu.sampling.samplers import (accidental_hits_mask, compute_accidental_hits,
                                             log_uniform_candidate_sampler)


def _shards(params):
    if hasattr(params, "_get_variable_list"):       # a PartitionedVariable
        params = params._get_variable_list()
    if isinstance(params, (list, tuple)):
        return [convert_to_tensor(p) for p in params]
    return [convert_to_tensor(params)]


def _table(params, partition_strategy):
    """One ``[num_classes, ...]`` tensor whose row ``i`` is class ``i`` of the (possibly
    sharded) ``params``, as ``embedding_lookup``'s ``partition_strategy`` places them."""
    shards = _shards(params)
    if len(shards) == 1:
        return shards[0]
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"partition_strategy must be 'mod' or 'div', got "
                         f"{partition_strategy!r}")
    full = array_ops.concat(shards, 0)
    if partition_strategy == "div":
        return full
    sizes = [s.shape.values[0] if s.shape.ndims else None for s in shards]
    if None in sizes:
        raise ValueError("partition_strategy='mod' needs shards of known static size, got "
                         f"shapes {[str(s.shape) for s in shards]}")
    n, offsets = len(shards), np.cumsum([0] + sizes[:-1])
    ids = np.arange(sum(sizes))
    order = offsets[ids % n] + ids // n    # class id -> row of the concatenated shards
    return array_ops.gather(full, constant(order.astype(np.int64)))


def compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                           num_true=1, sampled_values=None, subtract_log_q=True,
                           remove_accidental_hits=False, partition_strategy="mod", name=None,
                           seed=None):
    """``(logits, labels)``, both ``[batch, num_true + num_sampled]``."""
    num_true = int(num_true)
    with get_default_graph().name_scope(name or "compute_sampled_logits"):
        x = convert_to_tensor(inputs)
        labels = convert_to_tensor(labels)
        if labels.dtype.is_floating and x.dtype.is_integer:
            raise ValueError(f"{name or 'compute_sampled_logits'}: labels are {labels.dtype.name} "
                             f"and inputs {x.dtype.name}: TF 0.x's argument order (weights, "
                             "biases, inputs, labels); since TF 1.0 labels come before inputs "
                             "(pass labels= and inputs= by name)")
        if labels.dtype != dtypes.int64:
            labels = math_ops.cast(labels, dtypes.int64)
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
                range_max=num_classes, seed=seed)
        sampled, true_expected, sampled_expected = (stop_gradient(s) for s in sampled_values)
        sampled = math_ops.cast(sampled, dtypes.int64)
        labels_2d = array_ops.reshape(labels, [-1, num_true])
        labels_flat = array_ops.reshape(labels, [-1])
        # one lookup of true + sampled ids, as TF: the gradient into the (large) class
        # tables is one gather-gradient each, not one per part
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        n_true = array_ops.size(labels_flat, out_type=dtypes.int64)
        true_pos = array_ops.reshape(array_ops.range(0, n_true, 1, dtype=dtypes.int64),
                                     [-1, num_true])
        sampled_pos = array_ops.range(n_true, array_ops.size(all_ids, out_type=dtypes.int64), 1,
                                      dtype=dtypes.int64)
        parts = []
        for table in (weights, biases):
            rows = array_ops.gather(_table(table, partition_strategy), all_ids)
            if rows.dtype != x.dtype:
                rows = math_ops.cast(rows, x.dtype)
            parts += [array_ops.gather(rows, true_pos), array_ops.gather(rows, sampled_pos)]
        true_w, sampled_w, true_b, sampled_b = parts
        true_logits = array_ops.reshape(
            math_ops.reduce_sum(array_ops.expand_dims(x, 1) * true_w, 2) + true_b,
            [-1, num_true])                # rank 2 even for inputs of unknown rank, as TF
        sampled_logits = math_ops.matmul(x, sampled_w, transpose_b=True) + sampled_b
        if remove_accidental_hits:
            hits = compute_accidental_hits(labels_2d, sampled, num_true=num_true)
            sampled_logits = sampled_logits + accidental_hits_mask(hits, sampled_logits)
        if subtract_log_q:
            true_logits = true_logits - math_ops.cast(math_ops.log(true_expected), x.dtype)
            sampled_logits = sampled_logits - math_ops.cast(math_ops.log(sampled_expected),
                                                            x.dtype)
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat([array_ops.ones_like(true_logits) / float(num_true),
                                       array_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss"):
    """Noise-contrastive estimation: ``[batch]`` sums of per-class sigmoid cross entropies."""
    logits, targets = compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy,
        name=name)
    losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits,
                                                      name="sampled_losses")
    return array_ops.reshape(math_ops.reduce_sum(losses, 1), [-1])


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss", seed=None):
    """Sampled softmax: the ``[batch]`` softmax cross entropy over true + sampled logits."""
    logits, targets = compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy,
        name=name, seed=seed)
    return nn_ops.softmax_cross_entropy_with_logits_v2(
        labels=stop_gradient(targets), logits=logits)

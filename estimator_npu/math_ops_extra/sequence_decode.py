"""``tf.edit_distance`` (Levenshtein distance between the sequences of two SparseTensors)
and ``tf.nn.ctc_greedy_decoder`` (best path decoding), as TF's kernels.

``edit_distance``: the sequences are the values along the last dimension at each index of
the leading dimensions; the result has the leading dimensions of the larger dense shape,
0 where both sequences are empty; ``normalize`` divides by the truth's length (so an empty
truth gives ``inf``). ``ctc_greedy_decoder``: per batch entry, the arg-max class of each
of the first ``sequence_length`` steps, dropping blanks (the last class, or
``blank_index``) and, with ``merge_repeated``, steps that repeat the previous step's class;
the second result is minus the sum of the steps' maximum logits, ``[batch, 1]``."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.sparse_tensor import SparseTensor, SparseTensorValue

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


def _groups(indices, values):
    out = {}
    order = np.lexsort(np.asarray(indices).T[::-1]) if len(indices) else []
    for k in order:
        out.setdefault(tuple(int(v) for v in indices[k][:-1]), []).append(values[k])
    return out


def _edit_kernel(op, ctx):
    normalize = op.attrs["normalize"]

    def edit_distance(hi, hv, hs, ti, tv, ts):
        shape = np.maximum(np.asarray(hs), np.asarray(ts))[:-1]
        out = np.zeros(tuple(int(s) for s in shape), np.float32)
        hyp, truth = _groups(hi, hv), _groups(ti, tv)
        with np.errstate(divide="ignore", invalid="ignore"):
            for key in set(hyp) | set(truth):
                h, t = hyp.get(key, []), truth.get(key, [])
                d = float(_levenshtein(h, t))
                out[key] = d / np.float32(len(t)) if normalize else d
        return out
    return edit_distance


OPS.define("EditDistance", kernel=_edit_kernel, grad=NOT_DIFFERENTIABLE)


def _sparse(x, what):
    if isinstance(x, SparseTensorValue):
        x = SparseTensor.from_value(x)
    if not isinstance(x, SparseTensor):
        raise TypeError(f"edit_distance: {what} must be a SparseTensor, got "
                        f"{type(x).__name__}")
    return x


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """Levenshtein distances ``[leading dims]`` (float32) between the sequences of two
    SparseTensors of the same rank and value dtype."""
    h, t = _sparse(hypothesis, "hypothesis"), _sparse(truth, "truth")
    if h.dtype != t.dtype:
        raise TypeError(f"edit_distance: hypothesis and truth must have the same dtype, got "
                        f"{h.dtype.name} and {t.dtype.name}")
    hs, ts = h.shape, t.shape
    shape = None
    if hs.ndims is not None and ts.ndims is not None:
        if hs.ndims != ts.ndims:
            raise ValueError(f"edit_distance: hypothesis and truth must have the same rank, "
                             f"got {hs} and {ts}")
        shape = [None if a is None or b is None else max(a, b)
                 for a, b in zip(hs.values[:-1], ts.values[:-1])]
    op = make_op("EditDistance", [h.indices, h.values, h.dense_shape, t.indices, t.values,
                                  t.dense_shape], [(dtypes.float32, shape)],
                 {"normalize": bool(normalize)}, name=name)
    return op.outputs[0]


def _ctc_kernel(op, ctx):
    merge, blank_attr = op.attrs["merge_repeated"], op.attrs["blank_index"]

    def ctc_greedy(inputs, seq_len):
        x = np.asarray(inputs)
        steps, batch, classes = x.shape
        blank = classes - 1 if blank_attr is None else blank_attr % classes
        seq_len = np.asarray(seq_len).reshape(-1)
        idx, vals, logp = [], [], np.zeros((batch, 1), x.dtype)
        longest = 0
        for b in range(batch):
            if not 0 <= seq_len[b] <= steps:
                from estimator_npu import errors
                raise errors.InvalidArgumentError(
                    None, op, f"ctc_greedy_decoder: sequence_length({b}) = {seq_len[b]} is "
                    f"not in [0, {steps}]")
            prev, out = -1, []
            for s in range(int(seq_len[b])):
                c = int(np.argmax(x[s, b]))
                logp[b, 0] -= x[s, b, c]
                if c != blank and not (merge and c == prev):
                    out.append(c)
                prev = c
            idx += [[b, i] for i in range(len(out))]
            vals += out
            longest = max(longest, len(out))
        return (np.array(idx, np.int64).reshape(-1, 2), np.array(vals, np.int64),
                np.array([batch, longest], np.int64), logp)
    return ctc_greedy


OPS.define("CTCGreedyDecoder", kernel=_ctc_kernel, grad=NOT_DIFFERENTIABLE)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """``([SparseTensor decoded], neg_sum_logits)`` for ``inputs`` ``[max_time, batch,
    num_classes]`` (logits) and ``sequence_length`` ``[batch]``."""
    x = convert_to_tensor(inputs)
    if not x.dtype.is_floating:
        raise TypeError(f"ctc_greedy_decoder: inputs must be float, got {x.dtype.name}")
    if x.shape.ndims is not None and x.shape.ndims != 3:
        raise ValueError(f"ctc_greedy_decoder: inputs must be 3-D [max_time, batch, "
                         f"num_classes], got shape {x.shape}")
    n = convert_to_tensor(sequence_length, dtype=dtypes.int32)
    if n.shape.ndims is not None and n.shape.ndims != 1:
        raise ValueError(f"ctc_greedy_decoder: sequence_length must be 1-D, got shape "
                         f"{n.shape}")
    batch = x.shape.values[1] if x.shape.ndims is not None else None
    op = make_op("CTCGreedyDecoder", [x, n],
                 [(dtypes.int64, [None, 2]), (dtypes.int64, [None]), (dtypes.int64, [2]),
                  (x.dtype, [batch, 1])],
                 {"merge_repeated": bool(merge_repeated),
                  "blank_index": None if blank_index is None else int(blank_index)},
                 name="CTCGreedyDecoder")
    i, v, s, logp = op.outputs
    return [SparseTensor(i, v, s)], logp

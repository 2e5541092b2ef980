"""``tf.nn.ctc_loss`` (TF1's signature): the CTC negative log-likelihood of each batch
entry's label sequence (Graves et al. 2006), by the forward-backward recursions in log
space over the blank-interleaved labels (the blank is the last class), as TF's CTCLoss
kernel: ``preprocess_collapse_repeated`` merges repeated labels first;
``ctc_merge_repeated=False`` makes a repeated non-blank frame a new label (no
self-transition on non-blank states, and equal labels may follow without a blank); an
entry with fewer frames than labels is an
error unless ``ignore_longer_outputs_than_inputs`` (then its loss and gradient are 0); one
whose labels fit its frames but no path does (repeats need a blank between) has loss
``inf`` and the softmax as its gradient, as TF's.
The op also returns the gradient with respect to the logits, which its gradient scales
(no second derivative, as TF's)."""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import OpFamily
from estimator_npu.engine.sparse_tensor import SparseTensor

OPS = OpFamily(__name__)  # this family's op definitions (data)
_NEG = -np.inf


def _lse(*xs):
    m = max(xs)
    return m if m == _NEG else m + np.log(sum(np.exp(x - m) for x in xs))


def _one(logits, labels, blank, merge):
    """``(loss, d loss / d logits)`` of one entry: ``logits`` ``[T, C]`` (float64)."""
    t_len = logits.shape[0]
    lp = logits - logits.max(1, keepdims=True)
    lp = lp - np.log(np.exp(lp).sum(1, keepdims=True))
    ext = [blank]
    for c in labels:
        ext += [c, blank]
    u_len = len(ext)

    def self_ok(u):
        return merge or ext[u] == blank

    def skip_ok(u):  # u - 2 -> u: over a blank, between equal labels only when not merging
        return u > 1 and ext[u] != blank and (ext[u] != ext[u - 2] or not merge)

    alpha = np.full((t_len, u_len), _NEG)
    alpha[0, 0] = lp[0, ext[0]]
    if u_len > 1:
        alpha[0, 1] = lp[0, ext[1]]
    for t in range(1, t_len):
        for u in range(u_len):
            terms = [alpha[t - 1, u]] if self_ok(u) else []
            if u > 0:
                terms.append(alpha[t - 1, u - 1])
            if skip_ok(u):
                terms.append(alpha[t - 1, u - 2])
            if terms:
                alpha[t, u] = _lse(*terms) + lp[t, ext[u]]
    beta = np.full((t_len, u_len), _NEG)
    beta[-1, -1] = lp[-1, ext[-1]]
    if u_len > 1:
        beta[-1, -2] = lp[-1, ext[-2]]
    for t in range(t_len - 2, -1, -1):
        for u in range(u_len):
            terms = [beta[t + 1, u]] if self_ok(u) else []
            if u + 1 < u_len:
                terms.append(beta[t + 1, u + 1])
            if u + 2 < u_len and skip_ok(u + 2):
                terms.append(beta[t + 1, u + 2])
            if terms:
                beta[t, u] = _lse(*terms) + lp[t, ext[u]]
    logp = _lse(alpha[-1, -1], alpha[-1, -2]) if u_len > 1 else alpha[-1, -1]
    grad = np.exp(lp)
    if logp == _NEG:
        return np.inf, grad
    occ = np.zeros_like(grad)
    post = np.exp(alpha + beta - lp[:, ext] - logp)
    for u, c in enumerate(ext):
        occ[:, c] += post[:, u]
    return -logp, grad - occ


def _ctc_kernel(op, ctx):
    a = op.attrs

    def run(inputs, indices, values, seq_len):
        t_max, batch, classes = inputs.shape
        seq_len = np.asarray(seq_len).reshape(-1)
        if seq_len.shape[0] != batch:
            raise ValueError(f"ctc_loss: sequence_length has {seq_len.shape[0]} entries but "
                             f"the batch is {batch}")
        indices, values = np.asarray(indices).reshape(-1, 2), np.asarray(values).reshape(-1)
        loss = np.zeros(batch, inputs.dtype)
        grad = np.zeros(inputs.shape, inputs.dtype)
        for b in range(batch):
            lab = [int(v) for v, r in zip(values.tolist(), indices[:, 0]) if r == b]
            if a["collapse"]:
                lab = [c for i, c in enumerate(lab) if i == 0 or c != lab[i - 1]]
            if any(c < 0 or c >= classes - 1 for c in lab):
                raise errors.InvalidArgumentError(
                    None, op, f"ctc_loss: labels of batch entry {b} must be in [0, "
                              f"{classes - 1}) (class {classes - 1} is the blank), got {lab}")
            n = int(seq_len[b])
            if not 0 <= n <= t_max:
                raise errors.InvalidArgumentError(
                    None, op, f"ctc_loss: sequence_length({b}) = {n} is not in [0, "
                              f"max_time={t_max}]")
            if len(lab) > n:
                if a["ignore_longer"]:
                    continue
                raise errors.InvalidArgumentError(
                    None, op, f"ctc_loss: batch entry {b} has {len(lab)} labels but "
                              f"sequence_length({b}) = {n} frames (labels longer than the "
                              f"inputs; ignore_longer_outputs_than_inputs=True gives it loss 0)")
            if n == 0:
                continue
            lb, gb = _one(inputs[:n, b].astype(np.float64), lab, classes - 1, a["merge"])
            loss[b] = lb
            grad[:n, b] = gb
        return loss, grad
    return run


def _ctc_grad(op, dloss, dgrad):
    if dgrad is not None:
        raise LookupError("ctc_loss: there is no second derivative of ctc_loss (its "
                          "gradient output is not differentiable), as in TF")
    return [array_ops.expand_dims(dloss, -1) * op.outputs[1], None, None, None]


OPS.define("CTCLoss", kernel=_ctc_kernel, grad=_ctc_grad)


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False,
             time_major=True, logits=None):
    """TF1's ``tf.nn.ctc_loss``: ``[batch]`` CTC losses of ``inputs`` (logits,
    ``[max_time, batch, num_classes]``, or batch-major with ``time_major=False``) against
    ``labels`` (an int32 SparseTensor, ``[batch, max_label_length]``) with
    ``sequence_length`` (``[batch]``) frames each."""
    if not isinstance(labels, SparseTensor) and not hasattr(labels, "dense_shape"):
        raise TypeError(f"ctc_loss: labels must be a SparseTensor, got "
                        f"{type(labels).__name__}")
    labels = labels if isinstance(labels, SparseTensor) else SparseTensor.from_value(labels)
    if not labels.values.dtype.is_integer:
        raise TypeError(f"ctc_loss: labels must have integer values, got "
                        f"{labels.values.dtype.name}")
    x = convert_to_tensor(logits if inputs is None else inputs)
    if not x.dtype.is_floating:
        raise TypeError(f"ctc_loss: inputs must be float, got {x.dtype.name}")
    if x.shape.ndims is not None and x.shape.ndims != 3:
        raise ValueError(f"ctc_loss: inputs must be 3-D [max_time, batch, num_classes], "
                         f"got shape {x.shape}")
    if sequence_length is None:
        raise ValueError("ctc_loss: sequence_length is required")
    if not time_major:
        x = array_ops.transpose(x, [1, 0, 2])
    n = convert_to_tensor(sequence_length, dtype=dtypes.int32)
    batch = x.shape.values[1] if x.shape.ndims is not None else None
    op = make_op("CTCLoss", [x, labels.indices, labels.values, n],
                 [(x.dtype, [batch]), (x.dtype, x.shape)],
                 {"collapse": bool(preprocess_collapse_repeated),
                  "merge": bool(ctc_merge_repeated),
                  "ignore_longer": bool(ignore_longer_outputs_than_inputs)}, name="CTCLoss")
    return op.outputs[0]

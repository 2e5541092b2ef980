"""Linear-chain CRF (``tf.contrib.crf``): sequence scores, the log partition function by the
forward algorithm (a ``dynamic_rnn`` over time, as TF1 builds it), the log-likelihood, and
Viterbi decoding (``viterbi_decode`` in numpy, ``crf_decode`` in the graph).

Shapes: ``inputs`` (unary potentials) ``[batch, max_seq_len, num_tags]``, ``tag_indices``
``[batch, max_seq_len]`` int, ``sequence_lengths`` ``[batch]`` int, ``transition_params``
``[num_tags, num_tags]`` (score of moving from tag ``i`` to tag ``j``). Positions at or past a
sequence's length count for nothing.
"""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.composites import reduce_logsumexp
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.script_ops import numpy_function
from estimator_npu.engine.ops.slice_ops import gather
from estimator_npu.engine.variable_scope import get_variable
from estimator_npu.rnn.cells import RNNCell
from estimator_npu.rnn.dynamic import dynamic_rnn
from estimator_npu.rnn.masks import sequence_mask

__all__ = ["crf_sequence_score", "crf_unary_score", "crf_binary_score", "crf_log_norm",
           "crf_log_likelihood", "crf_forward", "viterbi_decode", "crf_decode",
           "CrfForwardRnnCell"]


def _static_dim(x, axis):
    return x.shape.values[axis] if x.shape.values is not None else None


def _dim(x, axis):
    d = _static_dim(x, axis)
    return d if d is not None else array_ops.shape(x)[axis]


def _num_tags(inputs):
    n = _static_dim(inputs, 2) if inputs.shape.ndims == 3 else None
    if n is None:
        raise ValueError(f"crf: the number of tags (last dimension of {inputs.name}, shape "
                         f"{inputs.shape}) must be known statically")
    return n


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """``sum_t inputs[b, t, tag[b, t]]`` over each sequence's first ``length`` steps: ``[batch]``."""
    inputs = convert_to_tensor(inputs)
    tag_indices = math_ops.cast(convert_to_tensor(tag_indices), dtypes.int32)
    batch, steps, num_tags = _dim(inputs, 0), _dim(inputs, 1), _dim(inputs, 2)
    offsets = array_ops.expand_dims(array_ops.range(batch) * (steps * num_tags), 1)
    offsets = offsets + array_ops.expand_dims(array_ops.range(steps) * num_tags, 0)
    flat_idx = array_ops.reshape(offsets + tag_indices, [-1])
    scores = array_ops.reshape(gather(array_ops.reshape(inputs, [-1]), flat_idx),
                               [batch, steps])
    masks = sequence_mask(sequence_lengths, maxlen=_dim(tag_indices, 1), dtype=inputs.dtype)
    return math_ops.reduce_sum(scores * masks, 1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """``sum_t transition[tag[t], tag[t+1]]`` over each sequence's transitions: ``[batch]``."""
    transition_params = convert_to_tensor(transition_params)
    tag_indices = math_ops.cast(convert_to_tensor(tag_indices), dtypes.int32)
    num_tags = _static_dim(transition_params, 0)
    if num_tags is None:
        num_tags = array_ops.shape(transition_params)[0]
    start = tag_indices[:, :-1]
    end = tag_indices[:, 1:]
    scores = gather(array_ops.reshape(transition_params, [-1]), start * num_tags + end)
    masks = sequence_mask(sequence_lengths, maxlen=_dim(tag_indices, 1),
                          dtype=transition_params.dtype)
    return math_ops.reduce_sum(scores * masks[:, 1:], 1)


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """The unnormalized score of each tag sequence (unary plus binary): ``[batch]``."""
    inputs = convert_to_tensor(inputs)
    if _static_dim(inputs, 1) == 1:
        return crf_unary_score(tag_indices, sequence_lengths, inputs)
    return (crf_unary_score(tag_indices, sequence_lengths, inputs)
            + crf_binary_score(tag_indices, sequence_lengths, transition_params))


class CrfForwardRnnCell(RNNCell):
    """One step of the forward algorithm: ``alpha'[j] = x[j] + logsumexp_i(alpha[i] + T[i, j])``."""

    def __init__(self, transition_params):
        super().__init__()
        self._transition_params = array_ops.expand_dims(convert_to_tensor(transition_params), 0)
        self._num_tags = _static_dim(self._transition_params, 1)

    @property
    def state_size(self):
        return self._num_tags

    @property
    def output_size(self):
        return self._num_tags

    def __call__(self, inputs, state, scope=None):
        scores = array_ops.expand_dims(state, 2) + self._transition_params
        new_alphas = inputs + reduce_logsumexp(scores, [1])
        return new_alphas, new_alphas


def crf_forward(inputs, state, transition_params, sequence_lengths):
    """The forward algorithm from ``state`` (alphas at step 0) over ``inputs`` (steps 1..):
    the log-sum-exp of the final alphas, ``[batch]``."""
    lengths_less_one = math_ops.maximum(
        math_ops.cast(convert_to_tensor(sequence_lengths), dtypes.int32) - 1, 0)
    _, alphas = dynamic_rnn(CrfForwardRnnCell(transition_params), inputs,
                            sequence_length=lengths_less_one, initial_state=state)
    return reduce_logsumexp(alphas, [1])


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """The log partition function of each sequence, ``[batch]`` (0 for an empty sequence)."""
    inputs = convert_to_tensor(inputs)
    sequence_lengths = math_ops.cast(convert_to_tensor(sequence_lengths), dtypes.int32)
    first = inputs[:, 0, :]
    if _static_dim(inputs, 1) == 1:
        return reduce_logsumexp(first, [1])
    log_norm = crf_forward(inputs[:, 1:, :], first, transition_params, sequence_lengths)
    return array_ops.where(math_ops.less_equal(sequence_lengths, 0),
                           array_ops.zeros_like(log_norm), log_norm)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """``(log_likelihood [batch], transition_params)``; without ``transition_params`` a
    ``[num_tags, num_tags]`` variable named ``transitions`` is made in the current scope."""
    inputs = convert_to_tensor(inputs)
    if transition_params is None:
        num_tags = _num_tags(inputs)
        transition_params = get_variable("transitions", [num_tags, num_tags],
                                         dtype=inputs.dtype)
    sequence_scores = crf_sequence_score(inputs, tag_indices, sequence_lengths,
                                         transition_params)
    log_norm = crf_log_norm(inputs, sequence_lengths, transition_params)
    return sequence_scores - log_norm, transition_params


def viterbi_decode(score, transition_params):
    """Best tag sequence of one unbatched ``score`` ``[seq_len, num_tags]`` (numpy):
    ``(list of tag ids, its score)``."""
    score = np.asarray(score)
    transition_params = np.asarray(transition_params)
    if score.ndim != 2 or transition_params.shape != (score.shape[1], score.shape[1]):
        raise ValueError(f"viterbi_decode: score must be [seq_len, num_tags] and "
                         f"transition_params [num_tags, num_tags], got {score.shape} and "
                         f"{transition_params.shape}")
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        v = np.expand_dims(trellis[t - 1], 1) + transition_params
        trellis[t] = score[t] + np.max(v, 0)
        backpointers[t] = np.argmax(v, 0)
    viterbi = [int(np.argmax(trellis[-1]))]
    for bp in reversed(backpointers[1:]):
        viterbi.append(int(bp[viterbi[-1]]))
    viterbi.reverse()
    return viterbi, np.max(trellis[-1])


def _batch_viterbi(potentials, transition_params, lengths):
    batch, steps = potentials.shape[:2]
    tags = np.zeros((batch, steps), np.int32)
    scores = np.zeros((batch,), potentials.dtype)
    for b in range(batch):
        n = int(min(max(lengths[b], 0), steps))
        if n == 0:
            continue
        seq, best = viterbi_decode(potentials[b, :n], transition_params)
        tags[b, :n] = seq
        scores[b] = best
    return tags, scores


def crf_decode(potentials, transition_params, sequence_length):
    """In-graph Viterbi decoding: ``(decode_tags [batch, max_seq_len] int32, best_score
    [batch])``; tags past a sequence's length are 0."""
    potentials = convert_to_tensor(potentials)
    transition_params = convert_to_tensor(transition_params, dtype=potentials.dtype)
    sequence_length = math_ops.cast(convert_to_tensor(sequence_length), dtypes.int32)
    tags, best = numpy_function(_batch_viterbi, [potentials, transition_params, sequence_length],
                                [dtypes.int32, potentials.dtype], stateful=False,
                                name="crf_decode")
    tags.set_shape(potentials.shape.values[:2] if potentials.shape.values else None)
    best.set_shape(potentials.shape.values[:1] if potentials.shape.values else None)
    return tags, best

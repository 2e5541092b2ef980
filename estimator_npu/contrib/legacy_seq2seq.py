"""``tf.contrib.legacy_seq2seq``: TF1's list-of-time-steps sequence models and losses.

Every sequence is a Python list with one ``[batch, ...]`` tensor per time step, as in TF1.

- ``sequence_loss_by_example(logits, targets, weights)``: per example, the weighted sum
  over steps of the cross entropy (or ``softmax_loss_function(labels=, logits=)``), divided
  by the summed weights (+1e-12) when ``average_across_timesteps``; ``sequence_loss`` sums
  that over the batch and divides by the batch size when ``average_across_batch``.
- ``rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None)``: runs ``cell``
  over the inputs from ``initial_state``; with ``loop_function(prev_output, i)`` every step
  after the first reads its input from the previous output instead.
- ``basic_rnn_seq2seq``: ``static_rnn`` over the encoder inputs with a copy of ``cell``,
  then ``rnn_decoder`` from the encoder's final state; ``tied_rnn_seq2seq`` shares the
  cell's variables between both halves.

The embedding and attention models (``embedding_*``, ``attention_decoder``,
``model_with_buckets``) are not here.
"""
import copy

from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import name_scope
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.variable_scope import get_variable_scope, variable_scope
from estimator_npu.rnn.dynamic import static_rnn

__all__ = ["basic_rnn_seq2seq", "rnn_decoder", "sequence_loss", "sequence_loss_by_example",
           "tied_rnn_seq2seq"]


def _as_list(x, what, fn):
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"{fn}: {what} must be a non-empty list of tensors (one per time "
                        f"step), got {type(x).__name__}")
    return list(x)


def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True,
                             softmax_loss_function=None, name=None):
    """The ``[batch]`` weighted loss of each example over the time steps."""
    fn = "sequence_loss_by_example"
    logits = _as_list(logits, "logits", fn)
    targets = _as_list(targets, "targets", fn)
    weights = _as_list(weights, "weights", fn)
    if not len(logits) == len(targets) == len(weights):
        raise ValueError(f"{fn}: logits, targets and weights must have the same length, got "
                         f"{len(logits)}, {len(targets)}, {len(weights)}")
    with name_scope(name, "sequence_loss_by_example"):
        terms = []
        weights = [convert_to_tensor(w) for w in weights]
        for logit, target, weight in zip(logits, targets, weights):
            if softmax_loss_function is None:
                target = array_ops.reshape(convert_to_tensor(target), [-1])
                crossent = nn_ops.sparse_softmax_cross_entropy_with_logits(
                    labels=target, logits=logit)
            else:
                crossent = softmax_loss_function(labels=target, logits=logit)
            terms.append(crossent * weight)
        log_perps = math_ops.add_n(terms)
        if average_across_timesteps:
            total = math_ops.add_n(weights) + 1e-12
            log_perps = log_perps / total
        return log_perps


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, softmax_loss_function=None, name=None):
    """The scalar loss: ``sequence_loss_by_example`` summed, over the batch size if
    ``average_across_batch``."""
    with name_scope(name, "sequence_loss"):
        cost = math_ops.reduce_sum(sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=average_across_timesteps,
            softmax_loss_function=softmax_loss_function))
        if not average_across_batch:
            return cost
        batch = array_ops.shape(convert_to_tensor(_as_list(targets, "targets",
                                                           "sequence_loss")[0]))[0]
        return cost / math_ops.cast(batch, cost.dtype)


def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """``(outputs, state)``: one output per decoder input and the final state."""
    decoder_inputs = _as_list(decoder_inputs, "decoder_inputs", "rnn_decoder")
    with variable_scope(scope or "rnn_decoder"):
        state, prev, outputs = initial_state, None, []
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
        return outputs, state


def basic_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, dtype=dtypes.float32,
                      scope=None):
    """Encoder (a copy of ``cell``) then decoder, with their own variables."""
    with variable_scope(scope or "basic_rnn_seq2seq"):
        _, enc_state = static_rnn(copy.deepcopy(cell),
                                  _as_list(encoder_inputs, "encoder_inputs",
                                           "basic_rnn_seq2seq"), dtype=dtype)
        return rnn_decoder(decoder_inputs, enc_state, cell)


def tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, loop_function=None,
                     dtype=dtypes.float32, scope=None):
    """Encoder and decoder run the same ``cell`` (shared variables)."""
    with variable_scope("combined_tied_rnn_seq2seq"):
        scope = scope or "tied_rnn_seq2seq"
        _, enc_state = static_rnn(cell, _as_list(encoder_inputs, "encoder_inputs",
                                                 "tied_rnn_seq2seq"),
                                  dtype=dtype, scope=scope)
        get_variable_scope().reuse_variables()
        return rnn_decoder(decoder_inputs, enc_state, cell, loop_function=loop_function,
                           scope=scope)


__getattr__ = _module_getattr(__name__)

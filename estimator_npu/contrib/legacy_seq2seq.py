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
- ``embedding_rnn_decoder`` / ``embedding_rnn_seq2seq``: integer symbols in, embedded by an
  ``embedding`` variable (the encoder through ``EmbeddingWrapper``); the decoder's cell gets
  an ``OutputProjectionWrapper`` to ``num_decoder_symbols`` logits unless
  ``output_projection=(W, b)`` is given; ``feed_previous=True`` feeds the embedding of each
  step's argmax symbol to the next step (a Python bool only).

The attention models (``attention_decoder``, ``embedding_attention_*``) and
``model_with_buckets`` are in ``legacy_seq2seq_attention`` (re-exported here).
"""
import copy

from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.contrib.rnn_wrappers import EmbeddingWrapper, OutputProjectionWrapper
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import name_scope
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor, stop_gradient
from estimator_npu.engine.variable_scope import get_variable_scope, variable_scope
from estimator_npu.engine.variable_scope import get_variable
from estimator_npu.partition.embedding import embedding_lookup
from estimator_npu.rnn.dynamic import static_rnn

__all__ = ["attention_decoder", "basic_rnn_seq2seq", "embedding_attention_decoder",
           "embedding_attention_seq2seq", "embedding_rnn_decoder", "embedding_rnn_seq2seq",
           "model_with_buckets", "rnn_decoder", "sequence_loss", "sequence_loss_by_example",
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


def _argmax_and_embed(embedding, output_projection, update_embedding):
    def loop_function(prev, _):
        if output_projection is not None:
            prev = nn_ops.bias_add(math_ops.matmul(prev, output_projection[0]),
                                   output_projection[1])
        emb = embedding_lookup(embedding, math_ops.argmax(prev, 1))
        return emb if update_embedding else stop_gradient(emb)
    return loop_function


def _feed_previous(feed_previous, fn):
    if not isinstance(feed_previous, bool):
        raise NotImplementedError(f"{fn}: feed_previous must be a Python bool here (a "
                                  f"boolean tensor, which TF1 turns into a tf.cond over two "
                                  f"decoders, is not implemented yet)")
    return feed_previous


def embedding_rnn_decoder(decoder_inputs, initial_state, cell, num_symbols, embedding_size,
                          output_projection=None, feed_previous=False,
                          update_embedding_for_previous=True, scope=None):
    """``rnn_decoder`` over the embeddings of integer ``decoder_inputs`` (``[batch]``
    each); ``(outputs, state)``."""
    fn = "embedding_rnn_decoder"
    decoder_inputs = _as_list(decoder_inputs, "decoder_inputs", fn)
    feed_previous = _feed_previous(feed_previous, fn)
    with variable_scope(scope or "embedding_rnn_decoder"):
        if output_projection is not None:
            w, b = (convert_to_tensor(t) for t in output_projection)
            if w.shape.ndims == 2 and w.shape.values[1] not in (None, num_symbols):
                raise ValueError(f"{fn}: output_projection's weights must be [?, "
                                 f"{num_symbols}], got shape {w.shape}")
            output_projection = (w, b)
        embedding = get_variable("embedding", [num_symbols, embedding_size])
        loop = (_argmax_and_embed(embedding, output_projection, update_embedding_for_previous)
                if feed_previous else None)
        emb = [embedding_lookup(embedding, i) for i in decoder_inputs]
        return rnn_decoder(emb, initial_state, cell, loop_function=loop)


def embedding_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols,
                          num_decoder_symbols, embedding_size, output_projection=None,
                          feed_previous=False, dtype=None, scope=None):
    """Embedded encoder (a copy of ``cell`` in an ``EmbeddingWrapper``) and
    ``embedding_rnn_decoder``; the outputs are ``num_decoder_symbols`` logits per step
    (``cell``'s outputs when ``output_projection`` is given)."""
    fn = "embedding_rnn_seq2seq"
    feed_previous = _feed_previous(feed_previous, fn)
    with variable_scope(scope or "embedding_rnn_seq2seq"):
        dtype = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)
        enc_cell = EmbeddingWrapper(copy.deepcopy(cell), embedding_classes=num_encoder_symbols,
                                    embedding_size=embedding_size)
        _, enc_state = static_rnn(enc_cell, _as_list(encoder_inputs, "encoder_inputs", fn),
                                  dtype=dtype)
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)
        return embedding_rnn_decoder(decoder_inputs, enc_state, cell, num_decoder_symbols,
                                     embedding_size, output_projection=output_projection,
                                     feed_previous=feed_previous)


from estimator_npu.contrib.legacy_seq2seq_attention import (  # noqa: E402
    attention_decoder, embedding_attention_decoder, embedding_attention_seq2seq,
    model_with_buckets)

__getattr__ = _module_getattr(__name__)

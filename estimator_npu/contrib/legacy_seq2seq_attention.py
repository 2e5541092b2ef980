"""``tf.contrib.legacy_seq2seq``'s attention models and ``model_with_buckets`` (TF's
``translate.py`` tutorial), over lists of time steps as the rest of legacy_seq2seq.

- ``attention_decoder(decoder_inputs, initial_state, attention_states, cell,
  output_size=None, num_heads=1, loop_function=None, initial_state_attention=False)``:
  Bahdanau-style attention as TF1 computes it. ``attention_states`` is
  ``[batch, length, size]``; per head, ``AttnW_i`` (``[1, 1, size, size]``) projects the
  states and ``AttnV_i`` scores ``v . tanh(W h + U q)`` against the query (the cell state,
  flattened and concatenated); each step's cell input is a linear map of the input and the
  previous attention reads (zeros first, unless ``initial_state_attention``), and its
  output a linear map (``AttnOutputProjection``) of the cell output and the new reads.
  Variables: ``kernel``/``bias`` in ``attention_decoder``, ``Attention_i`` and
  ``AttnOutputProjection``, as TF1's.
- ``embedding_attention_decoder`` / ``embedding_attention_seq2seq``: integer symbols in
  (``embedding`` variable; the encoder through ``EmbeddingWrapper``), attention over the
  encoder's outputs; ``OutputProjectionWrapper`` to ``num_decoder_symbols`` logits unless
  ``output_projection`` is given; ``feed_previous`` a Python bool.
- ``model_with_buckets(encoder_inputs, decoder_inputs, targets, weights, buckets, seq2seq,
  softmax_loss_function=None, per_example_loss=False)``: one model per bucket
  ``(encoder_length, decoder_length)`` on the leading inputs, variables shared after the
  first; returns ``(outputs, losses)`` per bucket.
"""
import copy

from estimator_npu.contrib.rnn_wrappers import EmbeddingWrapper, OutputProjectionWrapper
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import name_scope
from estimator_npu.engine.init_ops import zeros_initializer
from estimator_npu.engine.ops import array_ops, math_ops, nn_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.variable_scope import get_variable, get_variable_scope
from estimator_npu.engine.variable_scope import variable_scope
from estimator_npu.partition.embedding import embedding_lookup
from estimator_npu.rnn.dynamic import static_rnn
from estimator_npu.utils import nest

__all__ = ["attention_decoder", "embedding_attention_decoder", "embedding_attention_seq2seq",
           "model_with_buckets"]


def _linear(args, output_size):
    """``concat(args) @ kernel + bias`` with TF1's ``kernel``/``bias`` variable names."""
    args = list(args)
    total = 0
    for a in args:
        d = a.shape.values[1] if a.shape.ndims == 2 else None
        if d is None:
            raise ValueError(f"linear: every argument needs a known [batch, n] shape, got "
                             f"{a.shape} for {a.name}")
        total += d
    kernel = get_variable("kernel", [total, output_size], dtype=args[0].dtype)
    bias = get_variable("bias", [output_size], dtype=args[0].dtype,
                        initializer=zeros_initializer())
    x = args[0] if len(args) == 1 else array_ops.concat(args, 1)
    return nn_ops.bias_add(math_ops.matmul(x, kernel), bias)


def attention_decoder(decoder_inputs, initial_state, attention_states, cell, output_size=None,
                      num_heads=1, loop_function=None, dtype=None, scope=None,
                      initial_state_attention=False):
    """``(outputs, state)``; see the module docstring."""
    from estimator_npu.contrib.legacy_seq2seq import _as_list
    fn = "attention_decoder"
    decoder_inputs = _as_list(decoder_inputs, "decoder_inputs", fn)
    if num_heads < 1:
        raise ValueError(f"{fn}: num_heads must be >= 1, got {num_heads}")
    attention_states = convert_to_tensor(attention_states)
    if attention_states.shape.ndims != 3 or attention_states.shape.values[2] is None:
        raise ValueError(f"{fn}: attention_states must be [batch, length, size] with a "
                         f"known size, got shape {attention_states.shape}")
    if output_size is None:
        output_size = cell.output_size
    with variable_scope(scope or "attention_decoder", dtype=dtype):
        length = attention_states.shape.values[1]
        if length is None:
            length = array_ops.shape(attention_states)[1]
        size = attention_states.shape.values[2]
        hidden = array_ops.reshape(attention_states, [-1, length, 1, size])
        flat_states = array_ops.reshape(attention_states, [-1, size])
        features, v = [], []
        for a in range(num_heads):
            k = get_variable("AttnW_%d" % a, [1, 1, size, size])
            features.append(array_ops.reshape(
                math_ops.matmul(flat_states, array_ops.reshape(k, [size, size])),
                [-1, length, 1, size]))  # TF's 1x1 conv2d of hidden by k
            v.append(get_variable("AttnV_%d" % a, [size]))

        def attention(query):
            query = nest.flatten(query)
            query = query[0] if len(query) == 1 else array_ops.concat(query, 1)
            reads = []
            for a in range(num_heads):
                with variable_scope("Attention_%d" % a):
                    y = array_ops.reshape(_linear([query], size), [-1, 1, 1, size])
                    s = math_ops.reduce_sum(v[a] * math_ops.tanh(features[a] + y), [2, 3])
                    w = nn_ops.softmax(s)
                    d = math_ops.reduce_sum(array_ops.reshape(w, [-1, length, 1, 1]) * hidden,
                                            [1, 2])
                    reads.append(array_ops.reshape(d, [-1, size]))
            return reads

        batch = array_ops.shape(decoder_inputs[0])[0]
        attns = []
        for _ in range(num_heads):
            z = array_ops.zeros(array_ops.stack([batch, size]), dtype=attention_states.dtype)
            z.set_shape([None, size])
            attns.append(z)
        if initial_state_attention:
            attns = attention(initial_state)
        state, prev, outputs = initial_state, None, []
        for i, inp in enumerate(decoder_inputs):
            if i > 0:
                get_variable_scope().reuse_variables()
            if loop_function is not None and prev is not None:
                with variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            input_size = inp.shape.values[1] if inp.shape.ndims == 2 else None
            if input_size is None:
                raise ValueError(f"{fn}: could not infer the input size from {inp.name} "
                                 f"(shape {inp.shape})")
            cell_output, state = cell(_linear([inp] + attns, input_size), state)
            if i == 0 and initial_state_attention:
                with variable_scope(get_variable_scope(), reuse=True):
                    attns = attention(state)
            else:
                attns = attention(state)
            with variable_scope("AttnOutputProjection"):
                output = _linear([cell_output] + attns, output_size)
            if loop_function is not None:
                prev = output
            outputs.append(output)
    return outputs, state


def embedding_attention_decoder(decoder_inputs, initial_state, attention_states, cell,
                                num_symbols, embedding_size, num_heads=1, output_size=None,
                                output_projection=None, feed_previous=False,
                                update_embedding_for_previous=True, dtype=None, scope=None,
                                initial_state_attention=False):
    """``attention_decoder`` over the embeddings of integer ``decoder_inputs``."""
    from estimator_npu.contrib.legacy_seq2seq import _argmax_and_embed, _feed_previous
    fn = "embedding_attention_decoder"
    feed_previous = _feed_previous(feed_previous, fn)
    if output_size is None:
        output_size = cell.output_size
    if output_projection is not None:
        output_projection = tuple(convert_to_tensor(t) for t in output_projection)
        b = output_projection[1]
        if b.shape.ndims is not None and b.shape.as_list() not in ([num_symbols], [None]):
            raise ValueError(f"{fn}: output_projection's biases must be [{num_symbols}], "
                             f"got shape {b.shape}")
    with variable_scope(scope or "embedding_attention_decoder", dtype=dtype):
        embedding = get_variable("embedding", [num_symbols, embedding_size])
        loop = (_argmax_and_embed(embedding, output_projection, update_embedding_for_previous)
                if feed_previous else None)
        emb = [embedding_lookup(embedding, i) for i in decoder_inputs]
        return attention_decoder(emb, initial_state, attention_states, cell,
                                 output_size=output_size, num_heads=num_heads,
                                 loop_function=loop,
                                 initial_state_attention=initial_state_attention)


def embedding_attention_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols,
                                num_decoder_symbols, embedding_size, num_heads=1,
                                output_projection=None, feed_previous=False, dtype=None,
                                scope=None, initial_state_attention=False):
    """Embedded encoder (a copy of ``cell``), attention decoder over its outputs."""
    from estimator_npu.contrib.legacy_seq2seq import _as_list, _feed_previous
    fn = "embedding_attention_seq2seq"
    feed_previous = _feed_previous(feed_previous, fn)
    with variable_scope(scope or "embedding_attention_seq2seq", dtype=dtype):
        dtype = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)
        enc_cell = EmbeddingWrapper(copy.deepcopy(cell), embedding_classes=num_encoder_symbols,
                                    embedding_size=embedding_size)
        enc_outputs, enc_state = static_rnn(
            enc_cell, _as_list(encoder_inputs, "encoder_inputs", fn), dtype=dtype)
        top = [array_ops.reshape(e, [-1, 1, cell.output_size]) for e in enc_outputs]
        attention_states = array_ops.concat(top, 1)
        output_size = None
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)
            output_size = num_decoder_symbols
        return embedding_attention_decoder(
            decoder_inputs, enc_state, attention_states, cell, num_decoder_symbols,
            embedding_size, num_heads=num_heads, output_size=output_size,
            output_projection=output_projection, feed_previous=feed_previous,
            initial_state_attention=initial_state_attention)


def model_with_buckets(encoder_inputs, decoder_inputs, targets, weights, buckets, seq2seq,
                       softmax_loss_function=None, per_example_loss=False, name=None):
    """``(outputs, losses)``, one entry per bucket; see the module docstring."""
    from estimator_npu.contrib.legacy_seq2seq import sequence_loss, sequence_loss_by_example
    if not buckets:
        raise ValueError("model_with_buckets: buckets must be a non-empty list of "
                         "(encoder_length, decoder_length)")
    for what, seq, need in (("encoder_inputs", encoder_inputs, buckets[-1][0]),
                            ("targets", targets, buckets[-1][1]),
                            ("weights", weights, buckets[-1][1])):
        if len(seq) < need:
            raise ValueError(f"model_with_buckets: length of {what} ({len(seq)}) must be at "
                             f"least that of the last bucket ({need})")
    loss_fn = sequence_loss_by_example if per_example_loss else sequence_loss
    outputs, losses = [], []
    with name_scope(name, "model_with_buckets"):
        for j, (enc_len, dec_len) in enumerate(buckets):
            with variable_scope(get_variable_scope(), reuse=True if j > 0 else None):
                bucket_outputs, _ = seq2seq(encoder_inputs[:enc_len], decoder_inputs[:dec_len])
                outputs.append(bucket_outputs)
                losses.append(loss_fn(bucket_outputs, targets[:dec_len], weights[:dec_len],
                                      softmax_loss_function=softmax_loss_function))
    return outputs, losses

"""``tf.nn.dynamic_rnn``, ``bidirectional_dynamic_rnn`` and ``static_rnn``.

``dynamic_rnn`` runs the cell in a ``while_loop`` over time, reading inputs from and
writing outputs to TensorArrays (TF1's construction, so variable names match)::

    with variable_scope(scope or "rnn"):
        for t in range(time_steps):                    # one while_loop iteration each
            out_t, new_state = cell(inputs[t], state)
            if sequence_length is given:               # past a sequence's end
                out_t = 0; new_state = state           #   zero output, state copied
            outputs[t] = out_t; state = new_state
"""
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.engine.ops.loop_ops import while_loop
from estimator_npu.engine.ops.sequence_ops import reverse_sequence
from estimator_npu.engine.ops.slice_ops import reverse
from estimator_npu.engine.ops.tensor_array import TensorArray
from estimator_npu.engine.shape import TensorShape
from estimator_npu.engine.variable_scope import variable_scope
from estimator_npu.utils import nest


def _transpose_time(x):
    perm = [1, 0] + list(range(2, x.shape.ndims))
    return array_ops.transpose(x, perm)


def _dim(x, axis):
    d = x.shape.values[axis] if x.shape.values is not None else None
    return d if d is not None else array_ops.shape(x)[axis]


def _initial_state(cell, initial_state, batch, dtype):
    if initial_state is not None:
        return initial_state
    if dtype is None:
        raise ValueError("If there is no initial_state, you must give a dtype.")
    return cell.zero_state(batch, dtype)


def _masked(time, seq, out, new_state, state):
    """Zero outputs and carry the state through once ``time >= sequence_length``."""
    keep = array_ops.expand_dims(math_ops.less(time, seq), 1)

    def sel(new, old):
        m = math_ops.cast(keep, new.dtype)
        return new * m + old * (1.0 - m)
    out = nest.map_structure(lambda o: o * math_ops.cast(keep, o.dtype), out)
    return out, nest.map_structure(sel, new_state, state)


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """Runs ``cell`` over the time axis of ``inputs``.

    Args:
        cell: an ``RNNCell``.
        inputs: ``[batch, time, depth]`` (``[time, batch, depth]`` with ``time_major``), or a
            nested structure of such tensors.
        sequence_length: optional int ``[batch]``: outputs past each length are zero and
            the state stops changing.
        initial_state: the starting state (default: ``cell.zero_state`` of ``dtype``).

    Returns:
        ``(outputs, state)``: outputs ``[batch, time, output_size]`` (time-major when asked)
        and the final state.

    Raises:
        ValueError: neither ``initial_state`` nor ``dtype`` given, or inputs of rank < 3.
    """
    with variable_scope(scope or "rnn"):
        flat = [convert_to_tensor(x) for x in nest.flatten(inputs)]
        for x in flat:
            if x.shape.ndims is not None and x.shape.ndims < 3:
                raise ValueError(f"dynamic_rnn: inputs must be at least rank 3 [batch, time, "
                                 f"depth], got {x.name} of shape {x.shape}")
        if not time_major:
            flat = [_transpose_time(x) for x in flat]
        steps = _dim(flat[0], 0)
        batch = _dim(flat[0], 1)
        static_steps = steps if isinstance(steps, int) else None
        static_batch = batch if isinstance(batch, int) else None
        state = _initial_state(cell, initial_state, batch, dtype)
        state_dtype = nest.flatten(state)[0].dtype
        seq = None
        if sequence_length is not None:
            seq = math_ops.cast(convert_to_tensor(sequence_length), dtypes.int32)
        in_tas = [TensorArray(x.dtype, size=steps, element_shape=TensorShape(x.shape.values[1:])
                              if x.shape.values else None).unstack(x) for x in flat]
        out_tas = [TensorArray(state_dtype, size=steps, element_shape=None)
                   for _ in nest.flatten(cell.output_size)]

        def body(time, tas, state):
            xs = []
            for ta, x in zip(in_tas, flat):
                x_t = ta.read(time)
                x_t.set_shape(TensorShape([static_batch] + list(x.shape.values[2:]))
                              if x.shape.values else TensorShape(None))
                xs.append(x_t)
            out, new_state = cell(nest.pack_sequence_as(inputs, xs), state)
            if seq is not None:
                out, new_state = _masked(time, seq, out, new_state, state)
            outs = nest.flatten(out)
            return time + 1, [ta.write(time, o) for ta, o in zip(tas, outs)], new_state

        _, tas, final = while_loop(lambda time, tas, state: time < steps, body,
                                   [0, out_tas, state], name="while",
                                   parallel_iterations=parallel_iterations or 32)
        outs = []
        for ta in tas:
            y = ta.stack()
            if y.shape.values is not None:
                y.set_shape([static_steps] + list(y.shape.values[1:]))
            outs.append(y if time_major else _transpose_time(y))
        return nest.pack_sequence_as(cell.output_size, outs), final


def _reverse_time(x, seq, time_axis, batch_axis):
    if seq is None:
        return reverse(x, [time_axis])
    return reverse_sequence(x, seq, seq_axis=time_axis, batch_axis=batch_axis)


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):
    """Forward and backward ``dynamic_rnn`` (the backward one over reversed sequences).

    Returns:
        ``((output_fw, output_bw), (state_fw, state_bw))``; ``output_bw`` is reversed back
        so that both are aligned in time.
    """
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            out_fw, state_fw = dynamic_rnn(cell_fw, inputs, sequence_length, initial_state_fw,
                                           dtype, parallel_iterations, swap_memory,
                                           time_major, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            rev = nest.map_structure(
                lambda x: _reverse_time(convert_to_tensor(x), sequence_length, time_axis,
                                        batch_axis), inputs)
            tmp, state_bw = dynamic_rnn(cell_bw, rev, sequence_length, initial_state_bw,
                                        dtype, parallel_iterations, swap_memory, time_major,
                                        scope=bw_scope)
    out_bw = nest.map_structure(
        lambda y: _reverse_time(y, sequence_length, time_axis, batch_axis), tmp)
    return (out_fw, out_bw), (state_fw, state_bw)


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
               scope=None):
    """Unrolls ``cell`` over the Python list ``inputs`` (one ``[batch, depth]`` per step).

    Returns:
        ``(outputs, state)``: a list of outputs, one per step, and the final state.
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError("static_rnn: inputs must be a non-empty list of tensors")
    with variable_scope(scope or "rnn"):
        first = convert_to_tensor(nest.flatten(inputs[0])[0])
        batch = _dim(first, 0)
        state = _initial_state(cell, initial_state, batch, dtype)
        seq = None
        if sequence_length is not None:
            seq = math_ops.cast(convert_to_tensor(sequence_length), dtypes.int32)
        outputs = []
        for t, x in enumerate(inputs):
            out, new_state = cell(x, state)
            if seq is not None:
                out, new_state = _masked(convert_to_tensor(t), seq, out, new_state, state)
            outputs.append(out)
            state = new_state
        return outputs, state


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """``static_rnn`` forward and over the reversed list; outputs are depth-concatenated."""
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            out_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                          sequence_length, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            if sequence_length is None:
                rev = list(reversed(inputs))
            else:
                stacked = array_ops.stack(inputs, 1)
                rev = array_ops.unstack(reverse_sequence(stacked, sequence_length, 1, 0), axis=1)
            tmp, state_bw = static_rnn(cell_bw, rev, initial_state_bw, dtype, sequence_length,
                                       scope=bw_scope)
    if sequence_length is None:
        out_bw = list(reversed(tmp))
    else:
        out_bw = array_ops.unstack(reverse_sequence(array_ops.stack(tmp, 1), sequence_length,
                                                    1, 0), axis=1)
    outputs = [array_ops.concat([f, b], 1) for f, b in zip(out_fw, out_bw)]
    return outputs, state_fw, state_bw


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None,
                                    initial_states_bw=None, dtype=None, sequence_length=None,
                                    parallel_iterations=None, time_major=False, scope=None,
                                    swap_memory=False):
    """``tf.contrib.rnn.stack_bidirectional_dynamic_rnn``: layers of bidirectional RNNs, each
    reading the depth-concatenated outputs of the one below (``cell_<i>/`` scopes).

    Returns:
        ``(outputs, states_fw, states_bw)``: the last layer's concatenated outputs and the
        final states of every layer.
    """
    if not cells_fw or len(cells_fw) != len(cells_bw):
        raise ValueError("stack_bidirectional_dynamic_rnn: cells_fw and cells_bw must be "
                         "non-empty lists of the same length")
    states_fw, states_bw = [], []
    layer = inputs
    with variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (fw, bw) in enumerate(zip(cells_fw, cells_bw)):
            init_fw = initial_states_fw[i] if initial_states_fw else None
            init_bw = initial_states_bw[i] if initial_states_bw else None
            with variable_scope(f"cell_{i}"):
                (out_fw, out_bw), (s_fw, s_bw) = bidirectional_dynamic_rnn(
                    fw, bw, layer, sequence_length, init_fw, init_bw, dtype,
                    parallel_iterations, swap_memory, time_major)
            layer = array_ops.concat([out_fw, out_bw], 2)
            states_fw.append(s_fw)
            states_bw.append(s_bw)
    return layer, tuple(states_fw), tuple(states_bw)


__all__ = ["dynamic_rnn", "bidirectional_dynamic_rnn", "static_rnn",
           "static_bidirectional_rnn", "stack_bidirectional_dynamic_rnn"]

"""``npu_bridge.estimator.npu.npu_rnn``: ``npu_dynamic_rnn``, the adapter's time-major
unrolled RNN.

``npu_dynamic_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
scope=None)`` takes ``inputs`` of shape ``[time, batch, depth]`` (time-major, unlike
``tf.nn.dynamic_rnn``'s default), unrolls ``cell`` over the time steps with
``tf.nn.static_rnn`` (so the variables are ``<scope or "rnn">/<cell's names>``) and returns
``(outputs, state)`` with ``outputs`` stacked back to ``[time, batch, cell.output_size]``.
The time dimension must be known statically.
"""
from estimator_npu.engine.ops import array_ops
from estimator_npu.engine.ops.core import convert_to_tensor
from estimator_npu.rnn.dynamic import static_rnn


def npu_dynamic_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
                    scope=None):
    """Runs ``cell`` over time-major ``inputs`` ``[time, batch, depth]``; returns
    ``(outputs [time, batch, output_size], final_state)``."""
    inputs = convert_to_tensor(inputs)
    if inputs.shape.ndims is None or inputs.shape.values[0] is None:
        raise ValueError(f"npu_dynamic_rnn: inputs must be time-major [time, batch, depth] "
                         f"with a known number of time steps, got shape {inputs.shape}")
    steps = array_ops.unstack(inputs, axis=0)
    outputs, state = static_rnn(cell, steps, initial_state=initial_state, dtype=dtype,
                                sequence_length=sequence_length, scope=scope)
    return array_ops.stack(outputs, axis=0), state


__all__ = ["npu_dynamic_rnn"]

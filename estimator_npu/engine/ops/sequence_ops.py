"""``tf.reverse_sequence``: reverses the first ``seq_lengths[b]`` steps of each sequence.

The op is its own inverse, so its gradient is the same reversal of the cotangent.
"""
import numpy as np

from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,  # noqa
                     seq_dim=None, batch_dim=None):
    """Reverses ``input[b, :seq_lengths[b]]`` along ``seq_axis`` for each ``b``."""
    x = convert_to_tensor(input)
    lengths = convert_to_tensor(seq_lengths)
    if not lengths.dtype.is_integer:
        raise TypeError(f"reverse_sequence: seq_lengths must be integers, got "
                        f"{lengths.dtype.name}")
    seq_axis = seq_axis if seq_axis is not None else seq_dim
    batch_axis = batch_axis if batch_axis is not None else (batch_dim or 0)
    if seq_axis is None:
        raise ValueError("reverse_sequence: seq_axis is required")
    return make_tensor("ReverseSequence", [x, lengths], x.dtype, x.shape,
                       {"seq_axis": int(seq_axis), "batch_axis": int(batch_axis)},
                       name=name or "ReverseSequence")


def _reverse_kernel(op, ctx):
    sa, ba = op.attrs["seq_axis"], op.attrs["batch_axis"]

    def reverse(x, lengths):
        x = np.asarray(x)
        y = np.moveaxis(x, (ba, sa), (0, 1)).copy()
        src = np.moveaxis(x, (ba, sa), (0, 1))
        for b, n in enumerate(np.asarray(lengths).reshape(-1)):
            n = int(n)
            if n > y.shape[1] or n < 0:
                from estimator_npu import errors
                raise errors.InvalidArgumentError(
                    None, op, f"{op.name}: seq_lengths[{b}] = {n} is outside [0, "
                    f"{y.shape[1]}]")
            y[b, :n] = src[b, :n][::-1]
        return np.moveaxis(y, (0, 1), (ba, sa))
    return reverse


OPS.define("ReverseSequence", kernel=_reverse_kernel,
           grad=lambda op, dy: [reverse_sequence(dy, op.inputs[1], op.attrs["seq_axis"],
                                                 op.attrs["batch_axis"]), None])

__all__ = ["reverse_sequence"]

"""``tf.keras.preprocessing.sequence.pad_sequences``: a list of sequences as one array
``[num_samples, maxlen, ...]``, padded and truncated at the start ("pre") or the end."""
import numpy as np

from estimator_npu.compat.missing import module_getattr as _module_getattr


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """Pads (with ``value``) or truncates every sequence to ``maxlen`` (default: the
    longest); the sample shape beyond the first axis comes from the first non-empty one.

    Raises:
        ValueError: ``sequences`` or one of its entries is not a sequence, ``padding`` or
            ``truncating`` is not "pre"/"post", a string ``value`` with a non-string
            ``dtype``, or an entry's sample shape differs from the first one's.
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths, sample_shape, first = [], (), True
    for s in sequences:
        try:
            lengths.append(len(s))
        except TypeError as e:
            raise ValueError("`sequences` must be a list of iterables. "
                             f"Found non-iterable: {s}") from e
        if first and len(s):
            sample_shape, first = np.asarray(s).shape[1:], False
    if maxlen is None:
        maxlen = np.max(lengths)
    is_str = np.issubdtype(dtype, np.str_)
    if isinstance(value, str) and dtype != object and not is_str:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}\nYou should set `dtype=object` for variable length "
                         "strings.")
    out = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s):
            continue
        if truncating == "pre":
            kept = s[-maxlen:]
        elif truncating == "post":
            kept = s[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {i} "
                             f"is different from expected shape {sample_shape}")
        if padding == "post":
            out[i, :len(kept)] = kept
        elif padding == "pre":
            out[i, -len(kept):] = kept
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out


__getattr__ = _module_getattr("estimator_npu.keras.preprocessing.sequence")

"""feed_dict helpers shared by the session."""


def _composite(key):
    """A feed key standing for several tensors: a tuple (``LSTMStateTuple``) or a
    ``SparseTensor`` (its indices, values and dense_shape)."""
    return isinstance(key, tuple) or type(key).__name__ == "SparseTensor"


def expand_tuple_keys(feed_dict, out=None):
    """TF1 takes a tuple of tensors (an ``LSTMStateTuple``) or a ``SparseTensor`` as a feed
    key, its value zipped with it part by part (recursively; a sparse key's value may
    leave out the trailing dense_shape of a placeholder whose shape is fixed)."""
    if out is None and not any(_composite(k) for k in feed_dict):
        return feed_dict
    out = {} if out is None else out
    for k, v in feed_dict.items():
        if not _composite(k):
            out[k] = v
            continue
        parts = tuple(k)
        if type(k).__name__ != "SparseTensor" and (not hasattr(v, "__len__") or
                                                   len(v) != len(parts)):
            raise ValueError(f"feed_dict: the value fed for the key {k!r:.100} must "
                             f"have {len(parts)} parts (one per tensor), got "
                             f"{type(v).__name__}")
        expand_tuple_keys(dict(zip(parts, v)), out)
    return out

"""feed_dict helpers shared by the session."""


def expand_tuple_keys(feed_dict, out=None):
    """TF1 takes a tuple of tensors (an ``LSTMStateTuple``) as a feed key, its value zipped
    with it part by part (recursively)."""
    if out is None and not any(isinstance(k, tuple) for k in feed_dict):
        return feed_dict
    out = {} if out is None else out
    for k, v in feed_dict.items():
        if not isinstance(k, tuple):
            out[k] = v
        elif not hasattr(v, "__len__") or len(v) != len(k):
            raise ValueError(f"feed_dict: the value fed for the tuple key {k!r:.100} must "
                             f"have {len(k)} parts (one per tensor), got {type(v).__name__}")
        else:
            expand_tuple_keys(dict(zip(k, v)), out)
    return out

"""Summary ops (``tf.summary.scalar``, ``histogram``, ``image``, ``text``, ``merge``,
``merge_all``) and the ``Summary`` value they produce.

A summary op is a string-typed tensor; running it yields a ``Summary``: a list of
``Summary.Value(tag, simple_value | kind + data)`` holding plain numpy data. A
``FileWriter`` turns it into TensorBoard protos. ``Summary(value=[Summary.Value(tag=...,
simple_value=...)])`` also builds one by hand, as with TF1's ``tf.Summary``::

    tf.summary.scalar("loss", loss)
    tf.summary.histogram("weights", w)
    merged = tf.summary.merge_all()
    writer = tf.summary.FileWriter(logdir)
    writer.add_summary(sess.run(merged), global_step=step)

Tags follow TF1: the op's unique name scope (``scope/loss``, ``loss_1``), prefixed by
``family`` when given.
"""
import re

import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import GraphKeys, get_default_graph
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)


class SummaryValue:
    """One tagged value: ``simple_value`` (a scalar) or ``kind`` + ``data``
    (``"histogram"``: the values; ``"image"``: uint8 HWC; ``"text"``: a str)."""

    __slots__ = ("tag", "simple_value", "kind", "data")

    def __init__(self, tag, simple_value=None, kind=None, data=None):
        self.tag = tag
        self.simple_value = None if simple_value is None else float(simple_value)
        self.kind = kind or ("scalar" if simple_value is not None else None)
        self.data = data

    def HasField(self, name):  # noqa: N802 - protobuf-style accessor
        return getattr(self, name, None) is not None

    def __repr__(self):
        if self.kind == "scalar":
            return f"Value(tag={self.tag!r}, simple_value={self.simple_value!r})"
        return f"Value(tag={self.tag!r}, kind={self.kind!r})"


class _Values(list):
    """``Summary.value``: a list with the protobuf repeated field's ``add(**fields)``."""

    def add(self, **fields):
        v = SummaryValue(**fields)
        self.append(v)
        return v


class Summary:
    """The result of running a summary op (TF1 ``tf.Summary``)."""

    __slots__ = ("value",)
    Value = SummaryValue

    def __init__(self, value=()):
        self.value = _Values(value)

    def ParseFromString(self, data):  # noqa: N802 - protobuf-style accessor
        """Replaces the values by those of ``data``: a summary op's value or serialized
        ``Summary`` bytes (TF's ``s = tf.Summary(); s.ParseFromString(sess.run(merged))``)."""
        del self.value[:]
        return self.MergeFromString(data)

    def MergeFromString(self, data):  # noqa: N802 - protobuf-style accessor
        """Appends the values of ``data`` (as ``ParseFromString``)."""
        if isinstance(data, np.ndarray) and data.dtype == object and data.size == 1:
            data = data.reshape(()).item()
        if isinstance(data, Summary):
            self.value.extend(data.value)
            return 0
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("Summary.ParseFromString expects the value of a summary op or "
                            f"serialized Summary bytes, got {type(data).__name__}")
        from estimator_npu.train.summary_writer import from_proto
        self.value.extend(from_proto(bytes(data)))
        return len(data)

    @classmethod
    def FromString(cls, data):  # noqa: N802 - protobuf-style accessor
        out = cls()
        out.ParseFromString(data)
        return out

    def tags(self):
        return [v.tag for v in self.value]

    def SerializeToString(self):  # noqa: N802 - protobuf-style accessor
        """The TensorBoard ``Summary`` protocol buffer bytes (needs tensorboardX)."""
        from estimator_npu.train.summary_writer import to_proto
        return to_proto(self).SerializeToString()

    def __repr__(self):
        return f"Summary({self.value!r})"


def clean_tag(name):
    """Replaces characters TensorBoard does not accept with ``_``; strips leading ``/``."""
    if name is None:
        return None
    new = re.sub(r"[^-/\w\.]", "_", name).lstrip("/")
    return new


def _summary_op(op_type, name, inputs, attrs, collections, family, tag_suffix=""):
    g = get_default_graph()
    name = clean_tag(name)
    family = clean_tag(family)
    base = name if family is None else f"{family}/{name}"
    with g.name_scope(base) as scope:
        tag = scope.rstrip("/")
        if family is not None:
            tag = f"{family}/{tag}"
        attrs = dict(attrs, tag=tag + tag_suffix)
        op = make_op(op_type, inputs, [(dtypes.string, [])], attrs, name=scope)
    out = op.outputs[0]
    for c in ([GraphKeys.SUMMARIES] if collections is None else collections):
        g.add_to_collection(c, out)
    return out


def scalar(name, tensor, collections=None, family=None):
    """A summary of one scalar value.

    Raises:
        ValueError: ``tensor`` has a known shape that is not a scalar.
    """
    t = convert_to_tensor(tensor)
    if t.shape.ndims is not None and t.shape.num_elements() not in (None, 1):
        raise ValueError(f"summary.scalar {name!r}: tensor must be a scalar, got shape "
                         f"{t.shape}")
    return _summary_op("ScalarSummary", name, [t], {}, collections, family)


def histogram(name, values, collections=None, family=None):
    """A histogram summary of ``values`` (any shape)."""
    t = convert_to_tensor(values)
    return _summary_op("HistogramSummary", name, [t], {}, collections, family)


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """Image summaries of the first ``max_outputs`` images of a ``[batch, h, w, c]`` tensor
    (``c`` in 1, 3, 4); tags ``<tag>/image/<i>`` (``<tag>/image`` when ``max_outputs`` is 1).

    Float images are scaled as in TF1: non-negative ones so that the maximum is 255,
    others so that 0 maps to 127 and the largest magnitude to 0 or 255.
    """
    t = convert_to_tensor(tensor)
    if t.shape.ndims not in (None, 4) or (t.shape.ndims == 4 and
                                          t.shape.values[3] not in (None, 1, 3, 4)):
        raise ValueError(f"summary.image {name!r}: tensor must be [batch, height, width, "
                         f"channels] with 1, 3 or 4 channels, got shape {t.shape}")
    if int(max_outputs) < 1:
        raise ValueError(f"summary.image: max_outputs must be >= 1, got {max_outputs!r}")
    return _summary_op("ImageSummary", name, [t], {"max_outputs": int(max_outputs)},
                       collections, family)


def text(name, tensor, collections=None):
    """A text summary of a string tensor."""
    t = convert_to_tensor(tensor)
    return _summary_op("TextSummary", name, [t], {}, collections, None)


def merge(inputs, collections=None, name=None):
    """One summary holding the values of every summary in ``inputs``.

    Raises:
        errors.InvalidArgumentError: (at run time) two inputs have the same tag.
    """
    ts = [convert_to_tensor(t) for t in inputs]
    for t in ts:
        if t.dtype != dtypes.string:
            raise ValueError(f"summary.merge: {t.name} is not a summary (dtype "
                             f"{t.dtype.name})")
    g = get_default_graph()
    out = make_op("MergeSummary", ts, [(dtypes.string, [])], {},
                  name=name or "Merge/MergeSummary").outputs[0]
    for c in collections or []:
        g.add_to_collection(c, out)
    return out


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """``merge`` of the summaries in collection ``key`` (``None`` if there are none)."""
    summaries = get_default_graph().get_collection(key, scope)
    if not summaries:
        return None
    return merge(summaries, name=name)


def get_summary_description(node_def):
    return ""


# ------------------------------------------------------------------ kernels
def _scalar_kernel(op, ctx):
    tag = op.attrs["tag"]

    def run(x):
        a = np.asarray(x)
        if a.size != 1:
            raise errors.InvalidArgumentError(None, op, f"tags and values not the same shape: "
                                              f"[] != {list(a.shape)} (tag '{tag}')")
        return Summary([SummaryValue(tag, simple_value=float(a.reshape(())))])
    return run


def _histogram_kernel(op, ctx):
    tag = op.attrs["tag"]

    def run(x):
        a = np.array(x, dtype=np.float64).reshape(-1)
        if not np.isfinite(a).all():
            raise errors.InvalidArgumentError(None, op, f"Nan in summary histogram for: {tag}")
        return Summary([SummaryValue(tag, kind="histogram", data=a)])
    return run


def _to_uint8(img):
    if img.dtype == np.uint8:
        return img
    img = img.astype(np.float64)
    lo, hi = float(img.min()), float(img.max())
    if lo >= 0:
        scale = 255.0 / hi if hi > 0 else 0.0
        out = img * scale
    else:
        scale = 127.0 / max(-lo, hi) if max(-lo, hi) > 0 else 0.0
        out = img * scale + 127.0
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def _image_kernel(op, ctx):
    tag, n = op.attrs["tag"], op.attrs["max_outputs"]

    def run(x):
        a = np.asarray(x)
        values = []
        for i in range(min(n, a.shape[0])):
            t = f"{tag}/image" if n == 1 else f"{tag}/image/{i}"
            values.append(SummaryValue(t, kind="image", data=_to_uint8(a[i])))
        return Summary(values)
    return run


def _text_kernel(op, ctx):
    tag = op.attrs["tag"]

    def run(x):
        a = np.asarray(x, dtype=object).reshape(-1)
        s = "\n".join(v.decode() if isinstance(v, bytes) else str(v) for v in a)
        return Summary([SummaryValue(tag, kind="text", data=s)])
    return run


def _merge_kernel(op, ctx):
    def run(*summaries):
        values, seen = [], set()
        for s in summaries:
            for v in s.value:
                if v.tag in seen:
                    raise errors.InvalidArgumentError(
                        None, op, f"Duplicate tag {v.tag} found in summary inputs")
                seen.add(v.tag)
                values.append(v)
        return Summary(values)
    return run


OPS.define("ScalarSummary", kernel=_scalar_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("HistogramSummary", kernel=_histogram_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("ImageSummary", kernel=_image_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("TextSummary", kernel=_text_kernel, grad=NOT_DIFFERENTIABLE)
OPS.define("MergeSummary", kernel=_merge_kernel, grad=NOT_DIFFERENTIABLE)

__all__ = ["Summary", "SummaryValue", "scalar", "histogram", "image", "text", "merge",
           "merge_all", "clean_tag"]

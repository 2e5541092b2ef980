"""``tf.strings.format`` (tensors printed into a template as TF's StringFormat does: floats
with 6 / 15 significant digits, 9 / 17 when those do not round-trip; bools as 1 / 0;
strings quoted; each dimension longer than ``2 * summarize`` elided with ``...``) and
``tf.strings.bytes_split`` of a scalar."""
import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _scalar(v):
    if isinstance(v, (bytes, np.bytes_)):
        return '"%s"' % bytes(v).decode("utf-8", "replace")
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (np.floating, float)):
        short, full = (6, 9) if isinstance(v, (np.float32, np.float16)) else (15, 17)
        text = "%.*g" % (short, v)
        if type(v)(float(text)) != v and not np.isnan(v):
            text = "%.*g" % (full, v)
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(text, text)
    return str(v)


def _summarize(a, limit, level=0):
    a = np.asarray(a, dtype=object if isinstance(a, bytes) else None)
    if a.ndim == 0:
        return _scalar(a[()])
    n = a.shape[0]
    keep = list(range(n)) if limit < 0 or n <= 2 * limit else \
        list(range(limit)) + [None] + list(range(n - limit, n))
    inner = a.ndim - 1
    sep = " " if inner == 0 else "\n" * inner + " " * (level + 1)
    return "[" + sep.join("..." if i is None else _summarize(a[i], limit, level + 1)
                          for i in keep) + "]"


def _format_kernel(op, ctx):
    attrs = op.attrs

    def run(*values):
        parts = attrs["template"].split(attrs["placeholder"])
        out = parts[0]
        for v, rest in zip(values, parts[1:]):
            out += _summarize(np.asarray(v), attrs["summarize"]) + rest
        return np.array(out.encode(), dtype=object)
    return run


OPS.define("StringFormat", kernel=_format_kernel, grad=NOT_DIFFERENTIABLE)


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """``tf.strings.format``: ``template`` with each ``placeholder`` replaced by the printed
    value of the next tensor of ``inputs`` (a scalar string tensor)."""
    if not isinstance(template, str) or not isinstance(placeholder, str) or not placeholder:
        raise TypeError(f"strings.format: template and placeholder must be str (placeholder "
                        f"non-empty), got {template!r} and {placeholder!r}")
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    tensors = [convert_to_tensor(t) for t in inputs]
    count = template.count(placeholder)
    if count != len(tensors):
        raise ValueError(f"strings.format: {count} placeholder(s) {placeholder!r} in the "
                         f"template {template!r} but {len(tensors)} input(s)")
    return make_tensor("StringFormat", tensors, dtypes.string, [],
                       {"template": template, "placeholder": placeholder,
                        "summarize": int(summarize)}, name=name)


def _bytes_split_kernel(op, ctx):
    def run(x):
        v = x[()] if isinstance(x, np.ndarray) else x
        v = v if isinstance(v, bytes) else str(v).encode()
        return np.array([v[i:i + 1] for i in range(len(v))], dtype=object)
    return run


OPS.define("BytesSplitScalar", kernel=_bytes_split_kernel, grad=NOT_DIFFERENTIABLE)


def bytes_split(input, name=None):  # noqa: A002 - TF's argument name
    """``tf.strings.bytes_split`` of a scalar string: its bytes, a 1-D string tensor. (Of
    a non-scalar TF returns a RaggedTensor, which estimator_npu does not implement yet.)"""
    t = convert_to_tensor(input, dtype=dtypes.string)
    if t.shape.ndims != 0:
        raise NotImplementedError(f"strings.bytes_split: only a scalar input is supported "
                                  f"(TF returns a RaggedTensor for shape {t.shape}; "
                                  f"estimator_npu does not implement RaggedTensor yet)")
    return make_tensor("BytesSplitScalar", [t], dtypes.string, [None], name=name)

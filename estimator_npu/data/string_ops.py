"""String ops of ``tf.strings`` (TF1's ``string_split``, ``string_to_number``,
``string_join`` too). Strings are ``bytes`` in object arrays (``str`` is UTF-8 encoded).

    sp = tf.string_split(["a b", "c"])          # SparseTensor [[0,0],[0,1],[1,0]]
    n = tf.strings.to_number(["1.5", "2"])      # float32 [1.5, 2.0]
    s = tf.strings.join([first, last], separator=" ")
"""
import builtins
import re

import numpy as np

from estimator_npu import errors
from estimator_npu.data.sparse import SparseTensor
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops.core import convert_to_tensor, make_op, make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)


def as_bytes(v):
    return v.encode() if isinstance(v, str) else bytes(v)


def _strings(x):
    return np.vectorize(as_bytes, otypes=[object])(np.asarray(x, dtype=object)) \
        if np.size(x) else np.asarray(x, dtype=object)


def _string_tensor(x, what):
    t = convert_to_tensor(x, dtype=dtypes.string if not hasattr(x, "dtype") or
                          getattr(x, "dtype", None) == dtypes.string else None)
    if t.dtype != dtypes.string:
        raise TypeError(f"{what}: expected a tf.string tensor, got dtype {t.dtype.name}")
    return t


def _elementwise(op_type, x, fn, dtype, name, attrs=None):
    x = _string_tensor(x, op_type)
    return make_tensor(op_type, [x], dtype, x.shape, dict(attrs or {}, fn=fn),
                       name=name or op_type)


def _elementwise_kernel(op, ctx):
    fn, dt = op.attrs["fn"], op.outputs[0].dtype.np

    def run(x):
        x = np.asarray(x, dtype=object)
        out = np.empty(x.shape, dtype=dt)
        flat = out.reshape(-1)
        for i, v in enumerate(x.reshape(-1).tolist()):
            flat[i] = fn(op, as_bytes(v))
        return out
    return run


for _t in ("StringLength", "StringToNumber", "StringStrip", "StringLower", "StringUpper",
           "RegexReplace", "Substr", "EncodeBase64", "DecodeBase64"):
    OPS.define(_t, kernel=_elementwise_kernel, grad=NOT_DIFFERENTIABLE)


def length(input, name=None, unit="BYTE"):  # noqa: A002 - TF's argument name
    """``tf.strings.length``: int32 lengths in bytes (``unit='UTF8_CHAR'``: characters)."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    fn = (lambda op, b: len(b)) if unit == "BYTE" else (
        lambda op, b: len(b.decode("utf-8", "replace")))
    return _elementwise("StringLength", input, fn, dtypes.int32, name)


def to_number(string_tensor, out_type=dtypes.float32, name=None):
    """``tf.strings.to_number`` / ``tf.string_to_number``."""
    dt = dtypes.as_dtype(out_type)
    if dt.name not in ("float32", "float64", "int32", "int64"):
        raise TypeError(f"to_number: out_type must be float32, float64, int32 or int64, got "
                        f"{dt.name}")
    conv = float if dt.is_floating else int

    def fn(op, b):
        try:
            v = conv(b)
            if not dt.is_floating and not np.iinfo(dt.np).min <= v <= np.iinfo(dt.np).max:
                raise ValueError
            return v
        except ValueError:
            raise errors.InvalidArgumentError(
                None, op, f"StringToNumberOp could not correctly convert string: "
                f"{b.decode('utf-8', 'replace')}") from None
    return _elementwise("StringToNumber", string_tensor, fn, dt, name)


def strip(input, name=None):  # noqa: A002
    return _elementwise("StringStrip", input, lambda op, b: b.strip(), dtypes.string, name)


def lower(input, name=None, encoding=""):  # noqa: A002
    return _elementwise("StringLower", input, lambda op, b: b.lower(), dtypes.string, name)


def upper(input, name=None, encoding=""):  # noqa: A002
    return _elementwise("StringUpper", input, lambda op, b: b.upper(), dtypes.string, name)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """``tf.strings.regex_replace`` (Python ``re`` syntax; ``\\1`` back-references)."""
    rx = re.compile(as_bytes(pattern))
    rw = re.sub(rb"\\(\d)", rb"\\g<\1>", as_bytes(rewrite))
    count = 0 if replace_global else 1
    return _elementwise("RegexReplace", input, lambda op, b: rx.sub(rw, b, count=count),
                        dtypes.string, name)


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002
    """``tf.strings.substr`` with Python int ``pos``/``len``."""
    p, n = int(pos), int(len)

    def fn(op, b):  # a negative pos counts from the end; one past either end is an error
        start = p + builtins.len(b) if p < 0 else p
        if not 0 <= start <= builtins.len(b):
            raise errors.InvalidArgumentError(None, op, f"Substr: pos {p} out of range for "
                                              f"string b'{b[:40].decode('latin-1')}' at "
                                              f"index 0")
        return b[start:start + n]
    return _elementwise("Substr", input, fn, dtypes.string, name)


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """``tf.strings.regex_full_match``: whether each whole string matches ``pattern``."""
    rx = re.compile(as_bytes(pattern))
    return _elementwise("RegexFullMatch", input, lambda op, b: rx.fullmatch(b) is not None,
                        dtypes.bool, name)


OPS.define("RegexFullMatch", kernel=_elementwise_kernel, grad=NOT_DIFFERENTIABLE)


def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None,
                reduction_indices=None, keepdims=None):
    """``tf.strings.reduce_join`` / ``tf.reduce_join``: joins the strings along ``axis``
    (all axes when None) in row-major order, with ``separator`` between them."""
    x = _string_tensor(inputs, "reduce_join")
    axis = reduction_indices if axis is None else axis
    keep = bool(keepdims if keep_dims is None else keep_dims)
    nd = x.shape.ndims
    if nd is None and axis is None:
        raise ValueError("reduce_join: the rank of `inputs` must be known when axis is None")
    axes = tuple(builtins.range(nd)) if axis is None else tuple(
        np.atleast_1d(np.asarray(axis, np.int64)).tolist())
    if nd is not None:
        axes = tuple(sorted({a % builtins.max(nd, 1) for a in axes}))
        dims = x.shape.values
        shape = [1 if i in axes else d for i, d in enumerate(dims)] if keep else \
            [d for i, d in enumerate(dims) if i not in axes]
    else:
        shape = None
    return make_tensor("ReduceJoin", [x], dtypes.string, shape,
                       {"axes": axes, "keep": keep, "sep": as_bytes(separator)},
                       name=name or "ReduceJoin")


def _reduce_join_kernel(op, ctx):
    axes, keep, sep = op.attrs["axes"], op.attrs["keep"], op.attrs["sep"]

    def run(x):
        x = np.asarray(x, dtype=object)
        ax = [a % builtins.max(x.ndim, 1) for a in axes]
        rest = [i for i in builtins.range(x.ndim) if i not in ax]
        moved = np.transpose(x, rest + ax).reshape(
            [x.shape[i] for i in rest] + [-1] if x.size else [x.shape[i] for i in rest] + [0])
        out = np.empty(moved.shape[:-1], dtype=object)
        flat = out.reshape(-1)
        for i, row in enumerate(moved.reshape(-1, moved.shape[-1]) if out.size else []):
            flat[i] = sep.join(as_bytes(v) for v in row)
        if keep:
            out = out.reshape([1 if i in ax else d for i, d in enumerate(x.shape)])
        return out
    return run


OPS.define("ReduceJoin", kernel=_reduce_join_kernel, grad=NOT_DIFFERENTIABLE)


def encode_base64(input, pad=False, name=None):  # noqa: A002
    """``tf.io.encode_base64``: web-safe base64 (``-`` and ``_``), unpadded by default."""
    import base64

    def fn(op, b):
        out = base64.urlsafe_b64encode(b)
        return out if pad else out.rstrip(b"=")
    return _elementwise("EncodeBase64", input, fn, dtypes.string, name)


def decode_base64(input, name=None):  # noqa: A002
    """``tf.io.decode_base64``: decodes web-safe base64, padded or not."""
    import base64
    import binascii

    def fn(op, b):
        try:
            std = b.translate(bytes.maketrans(b"-_", b"+/"))
            return base64.b64decode(std + b"=" * (-len(b) % 4), validate=True)
        except (binascii.Error, ValueError):
            raise errors.InvalidArgumentError(None, op, f"Invalid character found in "
                                              f"base64: {b[:40]!r}") from None
    return _elementwise("DecodeBase64", input, fn, dtypes.string, name)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,  # noqa: A002
              fill="", name=None):
    """``tf.as_string`` / ``tf.strings.as_string``: numbers and bools as strings (floats
    with 6 decimals, as TF's default ``%f``)."""
    x = convert_to_tensor(input)
    if x.dtype == dtypes.string:
        raise TypeError("as_string: `input` must be numeric or bool, got tf.string")
    spec = "e" if scientific else "g" if shortest else "f"
    prec = "" if precision < 0 and spec == "g" else f".{6 if precision < 0 else precision}"
    # printf's %0Nd pads with zeros after the sign; any other fill right-aligns with spaces
    pad = "" if width < 0 else f"0{width}" if fill == "0" else f">{width}"
    fmt = "{:" + pad + (prec + spec if x.dtype.is_floating else "") + "}"
    return make_tensor("AsString", [x], dtypes.string, x.shape, {"fmt": fmt},
                       name=name or "AsString")


def _as_string_kernel(op, ctx):
    fmt = op.attrs["fmt"]

    def run(x):
        x = np.asarray(x)
        out = np.empty(x.shape, dtype=object)
        flat = out.reshape(-1)
        for i, v in enumerate(x.reshape(-1).tolist()):
            flat[i] = (("true" if v else "false") if isinstance(v, bool)
                       else fmt.format(v)).encode()
        return out
    return run


OPS.define("AsString", kernel=_as_string_kernel, grad=NOT_DIFFERENTIABLE)


# ---------------------------------------------------------------- join
def join(inputs, separator="", name=None):
    """``tf.strings.join`` / ``tf.string_join``: joins the tensors of ``inputs``
    element-wise (scalars broadcast)."""
    ts = [_string_tensor(x, "join") for x in (inputs if isinstance(inputs, (list, tuple))
                                              else [inputs])]
    shape = TensorShape(None)
    ranked = [t.shape for t in ts if t.shape.values != ()]
    if not ranked:
        shape = TensorShape([])
    elif all(s.values is not None for s in ranked) and len({s.values for s in ranked}) == 1:
        shape = ranked[0]
    return make_tensor("StringJoin", ts, dtypes.string, shape,
                       {"separator": as_bytes(separator)}, name=name or "StringJoin")


def _join_kernel(op, ctx):
    sep = op.attrs["separator"]

    def run(*xs):
        arrays = np.broadcast_arrays(*[np.asarray(x, dtype=object) for x in xs])
        out = np.empty(arrays[0].shape, dtype=object)
        flat = [a.reshape(-1).tolist() for a in arrays]
        out.reshape(-1)[:] = [sep.join(as_bytes(v) for v in parts) for parts in zip(*flat)] \
            if out.size else []
        return out
    return run


OPS.define("StringJoin", kernel=_join_kernel, grad=NOT_DIFFERENTIABLE)


# ---------------------------------------------------------------- split
def _split_kernel(op, ctx):
    mode, sep, maxsplit, skip_empty = (op.attrs[k] for k in ("mode", "sep", "maxsplit",
                                                             "skip_empty"))

    def split_one(b):
        if mode == "chars":  # string_split: every byte of ``sep`` is a delimiter
            if not b:  # TF's StringSplit: an empty string has no tokens, even kept empty ones
                return []
            if not sep:
                parts = [b[i:i + 1] for i in range(len(b))]
            else:
                parts = re.split(b"[" + re.escape(sep) + b"]", b)
            return [p for p in parts if p] if skip_empty else parts
        if sep is None:
            return b.split(None, maxsplit)
        return b.split(sep, maxsplit)  # StringSplitV2: "" -> [""], as Python

    def run(x):
        x = np.asarray(x, dtype=object)
        rows = [split_one(as_bytes(v)) for v in x.reshape(-1).tolist()]
        lengths = np.array([len(r) for r in rows], dtype=np.int64)
        values = np.empty(int(lengths.sum()), dtype=object)
        values[:] = [p for r in rows for p in r]
        rec = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
        within = np.arange(len(values), dtype=np.int64) - np.repeat(
            np.cumsum(lengths) - lengths, lengths)
        width = int(lengths.max()) if len(rows) else 0
        return (np.stack([rec, within], axis=1).reshape(-1, 2), values,
                np.array([len(rows), width], np.int64))
    return run


OPS.define("StringSplit", kernel=_split_kernel, grad=NOT_DIFFERENTIABLE)


def _split(source, mode, sep, maxsplit, skip_empty, name):
    x = _string_tensor(source, "split")
    if x.shape.values is not None and len(x.shape.values) > 1:
        raise ValueError(f"split: `source` must be a scalar or a vector, got shape {x.shape}")
    op = make_op("StringSplit", [x], [(dtypes.int64, TensorShape([None, 2])),
                                      (dtypes.string, TensorShape([None])),
                                      (dtypes.int64, TensorShape([2]))],
                 {"mode": mode, "sep": sep, "maxsplit": maxsplit, "skip_empty": skip_empty},
                 name=name or "StringSplit")
    return SparseTensor(*op.outputs)


def string_split(source, delimiter=" ", skip_empty=True, delimiter_=None, result_type=None,
                 sep=None, name=None):
    """``tf.string_split`` (TF1): splits each string at any byte of ``delimiter`` into a
    ``SparseTensor`` [num_strings, longest]; empty tokens dropped with ``skip_empty``."""
    _sparse_only(result_type)
    if sep is not None:
        delimiter = sep
    return _split(source, "chars", as_bytes(delimiter), -1, bool(skip_empty), name)


def split(source=None, sep=None, maxsplit=-1, result_type="SparseTensor", name=None,
          input=None):  # noqa: A002
    """``tf.strings.split`` (TF1 form): splits at ``sep`` (runs of whitespace when
    ``None``), up to ``maxsplit`` times, into a ``SparseTensor``."""
    _sparse_only(result_type)
    source = input if source is None else source
    return _split(source, "sep", None if sep is None else as_bytes(sep),
                  -1 if maxsplit is None else int(maxsplit), False, name)


def _sparse_only(result_type):
    if result_type not in (None, "SparseTensor"):
        raise NotImplementedError(f"estimator_npu does not implement result_type="
                                  f"{result_type!r} (yet); use 'SparseTensor'")


__all__ = ["regex_full_match", "reduce_join", "as_string", "encode_base64", "decode_base64", "length", "to_number", "join", "split", "string_split", "strip", "lower",
           "upper", "regex_replace", "substr"]

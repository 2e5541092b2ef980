"""How TF writes tensor values into messages.

* ``summarize(array, limit)``: TF1's summary of a tensor (``tf.Print``, ``tf.Assert``):
  the first ``limit`` elements in row-major order, each row in brackets, ``...`` where
  values were left out (``[0 1 2][3...]...`` for a 2x3 tensor and ``limit=4``); no
  brackets around the whole, the callers add them.
* ``format_v2(array, summarize)``: ``tf.print``'s numpy-like layout: ``summarize`` leading
  and trailing entries of each dimension longer than twice that, rows on new lines.

Numbers are written as TF's ``StrCat`` does: integers in full, floats with 6 (float32) or
15 (float64) significant digits, or 9 / 17 where fewer would not read back the same
value; booleans as 1 and 0.
"""
import numpy as np


def format_element(value, quote=False):
    """One element as TF writes it (``quote``: strings in double quotes, as tf.print)."""
    if isinstance(value, (bytes, str)):
        s = c_escape(value if isinstance(value, bytes) else value.encode())
        return f'"{s}"' if quote else s
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (np.floating, float)):
        return _format_float(value)
    if isinstance(value, (np.complexfloating, complex)):
        return f"({_format_float(value.real)},{_format_float(value.imag)})"
    return str(int(value)) if isinstance(value, (np.integer, int)) else str(value)


_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
            ord("'"): "\\'", ord("\\"): "\\\\"}


def c_escape(data):
    """``bytes`` as TF's ``CEscape`` writes them: C escapes for quotes, backslashes and
    control characters, three-digit octal for other bytes outside printable ASCII."""
    return "".join(_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7f else "\\%03o" % b)
                   for b in data)


def _format_float(v):
    double = isinstance(v, (float, np.float64)) and not isinstance(v, np.float32)
    f = float(v)
    if not np.isfinite(f):
        return "nan" if np.isnan(f) else ("inf" if f > 0 else "-inf")
    short, full, cast = (15, 17, float) if double else (6, 9, np.float32)
    s = "%.*g" % (short, f)
    if cast(float(s)) != cast(f):
        s = "%.*g" % (full, f)
    return s


def summarize(array, limit=3):
    """TF1's ``Tensor::SummarizeValue`` of ``array`` with at most ``limit`` elements
    (all of them for a negative ``limit``)."""
    a = np.asarray(array)
    flat = a.reshape(-1)
    n = flat.size
    limit = n if limit is None or limit < 0 else min(int(limit), n)
    if a.ndim == 0:
        return format_element(flat[0]) if n else ""
    if n == 0:
        return ""
    out, pos, last = [], [0], a.ndim - 1

    def dim(d):
        if pos[0] >= limit:
            return
        if d == last:
            for i in range(a.shape[d]):
                if pos[0] >= limit:
                    if d:
                        out.append("...")
                    return
                if i:
                    out.append(" ")
                out.append(format_element(flat[pos[0]]))
                pos[0] += 1
            return
        for _ in range(a.shape[d]):
            opened = pos[0] < limit
            if opened:
                out.append("[")
            dim(d + 1)
            if opened or pos[0] < limit:
                out.append("]")

    dim(0)
    if n > limit:
        out.append("...")
    return "".join(out)


def format_v2(array, summarize=3):
    """``tf.print``'s layout of ``array`` (every entry for a negative ``summarize``)."""
    a = np.asarray(array)
    quote = a.dtype.kind in "OSU"
    if a.ndim == 0:
        return format_element(a.reshape(-1)[0], quote)
    k = 3 if summarize is None else int(summarize)

    def rows(x, depth):
        n = x.shape[0]
        idx = (list(range(k)) + [None] + list(range(n - k, n))) if 0 <= k and 2 * k < n \
            else range(n)
        if x.ndim == 1:
            return "[" + " ".join("..." if i is None else format_element(x[i], quote)
                                  for i in idx) + "]"
        sep = "\n" * (x.ndim - 1) + " " * (depth + 1)
        return "[" + sep.join("..." if i is None else rows(x[i], depth + 1)
                              for i in idx) + "]"
    return rows(a, 0)

"""The ops that print and assert: ``Print`` (TF1's ``tf.Print``), ``PrintV2``
(``tf.print``) and ``Assert`` (``tf.Assert``).

* ``tf.Print(input_, data, message, first_n, summarize)`` is an identity of ``input_``
  that, each time it runs (the first ``first_n`` times per session when ``first_n`` is
  positive), writes ``message`` then ``[summary]`` of each ``data`` tensor to stderr.
* ``tf.print(*inputs, output_stream, summarize, sep, end)`` is an op without outputs that
  writes its inputs (tensors laid out as ``tf.print`` does, Python values as ``str``,
  nested lists/dicts with tensors in place) to ``sys.stderr`` (default), ``sys.stdout``, a
  ``"file://path"`` (appended) or a logging function.
* ``tf.Assert(condition, data, summarize)`` raises ``InvalidArgumentError``
  ``assertion failed: [d1] [d2] ...`` when the scalar ``condition`` is false at run time.
"""
import sys

import numpy as np

from estimator_npu import errors
from estimator_npu.checks import formatting
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Operation, Tensor, get_default_graph
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)


def _data_tensors(data, what):
    if isinstance(data, (Tensor, Operation)) or not isinstance(data, (list, tuple)):
        data = [data]
    out = []
    for d in data:
        if isinstance(d, Operation):
            raise TypeError(f"{what}: data must hold tensors or values, got the operation "
                            f"'{d.name}'")
        out.append(convert_to_tensor(d))
    return out


# ------------------------------------------------------------------ tf.Print
def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802
    """TF1's ``tf.Print``: ``input_`` unchanged; running it writes ``message`` and the
    summaries of ``data`` (``summarize`` entries each, 3 by default) to stderr."""
    x = convert_to_tensor(input_)
    ts = _data_tensors(data, "tf.Print")
    attrs = {"message": "" if message is None else str(message),
             "first_n": -1 if first_n is None else int(first_n),
             "summarize": 3 if summarize is None else int(summarize)}
    return make_op("Print", [x] + ts, [(x.dtype, x.shape)], attrs, name=name).outputs[0]


class _Counter:
    n = 0


def _print_kernel(op, ctx):
    a = op.attrs
    message, first_n, limit = a["message"], a["first_n"], a["summarize"]
    counter = ctx.resource(("estimator_npu.checks.Print", op), _Counter)

    def run(x, *data):
        if first_n < 0 or counter.n < first_n:
            counter.n += 1
            text = message + "".join(f"[{formatting.summarize(d, limit)}]" for d in data)
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
        return x
    return run


OPS.define("Print", kernel=_print_kernel,
           grad=lambda op, dy: [dy] + [None] * (len(op.inputs) - 1), may_alias=True,
           stateful=True)


# ------------------------------------------------------------------ tf.print
class _Slot:
    """Stands for the ``k``-th tensor in the text of a structure (``str`` of a list)."""

    def __init__(self, k):
        self.k = k

    def __repr__(self):
        return f"\x00{self.k}\x00"


def _template(value, tensors):
    if isinstance(value, (Tensor, np.ndarray)) or hasattr(value, "_as_tensor"):
        tensors.append(convert_to_tensor(value))
        return _Slot(len(tensors) - 1)
    if isinstance(value, (list, tuple)):
        return type(value)(_template(v, tensors) for v in value) \
            if not hasattr(value, "_fields") else type(value)(*[_template(v, tensors)
                                                                for v in value])
    if isinstance(value, dict):
        return {k: _template(v, tensors) for k, v in value.items()}
    return value


def _stream_of(output_stream):
    if output_stream is None or output_stream is sys.stderr or output_stream is sys.__stderr__:
        return "stderr"
    if output_stream is sys.stdout or output_stream is sys.__stdout__:
        return "stdout"
    if isinstance(output_stream, str):
        if output_stream.startswith("file://"):
            return output_stream
        raise ValueError(f"tf.print: output_stream {output_stream!r} is not supported: use "
                         "sys.stderr, sys.stdout, a 'file://' path or a logging function")
    if callable(output_stream):
        return output_stream
    raise ValueError(f"tf.print: output_stream must be sys.stderr, sys.stdout, a 'file://' "
                     f"path or a logging function, got {output_stream!r}")


def print_v2(*inputs, **kwargs):
    """``tf.print``: an op (no outputs) writing ``inputs`` joined by ``sep``, then ``end``,
    each time it runs. Keyword arguments: ``output_stream`` (``sys.stderr``), ``summarize``
    (3; -1 for every entry), ``sep`` (" "), ``end`` ("\\n"), ``name``."""
    unknown = set(kwargs) - {"output_stream", "summarize", "sep", "end", "name"}
    if unknown:
        raise ValueError(f"tf.print: unrecognized keyword arguments {sorted(unknown)}; "
                         "accepted are output_stream, summarize, sep, end, name")
    tensors, parts = [], []
    for value in inputs:
        t = _template(value, tensors)
        parts.append(t if isinstance(t, (_Slot, str)) else str(t))
    attrs = {"parts": parts, "stream": _stream_of(kwargs.get("output_stream")),
             "summarize": 3 if kwargs.get("summarize") is None else int(kwargs["summarize"]),
             "sep": kwargs.get("sep", " "), "end": kwargs.get("end", "\n")}
    if tensors:
        return make_op("PrintV2", tensors, [], attrs, name=kwargs.get("name"))
    return get_default_graph().create_op("PrintV2", [], attrs, [], name=kwargs.get("name"))


def _render(parts, values, limit):
    texts = [formatting.format_v2(v, limit) for v in values]
    out = []
    for p in parts:
        if isinstance(p, _Slot):
            out.append(texts[p.k])
            continue
        s = p
        if "\x00" in s:
            for k, t in enumerate(texts):
                s = s.replace(f"\x00{k}\x00", t)
        out.append(s)
    return out


def _print_v2_kernel(op, ctx):
    a = op.attrs
    parts, stream, limit, sep, end = a["parts"], a["stream"], a["summarize"], a["sep"], a["end"]

    def run(*values):
        text = sep.join(_render(parts, values, limit)) + end
        if callable(stream):
            stream(text[:-1] if text.endswith("\n") else text)
        elif stream.startswith("file://"):
            with open(stream[len("file://"):], "a", encoding="utf-8") as f:
                f.write(text)
        else:
            out = sys.stderr if stream == "stderr" else sys.stdout
            out.write(text)
            out.flush()
    return run


OPS.define("PrintV2", kernel=_print_v2_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


# ------------------------------------------------------------------ tf.Assert
def Assert(condition, data, summarize=None, name=None):  # noqa: N802
    """An op raising ``InvalidArgumentError`` (``assertion failed: [d1] [d2] ...``, with
    ``summarize`` entries of each ``data`` tensor, 3 by default) when ``condition`` (a
    scalar bool) is false at run time."""
    c = convert_to_tensor(condition)
    if c.dtype != dtypes.bool:
        raise TypeError(f"tf.Assert: condition must be a bool tensor, got {c.dtype.name} "
                        f"({c.name})")
    if c.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {c.shape.ndims} for "
                         f"'{name or 'Assert'}' (op: 'Assert') with input shapes: {c.shape}.")
    ts = _data_tensors(data, "tf.Assert")
    return make_op("Assert", [c] + ts, [], {"summarize": 3 if summarize is None
                                            else int(summarize)}, name=name or "Assert")


def _assert_kernel(op, ctx):
    limit = op.attrs["summarize"]

    def run(cond, *data):
        if np.ndim(cond) != 0:
            raise errors.InvalidArgumentError(
                None, op, f"In[0] should be a scalar: {list(np.shape(cond))}")
        if not cond:
            raise errors.InvalidArgumentError(None, op, "assertion failed: " + " ".join(
                f"[{formatting.summarize(d, limit)}]" for d in data))
    return run


OPS.define("Assert", kernel=_assert_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)

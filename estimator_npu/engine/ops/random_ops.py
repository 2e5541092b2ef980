"""Seeded random ops with TF1 seed semantics and TF's values.

As in TF1, an op's randomness comes from the pair (graph-level seed, op-level seed):

* both unset: a fresh random sequence for every session;
* graph seed set, op seed unset: the op seed counts the graph's earlier random ops made
  without an op seed (TF 2.15's ``get_seed``), so rebuilding the graph reproduces them;
* op seed set: reproducible for that op (graph seed 87654321 when unset).

The values are TF's CPU kernels' for the same seeds (``utils.philox``); each session
starts every op's generator afresh, and each run moves it on, as TF's kernels do.
"""
import weakref

import numpy as np

from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import get_default_graph
from estimator_npu.engine.ops.core import make_tensor
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import as_shape
from estimator_npu.utils import philox

OPS = OpFamily(__name__)  # this family's op definitions (data)


DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1
_unseeded_ops = weakref.WeakKeyDictionary()   # graph -> random ops made without op seed


def get_seed(op_seed):
    """The ``(graph_seed, op_seed)`` pair TF1 uses (``None`` when unseeded): with a graph
    seed and no op seed, the op seed counts the graph's earlier such ops, as TF's does."""
    g = get_default_graph()
    if g.seed is not None:
        if op_seed is None:
            op_seed = _unseeded_ops.setdefault(g, 0)
            _unseeded_ops[g] += 1
        seeds = int(g.seed) % _MAXINT32, int(op_seed) % _MAXINT32
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
    else:
        return None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def _random(op_type, shape, dtype, seed, name, inputs=(), **attrs):
    from estimator_npu.engine.ops import dynamic_shape
    if dynamic_shape.is_dynamic(shape):
        return dynamic_shape.random_dynamic(op_type, shape, dtype, seed, name, **attrs)
    shp = as_shape(shape)
    if not shp.is_fully_defined():
        raise ValueError(f"{op_type}: shape must be fully defined, got {shp}")
    dt = dtypes.as_dtype(dtype)
    s1, s2 = get_seed(seed)
    seed2 = None if s1 is None else [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]
    attrs.update({"shape": tuple(shp.as_list()), "dtype": dt, "seed2": seed2})
    return make_tensor(op_type, list(inputs), dt, shp, attrs, name=name or op_type)


def _is_number(x):
    return isinstance(x, (int, float, np.number)) or (isinstance(x, np.ndarray) and x.ndim == 0)


def _scaled(op_type, shape, dtype, seed, name, scale, offset, **attrs):
    """``sample * scale + offset`` in the graph, for tensor scale/offset as TF allows
    (``stddev=1. / tf.sqrt(n / 2.)``)."""
    from estimator_npu.engine.ops import math_ops
    from estimator_npu.engine.ops.core import convert_to_tensor as cvt
    with get_default_graph().name_scope(name or op_type):
        rnd = _random(op_type, shape, dtype, seed, None, **attrs)
        return math_ops.add(math_ops.multiply(rnd, cvt(scale, dtype=rnd.dtype)),
                            cvt(offset, dtype=rnd.dtype))


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    if not (_is_number(mean) and _is_number(stddev)):
        return _scaled("RandomNormal", shape, dtype, seed, name, stddev, mean, mean=0.0,
                       stddev=1.0)
    return _random("RandomNormal", shape, dtype, seed, name, mean=float(mean),
                   stddev=float(stddev))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal samples redrawn until within two standard deviations of the mean."""
    if not (_is_number(mean) and _is_number(stddev)):
        return _scaled("TruncatedNormal", shape, dtype, seed, name, stddev, mean, mean=0.0,
                       stddev=1.0)
    return _random("TruncatedNormal", shape, dtype, seed, name, mean=float(mean),
                   stddev=float(stddev))


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    dt = dtypes.as_dtype(dtype)
    if maxval is None:
        if dt.is_integer:
            raise ValueError("random_uniform: maxval must be given for integer dtypes")
        maxval = 1.0
    if not (_is_number(minval) and _is_number(maxval)) and dt.is_floating:
        from estimator_npu.engine.ops import math_ops
        return _scaled("RandomUniform", shape, dt, seed, name, math_ops.subtract(
            maxval, minval), minval, minval=0.0, maxval=1.0)
    if not (_is_number(minval) and _is_number(maxval)):   # int bounds from tensors, as TF
        from estimator_npu.engine.ops.core import convert_to_tensor as cvt
        return _random("RandomUniformIntBounds", as_shape(shape), dt, seed, name,
                       inputs=[cvt(minval, dtype=dt), cvt(maxval, dtype=dt)])
    if maxval <= minval:
        raise ValueError(f"random_uniform: need minval < maxval, got minval={minval}, "
                         f"maxval={maxval}")
    return _random("RandomUniform", shape, dt, seed, name, minval=minval, maxval=maxval)


def draw(kind, op, ctx, shape, attrs):
    """One run's samples of a random op from its TF generator (``utils.philox``), scaled
    in the op's dtype as TF's ``rnd * stddev + mean`` / ``rnd * (max - min) + min``."""
    dt = attrs["dtype"]
    n = int(np.prod(shape, dtype=np.int64))
    stream = ctx.philox(op)
    counter = stream.reserve_outputs(n)
    if kind == "uniform" and dt.is_integer:
        return philox.uniform_int(stream.key, counter, n, attrs["minval"], attrs["maxval"],
                                  dt.np).reshape(shape)
    npd = np.dtype(dt.np)
    raw_dt = npd if npd in (np.float16, np.float32, np.float64) else np.float32
    fn = {"normal": philox.normal, "truncated": philox.truncated_normal,
          "uniform": philox.uniform}[kind]
    z = fn(stream.key, counter, n, raw_dt).astype(npd, copy=False).reshape(shape)
    if kind == "uniform":
        lo, hi = npd.type(attrs.get("minval", 0.0)), npd.type(attrs.get("maxval", 1.0))
        return z * (hi - lo) + lo
    return z * npd.type(attrs["stddev"]) + npd.type(attrs["mean"])


def _kernel(kind):
    return lambda op, ctx: (lambda: draw(kind, op, ctx, op.attrs["shape"], op.attrs))


_normal_kernel, _truncated_kernel, _uniform_kernel = (_kernel("normal"), _kernel("truncated"),
                                                      _kernel("uniform"))


OPS.define("RandomNormal", kernel=_normal_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)
OPS.define("TruncatedNormal", kernel=_truncated_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)
OPS.define("RandomUniform", kernel=_uniform_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


def random_uniform_like(x, seed=None, name=None):
    """Uniform [0, 1) samples with the runtime shape of ``x`` (used by dropout)."""
    s1, s2 = get_seed(seed)
    seed2 = None if s1 is None else [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]
    return make_tensor("RandomUniformLike", [x], x.dtype, x.shape, {"seed2": seed2},
                       name=name)


def _uniform_like_kernel(op, ctx):
    return lambda x: draw("uniform", op, ctx, np.shape(x), {"dtype": op.outputs[0].dtype})


def _int_bounds_kernel(op, ctx):
    def sample(lo, hi):
        if not lo < hi:
            from estimator_npu import errors
            raise errors.InvalidArgumentError(None, op, f"Need minval < maxval: {lo} >= {hi}")
        return draw("uniform", op, ctx, op.attrs["shape"], dict(op.attrs, minval=lo, maxval=hi))
    return sample


OPS.define("RandomUniformIntBounds", kernel=_int_bounds_kernel, grad=NOT_DIFFERENTIABLE,
           stateful=True)
OPS.define("RandomUniformLike", kernel=_uniform_like_kernel, grad=NOT_DIFFERENTIABLE,
           stateful=True)


def random_shuffle(value, seed=None, name=None):
    from estimator_npu.engine.ops.core import convert_to_tensor
    x = convert_to_tensor(value)
    s1, s2 = get_seed(seed)
    seed2 = None if s1 is None else [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]
    return make_tensor("RandomShuffle", [x], x.dtype, x.shape, {"seed2": seed2}, name=name)


def _shuffle_kernel(op, ctx):
    def shuffle(x):
        x = np.asarray(x)
        if x.size <= 1 or x.shape[0] <= 1:   # TF draws nothing then
            return x
        stream = ctx.philox(op)
        counter = stream.reserve(philox.shuffle_words(x.shape[0]))
        return x[philox.shuffle_permutation(stream.key, counter, x.shape[0])]
    return shuffle


OPS.define("RandomShuffle", kernel=_shuffle_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)

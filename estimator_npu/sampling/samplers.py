"""TF1's candidate samplers (``tf.nn.*_candidate_sampler``) and ``compute_accidental_hits``.

Each sampler draws ``num_sampled`` class ids from ``[0, range_max)`` and returns
``(sampled_candidates, true_expected_count, sampled_expected_count)``: int64
``[num_sampled]``, float32 ``[batch, num_true]`` and float32 ``[num_sampled]``.

The distributions, with ``p(k)`` the probability of one draw:

* uniform: ``1 / range_max``;
* log-uniform (Zipfian): ``log((k + 2) / (k + 1)) / log(range_max + 1)``, drawn as
  ``floor(exp(u * log(range_max + 1))) - 1`` for uniform ``u``;
* learned unigram: counts that start at 1 for every class and grow by one for each true
  class the op sees (after it has sampled), kept per session;
* fixed unigram: ``unigrams`` (or the last CSV field of each ``vocab_file`` line) raised
  to ``distortion``, after ``num_reserved_ids`` zero-weight ids, keeping the ids of
  ``shard`` out of ``num_shards``.

Expected counts: ``p * num_sampled``, or with ``unique=True`` (draw until ``num_sampled``
distinct values, which took ``T`` draws) ``1 - (1 - p) ** T`` when ``T > num_sampled``.
"""
import numpy as np

from estimator_npu import errors
from estimator_npu.engine import dtypes
from estimator_npu.engine.ops import math_ops
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.ops.random_ops import get_seed
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily

OPS = OpFamily(__name__)  # this family's op definitions (data)

FLT_MAX = float(np.finfo(np.float32).max)


# ------------------------------------------------------------------ distributions
class _Uniform:
    def __init__(self, n):
        self.n = n

    def draw(self, rng, k):
        return rng.integers(0, self.n, size=k, dtype=np.int64)

    def prob(self, v):
        return np.full(np.shape(v), 1.0 / self.n)


class _LogUniform:
    def __init__(self, n):
        self.n, self.log_range = n, np.log1p(n)

    def draw(self, rng, k):
        return (np.exp(rng.random(k) * self.log_range).astype(np.int64) - 1) % self.n

    def prob(self, v):
        v = np.asarray(v, np.float64)
        return np.log((v + 2.0) / (v + 1.0)) / self.log_range


class _Weighted:
    """Draws proportionally to ``weights`` (which ``update`` may grow)."""

    def __init__(self, weights):
        self.w = np.asarray(weights, np.float64)
        self._cdf = None

    def draw(self, rng, k):
        if self._cdf is None:
            self._cdf = np.cumsum(self.w)
        u = rng.random(k) * self._cdf[-1]
        return np.minimum(np.searchsorted(self._cdf, u, side="right"),
                          self.w.size - 1).astype(np.int64)

    def prob(self, v):
        v = np.asarray(v, np.int64)
        ok = (v >= 0) & (v < self.w.size)
        return np.where(ok, self.w[np.clip(v, 0, self.w.size - 1)], 0.0) / self.w.sum()

    def update(self, values):
        np.add.at(self.w, np.asarray(values, np.int64).ravel(), 1.0)
        self._cdf = None


def _draw_unique(dist, rng, n):
    """``n`` distinct values in order of first draw, and how many draws it took."""
    got = np.empty(0, np.int64)
    tries = 0
    while got.size < n:
        need = n - got.size
        chunk = dist.draw(rng, max(2 * need, 16))
        pool = np.concatenate([got, chunk])
        _, first = np.unique(pool, return_index=True)
        first.sort()
        new = first[first >= got.size]
        if new.size >= need:
            tries += int(new[need - 1]) - got.size + 1
            got = np.concatenate([got, pool[new[:need]]])
        else:
            tries += chunk.size
            got = pool[first]
    return got, tries


def _expected(p, n, tries):
    p = np.asarray(p, np.float32)
    if tries == n:
        return (p * np.float32(n)).astype(np.float32)
    return (-np.expm1(np.float32(tries) * np.log1p(-p))).astype(np.float32)


def _fixed_weights(a):
    w = [0.0] * sum(1 for i in range(a["num_reserved_ids"])
                    if i % a["num_shards"] == a["shard"])
    if a["vocab_file"]:
        from estimator_npu.utils import gfile
        with gfile.GFile(a["vocab_file"], "r") as f:
            values = [line.strip().split(",")[-1] for line in f if line.strip()]
        try:
            values = [float(v) for v in values]
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, f"Wrong vocabulary format in "
                                              f"{a['vocab_file']}: {e}") from None
    else:
        values = list(a["unigrams"])
    for i, v in enumerate(values, start=len(w)):   # ids count on from the kept reserved ones
        if i % a["num_shards"] == a["shard"]:
            w.append(float(v) ** a["distortion"])
    return w


def _distribution(op, ctx):
    a = op.attrs
    kind, n = a["kind"], a["range_max"]
    if kind == "uniform":
        return _Uniform(n)
    if kind == "log_uniform":
        return _LogUniform(n)
    if kind == "learned_unigram":
        return ctx.resource(("learned_unigram_sampler", op.name),
                            lambda: _Weighted(np.ones(n)))
    w = _fixed_weights(a)
    if len(w) != n:
        raise errors.InvalidArgumentError(None, op, f"{op.name}: range is {n} must be equal "
                                          f"to weights size {len(w)}")
    return _Weighted(w)


def _sampler_kernel(op, ctx):
    a = op.attrs
    n, num_true, unique, kind = a["num_sampled"], a["num_true"], a["unique"], a["kind"]
    rng = ctx.rng(op)
    dist = None if kind == "all" else _distribution(op, ctx)

    def run(true_classes):
        t = np.asarray(true_classes)
        if t.ndim != 2:
            raise errors.InvalidArgumentError(None, op, f"{op.name}: true_classes must be a "
                                              f"matrix, got shape {t.shape}")
        if t.shape[1] != num_true:
            raise errors.InvalidArgumentError(
                None, op, f"{op.name}: true_classes must have num_true columns, expected: "
                f"{t.shape[1]} was: {num_true}")
        if kind == "all":
            return (np.arange(n, dtype=np.int64), np.ones(t.shape, np.float32),
                    np.ones(n, np.float32))
        rmax = a["range_max"]
        if t.size and (t.min() < 0 or t.max() >= rmax):
            raise errors.InvalidArgumentError(
                None, op, f"{op.name}: `true_candidate` out of range [0, {rmax}), received "
                f"{int(t.min() if t.min() < 0 else t.max())}")
        if unique:
            if n > rmax:
                raise errors.InvalidArgumentError(None, op, f"{op.name}: Sampler's range is "
                                                  f"too small (num_sampled={n} > "
                                                  f"range_max={rmax} with unique=True).")
            sampled, tries = _draw_unique(dist, rng, n)
        else:
            sampled, tries = dist.draw(rng, n), n
        out = (sampled, _expected(dist.prob(t), n, tries), _expected(dist.prob(sampled), n,
                                                                      tries))
        if kind == "learned_unigram":
            dist.update(t)
        return out
    return run


OPS.define("CandidateSampler", kernel=_sampler_kernel, grad=NOT_DIFFERENTIABLE, stateful=True)


def _sampler(kind, true_classes, num_true, num_sampled, unique, range_max, seed, name,
             **extra):
    t = math_ops.cast(convert_to_tensor(true_classes), dtypes.int64)
    num_true, num_sampled, range_max = int(num_true), int(num_sampled), int(range_max)
    if t.shape.ndims is not None and t.shape.ndims != 2:
        raise ValueError(f"{kind}_candidate_sampler: true_classes must be a matrix "
                         f"[batch_size, num_true], got shape {t.shape}")
    if t.shape.ndims == 2 and t.shape.values[1] is not None and t.shape.values[1] != num_true:
        raise ValueError(f"{kind}_candidate_sampler: true_classes has {t.shape.values[1]} columns "
                         f"but num_true={num_true}")
    if range_max <= 0:
        raise ValueError(f"{kind}_candidate_sampler: range_max must be positive, got "
                         f"{range_max}")
    s1, s2 = get_seed(seed)
    attrs = {"kind": kind, "num_true": num_true, "num_sampled": num_sampled,
             "unique": bool(unique), "range_max": range_max,
             "seed2": None if s1 is None else [s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]}
    attrs.update(extra)
    batch = t.shape.values[0] if t.shape.ndims == 2 else None
    op = make_op("CandidateSampler", [t],
                 [(dtypes.int64, [num_sampled]), (dtypes.float32, [batch, num_true]),
                  (dtypes.float32, [num_sampled])], attrs,
                 name=name or "".join(w.title() for w in kind.split("_")) + "CandidateSampler")
    return tuple(op.outputs)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    return _sampler("uniform", true_classes, num_true, num_sampled, unique, range_max, seed,
                    name)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    return _sampler("log_uniform", true_classes, num_true, num_sampled, unique, range_max,
                    seed, name)


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                      seed=None, name=None):
    return _sampler("learned_unigram", true_classes, num_true, num_sampled, unique,
                    range_max, seed, name)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None, name=None):
    if bool(vocab_file) == bool(len(unigrams)):
        raise ValueError("fixed_unigram_candidate_sampler: give exactly one of vocab_file "
                         "and unigrams")
    if not 0 <= int(shard) < int(num_shards):
        raise ValueError(f"fixed_unigram_candidate_sampler: need 0 <= shard < num_shards, "
                         f"got shard={shard}, num_shards={num_shards}")
    return _sampler("fixed_unigram", true_classes, num_true, num_sampled, unique, range_max,
                    seed, name, vocab_file=str(vocab_file), distortion=float(distortion),
                    num_reserved_ids=int(num_reserved_ids), num_shards=int(num_shards),
                    shard=int(shard), unigrams=tuple(float(u) for u in unigrams))


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class ``0 .. num_sampled - 1``, each with expected count 1."""
    return _sampler("all", true_classes, num_true, num_sampled, unique, num_sampled, seed,
                    name)


# ------------------------------------------------------------------ accidental hits
def _hits(true_classes, sampled, num_true):
    t, s = np.asarray(true_classes), np.asarray(sampled)
    if t.ndim != 2 or t.shape[1] != num_true:
        raise ValueError(f"true_candidates must be a batch_size * num_true matrix, got shape "
                         f"{t.shape} with num_true={num_true}")
    if s.ndim != 1:
        raise ValueError(f"sampled_candidates must be a vector, got shape {s.shape}")
    pos = {int(v): j for j, v in enumerate(s.tolist())}   # the last position of each value
    found = [(i, pos[v]) for i, row in enumerate(t.tolist()) for v in row if v in pos]
    idx = np.array([f[0] for f in found], np.int32)
    ids = np.array([f[1] for f in found], np.int64)
    return idx, ids, np.full(len(found), -FLT_MAX, np.float32)


def _hits_kernel(op, ctx):
    num_true = op.attrs["num_true"]

    def run(t, s):
        try:
            return _hits(t, s, num_true)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, op, f"{op.name}: {e}") from None
    return run


OPS.define("ComputeAccidentalHits", kernel=_hits_kernel, grad=NOT_DIFFERENTIABLE)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """``(indices, ids, weights)``: for each true class of row ``indices[k]`` that also is
    ``sampled_candidates[ids[k]]``, a weight ``-FLT_MAX`` to add to that sampled logit."""
    t = math_ops.cast(convert_to_tensor(true_classes), dtypes.int64)
    s = math_ops.cast(convert_to_tensor(sampled_candidates), dtypes.int64)
    op = make_op("ComputeAccidentalHits", [t, s],
                 [(dtypes.int32, [None]), (dtypes.int64, [None]), (dtypes.float32, [None])],
                 {"num_true": int(num_true)}, name=name)
    return tuple(op.outputs)


def _mask_kernel(op, ctx):
    npd = op.attrs["dtype"].np

    def run(idx, ids, weights, shape):
        m = np.zeros(tuple(shape), npd)
        m[np.asarray(idx, np.intp), np.asarray(ids, np.intp)] = weights
        return m
    return run


OPS.define("AccidentalHitsMask", kernel=_mask_kernel, grad=NOT_DIFFERENTIABLE)


def accidental_hits_mask(hits, sampled_logits):
    """The dense ``[batch, num_sampled]`` addend that masks the hits (TF's sparse_to_dense
    of the hit weights: a hit listed twice is set, not added, twice)."""
    from estimator_npu.engine.ops import array_ops
    idx, ids, weights = hits
    x = sampled_logits
    return make_op("AccidentalHitsMask", [idx, ids, weights, array_ops.shape(x)],
                   [(x.dtype, x.shape)], {"dtype": x.dtype},
                   name="accidental_hits_mask").outputs[0]

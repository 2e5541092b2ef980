"""Iterator state saved with checkpoints, so that a resumed run continues its input exactly.

TF1 restarts the input pipeline from its beginning when training resumes; with shuffled
mini-batches the resumed run then sees other batches than an uninterrupted one. We save,
next to every checkpoint, each started iterator's state in a form that does not depend on
how the pipeline gathers its batches::

    {"version": 1, "iterators": {name: {"fingerprint": <pipeline structure hash>,
                                        "consumed": <elements delivered by get_next>,
                                        "entropy": {<node index>: <seed entropy>}}}}

``consumed`` is the position in the stream of elements (it covers the position within the
epoch and the repeat count); ``entropy`` is the seed of every unseeded shuffle (seeded
shuffles replay from their seed), so the epoch permutations are the same again. On resume
the iterator is rebuilt with that entropy and advanced by ``consumed`` elements; every
stateful transformation (shuffle buffers, caches, take/skip counters) thereby reaches the
state it had. If the pipeline's structure changed (another fingerprint), it restarts from
its beginning with a WARNING.
"""
import hashlib

import numpy as np

from estimator_npu.engine.graph import Tensor
from estimator_npu.utils import logging



def nodes_of(node):
    """The nodes of a pipeline in a fixed depth-first order (input nodes after their user)."""
    out, seen, stack = [], set(), [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n)
        stack.extend(reversed(list(n.inputs)))
    return out


def _describe(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, np.ndarray):
        return f"array{value.shape}{value.dtype}"
    if isinstance(value, Tensor):
        return f"tensor{value.shape}{value.dtype.name}"
    if isinstance(value, (tuple, list)) and len(value) < 64:
        return "(" + ",".join(_describe(v) for v in value) + ")"
    return type(value).__name__


def fingerprint(node):
    """A hash of the pipeline's structure: node types, element specs and plain arguments
    (shapes and dtypes of captured data, never their addresses)."""
    parts = []
    for n in nodes_of(node):
        fields = sorted((k, _describe(v)) for k, v in getattr(n, "__dict__", {}).items()
                        if k not in ("inputs", "spec"))
        parts.append(f"{type(n).__name__}|{n.spec!r}|{fields}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def capture(state):
    """The saveable state of one ``IteratorState`` (``None`` if it never started)."""
    if state.env is None or state.node is None:
        return None
    index = {id(n): i for i, n in enumerate(nodes_of(state.node))}
    entropy = {str(index[k[0]]): int(v) for k, v in state.env.state.items()
               if isinstance(k, tuple) and len(k) == 2 and k[1] == "entropy"
               and k[0] in index}
    return {"fingerprint": fingerprint(state.node), "consumed": int(state.consumed),
            "entropy": entropy}


def prepare(state, node, env):
    """Before a (re)start: applies a pending saved state to ``env``; returns how many
    elements to skip (0 when nothing is pending or the pipeline changed)."""
    entry, state.pending = state.pending, None
    state.env, state.node, state.consumed = env, node, 0
    if entry is None:
        return 0
    if entry.get("fingerprint") != fingerprint(node):
        logging.warning("The input pipeline of iterator '%s' differs from the one saved with "
                        "the checkpoint; it restarts from its beginning (as TF1 does).",
                        state.name)
        return 0
    nodes = nodes_of(node)
    for i, value in entry.get("entropy", {}).items():
        i = int(i)
        if i < len(nodes):
            env.state[(id(nodes[i]), "entropy")] = int(value)
    return int(entry.get("consumed", 0))


def advance(state, it, count):
    """Pulls ``count`` elements from the fresh iterator ``it`` (the resumed position)."""
    done = 0
    for _ in range(count):
        try:
            next(it)
        except StopIteration:
            break
        done += 1
    state.consumed = done
    if count:
        logging.info("Input pipeline of iterator '%s' resumed at element %d of its stream.",
                     state.name, done)


__all__ = ["fingerprint", "capture", "prepare", "advance"]

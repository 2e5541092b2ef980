"""``NPUDistributedOptimizer``: synchronous data parallelism by gradient all-reduce.

Every worker computes gradients on its own shard of the batch; before the update the
gradients are averaged across the workers, so every worker applies the same update and
the variables stay equal (they start equal through ``NPUBroadcastGlobalVariablesHook``)::

    opt = NPUDistributedOptimizer(tf.train.AdamOptimizer(1e-3))
    train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())

The averaging runs inside the fused ``ApplyUpdates`` kernel as its ``grad_hook``, on the
flat gradient buffers, one all-reduce per gradient segment (``distribute.hccl``: by
default two segments, 96.54 % / 3.46 % of the gradient bytes)::

    tailing off:  for each segment: allreduce (blocking), divide by size
                  update every parameter
    tailing on:   start a non-blocking allreduce of every segment, in order
                  for each segment: wait for it, divide by size,
                                    update its parameters piece by piece, polling the
                                    segments still in flight between pieces
                  -> the update of the earlier segments runs while the last segment's
                     all-reduce is in flight; only that remainder is exposed

MPI moves a non-blocking collective forward only inside MPI calls (MPICH has no progress
thread by default), hence the polling: pieces are ``MIN_PIECE_ELEMENTS`` long for rules
whose update is elementwise, and whole tensors (merged up to that length) for LAMB, whose
trust ratio needs whole tensors.

Both give the same numbers: the same segments are reduced, and updating consecutive
ranges of the flat buffers equals one whole-buffer update (``train.apply_op``). In a
single process the wrapper adds nothing and the inner optimizer runs as is.

Time spent in communication calls on the training thread (the *exposed* communication
time) is counted per hook in ``CommStats``; ``communication_stats()`` sums them.
"""
import time

import numpy as np

from estimator_npu.distribute import collective, hccl
from estimator_npu.train.optimizer import Optimizer

# Tailing: a segment's update is cut at tensor boundaries into pieces of at least this
# many elements, and the segments still in flight are polled between pieces (MPI moves
# a non-blocking collective forward only inside MPI calls).
MIN_PIECE_ELEMENTS = 1 << 16


class CommStats:
    """Communication counters of one or more gradient hooks (since the last ``reset``).

    Attributes:
        steps: updates whose gradients were all-reduced.
        exposed_seconds: time the training thread spent in communication calls (blocking
            all-reduce, starting, testing and waiting for non-blocking ones).
        messages: all-reduce messages (segments) sent.
        bytes: gradient bytes all-reduced.
    """

    __slots__ = ("steps", "exposed_seconds", "messages", "bytes")

    def __init__(self):
        self.reset()

    def reset(self):
        self.steps = 0
        self.exposed_seconds = 0.0
        self.messages = 0
        self.bytes = 0

    def add(self, other):
        self.steps += other.steps
        self.exposed_seconds += other.exposed_seconds
        self.messages += other.messages
        self.bytes += other.bytes
        return self

    @property
    def exposed_seconds_per_step(self):
        return self.exposed_seconds / self.steps if self.steps else 0.0

    def __repr__(self):
        return (f"CommStats(steps={self.steps}, exposed_seconds={self.exposed_seconds:.6f}, "
                f"messages={self.messages}, bytes={self.bytes})")


class AllreduceGradHook:
    """A ``grad_hook`` that averages the flat gradient buffers across workers by segments.

    Args:
        is_tailing_optimization: overlap the update of earlier segments with the
            all-reduce of later ones (returns an iterator of ranges to the kernel).
        next_hook: an optional ``grad_hook`` run on the averaged gradients (its result is
            returned). With one, tailing is not used: the next hook sees whole buffers.
        elementwise: the update rule is elementwise (``UpdateRule.elementwise``), so
            tailing may cut tensors into pieces; otherwise pieces hold whole tensors.
        min_piece_elements: tailing granularity (default: the module's
            ``MIN_PIECE_ELEMENTS`` when the hook is made).
    """

    def __init__(self, is_tailing_optimization=False, next_hook=None, elementwise=False,
                 min_piece_elements=None):
        if next_hook is not None and not callable(next_hook):
            raise TypeError(f"next_hook must be callable, got {next_hook!r}")
        self.is_tailing_optimization = bool(is_tailing_optimization)
        self.next_hook = next_hook
        self.elementwise = bool(elementwise)
        self.min_piece_elements = int(MIN_PIECE_ELEMENTS if min_piece_elements is None
                                      else min_piece_elements)
        self.stats = CommStats()
        self._key = None
        self._segments = ()
        self._pieces = ()

    def segments(self, flat_grads, layouts):
        """The ``(buffer, start, stop)`` ranges all-reduced as one message each."""
        # Layouts change only when the kernel re-packs; keep them to compare identities.
        key = (hccl.strategy_version(),) + tuple(layouts)
        old = self._key
        if old is None or len(old) != len(key) or old[0] != key[0] or any(
                a is not b for a, b in zip(old[1:], key[1:])):
            segs = hccl.segment_layouts(layouts, [g.dtype.itemsize for g in flat_grads])
            self._segments = segs
            self._pieces = [self._cut(layouts[g], a, b, last=(k == len(segs) - 1))
                            for k, (g, a, b) in enumerate(segs)]
            self._key = key
        return self._segments

    def _cut(self, layout, start, stop, last):
        """A segment's update pieces of >= ``min_piece_elements`` elements (the last
        segment: one piece), on tensor boundaries unless the rule is elementwise."""
        if last:
            return [(start, stop)]
        step = max(1, self.min_piece_elements)
        if self.elementwise:
            bounds = list(range(start, stop, step)) + [stop]
            if len(bounds) > 2 and bounds[-1] - bounds[-2] < step // 2:
                del bounds[-2]   # no small last piece
            return list(zip(bounds, bounds[1:]))
        pieces, a = [], start
        for off, n in zip(layout.offsets, layout.sizes):
            end = off + n
            if off < start or end > stop:
                continue
            if end - a >= self.min_piece_elements:
                pieces.append((a, end))
                a = end
        if a < stop:
            if pieces and stop - a < self.min_piece_elements:
                pieces[-1] = (pieces[-1][0], stop)
            else:
                pieces.append((a, stop))
        return pieces

    def __call__(self, flat_grads, layouts):
        n = collective.size()
        if n == 1:
            return self.next_hook(flat_grads, layouts) if self.next_hook else None
        segs = self.segments(flat_grads, layouts)
        if self.is_tailing_optimization and self.next_hook is None:
            return self._tailing(flat_grads, segs, n)
        clock = time.perf_counter
        exposed = 0.0
        for g, a, b in segs:
            buf = flat_grads[g][a:b]
            t = clock()
            collective.allreduce(buf, "sum")
            exposed += clock() - t
            np.true_divide(buf, n, out=buf)
        self._count(flat_grads, segs, exposed)
        return self.next_hook(flat_grads, layouts) if self.next_hook else None

    def _count(self, flat_grads, segs, exposed):
        st = self.stats
        st.steps += 1
        st.exposed_seconds += exposed
        st.messages += len(segs)
        st.bytes += sum((b - a) * flat_grads[g].itemsize for g, a, b in segs)

    def _tailing(self, flat_grads, segs, n):
        clock = time.perf_counter
        t = clock()
        reqs = [collective.iallreduce(flat_grads[g][a:b], "sum") for g, a, b in segs]
        started = clock() - t
        pieces = self._pieces

        def ranges():
            exposed = started
            try:
                for k, (g, a, b) in enumerate(segs):
                    t = clock()
                    reqs[k].wait()
                    exposed += clock() - t
                    buf = flat_grads[g][a:b]
                    np.true_divide(buf, n, out=buf)
                    pending = reqs[k + 1:]
                    for pa, pb in pieces[k]:
                        yield g, pa, pb
                        if pending:
                            t = clock()
                            pending = [r for r in pending if not r.test()]
                            exposed += clock() - t
            finally:
                for r in reqs:  # an abandoned iterator must not leave messages in flight
                    r.wait()
                self._count(flat_grads, segs, exposed)
        return ranges()


def make_allreduce_grad_hook(is_tailing_optimization=False, next_hook=None,
                             elementwise=False):
    """A ``grad_hook`` for ``Optimizer.apply_gradients`` that averages the gradients
    across workers, by segments (a no-op in a single process).

    For wrappers other than ``NPUDistributedOptimizer`` (loss scaling): pass the result as
    ``grad_hook=`` to the inner optimizer's ``apply_gradients``. ``next_hook`` runs after
    the averaging, on the averaged buffers; ``elementwise`` is the inner optimizer's
    ``rule.elementwise`` (finer tailing pieces).

    Returns:
        An ``AllreduceGradHook`` (its ``stats`` count the communication).
    """
    return AllreduceGradHook(is_tailing_optimization, next_hook=next_hook,
                             elementwise=elementwise)


def _rule_is_elementwise(optimizer):
    """``optimizer.rule.elementwise``; ``False`` when the optimizer has no update rule."""
    try:
        return bool(optimizer.rule.elementwise)
    except (AttributeError, NotImplementedError):
        return False


class NPUDistributedOptimizer(Optimizer):
    """Averages gradients across workers before the wrapped optimizer's update.

    Args:
        optimizer: any optimizer with ``compute_gradients`` and ``apply_gradients``
            (``apply_gradients`` must accept ``grad_hook=`` when run by several workers).
        name: default ``"Distributed" + type(optimizer).__name__``.
        is_tailing_optimization: overlap the update of earlier gradient segments with the
            all-reduce of the last one (same results; see the module docstring).

    Raises:
        TypeError: ``optimizer`` lacks the optimizer methods, or a non-bool flag.
    """

    def __init__(self, optimizer, name=None, is_tailing_optimization=False):
        for method in ("compute_gradients", "apply_gradients"):
            if not callable(getattr(optimizer, method, None)):
                raise TypeError(f"optimizer must be an optimizer (with compute_gradients and "
                                f"apply_gradients), got {type(optimizer).__name__}: "
                                f"{optimizer!r}")
        if not isinstance(is_tailing_optimization, (bool, np.bool_)):
            raise TypeError("is_tailing_optimization must be a bool, got "
                            f"{type(is_tailing_optimization).__name__}: "
                            f"{is_tailing_optimization!r}")
        super().__init__(use_locking=False,
                         name=name or f"Distributed{type(optimizer).__name__}")
        self._optimizer = optimizer
        self._is_tailing = bool(is_tailing_optimization)
        self._hooks = []

    @property
    def optimizer(self):
        """The wrapped optimizer."""
        return self._optimizer

    @property
    def is_tailing_optimization(self):
        return self._is_tailing

    @property
    def rule(self):
        return self._optimizer.rule

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's gradients (this worker's, not yet averaged)."""
        return self._optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, condition=None,
                        grad_hook=None):
        """The wrapped optimizer's update op, on gradients averaged across workers.

        Args:
            grads_and_vars, global_step, name, condition: as ``Optimizer.apply_gradients``
                (``condition`` must have the same value on every worker, e.g. a flag
                summed with ``distribute.allreduce``).
            grad_hook: an outer wrapper's hook, run on the averaged gradients.

        Raises:
            ValueError: ``set_split_strategy_by_idx`` does not end at the last gradient.
        """
        grads_and_vars = list(grads_and_vars)
        hook = grad_hook
        if collective.size() > 1:
            count = sum(1 for pair in grads_and_vars
                        if isinstance(pair, (tuple, list)) and len(pair) == 2
                        and pair[0] is not None)
            hccl.check_gradient_count(count)
            hook = make_allreduce_grad_hook(self._is_tailing, next_hook=grad_hook,
                                            elementwise=_rule_is_elementwise(self._optimizer))
            self._hooks.append(hook)
        kwargs = {"global_step": global_step, "name": name}
        if condition is not None:
            kwargs["condition"] = condition
        if hook is not None:
            kwargs["grad_hook"] = hook
        return self._optimizer.apply_gradients(grads_and_vars, **kwargs)

    def communication_stats(self):
        """``CommStats`` summed over every update op this wrapper made."""
        total = CommStats()
        for h in self._hooks:
            total.add(h.stats)
        return total

    def reset_communication_stats(self):
        for h in self._hooks:
            h.stats.reset()

    def get_slot(self, var, name):
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def variables(self):
        return self._optimizer.variables()


__all__ = ["NPUDistributedOptimizer", "make_allreduce_grad_hook", "AllreduceGradHook",
           "CommStats", "MIN_PIECE_ELEMENTS"]

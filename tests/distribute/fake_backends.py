"""In-process stand-ins for a second worker (no MPI), for ``collective.use_backend``.

``TwinBackend`` plays rank 0 of 2 whose peer always holds ``peer_factor`` times this
worker's array: an all-reduce ``sum`` gives ``(1 + peer_factor) * x``, so gradient
averaging turns ``g`` into ``(1 + peer_factor) / 2 * g`` — a result that a step using a
gradient before its all-reduce completed would miss. Non-blocking all-reduces complete
only after ``delay`` calls to ``test()`` (or at ``wait()``), and change the array only
then. ``broadcast`` writes the "root's" value ``root_value(array)``.
"""
import numpy as np


class _Request:
    def __init__(self, backend, array, op, delay):
        self.backend = backend
        self.array = array
        self.op = op
        self.left = delay
        self.done = False
        backend.in_flight.append(self)

    def _complete(self):
        if not self.done:
            self.done = True
            self.backend.in_flight.remove(self)
            self.backend.reduce(self.array, self.op)

    def wait(self):
        self.backend.waits += 1
        self._complete()

    def test(self):
        self.backend.tests += 1
        if not self.done:
            self.left -= 1
            if self.left <= 0:
                self._complete()
        return self.done


class TwinBackend:
    name = "twin"
    rank = 0
    size = 2
    local_rank = 0
    local_size = 2

    def __init__(self, peer_factor=3.0, delay=2, root_value=None):
        self.peer_factor = peer_factor
        self.delay = delay
        self.root_value = root_value
        self.in_flight = []
        self.log = []
        self.waits = 0
        self.tests = 0

    def allreduce(self, array, op):
        self.log.append(("allreduce", op, array.size))
        return self.reduce(array, op)

    def reduce(self, array, op):
        if op in ("sum", "mean"):
            array *= 1 + self.peer_factor
            if op == "mean":
                array /= 2
        return array

    def iallreduce(self, array, op):
        self.log.append(("iallreduce", op, array.size))
        return _Request(self, array, op, self.delay)

    def broadcast(self, array, root):
        self.log.append(("broadcast", root, array.size))
        if self.root_value is not None:
            array[...] = self.root_value(array)
        return array

    def allgather(self, array):
        a = np.ascontiguousarray(array)
        return np.stack([a, a])

    def barrier(self):
        self.log.append(("barrier",))

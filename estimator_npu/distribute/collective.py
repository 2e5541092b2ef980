"""The collective interface: rank, size, all-reduce, broadcast, all-gather, barrier.

Every worker of a data-parallel job runs the same script; these functions let the workers
agree on values. Two backends implement them:

* ``mpi``: ``mpi4py``'s ``MPI.COMM_WORLD``, used when the process was started by an MPI
  launcher (``mpiexec -n N python train.py`` or ``estimator-npu-run -n N train.py``).
  Arrays travel through mpi4py's buffer interface (``Allreduce``/``Iallreduce`` with
  ``MPI.IN_PLACE``), without pickling.
* ``single``: one process; every collective is a no-op (an all-reduce of one value is
  that value). Used whenever no MPI launcher is detected, so a plain ``python train.py``
  never imports ``mpi4py`` nor initializes MPI (``mpi4py`` is the optional ``mpi``
  extra).

Which backend, and what ``rank()``/``size()`` say, is decided once, on first use::

    launched by an MPI launcher?  (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMI_RANK, PMIX_RANK,
                                   MPI_LOCALNRANKS or MV2_COMM_WORLD_SIZE is set)
      yes -> the mpi backend; rank and size come from MPI. RANK_ID / RANK_SIZE, when
             set, must agree with them (a warning names both when they do not; MPI wins).
             mpi4py missing with more than one process -> RuntimeError (how to install).
      no  -> the single backend. RANK_SIZE unset or 1: rank 0 of 1. RANK_SIZE > 1 ->
             RuntimeError: the processes were started by hand (the adapter's rank-table
             way) but nothing connects them here; start them with an MPI launcher.

``RANK_ID``/``RANK_SIZE`` are the Ascend adapter's variables; here they are a consistency
check, because MPI itself numbers the processes.

Arrays given to ``allreduce``/``iallreduce``/``broadcast`` are changed in place: they must
be writable, C-contiguous numpy arrays (a slice of a flat 1-D buffer is). float16,
bfloat16 and bool arrays go through a staging copy (MPI has no such types).

Example::

    from estimator_npu import distribute
    grads = np.ascontiguousarray(local_grads)
    distribute.allreduce(grads, op="mean")           # every worker now holds the mean
    req = distribute.iallreduce(other, op="sum")     # starts; returns at once
    ...                                              # compute meanwhile
    req.wait()                                       # ``other`` now holds the sum

For tests, ``use_backend(backend)`` installs another backend for a ``with`` block.
"""
import contextlib
import os
import threading

import numpy as np

from estimator_npu.utils import logging

LAUNCH_ENV_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK",
                   "MPI_LOCALNRANKS", "MV2_COMM_WORLD_SIZE")
_SIZE_ENV_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE")
# What the launchers say about this machine (MPICH/Hydra, Open MPI, MVAPICH2).
_LOCAL_RANK_ENV_VARS = ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK",
                        "MV2_COMM_WORLD_LOCAL_RANK")
_LOCAL_SIZE_ENV_VARS = ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE",
                        "MV2_COMM_WORLD_LOCAL_SIZE")
REDUCE_OPS = ("sum", "mean", "max", "min", "prod")

# dtypes MPI reduces natively (through mpi4py's buffer typing).
_NATIVE = frozenset(np.dtype(t) for t in (
    np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
    np.uint32, np.uint64, np.complex64, np.complex128))


# ---------------------------------------------------------------- environment
def launched_under_mpi(environ=None):
    """Whether an MPI launcher started this process (one of ``LAUNCH_ENV_VARS`` is set)."""
    env = os.environ if environ is None else environ
    return any(env.get(k) for k in LAUNCH_ENV_VARS)


def _env_int(env, name):
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"Environment variable {name} must be an integer, got "
                         f"{raw!r}") from None


def env_rank_size(environ=None):
    """``(RANK_ID, RANK_SIZE)`` from the environment (``None`` for an unset one).

    Raises:
        ValueError: a value that is not an integer, ``RANK_SIZE < 1``, or ``RANK_ID``
            outside ``[0, RANK_SIZE)``.
    """
    env = os.environ if environ is None else environ
    rank_id, rank_size = _env_int(env, "RANK_ID"), _env_int(env, "RANK_SIZE")
    if rank_size is not None and rank_size < 1:
        raise ValueError(f"RANK_SIZE must be >= 1, got {rank_size}")
    if rank_id is not None:
        limit = rank_size if rank_size is not None else 1
        if not 0 <= rank_id < limit:
            raise ValueError(f"RANK_ID must be in [0, RANK_SIZE) = [0, {limit}), got "
                             f"{rank_id} (RANK_SIZE={rank_size})")
    return rank_id, rank_size


def _first_env_int(env, names):
    for name in names:
        value = _env_int(env, name)
        if value is not None:
            return value
    return None


def _launch_size(env):
    return _first_env_int(env, _SIZE_ENV_VARS)


# ---------------------------------------------------------------- requests
class CompletedRequest:
    """A request that is already complete (the single backend, or a finished one)."""

    __slots__ = ()

    def wait(self):
        """Returns at once."""

    def test(self):
        """``True``: complete."""
        return True


COMPLETED = CompletedRequest()


class _MPIRequest:
    """An in-flight ``Iallreduce``; ``wait()`` or a ``test()`` that returns ``True`` ends it
    (copying back from a staging buffer and dividing for ``mean``)."""

    __slots__ = ("_req", "_finish", "_done")

    def __init__(self, req, finish):
        self._req = req
        self._finish = finish
        self._done = False

    def wait(self):
        if not self._done:
            self._req.Wait()
            self._complete()

    def test(self):
        if not self._done and self._req.Test():
            self._complete()
        return self._done

    def _complete(self):
        self._done = True
        if self._finish is not None:
            self._finish()


# ---------------------------------------------------------------- backends
class SingleProcessBackend:
    """One worker: every collective leaves its array as it is."""

    name = "single"
    rank = 0
    size = 1
    local_rank = 0
    local_size = 1

    def allreduce(self, array, op):
        return array

    def iallreduce(self, array, op):
        return COMPLETED

    def broadcast(self, array, root):
        return array

    def allgather(self, array):
        return np.ascontiguousarray(array)[np.newaxis].copy()

    def barrier(self):
        pass


class MPIBackend:
    """``mpi4py``'s ``COMM_WORLD`` (or another communicator).

    The local rank and size come from the launcher's environment when it gives them;
    otherwise from splitting the communicator by shared memory, once, at construction
    (every worker constructs its backend on its first collective call).
    """

    name = "mpi"

    def __init__(self, comm=None, environ=None):
        from mpi4py import MPI  # the optional extra, imported only here
        self._MPI = MPI
        self.comm = comm if comm is not None else MPI.COMM_WORLD
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self._ops = {"sum": MPI.SUM, "mean": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN,
                     "prod": MPI.PROD}
        env = os.environ if environ is None else environ
        local = (_first_env_int(env, _LOCAL_RANK_ENV_VARS),
                 _first_env_int(env, _LOCAL_SIZE_ENV_VARS))
        if comm is not None or None in local:
            node = self.comm.Split_type(MPI.COMM_TYPE_SHARED, key=self.rank)
            local = (node.Get_rank(), node.Get_size())
            node.Free()
        self.local_rank, self.local_size = local

    def _staging(self, array, op):
        """``(buffer, mpi op, finish)``: what MPI reduces, and how to write it back."""
        mpi_op = self._ops[op]
        dt = array.dtype
        if dt in _NATIVE:
            buf, copy_back = array, None
        elif dt == np.bool_:
            # logical or (sum, max) / and (min, prod) as max / min over bytes
            buf = array.astype(np.uint8)
            mpi_op = self._MPI.MAX if op in ("sum", "max") else self._MPI.MIN
            copy_back = buf
        else:  # float16, bfloat16: reduce in float32
            buf = array.astype(np.float32)
            copy_back = buf
        size = self.size

        def finish():
            if op == "mean":
                np.true_divide(buf, size, out=buf)
            if copy_back is not None:
                np.copyto(array, copy_back, casting="unsafe")
        return buf, mpi_op, finish

    def allreduce(self, array, op):
        buf, mpi_op, finish = self._staging(array, op)
        self.comm.Allreduce(self._MPI.IN_PLACE, buf, op=mpi_op)
        finish()
        return array

    def iallreduce(self, array, op):
        buf, mpi_op, finish = self._staging(array, op)
        req = self.comm.Iallreduce(self._MPI.IN_PLACE, buf, op=mpi_op)
        return _MPIRequest(req, finish)

    def broadcast(self, array, root):
        self.comm.Bcast(array.reshape(-1).view(np.uint8), root=root)
        return array

    def allgather(self, array):
        send = np.ascontiguousarray(array)
        out = np.empty((self.size,) + send.shape, send.dtype)
        self.comm.Allgather(send.reshape(-1).view(np.uint8), out.reshape(-1).view(np.uint8))
        return out

    def barrier(self):
        self.comm.Barrier()


def _check_env_agrees(backend, environ):
    rank_id, rank_size = env_rank_size(environ)
    if rank_size is not None and rank_size != backend.size:
        logging.warning("RANK_SIZE=%d but MPI started %d processes; using MPI's size %d.",
                        rank_size, backend.size, backend.size)
    if rank_id is not None and rank_id != backend.rank:
        logging.warning("RANK_ID=%d but this is MPI rank %d; using MPI's rank %d.",
                        rank_id, backend.rank, backend.rank)


def select_backend(environ=None):
    """Chooses the backend for this process (see the module docstring).

    Raises:
        RuntimeError: launched with several processes but ``mpi4py`` is missing, or
            ``RANK_SIZE > 1`` without an MPI launcher.
        ValueError: malformed ``RANK_ID``/``RANK_SIZE``.
    """
    env = os.environ if environ is None else environ
    if launched_under_mpi(env):
        try:
            import mpi4py  # noqa: F401 - presence check; MPIBackend initializes MPI
        except ImportError:
            n = _launch_size(env)
            if n is None or n > 1:
                raise RuntimeError(
                    f"This process was started by an MPI launcher ({n or 'several'} "
                    "processes) but mpi4py is not installed, so the workers cannot "
                    "communicate. Install the mpi extra: pip install 'estimator-npu[mpi]' "
                    "(mpi4py and the mpich wheel).") from None
            backend = SingleProcessBackend()
        else:
            backend = MPIBackend(environ=env)
        _check_env_agrees(backend, env)
        return backend
    _, rank_size = env_rank_size(env)
    if rank_size is not None and rank_size > 1:
        raise RuntimeError(
            f"RANK_SIZE={rank_size} but this process was not started by an MPI launcher, "
            "so there is nothing to communicate with. Start the workers with "
            f"'estimator-npu-run -n {rank_size} script.py' or 'mpiexec -n {rank_size} "
            "python script.py', or unset RANK_SIZE for a single process.")
    return SingleProcessBackend()


_lock = threading.Lock()
_backend = None
_override = []


def get_backend():
    """The backend in use (chosen on first call; see ``select_backend``)."""
    global _backend
    if _override:
        return _override[-1]
    if _backend is None:
        with _lock:
            if _backend is None:
                _backend = select_backend()
    return _backend


@contextlib.contextmanager
def use_backend(backend):
    """Installs ``backend`` for the duration of a ``with`` block (tests, custom comms)."""
    _override.append(backend)
    try:
        yield backend
    finally:
        _override.remove(backend)


# ---------------------------------------------------------------- public API
def rank():
    """This worker's index in ``[0, size())``."""
    return get_backend().rank


def size():
    """The number of workers (1 without an MPI launcher)."""
    return get_backend().size


def local_rank():
    """This worker's index among the workers on the same machine."""
    return get_backend().local_rank


def local_size():
    """The number of workers on this machine."""
    return get_backend().local_size


def is_distributed():
    """Whether more than one worker takes part."""
    return get_backend().size > 1


def _check_buffer(array, what):
    if not isinstance(array, np.ndarray):
        raise TypeError(f"{what}: array must be a numpy ndarray, got "
                        f"{type(array).__name__}: {array!r}")
    if not array.flags.c_contiguous:
        raise ValueError(f"{what}: array must be C-contiguous (use np.ascontiguousarray), "
                         f"got one of shape {array.shape} with strides {array.strides}")
    if not array.flags.writeable:
        raise ValueError(f"{what}: array must be writable (it is changed in place)")
    if array.dtype.kind not in "biufcV" or (array.dtype.kind == "V" and
                                            array.dtype.itemsize != 2):
        raise TypeError(f"{what}: unsupported dtype {array.dtype}; accepted: numeric and "
                        "bool arrays")


def _check_op(op, array, what):
    if op not in REDUCE_OPS:
        raise ValueError(f"{what}: op must be one of {REDUCE_OPS}, got {op!r}")
    if op == "mean" and array.dtype.kind in "biu":
        raise TypeError(f"{what}: op='mean' needs a floating array, got dtype {array.dtype}")
    if op in ("max", "min") and array.dtype.kind == "c":
        raise TypeError(f"{what}: op={op!r} is undefined for complex dtype {array.dtype}")


def allreduce(array, op="sum"):
    """Reduces ``array`` over all workers, in place; every worker gets the result.

    Args:
        array: a writable, C-contiguous numpy array of the same shape and dtype on every
            worker.
        op: ``"sum"``, ``"mean"``, ``"max"``, ``"min"`` or ``"prod"``.

    Returns:
        ``array``.

    Raises:
        TypeError: not a numpy array, or a dtype the op does not accept.
        ValueError: not contiguous or not writable, or an unknown ``op``.
    """
    _check_buffer(array, "allreduce")
    _check_op(op, array, "allreduce")
    return get_backend().allreduce(array, op)


def iallreduce(array, op="sum"):
    """Starts a non-blocking ``allreduce`` of ``array`` and returns a request at once.

    ``array`` must not be read or written until ``request.wait()`` returned (or
    ``request.test()`` returned ``True``); then it holds the result. Requests started in
    the same order on every worker complete in any order.

    Returns:
        A request with ``wait()`` and ``test() -> bool``.
    """
    _check_buffer(array, "iallreduce")
    _check_op(op, array, "iallreduce")
    return get_backend().iallreduce(array, op)


def _check_root(root, what):
    if isinstance(root, (bool, np.bool_)) or not isinstance(root, (int, np.integer)):
        raise TypeError(f"{what}: root_rank must be an int, got {type(root).__name__}: "
                        f"{root!r}")
    n = size()
    if not 0 <= root < n:
        raise ValueError(f"{what}: root_rank must be in [0, {n}) (the number of workers), "
                         f"got {root}")
    return int(root)


def broadcast(array, root=0):
    """Overwrites ``array`` on every worker with its value on worker ``root``, in place.

    Raises:
        TypeError, ValueError: as ``allreduce``, and a ``root`` outside ``[0, size())``.
    """
    _check_buffer(array, "broadcast")
    root = _check_root(root, "broadcast")
    return get_backend().broadcast(array, root)


def allgather(array):
    """Every worker's ``array`` stacked in rank order: shape ``(size(),) + array.shape``.

    ``array`` must have the same shape and dtype on every worker; it is not changed.
    """
    arr = np.asarray(array)
    if arr.dtype.kind not in "biufcV":
        raise TypeError(f"allgather: unsupported dtype {arr.dtype}; accepted: numeric and "
                        "bool arrays")
    return get_backend().allgather(arr)


def barrier():
    """Returns once every worker has called ``barrier()``."""
    get_backend().barrier()


__all__ = ["rank", "size", "local_rank", "local_size", "is_distributed", "allreduce",
           "iallreduce", "broadcast", "allgather", "barrier", "get_backend", "use_backend",
           "select_backend", "launched_under_mpi", "env_rank_size", "SingleProcessBackend",
           "MPIBackend", "CompletedRequest", "REDUCE_OPS", "LAUNCH_ENV_VARS"]

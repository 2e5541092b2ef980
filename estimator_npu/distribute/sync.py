"""Making every worker's variables equal to one worker's, without graph ops.

``broadcast_variables(session, variables, root_rank)`` reads each variable's value from
the session (``session.store(var_op).value``), sends the root's values to every worker and
writes them back in place (views into the optimizer's flat buffers stay valid)::

    check: all workers list the same variables (names, shapes, dtypes)   # one allgather
    for each dtype: pack the values into one buffer, broadcast it, unpack   # one message

Every worker must call it at the same point with the same variables.
"""
import zlib

import numpy as np

from estimator_npu import errors
from estimator_npu.distribute import collective
from estimator_npu.engine.ops.state_ops import variable_op


def _signature(entries):
    text = ";".join(f"{op.name}:{arr.dtype.str}:{arr.shape}" for op, arr in entries)
    return np.array([zlib.crc32(text.encode()), len(entries)], dtype=np.int64)


def broadcast_variables(session, variables, root_rank=0):
    """Overwrites ``variables`` in ``session`` with their values on worker ``root_rank``.

    Args:
        session: a ``Session`` (anything with ``store(var_op)``).
        variables: ``Variable``s (or variable ops).
        root_rank: the worker whose values win.

    Returns:
        The number of bytes broadcast (0 in a single process).

    Raises:
        TypeError: ``session`` has no variable stores, or a non-numeric variable.
        errors.FailedPreconditionError: a variable is not initialized.
        ValueError: the workers do not have the same variables (checked on every worker,
            so all of them raise), or a bad ``root_rank``.
    """
    root = collective._check_root(root_rank, "broadcast_variables")
    store_of = getattr(session, "store", None)
    if store_of is None:
        raise TypeError("broadcast_variables needs the raw Session (with variable stores), "
                        f"got {type(session).__name__}")
    entries = []
    seen = set()
    for v in variables:
        op = variable_op(v)
        if op in seen:
            continue
        seen.add(op)
        store = store_of(op)
        if store.value is None:
            raise errors.FailedPreconditionError(
                None, op, f"broadcast_variables: variable {op.name} is not initialized")
        arr = np.asarray(store.value)
        if arr.dtype.kind not in "biufc":
            raise TypeError(f"broadcast_variables: variable {op.name} has dtype {arr.dtype}; "
                            "only numeric and bool variables can be broadcast")
        entries.append((op, arr))
    if collective.size() == 1:
        return 0
    sigs = collective.allgather(_signature(entries))
    if not (sigs == sigs[root]).all():
        bad = [r for r in range(len(sigs)) if not (sigs[r] == sigs[root]).all()]
        raise ValueError(f"broadcast_variables: workers {bad} do not have the same variables "
                         f"(names, shapes, dtypes) as root worker {root}; every worker must "
                         "build the same graph")
    by_dtype = {}
    for op, arr in entries:
        by_dtype.setdefault(arr.dtype, []).append((op, arr))
    sent = 0
    for dtype, items in by_dtype.items():
        flat = np.empty(sum(a.size for _, a in items), dtype)
        pos = 0
        for _, a in items:
            flat[pos:pos + a.size] = a.reshape(-1)
            pos += a.size
        collective.broadcast(flat, root)
        sent += flat.nbytes
        pos = 0
        for op, a in items:
            value = flat[pos:pos + a.size].reshape(a.shape)
            pos += a.size
            store = store_of(op)
            target = store.value
            if isinstance(target, np.ndarray) and target.flags.writeable:
                np.copyto(target, value)
            else:
                store.value = value.copy()
    return sent


__all__ = ["broadcast_variables"]

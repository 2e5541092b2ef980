"""A cheap ``np.errstate(all="ignore")`` for the session's hot path.

Kernels follow IEEE semantics silently, as TF does (``log(0)`` is ``-inf``). Entering a
fresh ``np.errstate`` costs several µs, more than a small kernel; this sets numpy's
error-state context variable directly where numpy exposes it (numpy >= 2), and falls back
to ``np.errstate`` otherwise.
"""
import numpy as np

try:  # numpy >= 2: the error state is a context variable holding an extobj capsule
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    _IGNORE = _make_extobj(all="ignore")

    def ignore():
        """Ignores floating-point errors until ``restore(token)``; returns the token."""
        return _extobj_contextvar.set(_IGNORE)

    def restore(token):
        _extobj_contextvar.reset(token)
except (ImportError, TypeError):  # pragma: no cover - depends on the numpy version
    def ignore():
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore(token):
        token.__exit__(None, None, None)

"""Gradient-check cases for the collective graph ops (``estimator_npu.distribute.ops``).

In one process ``allreduce`` is the identity, so the finite-difference check verifies the
single-worker gradient; the multi-worker adjoint (``allreduce(dy)``) is checked under
``mpiexec`` by ``tests/distribute/test_mpi.py``.
"""
from estimator_npu import distribute

CASES = []

for _reduction in ("sum", "mean"):
    for _shape in [(), (5,), (2, 3)]:
        CASES.append(("HcomAllReduce", f"{_reduction}-{'x'.join(map(str, _shape)) or 'scalar'}",
                      (lambda r: lambda x: distribute.allreduce(x * x, reduction=r))(_reduction),
                      (lambda s: lambda rng: [rng.standard_normal(s)])(_shape),
                      {"order": 2}))

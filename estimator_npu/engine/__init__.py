"""The graph engine: graphs, ops with gradients, variables and sessions."""
from estimator_npu.engine import ops  # noqa: F401 - builds the op table (ops.FAMILIES)

"""The graph engine: graphs, ops with gradients, variables and sessions."""
from estimator_npu.engine import ops  # noqa: F401 - registers every op

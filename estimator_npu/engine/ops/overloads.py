"""The functions behind ``Tensor`` operator overloads (``a + b``, ``a[1:, 0]`` ...)."""
from estimator_npu.engine.ops.slice_ops import getitem  # noqa: F401
from estimator_npu.engine.ops.math_ops import (abs, add, divide, floordiv, floormod,  # noqa
                                               greater, greater_equal, less, less_equal,
                                               logical_and, logical_not, logical_or, matmul,
                                               multiply, negative, pow, subtract)

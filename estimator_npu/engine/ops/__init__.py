"""The engine's op families, and the one place that builds the engine's op table.

Each family module exports its definitions as data (``OPS``, a ``registry.OpFamily``);
importing it registers nothing. ``FAMILIES`` lists them, and the call at the end of this
module puts them in the table. The layers above register their own families the same
way, from their package ``__init__``."""
from estimator_npu.engine.ops import core  # noqa: F401
from estimator_npu.engine.ops import math_ops  # noqa: F401
from estimator_npu.engine.ops import reduction_ops  # noqa: F401
from estimator_npu.engine.ops import array_ops  # noqa: F401
from estimator_npu.engine.ops import slice_ops  # noqa: F401
from estimator_npu.engine.ops import state_ops  # noqa: F401
from estimator_npu.engine.ops import random_ops  # noqa: F401
from estimator_npu.engine.ops import nn_ops  # noqa: F401
from estimator_npu.engine.ops import conv_ops  # noqa: F401
from estimator_npu.engine.ops import control_ops  # noqa: F401
from estimator_npu.engine.ops import loop_ops  # noqa: F401
from estimator_npu.engine.ops import tensor_array_ops  # noqa: F401
from estimator_npu.engine.ops import sequence_ops  # noqa: F401
from estimator_npu.engine.ops import script_ops  # noqa: F401
from estimator_npu.engine.ops import clip_ops  # noqa: F401
from estimator_npu.engine.ops import math_extra_ops  # noqa: F401
from estimator_npu.engine.ops import scatter_ops  # noqa: F401
from estimator_npu.engine.ops import nn_extra_ops  # noqa: F401
from estimator_npu.engine.ops import dynamic_shape  # noqa: F401
from estimator_npu.engine.ops import composites  # noqa: F401
from estimator_npu.engine.ops import custom_grad  # noqa: F401
from estimator_npu.engine.ops import pool_ops  # noqa: F401
from estimator_npu.engine.ops import broadcast_grad  # noqa: F401
from estimator_npu.engine.ops import tile_ops  # noqa: F401
from estimator_npu.engine import registry, subgraph

# The op families whose definitions make up the engine's op table, in registration order.
FAMILIES = (core, math_ops, reduction_ops, array_ops, slice_ops, state_ops, random_ops,
            nn_ops, conv_ops, control_ops, loop_ops, tensor_array_ops, sequence_ops,
            script_ops, clip_ops, math_extra_ops, scatter_ops, nn_extra_ops,
            dynamic_shape, composites, custom_grad, pool_ops, broadcast_grad, tile_ops, subgraph)

registry.register_families(family.OPS for family in FAMILIES)

"""``tf.random``: the TF1 random namespace (re-exports only)."""
from estimator_npu.engine.graph import set_random_seed  # noqa: F401
from estimator_npu.engine.ops.random_ops import random_normal as normal  # noqa: F401
from estimator_npu.engine.ops.random_ops import random_shuffle as shuffle  # noqa: F401
from estimator_npu.engine.ops.random_ops import random_uniform as uniform  # noqa: F401
from estimator_npu.engine.ops.random_ops import truncated_normal  # noqa: F401
from estimator_npu.engine.ops.random_ops import (random_normal, random_shuffle,  # noqa: F401
                                                 random_uniform)
from estimator_npu.engine.ops.composites import categorical, multinomial  # noqa: F401
from estimator_npu.sampling.samplers import (all_candidate_sampler,  # noqa: F401,E402
                                             fixed_unigram_candidate_sampler,
                                             learned_unigram_candidate_sampler,
                                             log_uniform_candidate_sampler,
                                             uniform_candidate_sampler)

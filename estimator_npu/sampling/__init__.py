"""Candidate sampling above the engine: the ``tf.nn.*_candidate_sampler`` ops,
``compute_accidental_hits`` and the sampled losses (``nce_loss``, ``sampled_softmax_loss``)
built on them. The facades are ``estimator_npu.nn`` and ``estimator_npu.random``."""


def _register_op_families():
    """Adds the samplers' op family to the engine's op table (the one place this package
    registers ops)."""
    from estimator_npu.engine import registry
    from estimator_npu.sampling import samplers
    registry.register_families([samplers.OPS])


_register_op_families()

"""``tf.contrib.seq2seq``: ``sequence_loss`` (the decoders and attention are not here)."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.losses.sequence import sequence_loss  # noqa: F401

__all__ = ["sequence_loss"]
__getattr__ = _module_getattr(__name__)

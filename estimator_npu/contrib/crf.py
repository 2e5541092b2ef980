"""``tf.contrib.crf``: the linear-chain CRF of ``estimator_npu.rnn.crf``."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.rnn.crf import (CrfForwardRnnCell, crf_binary_score, crf_decode,  # noqa: F401
                                   crf_forward, crf_log_likelihood, crf_log_norm,
                                   crf_sequence_score, crf_unary_score, viterbi_decode)

__all__ = ["CrfForwardRnnCell", "crf_binary_score", "crf_decode", "crf_forward",
           "crf_log_likelihood", "crf_log_norm", "crf_sequence_score", "crf_unary_score",
           "viterbi_decode"]
__getattr__ = _module_getattr(__name__)

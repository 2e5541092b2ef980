"""``tf.contrib.learn.preprocessing``: the text ``VocabularyProcessor`` and its vocabulary."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.datasets.text_vocabulary import (CategoricalVocabulary,  # noqa: F401
                                                    VocabularyProcessor, tokenizer)

__all__ = ["CategoricalVocabulary", "VocabularyProcessor", "tokenizer"]
__getattr__ = _module_getattr(__name__)

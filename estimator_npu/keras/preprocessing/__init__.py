"""``tf.keras.preprocessing``: ``sequence.pad_sequences``, ``text.Tokenizer`` and
``image.ImageDataGenerator`` with its transform functions, as TF 2.15's Keras (numpy only;
loading and saving image files needs Pillow, the ``image`` extra)."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.keras.preprocessing import image, sequence, text  # noqa: F401

__getattr__ = _module_getattr("estimator_npu.keras.preprocessing")
__all__ = ["image", "sequence", "text"]

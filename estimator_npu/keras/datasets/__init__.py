"""``tf.keras.datasets``: ``load_data()`` of mnist, fashion_mnist, cifar10, cifar100, imdb
and boston_housing from the Keras cache folder (``$KERAS_HOME/datasets``, default
``~/.keras/datasets``) in TF's file names and formats; nothing is downloaded."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.keras.datasets import (boston_housing, cifar10, cifar100,  # noqa: F401
                                          fashion_mnist, imdb, mnist)

__getattr__ = _module_getattr("estimator_npu.keras.datasets")
__all__ = ["mnist", "fashion_mnist", "cifar10", "cifar100", "imdb", "boston_housing"]

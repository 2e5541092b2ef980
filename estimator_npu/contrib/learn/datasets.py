"""``tf.contrib.learn.datasets``: ``load_dataset("mnist")``, the ``mnist`` module and
``base.maybe_download``."""
from estimator_npu.compat.missing import NotImplementedName
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.contrib.learn import datasets_base as base  # noqa: F401
from estimator_npu.datasets import mnist  # noqa: F401

__getattr__ = _module_getattr(__name__)


def load_mnist(train_dir="MNIST-data"):
    """MNIST from the IDX files in ``train_dir`` (TF1's default folder name), with integer
    labels; like TF1's, but never downloads."""
    return mnist.read_data_sets(train_dir)


def load_dataset(name, size="small", test_with_fake_data=False):
    """``load_dataset("mnist")``; the other TF1 names (iris, boston, dbpedia ...) are not
    implemented."""
    if name == "mnist":
        return load_mnist()
    raise NotImplementedName(f"tf.contrib.learn.datasets.load_dataset({name!r})")

"""Datasets for examples and tests: the bundled UCI `digits` and an MNIST IDX reader.

Both modules depend on numpy only:

    from estimator_npu.datasets import digits, mnist
    data = digits.load(one_hot=True)                # bundled, offline
    data = mnist.read_data_sets('/data/mnist')      # local IDX files
"""

from estimator_npu.datasets import digits
from estimator_npu.datasets import mnist
from estimator_npu.datasets import fashion_mnist
from estimator_npu.datasets._dataset import DataSet, Datasets

__all__ = ['digits', 'mnist', 'fashion_mnist', 'DataSet', 'Datasets']

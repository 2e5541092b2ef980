"""``tf.contrib.learn``: its dataset loaders, which TF's layers tutorial uses
(``tf.contrib.learn.datasets.load_dataset("mnist")``), and ``preprocessing``'s text
``VocabularyProcessor``; the rest of contrib.learn (its old
Estimator API) raises "does not implement tf.contrib.learn.X (yet)"."""
from estimator_npu.compat.missing import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__, lazy_submodules=("datasets", "preprocessing"))

"""``tf.contrib.learn``: ``RunConfig``, ``Experiment`` and ``learn_runner`` (TF 1.x's older
driver of a ``tf.estimator`` Estimator, ``estimator/experiment.py``), its dataset loaders,
which TF's layers tutorial uses (``tf.contrib.learn.datasets.load_dataset("mnist")``), and
``preprocessing``'s text ``VocabularyProcessor``; the rest of contrib.learn (its old
Estimator API) raises "does not implement tf.contrib.learn.X (yet)"."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.estimator.experiment import Experiment  # noqa: F401
from estimator_npu.estimator.learn_run_config import LearnRunConfig as RunConfig  # noqa: F401
from estimator_npu.estimator.learn_run_config import TaskType  # noqa: F401

__getattr__ = _module_getattr(__name__, lazy_submodules=(
    "datasets", "preprocessing", "learn_runner", "run_config"))

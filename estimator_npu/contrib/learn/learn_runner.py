"""``tf.contrib.learn.learn_runner``: ``run(experiment_fn, run_config=..., hparams=...)``
(``estimator/experiment.py``)."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.estimator.experiment import run  # noqa: F401

__all__ = ["run"]
__getattr__ = _module_getattr(__name__)

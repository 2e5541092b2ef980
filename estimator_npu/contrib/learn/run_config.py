"""``tensorflow.contrib.learn.python.learn.run_config`` (``estimators.run_config``):
contrib.learn's ``RunConfig`` and the names scripts read from its module
(``estimator/learn_run_config.py``)."""
from estimator_npu.compat.missing import module_getattr as _module_getattr
from estimator_npu.estimator.learn_run_config import (  # noqa: F401
    DEFAULT_UID_WHITE_LIST as _DEFAULT_UID_WHITE_LIST, Environment, TaskType)
from estimator_npu.estimator.learn_run_config import LearnRunConfig as RunConfig  # noqa: F401

__all__ = ["Environment", "RunConfig", "TaskType"]
__getattr__ = _module_getattr(__name__)

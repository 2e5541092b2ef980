"""``NPUEstimator``: an ``Estimator`` configured by an ``NPURunConfig``."""
from estimator_npu.estimator import Estimator, NPURunConfig


class NPUEstimator(Estimator):
    """``Estimator`` whose default config is ``NPURunConfig()``; any ``RunConfig`` works."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 warm_start_from=None, **kwargs):
        if config is None:
            config = NPURunConfig(model_dir=model_dir)
        super().__init__(model_fn, model_dir=model_dir, config=config, params=params,
                         warm_start_from=warm_start_from)

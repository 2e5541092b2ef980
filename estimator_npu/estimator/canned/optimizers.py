"""The ``optimizer`` argument of premade estimators: an instance, a name or a callable."""
from estimator_npu.train import optimizer as optimizer_lib

_NAMES = {
    "Adagrad": lambda lr: _train().AdagradOptimizer(learning_rate=lr),
    "Adam": lambda lr: _train().AdamOptimizer(learning_rate=lr),
    "Ftrl": lambda lr: _train().FtrlOptimizer(learning_rate=lr),
    "RMSProp": lambda lr: _train().RMSPropOptimizer(learning_rate=lr),
    "SGD": lambda lr: _train().GradientDescentOptimizer(learning_rate=lr),
}


def _train():
    from estimator_npu import train
    return train


def get_optimizer(opt, learning_rate):
    """``opt`` as an Optimizer: names use ``learning_rate`` (the estimator's TF default)."""
    if isinstance(opt, str):
        if opt not in _NAMES:
            raise ValueError(f"Unsupported optimizer name: {opt}. Supported names are: "
                             f"{tuple(sorted(_NAMES))}")
        return _NAMES[opt](learning_rate)
    if callable(opt) and not isinstance(opt, optimizer_lib.Optimizer):
        opt = opt()
    if not isinstance(opt, optimizer_lib.Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt!r}")
    return opt

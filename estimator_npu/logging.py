"""``tf.logging``: verbosity and TF1-style logging helpers for the library logger."""
from estimator_npu.utils.logging import (DEBUG, ERROR, FATAL, INFO, WARN, WARNING,  # noqa
                                         debug, error, get_verbosity, info, log,
                                         log_every_n, log_first_n, warning)
from estimator_npu.utils.logging import ensure_handler as _ensure_handler
from estimator_npu.utils.logging import set_verbosity as _set_verbosity

warn = warning


def set_verbosity(level):
    """Sets the library's log level and, like TF1, makes its lines appear on stderr."""
    _set_verbosity(level)
    _ensure_handler()

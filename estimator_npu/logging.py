"""``tf.logging``: verbosity and TF1-style logging helpers for the library logger.

While TensorFlow's names resolve to estimator_npu (``estimator-npu run``,
``compat.install()``), the verbosity is that of TF's ``tensorflow`` logger, as in TF.
"""
import logging as _logging

from estimator_npu.utils import logging as _ulog
from estimator_npu.utils.logging import (DEBUG, ERROR, FATAL, INFO, WARN, WARNING,  # noqa
                                         debug, error, info, log, log_every_n, log_first_n,
                                         warning)

warn = warning


def set_verbosity(level):
    """Sets the log threshold and, like TF1, makes the lines appear on stderr.

    Under ``compat.install()`` this is the level of the ``tensorflow`` logger (the library
    logger, below it, follows); otherwise that of the library logger.
    """
    if _ulog.tensorflow_output_on():
        number = _ulog._level_number(level)
        _ulog.logger.setLevel(_logging.NOTSET)
        _logging.getLogger(_ulog.TF_LOGGER_NAME).setLevel(number)
        return
    _ulog.set_verbosity(level)
    _ulog.ensure_handler()


def get_verbosity():
    """The effective level (an int) of the logger ``set_verbosity`` sets."""
    return _ulog.get_logger().getEffectiveLevel()


def vlog(level, msg, *args, **kwargs):
    """Logs ``msg % args`` at the numeric ``level``, as TF1's ``tf.logging.vlog``."""
    kwargs.setdefault("stacklevel", 2)
    _ulog.logger.log(level, msg, *args, **kwargs)


def log_if(level, msg, condition, *args):
    """Logs ``msg % args`` at ``level`` if ``condition`` is true."""
    if condition:
        _ulog.logger.log(level, msg, *args, stacklevel=2)


def fatal(msg, *args, **kwargs):
    """Logs at FATAL (``CRITICAL``) level; like TF1's, it does not exit."""
    kwargs.setdefault("stacklevel", 2)
    _ulog.logger.critical(msg, *args, **kwargs)


def TaskLevelStatusMessage(msg):  # noqa: N802 (TF's name)
    """Logs ``msg`` at ERROR level, as TF1 does."""
    _ulog.logger.error(msg, stacklevel=2)


def flush():
    """TF1's ``tf.logging.flush`` raises ``NotImplementedError``; so does this."""
    raise NotImplementedError("tf.logging.flush is not implemented in TF1 either")

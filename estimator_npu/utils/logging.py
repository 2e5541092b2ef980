"""The library logger, ``logging.getLogger("estimator_npu")``, and TF1-style helpers.

As a library we add no handler but a ``NullHandler``: the application decides where
records go. To see the library's INFO lines (``Insert op success...``, ``loss = ...``)::

    import logging
    logging.basicConfig()                # any handler on the root logger or on ours
    set_verbosity(logging.INFO)          # or set_verbosity("INFO")

``warn_once(key, msg)`` logs a warning the first time a key is seen in the process (for
"this setting is ignored" notices that would otherwise repeat every step);
``log_first_n`` and ``log_every_n`` limit repetition per call site, as in ``tf.logging``.
"""

import logging as _logging
import sys
import threading

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARNING
WARNING = _logging.WARNING
ERROR = _logging.ERROR
FATAL = _logging.FATAL

logger = _logging.getLogger("estimator_npu")
if not any(isinstance(h, _logging.NullHandler) for h in logger.handlers):
    logger.addHandler(_logging.NullHandler())

_lock = threading.Lock()
_warned_keys = set()
_call_counts = {}


def debug(msg, *args, **kwargs):
    """Logs ``msg % args`` at DEBUG level on the library logger."""
    kwargs.setdefault("stacklevel", 2)
    logger.debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    """Logs ``msg % args`` at INFO level on the library logger."""
    kwargs.setdefault("stacklevel", 2)
    logger.info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    """Logs ``msg % args`` at WARNING level on the library logger."""
    kwargs.setdefault("stacklevel", 2)
    logger.warning(msg, *args, **kwargs)


def error(msg, *args, **kwargs):
    """Logs ``msg % args`` at ERROR level on the library logger."""
    kwargs.setdefault("stacklevel", 2)
    logger.error(msg, *args, **kwargs)


def log(level, msg, *args, **kwargs):
    """Logs ``msg % args`` at ``level`` (an int) on the library logger."""
    kwargs.setdefault("stacklevel", 2)
    logger.log(level, msg, *args, **kwargs)


def _level_number(level):
    if isinstance(level, str):
        number = _logging.getLevelName(level.upper())
        if not isinstance(number, int):
            raise ValueError("level must be an int or one of 'DEBUG', 'INFO', 'WARNING', "
                             "'WARN', 'ERROR', 'FATAL', 'CRITICAL', got %r" % (level,))
        return number
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError("level must be an int or a level name, got %s: %r"
                        % (type(level).__name__, level))
    return level


def set_verbosity(level):
    """Sets the threshold of the library logger.

    Args:
        level: A ``logging`` level (``INFO``, ``logging.DEBUG``, ...) or its name
            (``"INFO"``, case-insensitive).

    Raises:
        TypeError: If ``level`` is neither an int nor a str.
        ValueError: If ``level`` is an unknown level name.
    """
    logger.setLevel(_level_number(level))


def get_verbosity():
    """Returns the effective level of the library logger (an int)."""
    return logger.getEffectiveLevel()


def warn_once(key, msg, *args):
    """Logs a warning the first time ``key`` is seen in this process.

    Args:
        key: Any hashable identifying the warning (e.g. ``("save_checkpoints_steps", 7)``).
        msg: The message format string.
        *args: Arguments for ``msg``.

    Returns:
        True if the warning was logged now, False if ``key`` was seen before.
    """
    with _lock:
        if key in _warned_keys:
            return False
        _warned_keys.add(key)
    logger.warning(msg, *args, stacklevel=2)
    return True


def _count_call_site():
    """Counts calls from the caller's caller's line; returns the count including this one."""
    frame = sys._getframe(2)
    site = (frame.f_code.co_filename, frame.f_lineno)
    with _lock:
        count = _call_counts.get(site, 0) + 1
        _call_counts[site] = count
    return count


def log_first_n(level, msg, n, *args):
    """Logs ``msg % args`` only the first ``n`` times this line of code runs.

    Args:
        level: A ``logging`` level (int).
        msg: The message format string.
        n: How many times to log.
        *args: Arguments for ``msg``.
    """
    if _count_call_site() <= n:
        logger.log(level, msg, *args, stacklevel=2)


def log_every_n(level, msg, n, *args):
    """Logs ``msg % args`` on the 1st, (n+1)-th, (2n+1)-th... run of this line of code.

    Args:
        level: A ``logging`` level (int).
        msg: The message format string.
        n: The period; must be >= 1.
        *args: Arguments for ``msg``.
    """
    if (_count_call_site() - 1) % max(n, 1) == 0:
        logger.log(level, msg, *args, stacklevel=2)


def reset_warn_once():
    """Forgets every key seen by ``warn_once`` and every ``log_first_n`` count (for tests)."""
    with _lock:
        _warned_keys.clear()
        _call_counts.clear()


_ASCEND_LEVELS = {"0": DEBUG, "1": INFO, "2": WARNING, "3": ERROR}
# The Ascend host-log layout (ASCEND_GLOBAL_LOG_LEVEL) and TF's (logging.BASIC_FORMAT).
_ASCEND_FORMAT = "[%(levelname)s] estimator_npu(%(process)d) %(asctime)s: %(message)s"
_TF_FORMAT = _logging.BASIC_FORMAT


def ensure_handler(stream=None, fmt=_TF_FORMAT):
    """Adds a stream handler to the library logger unless one (or a root handler) exists.

    TF1's ``tf.logging.set_verbosity(tf.logging.INFO)`` makes INFO lines appear on stderr;
    this is what lets the facade ``estimator_npu.logging.set_verbosity`` do the same, in
    TF's layout ``INFO:estimator_npu:message``.
    """
    if _logging.getLogger().handlers:
        return None
    for h in logger.handlers:
        if not isinstance(h, _logging.NullHandler):
            return h
    handler = _logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(_logging.Formatter(fmt))
    logger.addHandler(handler)
    return handler


# While TensorFlow's module names resolve to estimator_npu (compat.install()), the library
# logger hangs below the "tensorflow" logger, which gets the handler TF's own logger gets at
# import: stderr, "LEVEL:tensorflow:message". So scripts see TF's lines, levels set on
# logging.getLogger("tensorflow") apply, and under absl (tf.app.run) the records reach
# absl's root handler too, printed twice as TF prints them. The records are renamed
# "tensorflow" (a filter on the library logger), so any handler prints TF's name.
TF_LOGGER_NAME = "tensorflow"
_tf_output = {}


def _as_tensorflow_record(record):
    """Logger filter: the library's records carry TF's logger name while TF output is on."""
    record.name = TF_LOGGER_NAME
    return True


def tensorflow_output_on():
    """True while the library logs as TF's ``tensorflow`` logger (see ``start_tensorflow_output``)."""
    return bool(_tf_output)


def start_tensorflow_output():
    """Does to logging what importing TensorFlow does (idempotent): a stderr handler in TF's
    layout on the ``tensorflow`` logger, unless the root logger already has a handler, and
    the library logger below it."""
    if _tf_output:
        return
    tf_logger = _logging.getLogger(TF_LOGGER_NAME)
    handler = None
    if not _logging.getLogger().handlers and not tf_logger.handlers:
        handler = _logging.StreamHandler(sys.stderr)
        handler.setFormatter(_logging.Formatter(_TF_FORMAT))
        tf_logger.addHandler(handler)
    _tf_output.update(parent=logger.parent, handler=handler)
    logger.parent = tf_logger
    logger.addFilter(_as_tensorflow_record)
    logger.setLevel(logger.level)  # clears the loggers' cached effective levels


def stop_tensorflow_output():
    """Undoes ``start_tensorflow_output`` (the library logger back below the root)."""
    if not _tf_output:
        return
    if _tf_output["handler"] is not None:
        _logging.getLogger(TF_LOGGER_NAME).removeHandler(_tf_output["handler"])
    logger.parent = _tf_output["parent"]
    logger.removeFilter(_as_tensorflow_record)
    _tf_output.clear()
    logger.setLevel(logger.level)


def configure_from_environment(environ):
    """Honours the Ascend host-log variables, as the adapter does.

    ``ASCEND_GLOBAL_LOG_LEVEL`` (0 debug, 1 info, 2 warning, 3 error) sets the level and
    attaches a handler; ``ASCEND_SLOG_PRINT_TO_STDOUT=1`` sends the lines to stdout
    instead of stderr. So ``ASCEND_GLOBAL_LOG_LEVEL=1 python train.py | grep "Insert op"``
    shows whether ``iterations_per_loop`` took effect.
    """
    level = _ASCEND_LEVELS.get(str(environ.get("ASCEND_GLOBAL_LOG_LEVEL", "")).strip())
    if level is None:
        return
    logger.setLevel(level)
    to_stdout = str(environ.get("ASCEND_SLOG_PRINT_TO_STDOUT", "")).strip() == "1"
    ensure_handler(sys.stdout if to_stdout else sys.stderr, _ASCEND_FORMAT)


def _configure_at_import():
    import os
    configure_from_environment(os.environ)


_configure_at_import()


def get_logger():
    """``tf.get_logger()``: the library's ``logging.Logger``, or TF's "tensorflow" logger
    above it while ``tensorflow_output_on()``; ``get_logger().setLevel('ERROR')`` quiets
    the library as it quiets TF."""
    if _tf_output:
        return _logging.getLogger(TF_LOGGER_NAME)
    return logger

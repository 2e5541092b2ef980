"""The INFO lines a logger emits while a block runs, for the scenario modules that both
real TF (through the recorders under ``tools/``) and estimator_npu run: logging only, no
test framework and no project import."""
import contextlib
import logging


class InfoLines(logging.Handler):
    """Keeps the message of every record at INFO level or above in ``lines``."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@contextlib.contextmanager
def capturing(logger_name):
    """An ``InfoLines`` on ``logger_name``, set to INFO while the block runs (its level and
    handlers restored after)."""
    capture = InfoLines()
    logger = logging.getLogger(logger_name)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(capture)
    try:
        yield capture
    finally:
        logger.removeHandler(capture)
        logger.setLevel(old_level)

"""Tests for estimator_npu.utils.logging."""

import importlib
import logging

import pytest

from estimator_npu.utils import logging as elog


@pytest.fixture(autouse=True)
def _clean_logger(caplog):
    saved = elog.logger.level
    elog.reset_warn_once()
    caplog.set_level(logging.DEBUG, logger="estimator_npu")
    yield
    elog.logger.setLevel(saved)
    elog.reset_warn_once()


def _messages(caplog):
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "estimator_npu"]


def test_only_a_null_handler_even_after_reload():
    assert elog.logger is logging.getLogger("estimator_npu")
    importlib.reload(elog)
    importlib.reload(elog)
    assert [type(h) for h in elog.logger.handlers] == [logging.NullHandler]


def test_convenience_functions_log_with_caller_location(caplog):
    elog.debug("d %d", 1)
    elog.info("i %s", "x")
    elog.warning("w")
    elog.error("e")
    elog.log(logging.INFO, "l %d", 2)
    assert _messages(caplog) == [(logging.DEBUG, "d 1"), (logging.INFO, "i x"),
                                 (logging.WARNING, "w"), (logging.ERROR, "e"),
                                 (logging.INFO, "l 2")]
    assert {r.filename for r in caplog.records} == {"test_logging.py"}


def test_set_verbosity():
    elog.set_verbosity(elog.ERROR)
    assert elog.get_verbosity() == logging.ERROR
    elog.set_verbosity("info")
    assert elog.logger.level == logging.INFO
    elog.set_verbosity("WARN")
    assert elog.get_verbosity() == logging.WARNING
    with pytest.raises(ValueError, match="got 'LOUD'"):
        elog.set_verbosity("LOUD")
    with pytest.raises(TypeError, match="got float: 1.5"):
        elog.set_verbosity(1.5)
    with pytest.raises(TypeError, match="got bool"):
        elog.set_verbosity(True)


def test_verbosity_filters(caplog):
    elog.set_verbosity(logging.WARNING)
    caplog.clear()
    elog.info("hidden")
    elog.warning("shown")
    assert _messages(caplog) == [(logging.WARNING, "shown")]


def test_warn_once_per_key_and_reset(caplog):
    assert elog.warn_once("k1", "setting %s ignored", "a") is True
    assert elog.warn_once("k1", "setting %s ignored", "b") is False
    assert elog.warn_once(("k", 2), "other") is True
    assert _messages(caplog) == [(logging.WARNING, "setting a ignored"),
                                 (logging.WARNING, "other")]
    assert caplog.records[0].filename == "test_logging.py"
    elog.reset_warn_once()
    assert elog.warn_once("k1", "again") is True


def test_log_first_n_counts_per_call_site(caplog):
    for i in range(5):
        elog.log_first_n(logging.INFO, "first %d", 2, i)
    for i in range(3):
        elog.log_first_n(logging.INFO, "second %d", 1, i)
    assert _messages(caplog) == [(logging.INFO, "first 0"), (logging.INFO, "first 1"),
                                 (logging.INFO, "second 0")]
    elog.reset_warn_once()
    caplog.clear()
    for i in range(3):
        elog.log_first_n(logging.INFO, "third %d", 1, i)
    assert _messages(caplog) == [(logging.INFO, "third 0")]


def test_log_every_n(caplog):
    for i in range(7):
        elog.log_every_n(logging.INFO, "step %d", 3, i)
    assert _messages(caplog) == [(logging.INFO, "step 0"), (logging.INFO, "step 3"),
                                 (logging.INFO, "step 6")]
    assert {r.filename for r in caplog.records} == {"test_logging.py"}


def test_get_logger_is_the_library_logger_and_its_level_quiets_it(caplog):
    import estimator_npu as tf
    log = tf.get_logger()
    assert log is logging.getLogger("estimator_npu")
    old = log.level
    try:
        log.setLevel("ERROR")
        elog.warning("hidden")
        elog.error("shown")
    finally:
        log.setLevel(old)
    assert _messages(caplog) == [(logging.ERROR, "shown")]

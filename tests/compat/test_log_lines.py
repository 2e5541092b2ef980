"""Under ``estimator-npu run`` a script's stderr carries TF's log lines: ``LEVEL:tensorflow:msg``
from tf.logging and the Estimator, plus absl's ``I1202 hh:mm:ss.uuuuuu tid file.py:N] msg``
copy inside tf.app.run, at TF's default levels. Compared with TF 2.15's own stderr for the
same script (tests/compat/golden/tf_log_lines.json, tools/record_tf_logging.py)."""
import json
import logging
import re
from pathlib import Path

import pytest

from estimator_npu import compat
from estimator_npu.utils import logging as elog

GOLDEN = json.loads((Path(__file__).parent / "golden" / "tf_log_lines.json").read_text())
_TF_LINE = re.compile(r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL):tensorflow:")
_ABSL = re.compile(r"^([DIWEF])\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ (\S+):(\d+)\] ")
_FLOAT = re.compile(r"-?\d+\.\d+(e[-+]?\d+)?")


def _normalized(lines):
    out = []
    for line in lines:
        absl = _ABSL.match(line)
        if absl:
            where = "%s:%s" % absl.group(2, 3) if absl.group(2) == "log_lines.py" else "<lib>"
            line = "%s %s] %s" % (absl.group(1), where, line[absl.end():])
        elif not _TF_LINE.match(line):
            continue  # the config proto's continuation lines, TF's C++ and deprecation noise
        out.append(_FLOAT.sub("<f>", line))
    return out


def _losses(lines):
    return [(int(s), float(v)) for line in lines if _TF_LINE.match(line)
            for v, s in re.findall(r"^\w+:tensorflow:loss = ([-+0-9.e]+), step = (\d+)", line)]


@pytest.mark.parametrize("mode", ["plain", "app"])
def test_stderr_lines_as_tf(mode, run_script, tmp_path):
    proc = run_script("log_lines.py", mode, cwd=tmp_path)
    ours, tf = proc.stderr.splitlines(), GOLDEN[mode]["stderr"]
    assert _normalized(ours) == _normalized(tf)
    assert proc.stdout.splitlines() == GOLDEN[mode]["stdout"]
    got, want = _losses(ours), _losses(tf)
    assert [step for step, _ in got] == [step for step, _ in want]
    assert [loss for _, loss in got] == pytest.approx([loss for _, loss in want], rel=1e-5)
    assert len(_losses(ours)) == {"plain": 2, "app": 1}[mode]


def test_tensorflow_logger_levels_reach_the_library_and_uninstall_restores(capsys):
    compat.install()
    try:
        import tensorflow as tf
        assert tf.get_logger() is logging.getLogger("tensorflow")
        assert elog.logger.parent is logging.getLogger("tensorflow")
        tf.get_logger().setLevel(logging.ERROR)
        assert tf.logging.get_verbosity() == logging.ERROR
        assert not elog.logger.isEnabledFor(logging.WARNING)
        tf.logging.set_verbosity(tf.logging.DEBUG)
        assert elog.logger.isEnabledFor(logging.DEBUG)
        with pytest.raises(NotImplementedError):
            tf.logging.flush()
    finally:
        logging.getLogger("tensorflow").setLevel(logging.NOTSET)
        compat.uninstall()
    assert elog.logger.parent is logging.getLogger()
    assert not elog.tensorflow_output_on()
    assert logging.getLogger("tensorflow").handlers == []
    assert elog.get_logger() is elog.logger

"""``str()`` of the config protos is protobuf's text format, as TF prints it (scripts print
their session config; the Estimator logs it in ``Using config:``). Cases and TF 2.15's text
from tools/record_tf_config_text.py."""
import json
from pathlib import Path

import pytest

import estimator_npu as tf
from estimator_npu.engine.config_pb import RewriterConfig

GOLDEN = json.loads((Path(__file__).parent / "golden_config_text.json").read_text())["cases"]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_text_format_as_tf(name):
    scope = {"tf": tf, "RewriterConfig": RewriterConfig}
    exec(GOLDEN[name]["code"], scope)  # noqa: S102 - the recorder's own case code
    assert str(scope["c"]) == GOLDEN[name]["text"]


def test_run_config_logs_a_custom_session_config_as_text():
    from estimator_npu.estimator import run_config
    config = tf.ConfigProto(allow_soft_placement=True)
    config.gpu_options.allow_growth = True
    logged = run_config.logged_config(tf.estimator.RunConfig(session_config=config))
    assert "'_session_config': gpu_options {\n  allow_growth: true\n}\nallow_soft_placement: " \
           "true\n, '_keep_checkpoint_max'" in logged

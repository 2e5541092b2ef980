"""With save_checkpoints_steps and save_checkpoints_secs both None, TF 2.15 installs no
CheckpointSaverHook: model_dir holds only the events file (no checkpoint, no
graph.pbtxt). Golden: tools/record_no_checkpoint_files.py."""
import importlib.util
import json
import pathlib

import estimator_npu as tf

HERE = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("no_checkpoint_case",
                                               HERE / "no_checkpoint_case.py")
case = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(case)


def test_no_checkpoint_schedule_writes_tf_files(tmp_path, caplog):
    golden = json.loads((HERE / "golden" / "no_checkpoint_files_tf215.json").read_text())
    files = case.model_dir_files(tf, str(tmp_path / "model"))
    assert files == golden["files"] == ["events.out.tfevents.*"]
    assert tf.train.latest_checkpoint(str(tmp_path / "model")) is None

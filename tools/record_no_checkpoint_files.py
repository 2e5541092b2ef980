"""Records the files real TF's Estimator writes in model_dir when RunConfig has neither
save_checkpoints_steps nor save_checkpoints_secs.

    /tmp/tf215/bin/python tools/record_no_checkpoint_files.py

writes ``tests/estimator/golden/no_checkpoint_files_tf215.json`` (the case is defined in
``tests/estimator/no_checkpoint_case.py``).
"""
import json
import pathlib
import tempfile

from _cases import load

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "estimator" / "golden" / "no_checkpoint_files_tf215.json"


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    case = load(ROOT / "tests" / "estimator" / "no_checkpoint_case.py")
    with tempfile.TemporaryDirectory() as d:
        files = case.model_dir_files(tf, d + "/model")
    OUT.write_text(json.dumps({"tensorflow": tf.__version__, "files": files}) + "\n")
    print(f"wrote {OUT}: {files}")


if __name__ == "__main__":
    main()

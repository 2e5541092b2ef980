"""Records TF 2.15's device strings for tests/train/device_setter_cases.py.

    /tmp/tf215/bin/python tools/record_tf_device_setter.py
writes tests/train/device_setter_tf215.json.
"""
import json
import pathlib
import sys

import tensorflow.compat.v1 as tf

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "train"))
import device_setter_cases  # noqa: E402

tf.disable_v2_behavior()
out = ROOT / "tests" / "train" / "device_setter_tf215.json"
out.write_text(json.dumps(device_setter_cases.run(tf), indent=1, sort_keys=True) + "\n")
print("wrote", out)

"""Records what real TF's checkpoint reader and ``inspect_checkpoint`` print for the
golden checkpoints (run with TF 2.15: ``/tmp/tf215/bin/python tools/record_tf_inspect_checkpoint.py``).

Writes ``tests/train/golden_tf/inspect_checkpoint.json``: per checkpoint, the reader's
``debug_string``, its dtype map (dtype names), ``list_variables`` of the directory, and
the printout of ``print_tensors_in_checkpoint_file`` for each argument set in ``CALLS``.
"""
import contextlib
import io
import json
import os

import tensorflow.compat.v1 as tf
from tensorflow.python.tools import inspect_checkpoint

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "tests", "train", "golden_tf")
CHECKPOINTS = ["dtypes", "sharded"]
CALLS = [{"tensor_name": "", "all_tensors": False},
         {"tensor_name": "", "all_tensors": True},
         {"tensor_name": "", "all_tensors": False, "all_tensor_names": True},
         {"tensor_name": "", "all_tensors": False, "count_exclude_pattern": "v_int"},
         {"tensor_name": "nope", "all_tensors": False}]


def main():
    out = {}
    for ckpt in CHECKPOINTS:
        d = os.path.join(GOLDEN, ckpt)
        prefix = os.path.join(d, "model.ckpt")
        reader = tf.train.NewCheckpointReader(prefix)
        first = sorted(reader.get_variable_to_shape_map())[0]
        entry = {"debug_string": reader.debug_string().decode(),
                 "dtypes": {k: v.name for k, v in reader.get_variable_to_dtype_map().items()},
                 "list_variables": tf.train.list_variables(d), "prints": []}
        for kwargs in CALLS + [{"tensor_name": first, "all_tensors": False}]:
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                inspect_checkpoint.print_tensors_in_checkpoint_file(prefix, **kwargs)
            entry["prints"].append([kwargs, buf.getvalue()])
        out[ckpt] = entry
    with open(os.path.join(GOLDEN, "inspect_checkpoint.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

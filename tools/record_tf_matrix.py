"""Records the TF side of the checkpoint matrix as golden files (run once, by hand).

    /tmp/tf215/bin/python tools/record_tf_matrix.py [OUT_DIR]

Runs ``tests/train/tf_side/matrix.py``'s ``write`` under real TensorFlow and keeps, in
OUT_DIR (default tests/train/golden_tf/matrix/), the small part the TF-free test reads:
``plain/model.ckpt-7`` (every dtype, string arrays, 0-d and empty tensors, partitioned
variables stored as slices, Slim names with batch norm statistics, Momentum / Adam /
RMSProp slots), ``sharded/model.ckpt`` (two data shards) and ``expected.npz`` /
``expected.json`` (the values TF's session held, their dtypes). About 40 KB.
"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "train", "tf_side"))
import matrix  # noqa: E402

tf.disable_v2_behavior()
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, "..", "tests", "train", "golden_tf", "matrix")

tmp = tempfile.mkdtemp()
matrix.write(tf, tmp)
shutil.rmtree(OUT, ignore_errors=True)
for sub in ("plain", "sharded"):
    os.makedirs(os.path.join(OUT, sub))
    for f in os.listdir(os.path.join(tmp, sub)):
        if not f.endswith(".meta"):
            shutil.copy(os.path.join(tmp, sub, f), os.path.join(OUT, sub, f))
    # TF1's Saver writes absolute paths into the state file: keep the file names only
    with open(os.path.join(OUT, sub, "checkpoint")) as f:
        state = f.read().replace(os.path.join(tmp, sub) + "/", "")
    with open(os.path.join(OUT, sub, "checkpoint"), "w") as f:
        f.write(state)
with open(os.path.join(tmp, "expected.json")) as f:
    kinds = {k: v for k, v in json.load(f).items() if not k.startswith("est:")}
with np.load(os.path.join(tmp, "expected.npz"), allow_pickle=True) as npz:
    values = dict(npz)
np.savez(os.path.join(OUT, "expected.npz"), **{k: values[k] for k in kinds})
with open(os.path.join(OUT, "expected.json"), "w") as f:
    json.dump(kinds, f, indent=0, sort_keys=True)
shutil.rmtree(tmp)
print("wrote", OUT)

"""Records real TensorFlow's random values and random-op seeds for the programs of
tests/conformance/random_programs.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_random.py``; writes
tests/conformance/golden/tf_random.npz (values, losses) and tf_random_seeds.json
(each program's ``[op type, seed, seed2]`` list in graph order).
"""
import json
import pathlib

import numpy as np
import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "conformance" / "golden"


def _programs():
    path = ROOT / "tests" / "conformance" / "random_programs.py"
    module = load(path)
    return module


def record():
    m = _programs()
    arrays, seeds = {}, {}
    for name, build in m.PROGRAMS.items():
        values, seeds[name] = m.run_program(tf, build)
        arrays.update({f"{name}/{k}": v for k, v in values.items()})
    for name, build in m.TRAIN.items():
        arrays[f"{name}/losses"], seeds[name] = m.run_training(tf, build)
    np.savez_compressed(GOLDEN / "tf_random.npz", **arrays)
    (GOLDEN / "tf_random_seeds.json").write_text(json.dumps(seeds, indent=1) + "\n")
    print(f"wrote {len(arrays)} arrays, {len(seeds)} seed lists (TF {tf.__version__})")


if __name__ == "__main__":
    record()

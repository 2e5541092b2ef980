"""Records real TensorFlow's updates of a variable listed twice in ``var_list`` /
``grads_and_vars`` for tests/train/test_duplicate_var_list.py.

Run with a TF install: ``/tmp/tf215/bin/python tools/record_tf_duplicate_vars.py``; writes
tests/train/duplicate_vars_golden.json. TF runs the update kernels of one variable one after
the other, but with no order between them; each case is run REPEATS times and must give
the same numbers every time (the recorder stops otherwise), so the golden holds only
cases whose result does not depend on that order: the same gradient listed several times
(what ``minimize`` / ``compute_gradients`` make), or GradientDescent, whose updates
commute. (Adam with three different gradients of one variable gave the orders (1, 2, 0)
20 times, (2, 1, 0) 9 times and (0, 1, 2) once in 30 runs of TF 2.15, each an exact
sequential application; estimator_npu uses list order.)
"""
import json
import pathlib

import tensorflow.compat.v1 as tf

from _cases import load

tf.disable_v2_behavior()
ROOT = pathlib.Path(__file__).resolve().parents[1]
REPEATS = 5


def main():
    module = load("tests/train/duplicate_var_cases.py")
    out = {}
    for name, build in module.CASES.items():
        runs = [module.run(tf, build) for _ in range(REPEATS)]
        for other in runs[1:]:
            if other != runs[0]:
                raise SystemExit(f"{name}: TF gave different numbers on two runs")
        out[name] = runs[0]
    dest = ROOT / "tests" / "train" / "duplicate_vars_golden.json"
    dest.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {dest} ({len(out)} cases, TF {tf.__version__})")


if __name__ == "__main__":
    main()

"""Records the Estimator scenario matrix of ``tests/estimator/matrix_cases.py`` (model_dir
files, checkpoint state, events, hook calls, log lines, evaluate / predict /
train_and_evaluate results, warm start) and ``tests/estimator/canned_cases.py`` (premade
estimators with partitioners, ``PartitionedVariable.assign``) and
``tests/estimator/hooks_cases.py`` (user hooks, spec hooks, inputs that end early) from
real TF 2.15::

    /tmp/tf215/bin/python tools/record_estimator_matrix.py [NAME-PREFIX ...]

writes ``tests/estimator/golden/estimator_matrix_tf215.json`` (with prefixes, only those
scenarios are re-recorded, the others kept). TF's own schedule is slightly racy (a
global step fetched in the same run as the update is read before or after the
increment), so each scenario runs three times and the most common result is kept.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
from _cases import ROOT, load  # noqa: E402

OUT = ROOT / "tests" / "estimator" / "golden" / "estimator_matrix_tf215.json"
RUNS = 3
CASES = ["tests/estimator/matrix_cases.py", "tests/estimator/canned_cases.py",
         "tests/estimator/hooks_cases.py"]


def stable(fn, name):
    results = [fn() for _ in range(RUNS)]
    keys = [json.dumps(r, sort_keys=True) for r in results]
    best = max(set(keys), key=keys.count)
    if keys.count(best) < RUNS:
        print(f"warning: {name}: {len(set(keys))} different results in {RUNS} runs")
    return results[keys.index(best)]


def main(prefixes):
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.get_logger().propagate = False
    scenarios = {}
    for module in CASES:
        scenarios.update(load(module).all_scenarios())
    data = json.loads(OUT.read_text()) if OUT.exists() and prefixes else {"scenarios": {}}
    data["tensorflow"] = tf.__version__
    for name, fn in scenarios.items():
        if prefixes and not any(name.startswith(p) for p in prefixes):
            continue
        print("recording", name, flush=True)
        data["scenarios"][name] = stable(lambda: fn(tf, "tensorflow"), name)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Differential sweep of TF1 API calls: real TF 2.15 against estimator_npu.

    python tools/tf_sweep.py            # records TF's results (subprocess), then diffs ours
    python tools/tf_sweep.py diff [-k SUBSTR]   # diff ours against the committed golden
    /tmp/tf215/bin/python tools/tf_sweep.py record   # only record (needs TF)

The specs live in tests/conformance/sweep_specs.py; the golden is
tests/conformance/golden/tf_sweep.json (+ tf_sweep.npz for numeric values), replayed
without TF by tests/conformance/test_tf_sweep.py.
"""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONF = ROOT / "tests" / "conformance"
GOLDEN_JSON = CONF / "golden" / "tf_sweep.json"
GOLDEN_NPZ = CONF / "golden" / "tf_sweep.npz"
TF_PYTHON = os.environ.get("TF_PYTHON", "/tmp/tf215/bin/python")
sys.path.insert(0, str(CONF))

import sweep_runner  # noqa: E402
import sweep_specs  # noqa: E402


def save(results):
    arrays, meta = {}, {}
    for name, res in results.items():
        if "outs" in res:
            for i, o in enumerate(res["outs"]):
                if isinstance(o["value"], np.ndarray):
                    key = f"{name}/{i}"
                    arrays[key] = o["value"]
                    o["value"] = {"npz": key}
        meta[name] = res
    GOLDEN_JSON.write_text(json.dumps(meta, sort_keys=True, separators=(",", ":")) + "\n")
    np.savez_compressed(GOLDEN_NPZ, **arrays)


def load():
    """The golden as ``{name: result}`` with numeric values as arrays."""
    meta = json.loads(GOLDEN_JSON.read_text())
    with np.load(GOLDEN_NPZ) as arrays:
        for res in meta.values():
            for o in res.get("outs", []):
                if "npz" in o["value"]:
                    o["value"] = arrays[o["value"]["npz"]]
    return meta


def record():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.get_logger().setLevel("ERROR")
    results = {name: sweep_runner.run_spec(tf, build) for name, build in sweep_specs.SPECS.items()}
    save(results)
    n_err = sum("error" in r for r in results.values())
    print(f"recorded {len(results)} specs ({n_err} errors) with TF {tf.__version__}")


def diff(substr=""):
    import estimator_npu as ours
    golden = load()
    bad = 0
    for name, build in sweep_specs.SPECS.items():
        if substr not in name:
            continue
        if name not in golden:
            print(f"{name}: no golden record")
            bad += 1
            continue
        diffs = sweep_runner.compare(golden[name], sweep_runner.run_spec(ours, build))
        if diffs:
            bad += 1
            print(f"{name}: " + "; ".join(diffs))
    print(f"{bad} mismatching of {len(sweep_specs.SPECS)} specs")
    return bad


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "all"
    if mode == "record":
        record()
    elif mode == "diff":
        sys.exit(1 if diff(sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "-k" else "") else 0)
    else:
        subprocess.run([TF_PYTHON, __file__, "record"], check=True)
        sys.exit(1 if diff() else 0)

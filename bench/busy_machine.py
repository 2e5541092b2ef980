"""bench/vs_tf.py's workloads on a busy machine: steps/s while other processes take the cores.

Starts ``--burners`` processes that spin on the CPU (default: one per usable core, so the
machine's load is at least its core count), and meanwhile runs each workload, alternately:

* ``adaptive``: estimator_npu as it is (``utils.blas_governor`` picks the thread counts);
* ``fixed``: estimator_npu with ``ESTIMATOR_NPU_ADAPTIVE_THREADS=0`` (all threads always);
* ``tf``: TF 2.15's ``tf.compat.v1`` when ``--tf-python`` is given.

Prints medians of ``--reps`` runs and the load average; ``--json`` stores the samples.

Run: ``python bench/busy_machine.py [--only mlp,lenet] [--burners 2] [--reps 3]
[--tf-python /tmp/tf215/bin/python]``
"""
import argparse
import json
import multiprocessing
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vs_tf  # noqa: E402


def _burn():
    x = 0
    while True:
        x += 1


def measure(config, python, name):
    """One run of workload ``name`` under ``config`` (adaptive, fixed or tf)."""
    old = os.environ.get("ESTIMATOR_NPU_ADAPTIVE_THREADS")
    os.environ["ESTIMATOR_NPU_ADAPTIVE_THREADS"] = "0" if config == "fixed" else "1"
    try:
        return vs_tf.measure(python, "tf" if config == "tf" else "ours", name)["steps_per_s"]
    finally:
        if old is None:
            del os.environ["ESTIMATOR_NPU_ADAPTIVE_THREADS"]
        else:
            os.environ["ESTIMATOR_NPU_ADAPTIVE_THREADS"] = old


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="mlp,lenet", help="comma-separated vs_tf workloads")
    ap.add_argument("--burners", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tf-python", help="python of a venv with tensorflow 2.15 installed")
    ap.add_argument("--json", help="write the samples and medians here")
    a = ap.parse_args()
    names = a.only.split(",")
    configs = [("adaptive", sys.executable), ("fixed", sys.executable)]
    if a.tf_python:
        configs.append(("tf", a.tf_python))
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(a.burners)]
    for p in burners:
        p.start()
    samples = {(n, c): [] for n in names for c, _ in configs}
    try:
        for rep in range(a.reps):
            for n in names:
                for c, py in (configs if rep % 2 == 0 else configs[::-1]):
                    rate = measure(c, py, n)
                    samples[(n, c)].append(rate)
                    print(f"  rep {rep + 1} {n:13s} {c:9s} {rate:10.1f} steps/s "
                          f"(load {os.getloadavg()[0]:.1f})", flush=True)
        load = os.getloadavg()
    finally:
        for p in burners:
            p.terminate()
    med = {k: statistics.median(v) for k, v in samples.items()}
    cols = [c for c, _ in configs]
    print(f"\nsteps/s with {a.burners} busy processes, medians of {a.reps} alternating runs; "
          f"load average at the end: {', '.join(f'{x:.1f}' for x in load)}")
    print(f"{'workload':16s}" + "".join(f"{c:>10s}" for c in cols) + f"{'adapt/fixed':>13s}" +
          (f"{'adapt/TF':>10s}" if a.tf_python else ""))
    for n in names:
        line = f"{n:16s}" + "".join(f"{med[(n, c)]:10.1f}" for c in cols)
        line += f"{med[(n, 'adaptive')] / med[(n, 'fixed')]:12.2f}x"
        if a.tf_python:
            line += f"{med[(n, 'adaptive')] / med[(n, 'tf')]:9.2f}x"
        print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"burners": a.burners, "load": load,
                       "samples": {f"{n}/{c}": v for (n, c), v in samples.items()},
                       "medians": {f"{n}/{c}": v for (n, c), v in med.items()}}, f, indent=1)


if __name__ == "__main__":
    main()

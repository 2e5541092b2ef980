"""Trains model-zoo presets and writes the results page with one learning-curve PNG each.

    estimator-npu benchmark --dataset fashion_mnist --models softmax_estimator,mlp,cnn
    python -m bench.accuracy --models mlp --out docs            # the same

For each model: ``model_zoo.<model>.main(["--dataset", <dataset>, "--model_dir", ...])``
with that model's preset (``PRESETS``), evaluated ``--evals`` times along the way; then the
run's TensorBoard event files (train ``loss`` in ``model_dir``, eval ``accuracy`` in
``model_dir/eval``) are read back with tensorboard's ``EventAccumulator`` (or, without the
``tensorboard`` package, ``estimator_npu.summary.summary_iterator``) and plotted with
matplotlib (the optional ``[plot]`` extra; without it no PNG is written).

The page (``<out>/results.md``, PNGs in ``<out>/results/``) has one row per model: its
parameters, steps, training wall time, steps/s, test accuracy and the Fashion-MNIST
benchmark table's figure for the same architecture (``BENCHMARK_TABLE``); the same table
is printed. ``--extra_flags "--steps 500"`` passes flags on to every model.
"""
import argparse
import contextlib
import glob
import importlib
import io
import json
import os
import shlex
import sys
import tempfile
import time

import numpy as np

import estimator_npu as tf
from model_zoo import common

DEFAULT_MODELS = ("softmax_estimator", "mlp", "lenet", "cnn", "resnet", "bert", "lstm_rows")

# Rows of Fashion-MNIST's benchmark table (README of the dataset) for the same kind of model;
# the architectures match only where the note says so.
BENCHMARK_TABLE = {
    "softmax_estimator": (0.842, "logistic regression (the benchmark's sklearn baseline)"),
    "mlp": (0.883, "MLP 256-128-100 (ours: 512-512)"),
    "lenet": (None, "no LeNet row"),
    "cnn": (0.916, "2 Conv+pooling, TF's doc (same architecture)"),
    "resnet": (0.949, "ResNet18 with augmentation (ours: 8-16-32 channels, 0.04M)"),
    "bert": (None, "no Transformer row"),
    "lstm_rows": (0.888, "GRU+SVM (nearest recurrent row)"),
}
# The accuracies issue 18 asked each Fashion-MNIST preset to reach (not results).
TARGETS = {"softmax_estimator": 0.84, "mlp": 0.885, "lenet": 0.89, "cnn": 0.916,
           "resnet": 0.93, "bert": 0.88, "lstm_rows": 0.88}
# Why a preset stops short of its issue-18 target (shown on the page while it does).
NOT_REACHED = {
    "resnet": "The preset (6,000 steps of batch 64: 6.4 epochs, random flips and 2-pixel crops) "
              "was still improving when it stopped (0.8848 at step 3,600, 0.8945 at 4,800). "
              "The model is a 44k-parameter ResNet (8-16-32 channels), the benchmark "
              "row's a ResNet18 (11M) trained for many epochs. Extrapolated, not measured: "
              "30 epochs (28,000 steps) at this width would take about 65 minutes at the "
              "measured 7.2 steps/s, 4x that with twice the channels, beyond the issue's "
              "~15-minute budget; the stated accuracy is what the preset reaches.",
}
# Variables in a checkpoint that are not model parameters.
_NOT_PARAMETERS = ("global_step", "Adam", "Momentum", "LAMB", "beta1_power", "beta2_power",
                   "moving_mean", "moving_variance", "loss_scale", "good_steps", "bad_steps")


def count_parameters(model_dir):
    """The number of model parameters in the latest checkpoint of ``model_dir``."""
    path = tf.train.latest_checkpoint(model_dir)
    return int(sum(np.prod(shape, dtype=np.int64)
                   for name, shape in tf.train.list_variables(path)
                   if not any(part in name for part in _NOT_PARAMETERS)))


def read_scalars(folder, tag):
    """``[(step, value)]`` of scalar ``tag`` in the event files of ``folder`` (not below)."""
    try:
        from tensorboard.backend.event_processing import event_accumulator
    except ImportError:
        event_accumulator = None
    if event_accumulator is not None:
        acc = event_accumulator.EventAccumulator(folder, size_guidance={"scalars": 0})
        acc.Reload()
        if tag not in acc.Tags().get("scalars", []):
            return []
        return sorted((e.step, e.value) for e in acc.Scalars(tag))
    points = {}
    for path in sorted(glob.glob(os.path.join(folder, "events.out.tfevents.*"))):
        for event in tf.summary.summary_iterator(path):
            for value in event.summary.value:
                if value.tag == tag:
                    points[event.step] = value.simple_value
    return sorted(points.items())


def plot_curves(model, model_dir, path):
    """Writes ``path``: train loss and eval accuracy against step. Returns ``path``, or
    ``None`` (printing why) without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed (pip install 'estimator-npu[plot]'): no PNG for "
              + model)
        return None
    loss = read_scalars(model_dir, "loss")
    accuracy = read_scalars(os.path.join(model_dir, "eval"), "accuracy")
    if not loss or not accuracy:
        raise RuntimeError(f"{model}: no {'train loss' if not loss else 'eval accuracy'} "
                           f"summaries in the event files of {model_dir}; the curve would "
                           f"be empty")
    fig, left = plt.subplots(figsize=(6, 3.5))
    if loss:
        left.plot(*zip(*loss), color="tab:blue", lw=1, label="train loss")
    left.set_xlabel("step")
    left.set_ylabel("train loss", color="tab:blue")
    right = left.twinx()
    if accuracy:
        right.plot(*zip(*accuracy), "o-", color="tab:red", label="eval accuracy")
    right.set_ylabel("test accuracy", color="tab:red")
    left.set_title(f"{model} on Fashion-MNIST")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def run_model(model, dataset, work_dir, evals, extra_flags=()):
    """Trains ``model``'s preset; returns its row (a dict)."""
    module = importlib.import_module(f"model_zoo.{model}")
    model_dir = os.path.join(work_dir, model)
    preset = dict(module.DEFAULTS, **getattr(module, "PRESETS", {}).get(dataset, {}))
    extra_flags = list(extra_flags)
    for name in ("steps", "iterations_per_loop", "batch_size"):
        if "--" + name in extra_flags[:-1]:
            preset[name] = int(extra_flags[extra_flags.index("--" + name) + 1])
    steps = preset["steps"]
    flags = ["--dataset", dataset, "--model_dir", model_dir,
             "--eval_every", str(max(1, steps // max(1, evals))),
             "--save_summary_steps", str(preset["iterations_per_loop"])] + extra_flags
    out = io.StringIO()
    load = os.getloadavg()[0]
    with contextlib.redirect_stdout(out):
        status = module.main(flags, prog=model)
    if status:
        raise RuntimeError(f"{model} failed (exit status {status}):\n{out.getvalue()}")
    tf.summary.FileWriterCache.clear()   # flush the eval writer before reading its events
    result = dict(common.LAST_RUN)
    seconds = result["train_seconds"]
    return dict(model=model, parameters=count_parameters(model_dir), steps=steps,
                batch_size=preset["batch_size"], seconds=seconds, steps_per_s=steps / seconds,
                accuracy=float(result["accuracy"]), model_dir=model_dir,
                load=(load + os.getloadavg()[0]) / 2)


HEADERS = ("model", "parameters", "steps x batch", "wall time (s)", "steps/s",
           "test accuracy", "target", "benchmark table")


def table_rows(rows):
    """The table's cells, as strings."""
    cells = []
    for r in rows:
        figure, note = BENCHMARK_TABLE.get(r["model"], (None, ""))
        cells.append((r["model"], f"{r['parameters']:,}", f"{r['steps']} x {r['batch_size']}",
                      f"{r['seconds']:.0f}", f"{r['steps_per_s']:.1f}",
                      f"{r['accuracy']:.4f}", _target(r),
                      (f"{figure:.3f} " if figure else "— ") + f"({note})"))
    return cells


def _target(row):
    target = TARGETS.get(row["model"])
    if target is None:
        return "—"
    if row["accuracy"] >= target:
        return f"{target:.3f} reached"
    stated = getattr(importlib.import_module(f"model_zoo.{row['model']}"),
                     "FASHION_MNIST_ACCURACY", None)
    return f"{target:.3f} **not reached**" + (f" (stated: {stated})" if stated else "")


def markdown(rows, dataset, pngs):
    """The results page."""
    lines = ["# Model-zoo results on " + dataset, "",
             "Generated by `estimator-npu benchmark` (the presets of each example, `PRESETS`, "
             "seeded); wall time is training only, on this machine (2 cores), with the load "
             "average below. Rows come from these runs (`results/results.json` keeps them):",
             ""]
    runs = {}
    for r in rows:
        runs.setdefault(r.get("command") or _EARLIER, []).append(r)
    for command, members in runs.items():
        loads = ", ".join(f"{r['model']} {r['load']:.1f}" for r in members if "load" in r)
        lines.append(f"- {', '.join(r['model'] for r in members)}: "
                     + (command if command == _EARLIER else f"`{command}`")
                     + (f" (started {members[0]['started']}; 1-minute load average, mean of "
                        f"the start and end of training: {loads})" if loads else ""))
    lines += ["", "| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(c) + " |" for c in table_rows(rows)]
    lines.append("")
    done = {r["model"] for r in rows}
    missing = [m for m in DEFAULT_MODELS if m not in done]
    if missing:
        lines += ["Not run to the end on this machine yet (no result is stated for them): "
                  + ", ".join(f"`{m}`" for m in missing) + ".", ""]
    for r in rows:
        if r["model"] in NOT_REACHED and r["accuracy"] < TARGETS.get(r["model"], 0):
            lines += [f"**{r['model']}: issue 18's target {TARGETS[r['model']]:.2f} is not "
                      f"reached** ({r['accuracy']:.4f} after {r['steps']} steps at "
                      f"{r['steps_per_s']:.1f} steps/s). " + NOT_REACHED[r["model"]], ""]
    lines += ["Target: the accuracy issue 18 asked for; benchmark table: the figure of the "
              "Fashion-MNIST README's row for the same kind of model (their runs, not ours).",
              ""]
    for r in rows:
        if pngs.get(r["model"]):
            lines += [f"![{r['model']}](results/{os.path.basename(pngs[r['model']])})", ""]
    return "\n".join(lines)


_EARLIER = "an earlier run of the same preset (before the run recorded load and command)"


def print_table(rows):
    cells = [HEADERS] + table_rows(rows)
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADERS))]
    for c in cells:
        print("  ".join(v.ljust(w) for v, w in zip(c, widths)))


def main(argv=None, prog=None):
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=common.DATASETS, default="fashion_mnist")
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help="comma-separated model-zoo names (default: %(default)s)")
    parser.add_argument("--out", default="docs", help="folder of results.md (default: docs)")
    parser.add_argument("--work_dir", default=None,
                        help="model_dirs go here (default: a temporary folder)")
    parser.add_argument("--evals", type=int, default=5,
                        help="evaluations per run, for the curve (default: %(default)s)")
    parser.add_argument("--extra_flags", default="", help="flags passed to every model")
    parser.add_argument("--page_only", action="store_true",
                        help="train nothing: rewrite <out>/results.md from the rows kept in "
                             "<out>/results/results.json")
    args = parser.parse_args(argv)
    if args.page_only:
        merged, pngs = merge_saved(os.path.join(args.out, "results"), args.dataset, [], {})
        with open(os.path.join(args.out, "results.md"), "w") as f:
            f.write(markdown(merged, args.dataset, pngs) + "\n")
        return 0
    work_dir = args.work_dir or tempfile.mkdtemp(prefix="accuracy_benchmark_")
    png_dir = os.path.join(args.out, "results")
    os.makedirs(png_dir, exist_ok=True)
    threads = os.environ.get("OPENBLAS_NUM_THREADS")
    command = " ".join(([f"OPENBLAS_NUM_THREADS={threads}"] if threads else [])
                       + ["estimator-npu benchmark"] + [
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)])
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows = []
    for model in [m for m in args.models.split(",") if m]:
        print(f"training {model} ...", flush=True)
        row = run_model(model, args.dataset, work_dir, args.evals,
                        shlex.split(args.extra_flags))
        row.update(command=command, started=started)
        rows.append(row)
        png = plot_curves(model, row["model_dir"], os.path.join(png_dir, f"{model}.png"))
        print(f"  {model}: accuracy {row['accuracy']:.4f} in {row['seconds']:.0f} s",
              flush=True)
        # Saved after each model: a long run stopped part-way keeps what it finished.
        merged, pngs = merge_saved(png_dir, args.dataset, [row], {model: png})
        with open(os.path.join(args.out, "results.md"), "w") as f:
            f.write(markdown(merged, args.dataset, pngs) + "\n")
    print_table(rows)
    return 0


def merge_saved(png_dir, dataset, rows, pngs):
    """Rows of earlier runs kept in ``<png_dir>/results.json`` (for models not run now)
    plus ``rows``, in ``DEFAULT_MODELS`` order; saves the merged rows there."""
    path = os.path.join(png_dir, "results.json")
    saved = {}
    if os.path.exists(path):
        with open(path) as f:
            saved = {r["model"]: r for r in json.load(f) if r.get("dataset") == dataset}
    for r in rows:
        saved[r["model"]] = dict(r, dataset=dataset, png=pngs.get(r["model"]) and
                                 os.path.basename(pngs[r["model"]]))
    order = {m: i for i, m in enumerate(DEFAULT_MODELS)}
    merged = sorted(saved.values(), key=lambda r: order.get(r["model"], len(order)))
    with open(path, "w") as f:
        json.dump([{k: v for k, v in r.items() if k != "model_dir"} for r in merged], f,
                  indent=1)
    return merged, {r["model"]: r.get("png") for r in merged}


if __name__ == "__main__":
    sys.exit(main())

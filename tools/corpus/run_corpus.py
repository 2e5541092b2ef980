"""Runs a corpus of public TF1 scripts through ``estimator_npu.run`` and tabulates the result.

The manifest (``classic.tsv``) names each script by repository, commit and path; the scripts
themselves are never committed. Check the repositories out under one folder, each as
``OWNER+NAME/`` (what the project's ``fetch`` tool produces; ``git clone`` then
``git checkout COMMIT`` works as well), then::

    python tools/corpus/run_corpus.py tools/corpus/classic.tsv --src /tmp/classic/repos \\
        --work /tmp/classic/run --data /tmp/classic/data [--only ID ...] [--timeout 600]

For each row the script's folder is copied to ``WORK/ID/src``; the row's ``edits``
(``old=>new`` pairs separated by `` ;; ``, applied to the script's text, ``{data}`` standing
for ``--data``; ``FILE::old=>new`` edits the helper module ``FILE`` of the script's folder)
change only data paths and step counts. The script then runs from
that copy of its folder (as the tutorials are run, so their relative data paths resolve and
their outputs land in the copy) as
``python -m estimator_npu.run SCRIPT ARGS`` with this checkout first on ``PYTHONPATH``
(and, with ``--repo-on-path``, the row's checkout root last), under ``ulimit -v`` (``--mem-kb``, default 4000000) and ``--timeout`` seconds.

Status: ``pass`` (exit 0), ``missing`` (the last error says ``estimator_npu does not
implement``), ``fail`` (another nonzero exit; the note is the last line of stderr),
``timeout``; a row whose script is not under ``--src`` is reported ``nosource`` and keeps
its last status. ``--write-status`` rewrites the manifest's ``status``/``note`` columns;
a table of the run goes to ``WORK/results.tsv`` either way.
"""
import argparse
import csv
import os
import shlex
import shutil
import subprocess
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLUMNS = ["id", "repo", "commit", "path", "args", "edits", "status", "note"]


def read_manifest(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(
            (line for line in f if line.strip() and not line.startswith("#")), delimiter="\t")]
    for r in rows:
        missing = [c for c in COLUMNS if c not in r]
        if missing:
            raise ValueError("%s: row %r lacks column(s) %s" % (path, r.get("id"), missing))
    return rows


def write_manifest(path, rows):
    with open(path) as f:
        header = [line for line in f if line.startswith("#")]
    with open(path, "w", newline="") as f:
        f.writelines(header)
        w = csv.DictWriter(f, COLUMNS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({c: r[c] for c in COLUMNS})


def split_edits(edits, script):
    """``{file: [(old, new)]}``: ``old=>new`` pairs edit the script (file ``None``),
    ``FILE::old=>new`` pairs a helper module (``FILE`` relative to the script's folder)."""
    out = {}
    for pair in filter(None, (e.strip() for e in edits.split(";;"))):
        if "=>" not in pair:
            raise ValueError("%s: edit %r is not of the form old=>new" % (script, pair))
        old, new = (s.strip() for s in pair.split("=>", 1))
        target = None
        if "::" in old:
            target, old = (s.strip() for s in old.split("::", 1))
        out.setdefault(target, []).append((old, new))
    return out


def apply_edits(text, edits, data, script):
    if isinstance(edits, str):
        edits = split_edits(edits, script).get(None, [])
    for old, new in edits:
        new = new.replace("{data}", data)
        if old not in text:
            raise ValueError("%s: edit target %r not found in the script" % (script, old))
        text = text.replace(old, new)
    return text


def classify(rc, err, timed_out):
    if timed_out:
        return "timeout", "ran past the time limit"
    if rc == 0:
        return "pass", ""
    lines = [ln.strip() for ln in err.splitlines() if ln.strip()]
    last = lines[-1] if lines else "exit status %d" % rc
    for ln in reversed(lines):
        if "does not implement" in ln:
            return "missing", ln[:300]
    return "fail", last[:300]


def run_one(row, args):
    src_dir = os.path.join(args.src, row["repo"].replace("/", "+"))
    script = os.path.join(src_dir, row["path"])
    if not os.path.isfile(script):
        return "nosource", f"not checked out: {script}", 0.0
    work = os.path.join(args.work, row["id"])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    dst = os.path.join(work, "src")
    shutil.copytree(os.path.dirname(script), dst, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "*.ipynb", "*.png", "*.jpg", "*.gif"))
    target = os.path.join(dst, os.path.basename(script))
    for name, pairs in split_edits(row["edits"], row["path"]).items():
        path = script if name is None else os.path.join(os.path.dirname(script), name)
        out = target if name is None else os.path.join(dst, name)
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        text = apply_edits(text, pairs, args.data, row["path"] if name is None else name)
        with open(out, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
    argv = [a.replace("{data}", args.data) for a in shlex.split(row["args"])]
    path = [REPO_ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if args.repo_on_path:  # scripts importing their repository as a package (official.*)
        path.append(src_dir)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), MPLBACKEND="Agg")
    if os.path.isdir(os.path.join(args.data, "keras")):
        env["KERAS_HOME"] = os.path.join(args.data, "keras")  # get_file's cache (make_data.py)
    cmd = "ulimit -v %d; exec %s -m estimator_npu.run %s" % (
        args.mem_kb, shlex.quote(sys.executable),
        " ".join(shlex.quote(a) for a in [target] + argv))
    start = time.time()
    with open(os.path.join(work, "stdout"), "w") as out, open(os.path.join(work, "stderr"), "w") as err:
        proc = subprocess.Popen(["bash", "-c", cmd], cwd=dst, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc, timed_out = proc.wait(timeout=args.timeout), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            rc, timed_out = proc.wait(), True
    seconds = time.time() - start
    with open(os.path.join(work, "stderr"), errors="replace") as f:
        status, note = classify(rc, f.read(), timed_out)
    return status, note, seconds


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("manifest")
    p.add_argument("--src", required=True, help="folder holding OWNER+NAME/ checkouts")
    p.add_argument("--work", required=True, help="scratch folder for the runs")
    p.add_argument("--data", required=True, help="data folder ({data} in edits and args)")
    p.add_argument("--only", nargs="*", help="ids to run (default: all)")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--mem-kb", type=int, default=4000000)
    p.add_argument("--write-status", action="store_true")
    p.add_argument("--repo-on-path", action="store_true",
                   help="append each row's checkout root to PYTHONPATH (tensorflow/models' "
                        "official.* imports, as its README's PYTHONPATH setup)")
    args = p.parse_args(argv)
    args.data, args.work, args.src = (os.path.abspath(x) for x in (args.data, args.work, args.src))
    rows = read_manifest(args.manifest)
    os.makedirs(args.work, exist_ok=True)
    results = []
    for row in rows:
        if args.only and row["id"] not in args.only:
            continue
        status, note, seconds = run_one(row, args)
        note = note.replace("\t", " ")
        if status != "nosource":  # a row whose script is absent keeps its last status
            row["status"], row["note"] = status, note
        results.append((row["id"], status, "%.0f" % seconds, note))
        print("%-28s %-8s %5.0fs %s" % (row["id"], status, seconds, note[:120]), flush=True)
    res_path = os.path.join(args.work, "results.tsv")
    old = {}
    if os.path.exists(res_path):
        with open(res_path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 4 and parts[0] != "id":
                    old[parts[0]] = parts
    for r in results:
        old[r[0]] = list(r)
    with open(res_path, "w") as f:
        f.write("id\tstatus\tseconds\tnote\n")
        for r in rows:
            if r["id"] in old:
                f.write("\t".join(old[r["id"]]) + "\n")
    counts = {}
    for r in results:
        counts[r[1]] = counts.get(r[1], 0) + 1
    print("ran %d: %s" % (len(results), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    if args.write_status:
        write_manifest(args.manifest, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

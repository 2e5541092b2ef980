"""``estimator-npu-run``: start N workers of a training script through ``mpiexec``.

Usage::

    estimator-npu-run -n 2 train.py --steps 1000          # two workers on this machine
    estimator-npu-run -n 8 --hostfile hosts train.py      # over the machines in ``hosts``
    estimator-npu-run -n 2 -m model_zoo.mlp --steps 10    # a module, as python -m
    estimator-npu-run -n 2 --dry-run train.py             # print the command only

It runs ``mpiexec -n N [host options] <this python> script args...``, replacing itself
with it. ``mpiexec`` is the one next to this Python (the ``mpich`` wheel of the ``mpi``
extra installs it in the virtual environment's ``bin``), else the first on ``PATH``, else
``--mpiexec PATH``. Options after the script belong to the script.

Host options: ``--hostfile FILE`` (``-f`` for MPICH's Hydra, ``--hostfile`` for Open MPI)
and ``--hosts a,b`` (``-hosts``/``--host``); ``--mpi-arg ARG`` (repeatable) passes
anything else to ``mpiexec``.
"""
import os
import shutil
import subprocess
import sys

USAGE = ("usage: estimator-npu-run -n N [--hostfile FILE] [--hosts H1,H2] [--mpiexec PATH] "
         "[--mpi-arg ARG]... [--dry-run] (script.py | -m module) [args...]")


class LaunchError(Exception):
    """A bad command line or no usable ``mpiexec``."""


def find_mpiexec(python=None, path=None):
    """The ``mpiexec`` beside ``python`` (default: this interpreter), else on ``path``.

    Returns:
        An absolute path, or ``None``.
    """
    python = python or sys.executable
    for name in ("mpiexec", "mpirun"):
        candidate = os.path.join(os.path.dirname(os.path.abspath(python)), name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    for name in ("mpiexec", "mpirun"):
        found = shutil.which(name, path=path)
        if found:
            return found
    return None


def mpi_flavor(mpiexec):
    """``"hydra"`` (MPICH, Intel MPI), ``"openmpi"`` or ``"unknown"``."""
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                             timeout=20)
        text = (out.stdout + out.stderr).lower()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if "hydra" in text or "mpich" in text or "intel" in text:
        return "hydra"
    if "open mpi" in text or "open-mpi" in text or "openrte" in text or "prrte" in text:
        return "openmpi"
    return "unknown"


def parse_args(argv):
    """Splits ``argv`` into ``(options dict, python argv)``.

    Raises:
        LaunchError: a missing or bad option value, or no script.
    """
    opts = {"n": None, "hostfile": None, "hosts": None, "mpiexec": None, "mpi_args": [],
            "dry_run": False}
    i = 0
    argv = list(argv)

    def value(flag):
        if i + 1 >= len(argv):
            raise LaunchError(f"{flag} needs a value\n{USAGE}")
        return argv[i + 1]

    while i < len(argv):
        a = argv[i]
        if a in ("-n", "-np", "--np"):
            raw = value(a)
            try:
                opts["n"] = int(raw)
            except ValueError:
                raise LaunchError(f"{a} must be a positive int, got {raw!r}") from None
            if opts["n"] < 1:
                raise LaunchError(f"{a} must be a positive int, got {raw!r}")
            i += 2
        elif a in ("--hostfile", "-f", "--machinefile"):
            opts["hostfile"] = value(a)
            i += 2
        elif a in ("--hosts", "--host", "-H"):
            opts["hosts"] = value(a)
            i += 2
        elif a == "--mpiexec":
            opts["mpiexec"] = value(a)
            i += 2
        elif a == "--mpi-arg":
            opts["mpi_args"].append(value(a))
            i += 2
        elif a == "--dry-run":
            opts["dry_run"] = True
            i += 1
        elif a in ("-h", "--help"):
            raise LaunchError(USAGE)
        elif a == "--":
            i += 1
            break
        elif a.startswith("-") and a != "-m":
            raise LaunchError(f"unknown option {a!r} (options after the script go to the "
                              f"script)\n{USAGE}")
        else:
            break
    rest = argv[i:]
    if opts["n"] is None:
        raise LaunchError(f"-n N (the number of workers) is required\n{USAGE}")
    if not rest or (rest[0] == "-m" and len(rest) < 2):
        raise LaunchError(f"no script to run\n{USAGE}")
    return opts, rest


def build_command(opts, rest, mpiexec, flavor, python=None):
    """The ``mpiexec`` command line for parsed options."""
    cmd = [mpiexec, "-n", str(opts["n"])]
    if opts["hostfile"]:
        cmd += (["--hostfile", opts["hostfile"]] if flavor == "openmpi"
                else ["-f", opts["hostfile"]])
    if opts["hosts"]:
        cmd += (["--host", opts["hosts"]] if flavor == "openmpi"
                else ["-hosts", opts["hosts"]])
    cmd += opts["mpi_args"]
    cmd += [python or sys.executable] + rest
    return cmd


def main(argv=None):
    """Entry point of ``estimator-npu-run``; returns an exit status on error."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts, rest = parse_args(argv)
        mpiexec = opts["mpiexec"] or find_mpiexec()
        if mpiexec is None:
            raise LaunchError(
                f"estimator-npu-run: no mpiexec found next to {sys.executable} or on PATH. "
                "Install the mpi extra (pip install 'estimator-npu[mpi]', which brings the "
                "mpich wheel and its mpiexec) or pass --mpiexec PATH.")
        flavor = mpi_flavor(mpiexec) if (opts["hostfile"] or opts["hosts"]) else "hydra"
        cmd = build_command(opts, rest, mpiexec, flavor)
    except LaunchError as e:
        print(str(e), file=sys.stderr)
        return 2
    if opts["dry_run"]:
        print(" ".join(cmd))
        return 0
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(cmd[0], cmd)
    except OSError as e:
        print(f"estimator-npu-run: cannot run {cmd[0]}: {e}", file=sys.stderr)
        return 127
    return 0  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main())

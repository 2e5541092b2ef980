"""Runs an unmodified TF1 / npu_bridge script on estimator_npu::

    python -m estimator_npu.run train.py --steps 100      # or: estimator-npu run train.py ...

The script runs as ``__main__`` with ``sys.argv = [SCRIPT, ARGS...]`` and its folder first
on ``sys.path``, exactly as ``python SCRIPT.py ARGS...`` would run it, except that
``tensorflow``, ``tensorflow.compat.v1``, ``tensorflow.python.*``, ``tensorflow.contrib.*``,
``npu_bridge.*`` and ``hccl.*`` import as estimator_npu (``estimator_npu.compat.install``).
Its exit status is the script's (``sys.exit(n)``, ``tf.app.run``); an uncaught exception
prints the traceback Python would print (from the script's frame down) and exits with 1.
"""
import io
import os
import sys
import types

USAGE = "usage: estimator-npu run SCRIPT.py [ARGS...]   (or python -m estimator_npu.run ...)"


def _print_script_traceback(script, exc):
    """Prints ``exc`` as Python would for the script: the frames of this runner are left
    out."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != script:
        tb = tb.tb_next
    if tb is not None:
        exc = exc.with_traceback(tb)
    sys.excepthook(type(exc), exc, exc.__traceback__)


def _run_as_main(path):
    """Executes the file ``path`` as the ``__main__`` module (what ``python path`` does)."""
    with io.open_code(path) as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = __builtins__
    module.__spec__ = None
    module.__loader__ = None
    sys.modules["__main__"] = module
    exec(code, module.__dict__)


def main(argv=None, prog="estimator-npu run"):
    """Runs ``argv[0]`` (default ``sys.argv[1:]``) as a script; returns its exit status, or
    2 (with a one-line message) when there is no script to run."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    script = argv[0]
    if not os.path.isfile(script):
        why = "is a directory" if os.path.isdir(script) else "No such file"
        print(f"{prog}: can't open file '{script}': {why}", file=sys.stderr)
        return 2
    from estimator_npu import compat
    compat.install()
    sys.argv = [script] + argv[1:]
    # As ``python SCRIPT.py``: __file__ (and traceback paths) absolute, argv[0] as given.
    path = os.path.abspath(script)
    sys.path[0:1] = [os.path.dirname(path)]
    try:
        _run_as_main(path)
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001 - reported as Python reports it
        _print_script_traceback(path, e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(prog="python -m estimator_npu.run"))

"""The ``estimator-npu`` command: train or evaluate a model-zoo example.

::

    estimator-npu list                                    # the models, one line each
    estimator-npu train mlp --steps 300 --model_dir /tmp/mlp
    estimator-npu evaluate mlp --model_dir /tmp/mlp       # the latest checkpoint there
    estimator-npu train lenet --help                      # the model's own flags
    estimator-npu run train.py --steps 100                # an unmodified TF1 script

``train <model> [flags]`` runs ``model_zoo.<model>.main(["--mode", "train", *flags], prog)``
(train, then evaluate on the test split) and ``evaluate`` the same with ``--mode evaluate``;
the flags are the model's (``--model_dir``, ``--iterations_per_loop``, ``--precision_mode``,
``--loss_scale``, ``--steps``, ``--data_dir``, ...). A model is a module of the
``model_zoo`` package that defines ``model_fn``, ``main`` and ``STATED_ACCURACY``; the
list is found by reading the modules' source, without importing (so without running) them.
"""
import ast
import difflib
import importlib
import importlib.util
import pathlib
import sys

COMMANDS = ("train", "evaluate", "list", "explain", "run", "benchmark")
_REQUIRED = {"model_fn", "main", "STATED_ACCURACY"}

USAGE = """\
usage: estimator-npu train <model> [flags]     train, then evaluate on the test split
       estimator-npu evaluate <model> [flags]  evaluate the checkpoint in --model_dir
       estimator-npu list                      the available models
       estimator-npu run SCRIPT.py [ARGS...]   run a TF1 / npu_bridge script unmodified
       estimator-npu <train|evaluate> <model> --help   the model's flags
       estimator-npu benchmark [--dataset fashion_mnist] [--models a,b]  train the
                                               presets, write docs/results.md + curves
       estimator-npu explain <script.py> [args]  run a script, printing each execution
                                               plan its sessions compile (to stderr)
"""


class UnknownModelError(ValueError):
    """The named model is not in ``model_zoo``."""


def _model_zoo_dir():
    spec = importlib.util.find_spec("model_zoo")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the model_zoo package is not importable: install estimator-npu "
                          "(pip install .) or run from a checkout of the project")
    return pathlib.Path(list(spec.submodule_search_locations)[0])


def _describe(path):
    """The first docstring line of a model module, or ``None`` if it is not a model."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    if not _REQUIRED <= names:
        return None
    doc = ast.get_docstring(tree) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def available_models():
    """Returns ``{name: one-line description}`` of the model-zoo models, sorted by name."""
    models = {}
    for path in sorted(_model_zoo_dir().glob("*.py")):
        if path.stem.startswith("_"):
            continue
        description = _describe(path)
        if description is not None:
            models[path.stem] = description
    return models


def load_model(name):
    """Imports ``model_zoo.<name>``.

    Raises:
        UnknownModelError: ``name`` is not one of ``available_models()``; the message names
            the available ones (and the closest match).
    """
    models = available_models()
    if name not in models:
        close = difflib.get_close_matches(name, list(models), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise UnknownModelError(f"unknown model '{name}'{hint}; available models: "
                                f"{', '.join(models)}")
    return importlib.import_module(f"model_zoo.{name}")


def _list(out):
    models = available_models()
    width = max((len(n) for n in models), default=0)
    print("models (estimator-npu train <model> --help for its flags):", file=out)
    for name, description in models.items():
        print(f"  {name:<{width}}  {description}", file=out)


def main(argv=None):
    """Runs the command line ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        _list(sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(f"estimator-npu: unknown command '{command}'; commands: "
              f"{', '.join(COMMANDS)}\n\n{USAGE}", file=sys.stderr)
        return 2
    if command == "list":
        _list(sys.stdout)
        return 0
    if command == "benchmark":
        from model_zoo import accuracy_benchmark
        return accuracy_benchmark.main(rest, prog="estimator-npu benchmark")
    if command == "explain" and rest and rest[0] not in ("-h", "--help"):
        return _explain(rest[0], rest[1:])
    if command == "run":
        from estimator_npu import run
        return run.main(rest)
    if not rest or rest[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if rest else sys.stderr)
        _list(sys.stdout if rest else sys.stderr)
        return 0 if rest else 2
    name, flags = rest[0], rest[1:]
    if any(f == "--mode" or f.startswith("--mode=") for f in flags):
        print(f"estimator-npu: --mode is set by the command ('{command}'); leave it out",
              file=sys.stderr)
        return 2
    try:
        module = load_model(name)
    except UnknownModelError as e:
        print(f"estimator-npu: {e}", file=sys.stderr)
        return 2
    return module.main(["--mode", command] + flags, prog=f"estimator-npu {command} {name}")


def _explain(script, args):
    """Runs ``script`` as ``__main__`` with every compiled plan printed to stderr."""
    import runpy
    from estimator_npu.engine import session
    old_argv, old_to = sys.argv, session.EXPLAIN_TO
    sys.argv = [script] + list(args)
    session.EXPLAIN_TO = sys.stderr
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv, session.EXPLAIN_TO = old_argv, old_to
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Loads a case module of the test suite by its path under the checkout (the recorders run
as plain scripts, with this folder first on sys.path: ``from _cases import load``). The
case modules hold the graphs both TF and estimator_npu build; they import no test
framework."""
import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:       # case modules import shared helpers as tests.<name>
    sys.path.insert(0, str(ROOT))


def load(relpath):
    """The module at ``ROOT/relpath`` (for example ``tests/engine/ctrlflow_cases.py``)."""
    path = ROOT / relpath
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

"""The op table is explicit data (STYLE.md §D, §E.1): each op family exports an
``OpFamily`` (``OPS``); importing a family module registers nothing; the engine registers
its ``FAMILIES`` in one place and each layer above registers its own from its package
``__init__``; ``registry.register`` still adds a single op for extensions."""
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import ops, registry

ROOT = pathlib.Path(__file__).resolve().parents[2]
PKG = ROOT / "estimator_npu"
# Op constructors that take the op type as their first argument.
_OP_TYPE_LITERAL = re.compile(
    r"\b(?:make_op|make_tensor|make_tensors|create_op|_binary|_unary)\(\s*\"([A-Za-z0-9_]+)\"")

_FAMILY_LINE = re.compile(r"^OPS = (?:registry\.)?OpFamily\(__name__\)", re.M)


def _run_python(code):
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=240, env={"PYTHONPATH": str(ROOT),
                                                       "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _family_files():
    """Every module of the package that defines an op family (``OPS = OpFamily(...)``)."""
    return sorted(p for p in PKG.rglob("*.py") if _FAMILY_LINE.search(p.read_text()))


def _module_name(path):
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _literal_op_types(paths):
    return {t for p in paths for t in _OP_TYPE_LITERAL.findall(p.read_text())}


def test_engine_alone_builds_a_table_of_its_own_families():
    # Import the engine without the package __init__ (which imports every layer): the
    # table then holds exactly the engine's families, and no layer above was imported.
    out = _run_python(f"""
import sys, types
pkg = types.ModuleType("estimator_npu")
pkg.__path__ = [{str(PKG)!r}]
sys.modules["estimator_npu"] = pkg
import estimator_npu.engine
from estimator_npu.engine import ops, registry
above = sorted(n for n in sys.modules if n.startswith("estimator_npu.")
               and n.split(".")[1] not in ("engine", "utils", "errors"))
assert not above, above
fams = registry.families()
assert sorted(fams) == sorted(m.__name__ for m in ops.FAMILIES), sorted(fams)
for m in ops.FAMILIES:
    assert fams[m.__name__] == sorted(m.OPS.types()), m.__name__
    assert all(registry.get(d.type) is d for d in m.OPS)
print(" ".join(registry.registered_types()))
""")
    engine_types = set(out.split())
    used = _literal_op_types((PKG / "engine").rglob("*.py"))
    assert used and not used - engine_types, sorted(used - engine_types)
    assert "MatMul" in engine_types and "IteratorGetNext" not in engine_types


def test_every_family_module_is_registered_and_every_op_type_used_is_in_the_table():
    import importlib
    files = _family_files()
    assert len(files) >= 30, files  # engine families and the layers above
    engine = {m.__name__ for m in ops.FAMILIES}
    for path in files:
        name = _module_name(path)
        module = importlib.import_module(name)
        assert isinstance(module.OPS, registry.OpFamily) and module.OPS.name == name
        assert len(module.OPS) > 0, name
        unregistered = [d.type for d in module.OPS if registry.get(d.type) is not d]
        assert not unregistered, f"{name}: defined but not registered: {unregistered}"
        assert (name in engine) == name.startswith("estimator_npu.engine."), name
    owners = {registry.get(t).family for t in registry.registered_types()}
    assert owners <= {_module_name(p) for p in files}, owners
    used = _literal_op_types(PKG.rglob("*.py"))
    missing = sorted(t for t in used if t not in registry.registered_types())
    assert not missing, f"op types built somewhere but absent from the table: {missing}"


def test_importing_a_family_module_registers_nothing():
    # Execute every family module's source again as a fresh module: it defines its ops
    # (a new OpFamily with the same types) and leaves the table exactly as it was.
    names = [_module_name(p) for p in _family_files()]
    out = _run_python(f"""
import importlib, importlib.util
import estimator_npu
from estimator_npu.engine import registry
before = dict(registry._TABLE)
for name in {names!r}:
    original = importlib.import_module(name)
    spec = importlib.util.spec_from_file_location("_fresh_" + name.replace(".", "_"),
                                                  original.__file__)
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    assert fresh.OPS is not original.OPS
    assert fresh.OPS.types() == original.OPS.types(), name
    assert registry._TABLE == before and all(
        registry._TABLE[t] is d for t, d in before.items()), name
print(len(before))
""")
    assert int(out) == len(registry.registered_types())


def test_register_families_rejects_a_type_another_family_owns(monkeypatch):
    monkeypatch.setattr(registry, "_TABLE", dict(registry._TABLE))
    before = dict(registry._TABLE)
    fam = registry.OpFamily("tests.my_family")
    fam.define("MyFamilyNewOp", kernel=registry.simple(np.negative),
               grad=registry.NOT_DIFFERENTIABLE)
    fam.define("MatMul", kernel=registry.simple(np.matmul), grad=registry.NOT_DIFFERENTIABLE)
    with pytest.raises(ValueError, match="'MatMul' of tests.my_family is already registered "
                                         r"\(by estimator_npu.engine.ops.math_ops\)"):
        registry.register_families([fam])
    assert registry._TABLE == before  # all or nothing
    with pytest.raises(ValueError, match="defined twice"):
        fam.define("MyFamilyNewOp", kernel=None, grad=registry.NOT_DIFFERENTIABLE)
    with pytest.raises(ValueError, match="needs a gradient"):
        fam.define("MyFamilyOther", kernel=None, grad=None)
    with pytest.raises(TypeError, match="OpFamily objects"):
        registry.register_families([ops.math_ops])
    registry.register_families([ops.math_ops.OPS])  # the same definitions again: no-op
    assert registry._TABLE == before


def test_register_still_adds_a_single_extension_op(monkeypatch):
    monkeypatch.setattr(registry, "_TABLE", dict(registry._TABLE))
    d = registry.register("MyExtensionTwice", kernel=registry.simple(lambda x: 2 * x),
                          grad=lambda op, dy: [2.0 * dy])
    assert d.family == __name__ and registry.get("MyExtensionTwice") is d
    with pytest.raises(ValueError, match="already registered"):
        registry.register("MyExtensionTwice", kernel=None, grad=registry.NOT_DIFFERENTIABLE)
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([1.0, 3.0])
        y = ops.core.make_tensor("MyExtensionTwice", [x], x.dtype, x.shape)
        dx, = tf.gradients(tf.reduce_sum(y * y), [x])
        with tf.Session() as sess:
            y_val, dx_val = sess.run([y, dx])
    np.testing.assert_allclose(y_val, [2.0, 6.0])
    np.testing.assert_allclose(dx_val, [8.0, 24.0])  # d/dx (2x)^2 = 8x

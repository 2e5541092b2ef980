"""Gradients: a finite-difference check for every case of every op spec file, a coverage
test over the op table, and the semantics of ``tf.gradients``.

The cases come from ``tests/engine/op_specs_*.py`` (each defines ``CASES``); an op type
registered as differentiable without a case there makes ``test_every_differentiable_op_
has_a_case`` fail.
"""
import importlib.util
import pathlib
import sys
import zlib

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.engine import registry

HERE = pathlib.Path(__file__).parent


def _load(path):
    name = "estimator_npu_tests_engine_" + path.stem
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


gradcheck = _load(HERE / "gradcheck.py")
SPEC_FILES = sorted(HERE.glob("op_specs_*.py"))


# Every case also runs with its inputs fed through placeholders of ``[None, ...]`` shape
# ("batch") and of fully unknown shape (``shape=None``, "rank"). A case opts out of a variant
# only with a stated reason: ``unknown_shape_skip={"rank": "why", "batch": "why"}`` (or one
# string for both) in its options, or an entry ``"<file>-<op>-<case>": {...}`` in a spec
# file's ``UNKNOWN_SHAPE_SKIPS`` dict (for cases of another file).
VARIANTS = ("batch", "rank")


def _skip_reasons(options):
    skip = options.get("unknown_shape_skip") or {}
    if isinstance(skip, str):
        skip = {v: skip for v in VARIANTS}
    return skip


def _all_cases():
    cases, variant_cases, opt_outs = [], [], []
    external = {}
    for path in SPEC_FILES:
        external.update(getattr(_load(path), "UNKNOWN_SHAPE_SKIPS", {}))
    for path in SPEC_FILES:
        for entry in _load(path).CASES:
            op_type, case_id, build, make_inputs = entry[:4]
            options = dict(entry[4]) if len(entry) > 4 else {}
            stem = path.stem[len('op_specs_'):]
            skip = dict(_skip_reasons(options))
            skip.update(_skip_reasons({"unknown_shape_skip":
                                       external.get(f"{stem}-{op_type}-{case_id}")}))
            options.pop("unknown_shape_skip", None)
            cases.append(pytest.param(op_type, build, make_inputs, options,
                                      id=f"{stem}-{op_type}-{case_id}"))
            for variant in VARIANTS:
                if variant in skip:
                    opt_outs.append((op_type, variant, skip[variant]))
                    continue
                if options.get("variables"):
                    continue
                opts = dict(options, dynamic=variant)
                variant_cases.append(pytest.param(
                    op_type, build, make_inputs, opts,
                    id=f"{stem}-{op_type}-{case_id}-{variant}"))
    return cases, variant_cases, opt_outs


CASES, VARIANT_CASES, OPT_OUTS = _all_cases()


def _rng_for(request):
    return np.random.default_rng(zlib.crc32(request.node.callspec.id.encode()))


def _run_case(request, op_type, build, make_inputs, options):
    rng = _rng_for(request)
    inputs = make_inputs(rng)
    checked = gradcheck.check_grads(build, inputs, rng, **options)
    built = {op.type for op in checked.forward_ops}
    assert op_type in built, f"the case built no {op_type} op (built: {sorted(built)})"


@pytest.mark.parametrize("op_type, build, make_inputs, options", CASES)
def test_op_gradient_matches_finite_differences(request, op_type, build, make_inputs,
                                                options):
    _run_case(request, op_type, build, make_inputs, options)


@pytest.mark.parametrize("op_type, build, make_inputs, options", VARIANT_CASES)
def test_op_gradient_with_unknown_static_shapes(request, op_type, build, make_inputs,
                                                options):
    _run_case(request, op_type, build, make_inputs, options)


def test_every_differentiable_op_has_a_case():
    ids = [p.id for p in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids: " + str(
        sorted({i for i in ids if ids.count(i) > 1}))
    covered = {p.values[0] for p in CASES}
    types = registry.registered_types()
    unknown = sorted(covered - set(types))
    assert not unknown, f"cases name op types that are not registered: {unknown}"
    missing = [t for t in types if registry.get(t).differentiable and t not in covered]
    assert not missing, ("differentiable op types without a gradient case in "
                         f"tests/engine/op_specs_*.py: {missing}")


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_differentiable_op_has_an_unknown_shape_case(variant):
    """Each differentiable op has a case fed through ``variant`` placeholders, or opts out
    of it with a stated reason."""
    bad = [(op, v) for op, v, why in OPT_OUTS if not (isinstance(why, str) and why.strip())]
    assert not bad, f"unknown-shape opt-outs without a reason: {bad}"
    covered = {p.values[0] for p in VARIANT_CASES if p.values[3]["dynamic"] == variant}
    covered |= {op for op, v, _ in OPT_OUTS if v == variant}
    types = registry.registered_types()
    missing = [t for t in types if registry.get(t).differentiable and t not in covered]
    assert not missing, (f"differentiable op types without a {variant!r} unknown-shape "
                         f"gradient case: {missing}")


def test_gradcheck_catches_a_wrong_gradient():
    # A helper that accepts everything proves nothing: a deliberately wrong VJP must fail.
    rng = np.random.default_rng(0)

    def build(x):
        return tf.stop_gradient(tf.sin(x)) + x  # analytic gradient 1, true gradient cos + 1

    with pytest.raises(gradcheck.GradCheckError, match="finite difference"):
        gradcheck.check_grads(build, [rng.standard_normal((3,))], rng)


# ------------------------------------------------------------------ gradients() semantics
@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _run(g, fetches, feed=None):
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_unconnected_x_gets_none(graph):
    x = tf.placeholder(tf.float64, [3])
    z = tf.placeholder(tf.float64, [3])
    y = tf.reduce_sum(x * 2.0)
    gx, gz = tf.gradients(y, [x, z])
    assert gz is None
    np.testing.assert_allclose(_run(graph, gx, {x: np.ones(3)}), [2.0, 2.0, 2.0])


def test_gradients_sum_over_all_paths(graph):
    x = tf.placeholder(tf.float64, [])
    y = x * x + 3.0 * x + tf.sin(x) * x
    (g,) = tf.gradients(y, [x])
    xv = 0.7
    expected = 2 * xv + 3 + np.cos(xv) * xv + np.sin(xv)
    np.testing.assert_allclose(_run(graph, g, {x: xv}), expected, rtol=1e-12)


def test_gradients_of_several_ys_are_summed(graph):
    x = tf.placeholder(tf.float64, [2])
    (g,) = tf.gradients([x * 2.0, tf.reduce_sum(x * x)], [x])
    np.testing.assert_allclose(_run(graph, g, {x: [1.0, -1.0]}), [4.0, 0.0])


def test_single_x_returns_a_list(graph):
    x = tf.placeholder(tf.float64, [2])
    grads = tf.gradients(tf.reduce_sum(x), x)
    assert isinstance(grads, list) and len(grads) == 1


def test_integer_tensors_get_no_gradient(graph):
    i = tf.placeholder(tf.int32, [3])
    x = tf.placeholder(tf.float64, [3])
    y = tf.reduce_sum(tf.cast(i, tf.float64) * x)
    gi, gx = tf.gradients(y, [i, x])
    assert gi is None
    np.testing.assert_allclose(_run(graph, gx, {i: [1, 2, 3], x: np.zeros(3)}), [1, 2, 3])
    assert tf.gradients(tf.cast(i * 2, tf.float64), [i]) == [None]


def test_stop_gradient_blocks(graph):
    x = tf.placeholder(tf.float64, [])
    y = x * tf.stop_gradient(x * 5.0)
    (g,) = tf.gradients(y, [x])
    assert _run(graph, g, {x: 2.0}) == pytest.approx(10.0)
    assert tf.gradients(tf.stop_gradient(x), [x]) == [None]


def test_stop_gradients_argument(graph):
    x = tf.placeholder(tf.float64, [])
    h = x * 3.0
    y = h * x
    (g,) = tf.gradients(y, [x], stop_gradients=[h])
    assert _run(graph, g, {x: 2.0}) == pytest.approx(6.0)


def test_grad_ys_weights_the_output(graph):
    x = tf.placeholder(tf.float64, [3])
    y = x * x
    (g,) = tf.gradients(y, [x], grad_ys=[tf.constant([1.0, 0.0, 2.0], tf.float64)])
    np.testing.assert_allclose(_run(graph, g, {x: [1.0, 2.0, 3.0]}), [2.0, 0.0, 12.0])
    (g2,) = tf.gradients(y, x, grad_ys=np.array([3.0, 3.0, 3.0]))
    np.testing.assert_allclose(_run(graph, g2, {x: [1.0, 2.0, 3.0]}), [6.0, 12.0, 18.0])
    with pytest.raises(ValueError, match="grad_ys"):
        tf.gradients([y, y], [x], grad_ys=[None])


def test_gradient_wrt_intermediate_tensor(graph):
    x = tf.placeholder(tf.float64, [])
    h = x * 2.0
    y = h * h + x
    gh, gx = tf.gradients(y, [h, x])
    vh, vx = _run(graph, [gh, gx], {x: 1.5})
    assert vh == pytest.approx(2 * 3.0)       # dy/dh holding x fixed
    assert vx == pytest.approx(2 * 3.0 * 2 + 1)  # total derivative through h
    (only_h,) = tf.gradients(y, [h])
    assert _run(graph, only_h, {x: 1.5}) == pytest.approx(6.0)


def test_gradient_wrt_one_output_of_a_multi_output_op(graph):
    x = tf.placeholder(tf.float64, [4])
    a, b = tf.split(x, 2)
    y = tf.reduce_sum(a * 3.0) + tf.reduce_sum(b * b)
    ga, gx = tf.gradients(y, [a, x])
    va, vx = _run(graph, [ga, gx], {x: [1.0, 2.0, 3.0, 4.0]})
    np.testing.assert_allclose(va, [3.0, 3.0])
    np.testing.assert_allclose(vx, [3.0, 3.0, 6.0, 8.0])


def test_gradient_wrt_variable(graph):
    w = tf.Variable([1.0, 2.0], dtype=tf.float64)
    y = tf.reduce_sum(w * w)
    (g,) = tf.gradients(y, [w])
    np.testing.assert_allclose(_run(graph, g), [2.0, 4.0])


def test_non_differentiable_op_on_the_path_raises_lookup_error(graph):
    x = tf.placeholder(tf.float64, [3])
    y = tf.floormod(x, 2.0) * x
    with pytest.raises(LookupError, match="FloorMod"):
        tf.gradients(y, [x])


def test_non_differentiable_op_off_the_float_path_is_fine(graph):
    # argmax/greater produce integers/booleans: no gradient flows into them.
    x = tf.placeholder(tf.float64, [3])
    y = x * tf.cast(tf.greater(x, 0.0), tf.float64) + tf.cast(tf.argmax(x), tf.float64)
    (g,) = tf.gradients(y, [x])
    np.testing.assert_allclose(_run(graph, g, {x: [1.0, -1.0, 2.0]}), [1.0, 0.0, 1.0])


def test_gradients_of_float32_graph_stay_float32(graph):
    x = tf.placeholder(tf.float32, [2, 2])
    w = tf.Variable(np.ones((2, 2), np.float32))
    y = tf.reduce_mean(tf.nn.relu(tf.matmul(x, w)))
    gx, gw = tf.gradients(y, [x, w])
    assert gx.dtype == tf.float32 and gw.dtype == tf.float32
    assert gx.shape == [2, 2] and gw.shape == [2, 2]


def test_gradient_ops_live_under_the_gradients_name_scope(graph):
    x = tf.placeholder(tf.float64, [2])
    y = tf.reduce_sum(tf.exp(x))
    n = len(graph.get_operations())
    tf.gradients(y, [x])
    new = graph.get_operations()[n:]
    assert new and all(op.name.startswith("gradients/") for op in new)
    tf.gradients(tf.reduce_sum(tf.exp(x)), [x])
    assert graph.get_operations()[-1].name.startswith("gradients_1/")


def test_second_order_gradient(graph):
    x = tf.placeholder(tf.float64, [])
    y = x * x * x
    (g,) = tf.gradients(y, [x])
    (h,) = tf.gradients(g, [x])
    assert _run(graph, h, {x: 2.0}) == pytest.approx(12.0)


@pytest.mark.parametrize("op_type, build, make_inputs, options",
                         [c for c in CASES if not c.values[3].get("variables")])
def test_kernels_never_write_into_their_inputs(op_type, build, make_inputs, options):
    """Forward and backward kernels treat inputs as read-only (the input pipeline hands
    out views of its source arrays, and fed arrays belong to the caller)."""
    rng = np.random.default_rng(zlib.crc32(op_type.encode()))
    inputs = [np.asarray(a, dtype=np.float64) for a in make_inputs(rng)]
    for a in inputs:
        a.setflags(write=False)
    g = tf.Graph()
    with g.as_default():
        phs = [tf.placeholder(tf.float64, a.shape) for a in inputs]
        y = build(*phs)
        grads = [t for t in tf.gradients(tf.reduce_sum(y), phs) if t is not None]
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
        sess.run([y] + grads, dict(zip(phs, inputs)))

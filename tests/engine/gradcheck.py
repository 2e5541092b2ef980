"""Finite-difference gradient checks along random directions (the shared test helper).

``check_grads(build, inputs, rng)`` builds a fresh float64 graph::

    xs = [placeholder(float64, x.shape) for x in inputs]
    y  = build(*xs)
    L  = sum(y * u)                       # u: a fixed random cotangent of y's shape
    gs = tf.gradients(L, xs)

and, for each input ``i`` and a random direction ``v_i``, compares the analytic
directional derivative ``<g_i, v_i>`` with the central difference
``(L(x_i + eps v_i) - L(x_i - eps v_i)) / (2 eps)``. ``L`` is linear in ``y``, so the
difference is taken on ``y`` element by element and then contracted with ``u``: the same
number, with less rounding error. One backward pass per check, never a full Jacobian
(autograd ``check_vjp``, chainer ``check_backward``). ``order=2`` also checks the gradient
of ``M = sum_i <g_i, w_i>`` (Hessian-vector products) the same way.

Op spec modules (``tests/engine/op_specs_*.py``) list cases as::

    CASES = [(op_type, case_id, build, make_inputs[, options]), ...]

where ``build(*input_tensors) -> tensor``, ``make_inputs(rng) -> [float64 arrays]`` and
the optional ``options`` dict holds keyword arguments of ``check_grads`` (``eps``,
``rtol``, ``atol``, ``order``, ``dynamic``, ``variables``). Load this module (tests run
with ``--import-mode=importlib``) with::

    import importlib.util, pathlib, sys
    def _load_gradcheck():
        name = "estimator_npu_tests_engine_gradcheck"
        if name not in sys.modules:
            path = pathlib.Path(__file__).with_name("gradcheck.py")
            spec = importlib.util.spec_from_file_location(name, path)
            sys.modules[name] = module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        return sys.modules[name]
"""
import collections

import numpy as np

import estimator_npu as tf
from estimator_npu.engine import registry

Checked = collections.namedtuple("Checked", ["graph", "forward_ops"])


class GradCheckError(AssertionError):
    """An analytic gradient disagrees with its finite difference (or is malformed)."""


def _placeholder_shape(shape, dynamic):
    if dynamic == "rank":
        return None
    if dynamic == "batch":
        return [None] + list(shape[1:]) if len(shape) else []
    if dynamic:
        return [None] * len(shape)
    return list(shape)


def check_grads(build, inputs, rng, eps=1e-6, rtol=1e-6, atol=1e-8, order=1, dynamic=False,
                variables=False):
    """Checks ``tf.gradients`` of ``sum(build(*xs) * u)`` against central differences.

    Args:
        build: ``build(*tensors) -> tensor`` (float64) building the op under test.
        inputs: list of float64 arrays, the point at which gradients are checked.
        rng: a ``numpy.random.Generator`` for the cotangent and the directions.
        eps: finite-difference step.
        rtol, atol: tolerance of ``|analytic - numeric| <= atol + rtol * |numeric|``.
        order: 1, or 2 to also check second derivatives (gradients of gradients).
        dynamic: feed through placeholders with unknown dims (``True``), an unknown first
            dim (``"batch"``: ``[None, ...]``) or unknown rank (``"rank"``: ``shape=None``)
            so the shape-generic gradient paths are exercised.
        variables: make the inputs ``tf.Variable``s (values set with ``Variable.load``)
            instead of placeholders, differentiating with respect to the variables.

    Returns:
        ``Checked(graph, forward_ops)``: the graph and the ops of the forward pass (the
        inputs and what ``build`` created; not the gradient ops).

    Raises:
        GradCheckError: a gradient is missing, has the wrong shape or dtype, or disagrees
            with the finite difference.
    """
    inputs = [np.array(x, dtype=np.float64) for x in inputs]
    graph = tf.Graph()
    with graph.as_default():
        n_before = len(graph.get_operations())
        if variables:
            xs = [tf.Variable(np.zeros(x.shape), dtype=tf.float64, name=f"x{i}")
                  for i, x in enumerate(inputs)]
        else:
            xs = [tf.placeholder(tf.float64, _placeholder_shape(x.shape, dynamic),
                                 name=f"x{i}") for i, x in enumerate(inputs)]
        y = tf.convert_to_tensor(build(*xs))
        forward_ops = graph.get_operations()[n_before:]
        if y.dtype != tf.float64:
            raise GradCheckError(f"build() must return a float64 tensor, got {y.dtype.name}")
        other_vars = [v for v in tf.global_variables() if v not in xs]
        init = tf.variables_initializer(other_vars)
        sess = tf.Session(graph=graph)
        try:
            sess.run(init)
            point = _Point(sess, xs, variables)
            _check_static_info(point, forward_ops, inputs)
            y0 = point.run([y], inputs)[0]
            u = rng.standard_normal(np.shape(y0))
            loss = tf.reduce_sum(y * tf.constant(u, dtype=tf.float64))
            grads = tf.gradients(loss, xs)
            _check_directional(point, [y], [u], grads, inputs, rng, eps, rtol, atol, "")
            if order >= 2:
                present = [(g, x) for g, x in zip(grads, inputs) if g is not None]
                ws = [rng.standard_normal(x.shape) for _, x in present]
                m = tf.add_n([tf.reduce_sum(g * tf.constant(w, dtype=tf.float64))
                              for (g, _), w in zip(present, ws)])
                grads2 = tf.gradients(m, xs)
                _check_directional(point, [g for g, _ in present], ws, grads2, inputs, rng,
                                   eps, rtol, atol, "second-order ", allow_none=True)
        finally:
            sess.close()
    return Checked(graph, forward_ops)


class _Point:
    """Evaluates tensors at a given value of the inputs (fed, or loaded into variables)."""

    def __init__(self, sess, xs, variables):
        self.sess, self.xs, self.variables = sess, xs, variables

    def run(self, tensors, values):
        if self.variables:
            for x, val in zip(self.xs, values):
                x.load(val, self.sess)
            return self.sess.run(tensors)
        return self.sess.run(tensors, dict(zip(self.xs, values)))


def _check_static_info(point, ops, inputs):
    """Every forward output's runtime dtype and shape agree with its static ones (stateful
    ops such as variable initializers are left alone: fetching them would run them; ops
    inside a branch or loop body have values only while it runs)."""
    tensors = [t for op in ops if not registry.get(op.type).stateful and
               getattr(op, "_frame", None) is None for t in op.outputs]
    for t, value in zip(tensors, point.run(tensors, inputs)):
        value = np.asarray(value)
        if value.dtype != t.dtype.np or not t.shape.is_compatible_with(value.shape):
            raise GradCheckError(f"{t.name} ({t.op.type}) is declared {t.dtype.name} {t.shape} "
                                 f"but evaluated to {value.dtype} {value.shape}")


def _check_directional(point, outs, cots, grads, inputs, rng, eps, rtol, atol, what,
                       allow_none=False):
    """For each input, compares ``<grad_i, v>`` with the central difference of
    ``sum_j <cot_j, out_j>`` along ``v`` (all other inputs held fixed)."""
    grad_tensors = [g for g in grads if g is not None]
    for i, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            if not allow_none:
                raise GradCheckError(f"{what}gradient for input {i} is None")
            continue
        if g.dtype != tf.float64:
            raise GradCheckError(f"{what}gradient for input {i} has dtype {g.dtype.name}, "
                                 "expected float64")
        if not g.shape.is_compatible_with(x.shape):
            raise GradCheckError(f"{what}gradient for input {i} has static shape {g.shape}, "
                                 f"incompatible with input shape {x.shape}")
    values = point.run(grad_tensors, inputs) if grad_tensors else []
    by_tensor = dict(zip(map(id, grad_tensors), values))
    for i, x in enumerate(inputs):
        v = rng.standard_normal(x.shape)
        g = grads[i]
        if g is None:
            analytic = 0.0
        else:
            gv = by_tensor[id(g)]
            if np.shape(gv) != x.shape or np.asarray(gv).dtype != np.float64:
                raise GradCheckError(f"{what}gradient for input {i} evaluated to shape "
                                     f"{np.shape(gv)} dtype {np.asarray(gv).dtype}, expected "
                                     f"{x.shape} float64")
            analytic = float(np.sum(gv * v))
        plus = list(inputs)
        minus = list(inputs)
        plus[i] = x + eps * v
        minus[i] = x - eps * v
        hi = point.run(outs, plus)
        lo = point.run(outs, minus)
        numeric = sum(float(np.sum(c * (np.asarray(a) - np.asarray(b))))
                      for c, a, b in zip(cots, hi, lo)) / (2.0 * eps)
        if not abs(analytic - numeric) <= atol + rtol * abs(numeric):
            raise GradCheckError(f"{what}gradient for input {i} (shape {x.shape}): analytic "
                                 f"directional derivative {analytic!r} vs finite difference "
                                 f"{numeric!r} (diff {abs(analytic - numeric):.3g})")

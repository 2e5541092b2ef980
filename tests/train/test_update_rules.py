"""The pure update rules on plain arrays: flat buffers equal per-tensor application, and
a step allocates no parameter-sized memory."""
import tracemalloc

import numpy as np
import pytest

from estimator_npu.train import update_rules as ur

HYPER = {"learning_rate": 0.01, "beta1": 0.9, "beta2": 0.99, "epsilon": 1e-7,
         "momentum": 0.8, "decay": 0.9, "weight_decay_rate": 0.05}
RULES = [ur.GradientDescent(), ur.Momentum(), ur.Momentum(use_nesterov=True), ur.Adam(),
         ur.RMSProp(), ur.RMSProp(centered=True), ur.Adagrad(0.2),
         ur.LAMB(exclude_from_weight_decay=["bias"])]


def _init(rule, param):
    state = rule.init(param)
    state.update({k: np.array(v) for k, v in rule.init_scalars(HYPER).items()})
    return state


@pytest.mark.parametrize("rule", RULES, ids=lambda r: type(r).__name__)
def test_flat_equals_per_tensor(rule):
    rng = np.random.default_rng(0)
    names, shapes = ["dense/kernel", "dense/bias", "out/kernel"], [(4, 3), (3,), (3, 2)]
    layout = ur.Layout(names, shapes)
    flat = rng.standard_normal(layout.size)
    parts = [v.copy() for v in layout.views(flat)]
    flat_state = _init(rule, flat)
    part_states = [_init(rule, p) for p in parts]
    work = rule.workspace(flat, layout)
    for _ in range(4):
        g = rng.standard_normal(layout.size)
        rule.update(flat, g, flat_state, HYPER, work)
        rule.finish(flat_state, HYPER)
        for name, p, s, gv in zip(names, parts, part_states, layout.views(g)):
            rule.update(p, gv.copy(), s, HYPER, rule.workspace(p, ur.Layout([name], [p.shape])))
            rule.finish(s, HYPER)
    for view, p in zip(layout.views(flat), parts):
        np.testing.assert_allclose(view, p, rtol=1e-12, atol=1e-15)
    for name, _ in rule.slots:
        for view, s in zip(layout.views(flat_state[name]), part_states):
            np.testing.assert_allclose(view, s[name], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: type(r).__name__)
def test_update_allocates_no_parameter_sized_memory(rule):
    n = 200_000
    rng = np.random.default_rng(1)
    layout = ur.Layout(["a", "bias"], [(n - 10,), (10,)])
    param, grad = rng.standard_normal(n), rng.standard_normal(n)
    state = _init(rule, param)
    work = rule.workspace(param, layout)
    rule.update(param, grad, state, HYPER, work)
    tracemalloc.start()
    try:
        rule.update(param, grad, state, HYPER, work)
        rule.finish(state, HYPER)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < n * 8 // 20, f"{type(rule).__name__} allocated {peak} bytes"


def test_rule_without_workspace_and_layout_helpers():
    p, g = np.ones(3), np.full(3, 2.0)
    ur.GradientDescent().update(p, g, {}, {"learning_rate": 0.5})
    np.testing.assert_array_equal(p, [0.0, 0.0, 0.0])
    lay = ur.Layout(["x", "y"], [(2, 2), ()])
    assert (lay.size, lay.offsets, lay.sizes) == (5, [0, 4], [4, 1])
    np.testing.assert_array_equal(lay.segment_ids(), [0, 0, 0, 0, 1])
    assert [v.shape for v in lay.views(np.arange(5.0))] == [(2, 2), ()]
    assert ur.RMSProp().init(np.zeros(2))["rms"].tolist() == [1.0, 1.0]
    assert ur.Adam().init_scalars({"beta1": 0.9, "beta2": 0.999}) == {
        "beta1_power": 0.9, "beta2_power": 0.999}

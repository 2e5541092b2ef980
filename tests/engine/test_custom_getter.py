"""TF1's custom getters: ``get_variable(custom_getter=)`` and ``variable_scope(custom_getter=)``."""
import pytest

import estimator_npu as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as g:
        yield g


def _recording(tag, calls, **changes):
    def getter(getter, name, *args, **kwargs):
        calls.append((tag, name, sorted(kwargs)))
        kwargs.update(changes)
        return getter(name, *args, **kwargs)
    return getter


def test_scope_getters_compose_inner_first_and_see_full_names():
    calls = []
    with tf.variable_scope("a", custom_getter=_recording("outer", calls)):
        with tf.variable_scope("b", custom_getter=_recording("inner", calls, trainable=False)):
            v = tf.get_variable("w", [2])
        u = tf.get_variable("u", [3])
    assert [c[:2] for c in calls] == [("inner", "a/b/w"), ("outer", "a/b/w"),
                                      ("outer", "a/u")]
    assert {"shape", "dtype", "initializer", "regularizer", "reuse", "trainable",
            "collections"} <= set(calls[0][2])
    assert v.name == "a/b/w:0" and v not in tf.trainable_variables()
    assert u in tf.trainable_variables()
    # a plain scope below inherits its parent's getter
    with tf.variable_scope("a", reuse=True):
        with tf.variable_scope("b"):
            pass
    with tf.variable_scope("c"):
        tf.get_variable("free", [1])
    assert len(calls) == 3


def test_get_variable_custom_getter_takes_precedence_and_can_rename_or_replace():
    calls = []
    with tf.variable_scope("s", custom_getter=_recording("scope", calls)):
        v = tf.get_variable("w", [2], custom_getter=lambda getter, name, *a, **k:
                            getter(name + "_renamed", *a, **k))
    assert v.name == "s/w_renamed:0" and calls == []
    marker = object()
    assert tf.get_variable("x", [1], custom_getter=lambda getter, **k: marker) is marker


def test_getter_can_add_collections_and_reuse_is_passed():
    seen = []

    def model_var(getter, name, *args, **kwargs):
        seen.append(kwargs["reuse"])
        kwargs["collections"] = list(kwargs["collections"] or [tf.GraphKeys.GLOBAL_VARIABLES]) \
            + [tf.GraphKeys.MODEL_VARIABLES]
        return getter(name, *args, **kwargs)

    with tf.variable_scope("m", custom_getter=model_var):
        w = tf.get_variable("w", [2, 2], initializer=tf.zeros_initializer())
    with tf.variable_scope("m", reuse=True, custom_getter=model_var):
        assert tf.get_variable("w") is w
    assert seen == [None, True]
    assert tf.get_collection(tf.GraphKeys.MODEL_VARIABLES) == [w]
    assert w in tf.global_variables()


def test_scope_object_reentry_keeps_its_getter_and_layers_use_it():
    calls = []
    with tf.variable_scope("net", custom_getter=_recording("net", calls)) as sc:
        pass
    with tf.variable_scope(sc):
        tf.layers.dense(tf.zeros([1, 3]), 2)
    assert [c[1] for c in calls] == ["net/dense/kernel", "net/dense/bias"]


def test_not_callable_custom_getter_is_rejected():
    with pytest.raises(ValueError, match="custom_getter"):
        with tf.variable_scope("bad", custom_getter=3):
            pass
    with pytest.raises(ValueError, match="custom_getter"):
        tf.get_variable("v", [1], custom_getter="nope")

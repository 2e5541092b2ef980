"""Unit checks of names a second batch of Ascend ModelZoo scripts needed:
``tf.contrib.learn.preprocessing.VocabularyProcessor`` (TF1 contrib semantics: id 0 is the
unknown token, ids in first-seen order, ``min_frequency`` trims and renumbers by count, the
vocabulary freezes after ``fit``, ``save``/``restore`` pickle) and the adapter's
``util.set_graph_exec_config`` (marks the fetch's op, returns the fetch, rejects a bad mode
or fetch as the adapter does)."""
import re

import numpy as np
import pytest

import estimator_npu as tf


def _tok_chars(docs):
    for d in docs:
        yield list(d)


def test_vocabulary_processor_ids_padding_and_freeze(aliases, tmp_path):
    from tensorflow.contrib import learn
    vp = learn.preprocessing.VocabularyProcessor(4)
    ids = np.array(list(vp.fit_transform(["a b c", "a d a e f"])))
    np.testing.assert_array_equal(ids, [[1, 2, 3, 0], [1, 4, 1, 5]])
    assert ids.dtype == np.int64
    assert len(vp.vocabulary_) == 7          # <UNK>, a, b, c, d, e, f
    np.testing.assert_array_equal(list(vp.transform(["b zz a"])), [[2, 0, 1, 0]])
    assert len(vp.vocabulary_) == 7          # frozen: unseen words map to 0, none added
    assert list(vp.reverse([[1, 2, 0]])) == ["a b <UNK>"]
    path = str(tmp_path / "vocab")
    vp.save(path)
    back = learn.preprocessing.VocabularyProcessor.restore(path)
    assert back.max_document_length == 4
    np.testing.assert_array_equal(list(back.transform(["c a"])), [[3, 1, 0, 0]])


def test_vocabulary_processor_min_frequency_trims_and_ranks():
    from estimator_npu.contrib.learn.preprocessing import VocabularyProcessor
    vp = VocabularyProcessor(3, min_frequency=1)
    vp.fit(["x y y", "z y x", "w"])          # y:3, x:2, z:1, w:1
    assert vp.vocabulary_._mapping == {"<UNK>": 0, "y": 1, "x": 2}
    np.testing.assert_array_equal(list(vp.transform(["z x y"])), [[0, 2, 1]])


def test_vocabulary_processor_custom_tokenizer_subclass(aliases):
    from tensorflow.contrib import learn

    class Chars(learn.preprocessing.VocabularyProcessor):
        def __init__(self, n):
            super().__init__(n, 0, None, _tok_chars)
    vp = Chars(5)
    np.testing.assert_array_equal(list(vp.fit_transform(["abca"])), [[1, 2, 3, 1, 0]])


def test_default_tokenizer_splits_words_like_tf1():
    from estimator_npu.contrib.learn.preprocessing import tokenizer
    assert list(tokenizer(["It's a well-known test, OK?"])) == [["It's", "a", "well-known",
                                                                  "test", "OK"]]


def test_set_graph_exec_config_marks_and_returns_the_fetch(aliases):
    from npu_bridge.npu_init import util
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.reduce_sum(x, 1, name="y")
        assert util.set_graph_exec_config(y, dynamic_input=True,
                                          dynamic_inputs_shape_range="data:[4,3]") is y
        assert y.op.get_attr("_graph_dynamic_input") is True
        assert y.op.get_attr("_graph_dynamic_graph_execute_mode") == "dynamic_execute"
        assert y.op.get_attr("_graph_dynamic_inputs_shape_range") == "data:[4,3]"
        z = tf.identity(y, name="z")
        assert util.set_graph_exec_config("z:0") is z.graph.get_tensor_by_name("z:0")
        assert z.op.get_attr("_is_train_graph") is False
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(y, {x: np.ones((2, 3))}), [3.0, 3.0])
        with pytest.raises(ValueError, match=re.escape("dynamic_graph_execute_mode")):
            util.set_graph_exec_config(y, dynamic_graph_execute_mode="eager")
        with pytest.raises(ValueError, match="fetch is invalid"):
            util.set_graph_exec_config(3.0)

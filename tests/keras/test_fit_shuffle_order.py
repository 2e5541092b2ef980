"""Keras ``fit`` draws its sample orders from numpy's global RNG as TF 2.15's
tf.compat.v1 Keras does (``shuffle_cases.py``; golden by ``tools/record_keras_shuffle.py``):
the same History and weights after several shuffled epochs, with validation (TF shuffles
the validation samples too) and with ``shuffle="batch"``, the same RNG state after fit, and
the ``verbose=2`` epoch line's layout (``... - 36ms/epoch - 448us/sample``)."""
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu.keras.engine.training import _epoch_order
from tests.keras import shuffle_cases

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" /
                     "keras_shuffle_tf215.json").read_text())
CASES = ["split_shuffle", "data_batch_shuffle", "shuffle_only", "dropout_validation"]


@pytest.fixture(scope="module")
def ours():
    return shuffle_cases.run(tf)


@pytest.mark.parametrize("case", CASES)
def test_history_and_weights_as_tf(ours, case):
    for key, values in GOLDEN[case]["history"].items():
        np.testing.assert_allclose(ours[case]["history"][key], values, atol=2e-5, err_msg=key)
    np.testing.assert_allclose(ours[case]["weights"], GOLDEN[case]["weights"], atol=2e-4)


@pytest.mark.parametrize("case", CASES)
def test_same_rng_state_and_epoch_lines_as_tf(ours, case):
    assert ours[case]["next_draw"] == GOLDEN[case]["next_draw"]
    assert ours[case]["epoch_lines"] == GOLDEN[case]["epoch_lines"]


def test_batch_shuffle_keeps_whole_batches_and_the_partial_one_last():
    np.random.seed(3)
    order = _epoch_order(11, "batch", 4)
    blocks = order[:8].reshape(2, 4)
    assert sorted(blocks[:, 0].tolist()) == [0, 4]
    assert all((b == np.arange(b[0], b[0] + 4)).all() for b in blocks)
    assert order[8:].tolist() == [8, 9, 10]
    assert _epoch_order(11, False, 4) is None


def test_callback_messages_and_logs_as_tf(ours):
    """The callbacks' verbose lines as TF 2.15's Keras prints them (``\\nEpoch 2: ...``),
    ReduceLROnPlateau's ``lr`` in the History, the same early stop and files."""
    assert ours["callbacks"] == GOLDEN["callbacks"]


def test_model_summary_as_tf(ours):
    """TF 2.15's layout: three columns for a chain, four with ``Connected to`` for a
    model with two inputs, blank rows between layers, totals with their memory size."""
    assert ours["summaries"] == GOLDEN["summaries"]

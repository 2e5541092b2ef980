"""``tf.estimator.inputs.numpy_input_fn`` gives ``model_fn`` what TF 2.15 gives it: static
shapes ``[None, ...]``, or ``[batch_size, ...]`` with ``num_epochs=None``; the arrays'
dtypes; dict labels; rows in order across epoch boundaries without shuffling; every row
once per epoch with shuffling. Goldens: tools/record_numpy_input_goldens.py (configs in
numpy_input_cases.py). TF's shuffled order is not reproducible (the golden's
``shuffle_order_repeats`` is False); ours follows the graph seed."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).resolve().parent
RECORD = json.loads((HERE / "golden" / "numpy_input_tf215.json").read_text())
GOLDEN = RECORD["cases"]
_spec = importlib.util.spec_from_file_location("numpy_input_cases",
                                               HERE / "numpy_input_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    return cases.run_all(tf, str(tmp_path_factory.mktemp("numpy_input")))


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_config_matches_tf(ours, name):
    assert ours[name] == GOLDEN[name], name


def test_golden_covers_the_configs(ours):
    assert set(ours) == set(GOLDEN) == {c[0] for c in cases.CONFIGS}
    # what the recorder saw: the same graph seed gave different shuffled orders in TF
    assert RECORD["shuffle_order_repeats"] is False


def _shuffled_rows(tmp_path, seed, name):
    x, y = cases.data("dict", "array")
    fn = tf.estimator.inputs.numpy_input_fn(x, y, batch_size=4, num_epochs=1, shuffle=True)

    def model_fn(features, labels, mode):
        return tf.estimator.EstimatorSpec(mode, predictions={"row": features["b"]})
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / name),
                                 config=tf.estimator.RunConfig(tf_random_seed=seed))
    return [int(p["row"]) for p in est.predict(fn)]


def test_shuffled_order_follows_the_graph_seed(tmp_path):
    first = _shuffled_rows(tmp_path, 5, "a")
    assert sorted(first) == list(range(cases.N))
    assert _shuffled_rows(tmp_path, 5, "b") == first
    others = [_shuffled_rows(tmp_path, s, f"s{s}") for s in (6, 7, 8)]
    assert any(o != first for o in others)


def test_bad_arguments_are_named():
    x = {"a": np.zeros(3)}
    with pytest.raises(TypeError, match="x must be a dict or array; got list"):
        tf.estimator.inputs.numpy_input_fn([1, 2], shuffle=False)
    with pytest.raises(ValueError, match="x cannot be an empty dict"):
        tf.estimator.inputs.numpy_input_fn({}, shuffle=False)
    with pytest.raises(ValueError, match="y cannot be empty dict"):
        tf.estimator.inputs.numpy_input_fn(x, {}, shuffle=False)
    with pytest.raises(ValueError, match=r"duplicate keys are found in both x and y: \['a'\]"):
        tf.estimator.inputs.numpy_input_fn(x, {"a": np.zeros(3)}, shuffle=False)
    with pytest.raises(ValueError, match="same number of examples.*'w': \\(4,\\)"):
        tf.estimator.inputs.numpy_input_fn(x, {"w": np.zeros(4)}, shuffle=False)

"""``tf.contrib.training.HParams`` (TF's CIFAR-10 Estimator and QuickDraw tutorials build
one from their flags): attributes, TF1's casts on assignment, ``parse`` strings, JSON."""
import json

import pytest

import estimator_npu as tf


def _hp():
    return tf.contrib.training.HParams(learning_rate=0.1, num_layers=3, cell_type="lstm",
                                       batch_norm=False, num_conv=[48, 64], dropout=0.3)


def test_attributes_values_and_casts():
    hp = _hp()
    assert hp.num_layers == 3 and hp.num_conv == [48, 64] and "dropout" in hp
    assert hp.values() == {"learning_rate": 0.1, "num_layers": 3, "cell_type": "lstm",
                           "batch_norm": False, "num_conv": [48, 64], "dropout": 0.3}
    hp.set_hparam("learning_rate", 1)  # int into a float hparam: a float
    assert hp.learning_rate == 1.0 and isinstance(hp.learning_rate, float)
    for name, bad in (("num_layers", 2.5), ("cell_type", 3), ("batch_norm", "true"),
                      ("learning_rate", "fast")):
        with pytest.raises(ValueError, match=f"Could not cast hparam '{name}'"):
            hp.set_hparam(name, bad)
    with pytest.raises(ValueError, match="Must pass a list"):
        hp.set_hparam("num_conv", 3)
    with pytest.raises(ValueError, match="Must not pass a list"):
        hp.set_hparam("num_layers", [3])
    with pytest.raises(KeyError):
        hp.set_hparam("missing", 1)
    hp.add_hparam("is_chief", True)
    with pytest.raises(ValueError, match="reserved: is_chief"):
        hp.add_hparam("is_chief", False)
    hp.del_hparam("is_chief")
    assert "is_chief" not in hp and hp.get("is_chief", 7) == 7
    assert hp.get("num_layers", 1) == 3
    with pytest.raises(ValueError, match="incompatible with default"):
        hp.get("num_layers", "x")
    assert repr(hp).startswith("HParams([('batch_norm', False), ('cell_type', 'lstm')")


def test_parse_and_json():
    hp = _hp().parse("learning_rate=0.5, num_layers=4,cell_type=gru,num_conv=[1,2,3],"
                     "batch_norm")
    assert (hp.learning_rate, hp.num_layers, hp.cell_type, hp.num_conv, hp.batch_norm) == \
        (0.5, 4, "gru", [1, 2, 3], True)
    assert hp.parse("batch_norm=false").batch_norm is False
    with pytest.raises(ValueError, match="Unknown hyperparameter type for depth"):
        hp.parse("depth=3")
    with pytest.raises(ValueError, match="Could not cast hparam 'num_layers'"):
        hp.parse("num_layers=2.5")
    with pytest.raises(ValueError, match="only bool hyperparameters may be given bare"):
        hp.parse("num_layers")
    again = _hp().parse_json(hp.to_json())
    assert again.values() == hp.values()
    assert json.loads(hp.to_json(sort_keys=True))["num_conv"] == [1, 2, 3]
    assert _hp().override_from_dict({"dropout": 0}).dropout == 0.0

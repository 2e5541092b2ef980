"""Tests for estimator_npu.utils.validation."""

import numpy as np
import pytest

from estimator_npu.utils import validation as v


def test_check_type():
    assert v.check_type("x", 3, int) == 3
    assert v.check_type("x", "s", (int, str)) == "s"
    with pytest.raises(TypeError, match=r"^model_dir must be str, got int: 5$"):
        v.check_type("model_dir", 5, str)
    with pytest.raises(TypeError, match=r"^x must be int or float, got str: 'a'$"):
        v.check_type("x", "a", (int, float))
    with pytest.raises(TypeError, match=r"^x must be int, float or list, got NoneType: None$"):
        v.check_type("x", None, (int, float, list))


def test_check_int():
    assert v.check_int("n", np.int64(4)) == 4
    assert type(v.check_int("n", np.int32(4))) is int
    for bad in (True, np.bool_(False), 1.0, "1", None):
        with pytest.raises(TypeError, match=r"^n must be an int, got "):
            v.check_int("n", bad)


def test_check_positive_int():
    assert v.check_positive_int("iterations_per_loop", 10) == 10
    assert v.check_positive_int("steps", 0, allow_zero=True) == 0
    with pytest.raises(ValueError, match=r"^iterations_per_loop must be a positive int \(> 0\), "
                                         r"got 0$"):
        v.check_positive_int("iterations_per_loop", 0)
    with pytest.raises(ValueError, match=r"must be a non-negative int \(>= 0\), got -1$"):
        v.check_positive_int("steps", -1, allow_zero=True)
    with pytest.raises(TypeError, match=r"^iterations_per_loop must be an int, got bool: True$"):
        v.check_positive_int("iterations_per_loop", True)
    with pytest.raises(TypeError, match=r"got float: 2.0$"):
        v.check_positive_int("iterations_per_loop", 2.0)


def test_check_non_negative_int():
    assert v.check_non_negative_int("save_summary_steps", 0) == 0
    assert v.check_non_negative_int("save_summary_steps", np.uint8(7)) == 7
    with pytest.raises(ValueError, match=r"^save_summary_steps must be a non-negative int .*-3$"):
        v.check_non_negative_int("save_summary_steps", -3)
    with pytest.raises(TypeError, match="got bool"):
        v.check_non_negative_int("save_summary_steps", False)


def test_check_positive_number():
    assert v.check_positive_number("loss_scale", 2) == 2.0
    assert type(v.check_positive_number("lr", np.float32(0.5))) is float
    assert v.check_positive_number("lr", 0, allow_zero=True) == 0.0
    with pytest.raises(ValueError, match=r"^lr must be a finite number > 0, got 0$"):
        v.check_positive_number("lr", 0)
    with pytest.raises(ValueError, match=r"got inf$"):
        v.check_positive_number("lr", float("inf"))
    with pytest.raises(ValueError, match=r"got nan$"):
        v.check_positive_number("lr", float("nan"), allow_zero=True)
    with pytest.raises(TypeError, match=r"^lr must be a number \(int or float\), got bool"):
        v.check_positive_number("lr", True)
    with pytest.raises(TypeError, match=r"got str: '1'$"):
        v.check_positive_number("lr", "1")


def test_check_bool():
    assert v.check_bool("mix_compile_mode", False) is False
    assert v.check_bool("mix_compile_mode", np.bool_(True)) is True
    for bad in (0, 1, "True", None):
        with pytest.raises(TypeError, match=r"^mix_compile_mode must be a bool, got "):
            v.check_bool("mix_compile_mode", bad)


def test_check_one_of():
    modes = ["force_fp32", "allow_mix_precision"]
    assert v.check_one_of("precision_mode", np.str_("force_fp32"), modes) == "force_fp32"
    assert type(v.check_one_of("precision_mode", np.str_("force_fp32"), modes)) is str
    with pytest.raises(ValueError, match=r"^precision_mode must be one of \['force_fp32', "
                                         r"'allow_mix_precision'\], got 'fp64'$"):
        v.check_one_of("precision_mode", "fp64", modes)
    with pytest.raises(ValueError, match="got True"):
        v.check_one_of("x", True, [1, 2])
    with pytest.raises(ValueError, match="got 1"):
        v.check_one_of("x", 1, [True])
    with pytest.raises(ValueError, match=r"got array"):
        v.check_one_of("x", np.array([1, 2]), [1, 2])
    assert v.check_one_of("x", None, (None, "a")) is None


def test_check_callable():
    assert v.check_callable("model_fn", len) is len
    with pytest.raises(TypeError, match=r"^model_fn must be callable, got int: 3$"):
        v.check_callable("model_fn", 3)

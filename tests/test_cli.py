"""``estimator-npu train|evaluate <model> [flags]`` and ``estimator-npu list``."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import estimator_npu as tf

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from estimator_npu import cli  # noqa: E402

MODELS = ["bert", "cnn", "lenet", "lstm_rows", "mlp", "resnet", "softmax_estimator"]


def test_lists_the_model_zoo_models_without_importing_them(capsys):
    before = set(sys.modules)
    assert list(cli.available_models()) == MODELS
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for name in MODELS:
        assert re.search(rf"^  {name} +\S", out, re.M), out
    # scripts that train at import time, helpers and the sess.run example are not models
    for name in ("mnist_softmax_sessrun", "mnist_softmax_frozen", "mnist_softmax", "common",
                 "accuracy_benchmark"):
        assert f"  {name} " not in out
    assert not {m for m in set(sys.modules) - before if m.startswith("model_zoo.")}


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["help"], ["train", "--help"]])
def test_help_lists_commands_and_models(argv, capsys):
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "estimator-npu train <model>" in out and "estimator-npu evaluate <model>" in out
    assert all(name in out for name in MODELS)


@pytest.mark.parametrize("argv", [[], ["train"], ["evaluate"]])
def test_missing_arguments_print_usage_and_fail(argv, capsys):
    assert cli.main(argv) == 2
    assert "usage: estimator-npu" in capsys.readouterr().err


def test_unknown_model_names_the_available_ones(capsys):
    assert cli.main(["train", "vgg16"]) == 2
    err = capsys.readouterr().err
    assert "unknown model 'vgg16'" in err
    assert "available models: " + ", ".join(MODELS) in err
    assert cli.main(["evaluate", "lenett"]) == 2
    assert "did you mean 'lenet'?" in capsys.readouterr().err
    with pytest.raises(cli.UnknownModelError, match="available models"):
        cli.load_model("common")


def test_unknown_command(capsys):
    assert cli.main(["fit", "mlp"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'fit'" in err and "train, evaluate, list" in err


def test_mode_is_set_by_the_command(capsys):
    assert cli.main(["train", "mlp", "--mode", "evaluate"]) == 2
    assert "--mode is set by the command" in capsys.readouterr().err


def test_model_help_shows_the_command_and_the_common_flags(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["train", "lenet", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: estimator-npu train lenet")
    for flag in ("--model_dir", "--iterations_per_loop", "--precision_mode", "--loss_scale",
                 "--steps", "--data_dir"):
        assert flag in out


def test_bad_model_flag_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["train", "mlp", "--precision_mode", "fp8"])
    assert e.value.code == 2
    assert "invalid choice: 'fp8'" in capsys.readouterr().err


def test_train_then_evaluate(tmp_path, capsys):
    model_dir = str(tmp_path)
    assert cli.main(["train", "softmax_estimator", "--model_dir", model_dir, "--steps", "50",
                     "--iterations_per_loop", "5"]) == 0
    trained = re.search(r"Test accuracy: ([0-9.]+)", capsys.readouterr().out).group(1)
    assert float(trained) > 0.8
    assert cli.main(["evaluate", "softmax_estimator", "--model_dir", model_dir]) == 0
    out = capsys.readouterr().out
    assert f"Test accuracy: {trained}" in out and "at global step 50" in out
    assert "Trained" not in out  # evaluate does not train


def test_evaluate_without_a_checkpoint_fails(tmp_path, capsys):
    assert cli.main(["evaluate", "mlp", "--model_dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "needs a checkpoint in --model_dir" in err and str(tmp_path) in err


def test_evaluate_without_model_dir_says_what_to_pass(capsys):
    assert cli.main(["evaluate", "mlp"]) == 2
    err = capsys.readouterr().err
    assert "needs --model_dir" in err and "None" not in err


def _one_line_error(capsys, argv):
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_expected_errors_print_one_line_and_exit_2(tmp_path, capsys):
    """A checkpoint of another model in --model_dir: one line, exit 2; --debug raises."""
    model_dir = str(tmp_path / "m")
    assert cli.main(["train", "softmax_estimator", "--model_dir", model_dir,
                     "--steps", "5"]) == 0
    capsys.readouterr()
    err = _one_line_error(capsys, ["evaluate", "mlp", "--model_dir", model_dir])
    assert "NotFoundError" in err and "--debug" in err
    with pytest.raises(tf.errors.NotFoundError):
        cli.main(["evaluate", "mlp", "--model_dir", model_dir, "--debug"])
    err = _one_line_error(capsys, ["train", "mlp", "--data_dir", str(tmp_path / "none")])
    assert "MNIST files not found" in err


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "abc"])
def test_learning_rate_is_validated_by_argparse(value, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["train", "mlp", "--learning_rate", value])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--learning_rate" in err and "finite number > 0" in err and "Traceback" not in err


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def test_runs_as_a_module_from_a_checkout(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "estimator_npu.cli", "train", "mlp",
                           "--model_dir", str(tmp_path), "--steps", "10",
                           "--precision_mode", "allow_mix_precision"],
                          cwd=ROOT, env=_env(), timeout=300, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert re.search(r"Test accuracy: 0\.\d+", proc.stdout), proc.stdout


@pytest.mark.skipif(shutil.which("estimator-npu") is None,
                    reason="the console script is installed by `pip install .`")
def test_console_script():
    proc = subprocess.run(["estimator-npu", "list"], env=_env(), timeout=120,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert all(name in proc.stdout for name in MODELS)

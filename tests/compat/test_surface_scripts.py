"""Scripts using TF's utility surface: gfile, flags, internal module paths, tf.data
options; and the runner's exit paths."""
import json
import re


def test_gfile_and_compat_text(tmp_path, run_script):
    out = run_script("gfile_and_compat.py", cwd=tmp_path).stdout
    assert "words ['alpha', 'beta', 'gamma']" in out
    assert r"bytes b'\xc3\xa9t\xc3\xa9'" in out
    assert "list ['blob.bin', 'sub', 'vocab.txt'] ['moved.txt']" in out
    assert "walk [('.', ['blob.bin', 'vocab.txt']), ('sub', ['moved.txt'])]" in out
    assert "not found: NotFoundError" in out and "exists after remove False" in out
    assert (tmp_path / "prepared" / "vocab.txt").read_text() == "alpha\nbeta\ngamma\n"


def test_flags_parse_as_absl_does(tmp_path, run_script):
    out = run_script("flags_required.py", "--output=o", "--tag", "a", "--tag", "b",
                     "--layers=1,2", "--noverbose", "--lr=0.5", "left", cwd=tmp_path).stdout
    assert ("output=o mode=train layers=['1', '2'] tag=['a', 'b'] verbose=False dry=True "
            "lr=0.5 rest=['left']") in out
    assert run_script("flags_required.py", "--output=o", "--mode=eval", cwd=tmp_path,
                      expect_rc=3)
    missing = run_script("flags_required.py", cwd=tmp_path, expect_rc=1)
    assert "FATAL Flags parsing error" in missing.stderr and "--output" in missing.stderr
    assert "Pass --helpshort or --helpfull to see help on flags." in missing.stderr
    bad = run_script("flags_required.py", "--output=o", "--lr=abc", cwd=tmp_path, expect_rc=1)
    assert "FATAL Flags parsing error" in bad.stderr and "lr" in bad.stderr


def test_tensorflow_python_module_paths(tmp_path, run_script):
    out = run_script("python_internals.py", cwd=tmp_path).stdout
    assert "shape [None, 3] [2]" in out
    assert "nest [3, 1, 2] [2, (4, 6)]" in out
    assert "value [0.0, 0.0]" in out  # relu of [-0.5, -0.5]
    assert "step 0 graph is default: True" in out
    assert "version 1.15.0 1 True" in out and "eager False newaxis None" in out
    assert "traceEvents" in json.loads((tmp_path / "timeline.json").read_text())


def test_tf_data_options_and_experimental_transformations(tmp_path, run_script):
    out = run_script("tfdata_pipeline.py", cwd=tmp_path).stdout
    assert "options kept 4" in out
    assert "batches 5 each label twice True" in out
    assert "contrib [[0, 1, 2, 3], [4, 5, 6, 7]]" in out


def test_exit_codes_tracebacks_and_missing_names(tmp_path, run_script):
    assert run_script("exits.py", "exit", "7", cwd=tmp_path, expect_rc=7)
    ok = run_script("exits.py", "none", cwd=tmp_path, via="cli")
    assert "argv0 True name __main__ file_abs True pickle 4" in ok.stdout
    raised = run_script("exits.py", "raise", cwd=tmp_path, expect_rc=1)
    lines = raised.stderr.strip().splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert "exits.py" in lines[1] and "runpy" not in raised.stderr
    assert "raise KeyError" in raised.stderr
    assert "estimator_npu/run.py" not in raised.stderr
    assert lines[-1] == "KeyError: 'boom'"
    missing = run_script("exits.py", "missing", cwd=tmp_path, expect_rc=1)
    assert ("estimator_npu does not implement tf.contrib.gan (yet); docs/porting.md"
            in missing.stderr)
    imported = run_script("exits.py", "missing_import", cwd=tmp_path, expect_rc=1)
    assert "does not implement tf.contrib.gan (yet)" in imported.stderr
    eager = run_script("exits.py", "eager", cwd=tmp_path, expect_rc=1)
    assert "graph mode only" in eager.stderr


def test_missing_script_is_one_line_exit_2(tmp_path, run_script):
    for via in ("module", "cli"):
        proc = run_script(tmp_path / "missing.py", cwd=tmp_path, expect_rc=2, via=via)
        assert len(proc.stderr.strip().splitlines()) == 1
        assert "missing.py" in proc.stderr and proc.stdout == ""

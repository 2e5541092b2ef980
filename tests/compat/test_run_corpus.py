"""tools/corpus/run_corpus.py: a manifest row's edits are applied to a copy of the script, the
script runs through estimator_npu.run from that copy's folder, and the outcome is classified
(pass / missing / fail) with the first failure as the note."""
import importlib.util
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "..", "tools", "corpus", "run_corpus.py")


def _runner():
    spec = importlib.util.spec_from_file_location("run_corpus", RUNNER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SCRIPTS = {
    "ok.py": ("import tensorflow as tf\n"
              "steps = 1000\n"
              "x = tf.Variable(3.0)\n"
              "with tf.Session() as sess:\n"
              "    sess.run(tf.global_variables_initializer())\n"
              "    print('steps', steps, sess.run(x * 2), open('DATA_FILE').read())\n"),
    "gone.py": "import tensorflow as tf\ntf.contrib.tensor_forest\n",
    "bad.py": "import tensorflow as tf\nraise ValueError('broken on purpose')\n",
}


def test_rows_are_run_and_classified(tmp_path):
    rc = _runner()
    src = tmp_path / "src" / "me+demo"
    src.mkdir(parents=True)
    for name, text in SCRIPTS.items():
        (src / name).write_text(text)
    data = tmp_path / "data"
    data.mkdir()
    (data / "words.txt").write_text("hello")
    manifest = tmp_path / "m.tsv"
    lines = ["# a comment line", "\t".join(rc.COLUMNS),
             "\t".join(["ok", "me/demo", "c0", "ok.py", "",
                        "steps = 1000=>steps = 7 ;; DATA_FILE=>{data}/words.txt", "", ""]),
             "\t".join(["gone", "me/demo", "c0", "gone.py", "", "", "", ""]),
             "\t".join(["bad", "me/demo", "c0", "bad.py", "", "", "", ""]),
             "\t".join(["absent", "me/other", "c0", "x.py", "", "", "pass", "ran before"])]
    manifest.write_text("\n".join(lines) + "\n")
    rc.main([str(manifest), "--src", str(tmp_path / "src"), "--work", str(tmp_path / "work"),
             "--data", str(data), "--timeout", "120", "--write-status"])
    rows = {r["id"]: r for r in rc.read_manifest(str(manifest))}
    assert rows["ok"]["status"] == "pass", (tmp_path / "work" / "ok" / "stderr").read_text()
    out = (tmp_path / "work" / "ok" / "stdout").read_text()
    assert "steps 7 6.0 hello" in out
    assert rows["gone"]["status"] == "missing"
    assert "does not implement tf.contrib.tensor_forest" in rows["gone"]["note"]
    assert rows["bad"]["status"] == "fail"
    assert rows["bad"]["note"] == "ValueError: broken on purpose"
    assert (rows["absent"]["status"], rows["absent"]["note"]) == ("pass", "ran before")
    assert manifest.read_text().startswith("# a comment line\n")
    results = (tmp_path / "work" / "results.tsv").read_text().splitlines()
    assert results[0] == "id\tstatus\tseconds\tnote" and len(results) == 5
    assert results[4].startswith("absent\tnosource\t0\tnot checked out: ")


def test_an_edit_that_does_not_match_is_an_error():
    rc = _runner()
    with pytest.raises(ValueError, match="edit target 'num_steps = 7' not found"):
        rc.apply_edits("num_steps = 50000\n", "num_steps = 7=>num_steps = 1", "/d", "x.py")
    with pytest.raises(ValueError, match="not of the form old=>new"):
        rc.apply_edits("a", "a->b", "/d", "x.py")


def test_file_qualified_edits_change_a_helper_module(tmp_path):
    rc = _runner()
    src = tmp_path / "src" / "me+demo"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "helper.py").write_text("STEPS = 5000\nDATA = './data'\n")
    (src / "main.py").write_text("from pkg import helper\nprint('steps', helper.STEPS, "
                                 "helper.DATA)\n")
    manifest = tmp_path / "m.tsv"
    manifest.write_text("\n".join([
        "\t".join(rc.COLUMNS),
        "\t".join(["h", "me/demo", "c0", "main.py", "", "pkg/helper.py::STEPS = 5000=>STEPS = "
                   "3 ;; pkg/helper.py::'./data'=>'{data}'", "", ""])]) + "\n")
    rc.main([str(manifest), "--src", str(tmp_path / "src"), "--work", str(tmp_path / "work"),
             "--data", "/some/data", "--timeout", "120"])
    out = (tmp_path / "work" / "h" / "stdout").read_text()
    assert "steps 3 /some/data" in out
    assert (src / "pkg" / "helper.py").read_text().startswith("STEPS = 5000")  # source kept
    edits = rc.split_edits("a.py::x=>y ;; p=>q", "main.py")
    assert edits == {"a.py": [("x", "y")], None: [("p", "q")]}

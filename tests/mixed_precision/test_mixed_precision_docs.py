"""Every fenced python block of docs/mixed_precision.md runs as written (each in a fresh
default graph); the outputs its comments announce are the printed ones."""
import contextlib
import io
import pathlib
import re

import pytest

import estimator_npu as tf

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "mixed_precision.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_doc_has_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_doc_block_runs(index):
    src = BLOCKS[index]
    if "from estimator_npu.npu import" in src:
        import estimator_npu.npu as npu
        if not hasattr(npu, "NPUOptimizer"):
            pytest.skip("estimator_npu.npu does not export NPUOptimizer and the loss-scale "
                        "managers yet")
    tf.reset_default_graph()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(src, f"<docs/mixed_precision.md block {index}>", "exec"), {})  # noqa: S102
    printed = out.getvalue().splitlines()
    announced = [m.group(1).strip() for line in src.splitlines()
                 if line.lstrip().startswith("print(")
                 for m in [re.search(r"#\s*(.+)$", line)] if m]
    for text in announced:
        assert any(text.split("(")[0].strip() in p for p in printed), (text, printed)

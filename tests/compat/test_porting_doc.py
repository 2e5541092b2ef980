"""docs/porting.md starts with ``estimator-npu run`` and its generated name tables match the
code (regenerate with ``python -m estimator_npu.compat.names --write``)."""
import pathlib

from estimator_npu.compat import names

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "porting.md"


def test_porting_doc_starts_with_estimator_npu_run():
    text = DOC.read_text(encoding="utf-8")
    first_section = text.split("\n## ", 2)[1]
    assert first_section.startswith("Run the script unmodified: `estimator-npu run`")


def test_generated_tables_are_in_sync():
    text = DOC.read_text(encoding="utf-8")
    assert names.render() in text, ("docs/porting.md's generated block is stale: run "
                                    "python -m estimator_npu.compat.names --write")


def test_tables_list_the_names_the_aliases_resolve():
    supported = names.supported_names()
    assert "Session" in supported["tf"] and "run" in supported["tf.app"]
    assert "npu_config_proto" in supported["npu_bridge.npu_init"]
    assert "get_rank_size" in supported["hccl.manage.api"]
    missing = names.missing_names()
    assert "tf.contrib.summary" in missing and "tf.gfile" not in missing
    assert "tf.contrib.factorization" not in missing
    assert "npu_bridge.estimator.npu.npu_dynamic_rnn.DynamicRNN" in missing

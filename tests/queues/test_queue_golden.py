"""The queue-input pipelines of ``queue_cases.py`` against real TF 2.15's recorded results
(``tools/record_queue_goldens.py``): op and tensor names, static shapes, FIFO order, epoch
counts, batch sizes (``allow_smaller_final_batch``), padding, reader keys and values, and
when ``OutOfRangeError`` comes."""
import importlib.util
import json
import pathlib

import pytest

import estimator_npu as tf

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = json.loads((HERE / "golden" / "queues_tf215.json").read_text())["cases"]
_spec = importlib.util.spec_from_file_location("queue_cases", HERE / "queue_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)


def test_every_case_has_a_golden():
    assert sorted(GOLDEN) == sorted(cases.CASES)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_matches_tf(name, tmp_path):
    got = json.loads(json.dumps(cases.run_case(tf, name, str(tmp_path))))
    want = GOLDEN[name]
    if isinstance(want, dict):
        assert sorted(got) == sorted(want)
        for key in want:
            assert got[key] == want[key], f"{name}[{key!r}]: {got[key]!r} != TF {want[key]!r}"
    else:
        assert got == want

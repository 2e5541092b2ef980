"""Behaviours tensorflow/models' TF1 tutorials rely on (tools/corpus/tfmodels.tsv):
``tf.contrib.learn.datasets.base.maybe_download`` (CIFAR-10 TFRecord generator) and the
module paths of it and of slim's ``prefetch_queue``."""
import importlib

import pytest

import estimator_npu as tf


def test_maybe_download_returns_an_existing_file_and_fetches_an_absent_one(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"abc")
    work = tmp_path / "data" / "sub"
    base = tf.contrib.learn.datasets.base
    got = base.maybe_download("a.bin", str(work), src.as_uri())  # absent: fetched
    assert got == str(work / "a.bin") and (work / "a.bin").read_bytes() == b"abc"
    (work / "a.bin").write_bytes(b"kept")
    assert base.maybe_download("a.bin", str(work), "http://unreachable.invalid/x") == got
    assert (work / "a.bin").read_bytes() == b"kept"  # present: never downloaded again
    with pytest.raises(OSError, match=r"b.bin is absent and downloading .*missing.bin"):
        base.maybe_download("b.bin", str(work), (tmp_path / "missing.bin").as_uri())


def test_tf1_module_paths(aliases):
    base = importlib.import_module("tensorflow.contrib.learn.python.learn.datasets.base")
    assert base.maybe_download is tf.contrib.learn.datasets.base.maybe_download
    pq = importlib.import_module("tensorflow.contrib.slim.python.slim.data.prefetch_queue")
    assert pq.prefetch_queue is tf.contrib.slim.prefetch_queue.prefetch_queue

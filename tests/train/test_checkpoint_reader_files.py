"""The checkpoint reader keeps its data files open between reads (no reopen per
``get_tensor``), reads them positionally (threads may share a reader) and still checks
every byte of every read."""
import threading

import numpy as np
import pytest

import estimator_npu as tf
from estimator_npu import errors
from estimator_npu.train import checkpoint_io, tensor_bundle


def _write(tmp_path, n=12):
    rng = np.random.default_rng(0)
    values = {f"v{i:02d}": rng.standard_normal((i + 1, 300)).astype(np.float32)
              for i in range(n)}
    values["ints"] = np.arange(7, dtype=np.int64)
    prefix = str(tmp_path / "model.ckpt")
    checkpoint_io.write_checkpoint(prefix, values)
    return prefix, values


def _count_opens(monkeypatch):
    opened = []
    original = tensor_bundle._DataFile.__init__

    def counting(self, prefix, path, name):
        opened.append(path)
        original(self, prefix, path, name)
    monkeypatch.setattr(tensor_bundle._DataFile, "__init__", counting)
    return opened


def test_get_tensor_opens_the_data_file_once_per_reader(tmp_path, monkeypatch):
    prefix, values = _write(tmp_path)
    opened = _count_opens(monkeypatch)
    reader = tf.train.NewCheckpointReader(prefix)
    for _ in range(3):
        for name, want in values.items():
            np.testing.assert_array_equal(reader.get_tensor(name), want)
    assert len(opened) == 1
    reader.close()                          # closes; a later read reopens
    np.testing.assert_array_equal(reader.get_tensor("ints"), values["ints"])
    assert len(opened) == 2
    with checkpoint_io.CheckpointReader(prefix) as r:
        r.verify()
    assert len(opened) == 3


def test_threads_share_one_reader(tmp_path):
    prefix, values = _write(tmp_path, n=24)
    reader = tf.train.NewCheckpointReader(prefix)
    failures = []

    def work(k):
        try:
            for i in range(20):
                name = sorted(values)[(i * 7 + k) % len(values)]
                np.testing.assert_array_equal(reader.get_tensor(name), values[name])
            reader.verify()
        except Exception as e:  # noqa: BLE001 -- reported below
            failures.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures


def test_a_byte_flipped_after_the_reader_opened_is_caught(tmp_path):
    """The reader keeps the file open, yet every read is checked again."""
    prefix, values = _write(tmp_path)
    reader = tf.train.NewCheckpointReader(prefix)
    np.testing.assert_array_equal(reader.get_tensor("v03"), values["v03"])
    entry = reader._index.entries["v03"]
    path = prefix + checkpoint_io.DATA_SUFFIX
    with open(path, "r+b") as f:
        f.seek(entry.offset + 5)
        byte = f.read(1)
        f.seek(entry.offset + 5)
        f.write(bytes([byte[0] ^ 1]))
    with pytest.raises(errors.DataLossError, match="v03.*crc32c"):
        reader.get_tensor("v03")
    with pytest.raises(errors.DataLossError, match=path):
        reader.verify()
    np.testing.assert_array_equal(reader.get_tensor("v04"), values["v04"])

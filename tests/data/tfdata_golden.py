"""Shared helpers for the tests against files and values recorded by real TF 2.15
(``tools/record_tfdata_golden.py``)."""
import base64
import json
import pathlib

import numpy as np

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden"


def load():
    with open(GOLDEN / "tfdata_golden.json") as f:
        return json.load(f)


def dec(entry):
    """A golden value (see the recorder's ``enc``) as a numpy array."""
    if entry["dtype"] == "string":
        out = np.empty(len(entry["b64"]), dtype=object)
        out[:] = [base64.b64decode(v) for v in entry["b64"]]
        return out.reshape(entry["shape"])
    return np.array(entry["values"], dtype=entry["dtype"]).reshape(entry["shape"])


def assert_value_equal(got, entry):
    want = dec(entry)
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype == object:
        assert got.reshape(-1).tolist() == want.reshape(-1).tolist()
    else:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)


def assert_sparse_equal(got, entry):
    assert_value_equal(got.indices, entry["indices"])
    assert_value_equal(got.values, entry["values"])
    assert_value_equal(got.dense_shape, entry["dense_shape"])

"""CSV: ``decode_csv`` (an op), ``CsvDataset`` and a basic ``make_csv_dataset``.

Record defaults fix each column's dtype (float32, float64, int32, int64, string); an
empty default (``[]``) makes the column required. Quoted fields follow RFC 4180 when
``use_quote_delim`` (``"a,b"`` is one field, ``""`` an escaped quote)::

    cols = tf.decode_csv(lines, record_defaults=[[0.0], [0], [""]])
    ds = tf.data.experimental.CsvDataset("train.csv", [[0.0], [0]], header=True)
"""
import collections
import csv

import numpy as np

from estimator_npu import errors
from estimator_npu.data import file_sources
from estimator_npu.data.base import Node
from estimator_npu.data.structure import Spec
from estimator_npu.engine import dtypes
from estimator_npu.engine.graph import Tensor
from estimator_npu.engine.ops.core import convert_to_tensor, make_op
from estimator_npu.engine.registry import NOT_DIFFERENTIABLE, OpFamily
from estimator_npu.engine.shape import TensorShape

OPS = OpFamily(__name__)  # this family's op definitions (data)

_CSV_TYPES = ("float32", "float64", "int32", "int64", "string")


class Columns:
    """Parsed ``record_defaults``: per column a dtype and a default (``None``: required)."""

    def __init__(self, record_defaults, select_cols, what):
        if not isinstance(record_defaults, (list, tuple)) or not record_defaults:
            raise TypeError(f"{what}: record_defaults must be a non-empty list, got "
                            f"{record_defaults!r}")
        self.types, self.defaults = [], []
        for i, d in enumerate(record_defaults):
            dt, value = _default(d, i, what)
            self.types.append(dt)
            self.defaults.append(value)
        self.select = None if select_cols is None else [int(c) for c in select_cols]
        if self.select is not None:
            if sorted(set(self.select)) != self.select:
                raise ValueError(f"{what}: select_cols must be strictly increasing, got "
                                 f"{list(select_cols)}")
            if len(self.select) != len(self.types):
                raise ValueError(f"{what}: {len(self.select)} select_cols but "
                                 f"{len(self.types)} record_defaults")


def _default(d, i, what):
    if isinstance(d, Tensor):
        if d.op.type != "Const":
            raise TypeError(f"{what}: record_defaults[{i}] must be a constant (a Python "
                            f"value, a list or tf.constant), got tensor {d.name}")
        d = np.asarray(d.op.attrs["value"])
    if isinstance(d, dtypes.DType) or isinstance(d, type):
        return _checked(dtypes.as_dtype(d), None, i, what)
    if isinstance(d, np.ndarray):
        if d.size > 1:
            raise ValueError(f"{what}: record_defaults[{i}] must hold at most one value, "
                             f"got {d!r}")
        dt = dtypes.as_dtype(d.dtype)
        value = None if d.size == 0 else d.reshape(-1)[0]
        if dt == dtypes.string and value is not None:
            value = value.encode() if isinstance(value, str) else bytes(value)
        return _checked(dt, value, i, what)
    vals = list(d) if isinstance(d, (list, tuple)) else [d]
    if len(vals) > 1:
        raise ValueError(f"{what}: record_defaults[{i}] must hold at most one value, got "
                         f"{d!r}")
    if not vals:
        return _checked(dtypes.float32, None, i, what)
    v = vals[0]
    # As TF converts a Python list: ints are int32, floats float32 (numpy scalars too).
    if isinstance(v, (str, bytes)):
        return _checked(dtypes.string, v.encode() if isinstance(v, str) else v, i, what)
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{what}: record_defaults[{i}]: bool columns are not supported")
    if isinstance(v, (int, np.integer)):
        return _checked(dtypes.int32 if -2**31 <= int(v) < 2**31 else dtypes.int64, v, i,
                        what)
    return _checked(dtypes.float32, v, i, what)


def _checked(dt, value, i, what):
    if dt.name not in _CSV_TYPES:
        raise TypeError(f"{what}: record_defaults[{i}] has dtype {dt.name}; CSV columns "
                        f"must be one of {list(_CSV_TYPES)}")
    if value is not None and dt != dtypes.string:
        value = dt.np.type(value)
    return dt, value


def _convert(field, dt, default, col, rec, na_value):
    if field == "" or (na_value and field == na_value):
        if default is None:
            raise errors.InvalidArgumentError(
                None, None, f"Field {col} is required but missing in record {rec}!")
        return default
    if dt == dtypes.string:
        return field.encode()
    try:
        v = float(field) if dt.is_floating else int(field)
        if not dt.is_floating and not np.iinfo(dt.np).min <= v <= np.iinfo(dt.np).max:
            raise ValueError
        return v
    except ValueError:
        kind = "float" if dt.is_floating else f"int{dt.size * 8}"
        raise errors.InvalidArgumentError(
            None, None, f"Field {col} in record {rec} is not a valid {kind}: "
            f"{field}") from None


def parse_line(line, cols, delim, quote, na_value, rec):
    """The converted fields of one CSV line (``bytes``)."""
    text = line.decode("utf-8") if isinstance(line, bytes) else line
    reader = csv.reader([text], delimiter=delim, quotechar='"' if quote else None,
                        quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE,
                        strict=True)
    try:
        fields = next(reader, [""])
    except csv.Error as e:
        raise errors.InvalidArgumentError(None, None, f"Quote error in record {rec}: "
                                          f"{e}: {text!r}") from None
    if text == "":
        fields = [""]
    if cols.select is None:
        if len(fields) != len(cols.types):
            raise errors.InvalidArgumentError(
                None, None, f"Expect {len(cols.types)} fields but have {len(fields)} in "
                f"record {rec}")
        picked = fields
    else:
        if cols.select[-1] >= len(fields):
            raise errors.InvalidArgumentError(
                None, None, f"Expect at least {cols.select[-1] + 1} fields but have "
                f"{len(fields)} in record {rec}")
        picked = [fields[c] for c in cols.select]
    return [_convert(f, dt, d, c, rec, na_value) for c, (f, dt, d) in
            enumerate(zip(picked, cols.types, cols.defaults))]


def _decode_csv_kernel(op, ctx):
    cols, delim, quote, na = (op.attrs[k] for k in ("cols", "delim", "quote", "na"))

    def run(records):
        records = np.asarray(records, dtype=object)
        flat = records.reshape(-1).tolist()
        outs = [np.empty(len(flat), dtype=dt.np) for dt in cols.types]
        for r, line in enumerate(flat):
            for o, v in zip(outs, parse_line(line, cols, delim, quote, na, r)):
                o[r] = v
        outs = [o.reshape(records.shape) for o in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)
    return run


OPS.define("DecodeCSV", kernel=_decode_csv_kernel, grad=NOT_DIFFERENTIABLE)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """``tf.io.decode_csv`` / ``tf.decode_csv``: one tensor per column, each with the
    shape of ``records``."""
    cols = Columns(record_defaults, select_cols, "decode_csv")
    records = convert_to_tensor(records, dtype=dtypes.string
                                if not isinstance(records, Tensor) else None)
    if records.dtype != dtypes.string:
        raise TypeError(f"decode_csv: `records` must be a tf.string tensor, got dtype "
                        f"{records.dtype.name}")
    if len(field_delim) != 1:
        raise ValueError(f"field_delim must be one character, got {field_delim!r}")
    op = make_op("DecodeCSV", [records], [(dt, records.shape) for dt in cols.types],
                 {"cols": cols, "delim": field_delim, "quote": bool(use_quote_delim),
                  "na": na_value}, name=name or "DecodeCSV")
    return list(op.outputs)


class CsvNode(Node):
    """``CsvDataset``: a tuple of scalars per line of the files."""

    def __init__(self, filenames, record_defaults, compression_type, buffer_size, header,
                 field_delim, use_quote_delim, na_value, select_cols):
        self._lines = file_sources.TextLineNode(filenames, compression_type, buffer_size)
        self.inputs = self._lines.inputs
        self._cols = Columns(record_defaults, select_cols, "CsvDataset")
        self._header = bool(header)
        self._args = (field_delim, bool(use_quote_delim), na_value)
        n = len(self._cols.types)
        self.spec = Spec(tuple([None] * n), self._cols.types, [TensorShape([])] * n)

    def captures(self):
        return self._lines.captures()

    def iterate(self, env):
        delim, quote, na = self._args
        cols = self._cols
        npts = [dt.np for dt in cols.types]

        def read(path):
            for i, (line,) in enumerate(self._lines.read(path)):
                if i == 0 and self._header:
                    continue
                row = parse_line(line[()], cols, delim, quote, na, i)
                yield tuple(np.asarray(v, dtype=t) for v, t in zip(row, npts))
        return file_sources.FileRecords(self._lines._files.resolve(env), read)


# ---------------------------------------------------------------- make_csv_dataset
def _infer_type(values):
    for dt, conv in ((dtypes.int32, int), (dtypes.int64, int), (dtypes.float32, float)):
        try:
            nums = [conv(v) for v in values if v != ""]
        except ValueError:
            continue
        if dt.is_integer and not all(np.iinfo(dt.np).min <= v <= np.iinfo(dt.np).max
                                     for v in nums):
            continue
        return dt
    return dtypes.string


def _header_and_rows(path, delim, quote, n):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, delimiter=delim, quotechar='"' if quote else None,
                            quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE)
        rows = [r for _, r in zip(range(n + 1), reader)]
    return rows


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None,
                     ignore_errors=False):
    """``tf.data.experimental.make_csv_dataset`` (basic form): batches of
    ``(features dict, label)`` (or the dict alone without ``label_name``), column names
    from the header, dtypes inferred from the first rows unless ``column_defaults``."""
    from estimator_npu.data import readers
    files = readers.list_files(file_pattern, shuffle=False)
    first = files._node.matches(None) if not files._node.captures() else None
    if first is None:
        raise TypeError("make_csv_dataset: file_pattern must be a str or list of str")
    rows = _header_and_rows(first[0], field_delim, use_quote_delim,
                            num_rows_for_inference)
    if column_names is None:
        if not header:
            raise ValueError("make_csv_dataset: column_names are required when header is "
                             "False")
        column_names = rows[0]
    data = rows[1:] if header else rows
    names = list(column_names)
    select = None
    if select_columns is not None:
        select = sorted(names.index(c) if isinstance(c, str) else int(c)
                        for c in select_columns)
    picked = [names[i] for i in select] if select is not None else names
    if column_defaults is None:
        idx = select if select is not None else range(len(names))
        column_defaults = [[""] if _infer_type([r[i] for r in data if i < len(r)]) ==
                           dtypes.string else [_infer_type(
                               [r[i] for r in data if i < len(r)]).np.type(0)] for i in idx]
    if label_name is not None and label_name not in picked:
        raise ValueError(f"make_csv_dataset: label_name {label_name!r} is not one of the "
                         f"columns {picked}")
    ds = readers.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)

    def read(f):
        from estimator_npu.data.dataset import Dataset
        return Dataset(CsvNode(f, column_defaults, compression_type, None, header,
                               field_delim, use_quote_delim, na_value, select))
    ds = ds.interleave(read, cycle_length=num_parallel_reads or 1)
    if ignore_errors:
        ds = ds.ignore_errors()
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None)

    def to_dict(*columns):
        features = collections.OrderedDict(zip(picked, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label
    ds = ds.map(to_dict)
    if prefetch_buffer_size:
        ds = ds.prefetch(prefetch_buffer_size)
    return ds


__all__ = ["decode_csv", "make_csv_dataset", "CsvNode"]

"""The MLP of ``model_zoo.mlp``, trained from TFRecord files of ``tf.train.Example``s.

First write the bundled digits (or MNIST from ``--mnist_dir``) as TFRecord files, then
train from them::

    python -m model_zoo.mlp_tfrecord --make_tfrecords /tmp/digits_tfr
    python -m model_zoo.mlp_tfrecord --data_dir /tmp/digits_tfr     # 0.975, as model_zoo.mlp

The training set is split over ``train-0000K-of-0000N.tfrecord`` files (GZIP), the test
set is ``test.tfrecord``; each Example holds ``image`` (784 floats) and ``label`` (an
int64). The input pipeline is the usual TF1 one: ``list_files`` -> ``shard`` of the
files per worker -> ``TFRecordDataset`` -> ``shuffle`` -> ``repeat`` -> ``batch`` ->
``parse_example``
(vectorised over the batch). It reads the records in the order they were written and
shuffles with the same seed as the in-memory pipeline of ``model_zoo.mlp``, so both
train on the same batches and reach the same accuracy (tested). Stated accuracy
(``STATED_ACCURACY``): 0.95.
"""
import os
import sys

import numpy as np

import estimator_npu as tf
from model_zoo import common, mlp

STATED_ACCURACY = mlp.STATED_ACCURACY
DEFAULTS = mlp.DEFAULTS
NUM_TRAIN_FILES = 4
COMPRESSION = "GZIP"
FEATURES = {"image": tf.io.FixedLenFeature([784], tf.float32),
            "label": tf.io.FixedLenFeature([], tf.int64)}


def _example(image, label):
    return tf.train.Example(features=tf.train.Features(feature={
        "image": tf.train.Feature(float_list=tf.train.FloatList(value=image.tolist())),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(label)])),
    })).SerializeToString()


def make_tfrecords(out_dir, data, log=print):
    """Writes ``data`` (``common.Arrays``) as TFRecord files into ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    parts = np.array_split(np.arange(len(data.train_x)), NUM_TRAIN_FILES)
    for k, idx in enumerate(parts):
        path = os.path.join(out_dir, f"train-{k:05d}-of-{NUM_TRAIN_FILES:05d}.tfrecord")
        with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(COMPRESSION)) as w:
            for i in idx:
                w.write(_example(data.train_x[i], data.train_y[i]))
    with tf.io.TFRecordWriter(os.path.join(out_dir, "test.tfrecord")) as w:
        for x, y in zip(data.test_x, data.test_y):
            w.write(_example(x, y))
    log(f"Wrote {len(data.train_x)} training and {len(data.test_x)} test examples to "
        f"{out_dir}")


def _parse(serialized):
    parsed = tf.io.parse_example(serialized, FEATURES)
    return parsed["image"], parsed["label"]


def train_input_fn(data_dir, batch_size, seed=0):
    def input_fn(config):
        files = tf.data.Dataset.list_files(
            os.path.join(data_dir, "train-*-of-*.tfrecord"), shuffle=False)
        if config.num_workers > 1:  # each worker reads its own files
            files = files.shard(config.num_workers, config.worker_index)
        ds = tf.data.TFRecordDataset(files, compression_type=COMPRESSION)
        # A buffer larger than the data set: a full shuffle, as model_zoo.mlp's.
        ds = ds.shuffle(1 << 24, seed=seed).repeat()
        return ds.batch(batch_size, drop_remainder=True).map(_parse)
    return input_fn


def eval_input_fn(data_dir, batch_size=512):
    def input_fn():
        ds = tf.data.TFRecordDataset(os.path.join(data_dir, "test.tfrecord"))
        return ds.batch(batch_size).map(_parse)
    return input_fn


def main(argv=None, prog=None):
    """``--make_tfrecords DIR`` writes the files; ``--data_dir DIR`` trains from them."""
    parser = common.make_parser(__doc__, prog=prog, **DEFAULTS)
    parser.add_argument("--make_tfrecords", metavar="DIR", default=None,
                        help="write the bundled digits (or --mnist_dir) as TFRecord files "
                             "into DIR and exit")
    parser.add_argument("--mnist_dir", default=None,
                        help="with --make_tfrecords: a folder of MNIST IDX files to convert")
    args = parser.parse_args(argv)
    if args.make_tfrecords:
        data_dir, args.data_dir = args.data_dir, args.mnist_dir
        make_tfrecords(args.make_tfrecords, common.load_digits(args, layout="flat784"))
        args.data_dir = data_dir
        return 0
    if not args.data_dir:
        print("model_zoo.mlp_tfrecord needs --data_dir DIR (a folder written by "
              "--make_tfrecords DIR)", file=sys.stderr)
        return 2
    estimator = common.make_estimator(mlp.model_fn, args)
    eval_fn = eval_input_fn(args.data_dir)
    if args.mode == "evaluate":
        common.evaluate(estimator, eval_fn)
        return 0
    common.train_and_evaluate(estimator, train_input_fn(args.data_dir, args.batch_size,
                                                        args.seed), eval_fn, args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run by test_tfrecord_mpi.py under ``estimator-npu-run -n 2``: each worker reads its
shard of a TFRecord file list and writes what it read to ``OUT/rank<r>.json``.

    python tfrecord_shard_worker.py DATA_DIR OUT_DIR
"""
import json
import os
import sys

import estimator_npu as tf


def main(data_dir, out_dir):
    rank, size = tf.npu.get_rank_id(), tf.npu.get_rank_size()
    files = tf.data.Dataset.list_files(os.path.join(data_dir, "part-*.tfrecord"),
                                       shuffle=False).shard(size, rank)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=2)
    records = [r[()].decode() for r in ds.as_numpy_iterator()]
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump({"size": size, "records": records}, f)


if __name__ == "__main__":
    main(*sys.argv[1:3])

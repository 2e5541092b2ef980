"""TF1's queue-based input pipelines: queues as stateful graph ops, ``QueueRunner`` threads
that fill them, the ``tf.train`` producers and batchers, and the reader ops.

    filenames = tf.train.string_input_producer(files, num_epochs=1)
    key, value = tf.FixedLengthRecordReader(record_bytes=3073).read(filenames)
    images, labels = tf.train.shuffle_batch([image, label], 128, capacity=2000,
                                            min_after_dequeue=1000)
    with tf.train.MonitoredTrainingSession() as sess:   # starts the queue runners
        while not sess.should_stop():
            sess.run(train_op)                           # ends at the end of the epoch

A layer above ``data`` (its record readers) and ``train`` (``Coordinator``); ``hooks``
starts the runners of a monitored session.
"""
from estimator_npu.queues import queue_runner  # noqa: F401 - tf.train.queue_runner
from estimator_npu.queues.queue_ops import (FIFOQueue, PaddingFIFOQueue,  # noqa: F401
                                            QueueBase, RandomShuffleQueue)
from estimator_npu.queues.queue_runner import (QueueRunner, add_queue_runner,  # noqa: F401
                                               start_queue_runners)
from estimator_npu.queues.batching import (batch, batch_join, maybe_batch,  # noqa: F401
                                           maybe_batch_join, maybe_shuffle_batch,
                                           maybe_shuffle_batch_join, shuffle_batch,
                                           shuffle_batch_join)
from estimator_npu.queues.readers import (FixedLengthRecordReader,  # noqa: F401
                                          IdentityReader, ReaderBase, TextLineReader,
                                          TFRecordReader, WholeFileReader)
from estimator_npu.queues.input_producers import (count_up_to, input_producer,  # noqa: F401
                                                  limit_epochs, match_filenames_once,
                                                  matching_files, range_input_producer,
                                                  slice_input_producer,
                                                  string_input_producer)


def _register_op_families():
    """Adds this layer's op families to the engine's op table (the one place it does)."""
    from estimator_npu.engine import registry
    from estimator_npu.queues import input_producers, queue_ops, readers
    registry.register_families([input_producers.OPS, queue_ops.OPS, readers.OPS])


_register_op_families()

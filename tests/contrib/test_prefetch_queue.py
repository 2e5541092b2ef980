"""``tf.contrib.slim.prefetch_queue.prefetch_queue`` as TF's multi-tower CIFAR-10 trainer
uses it: batches from a ``tf.train.batch`` pipeline prefetched by queue-runner threads,
one ``dequeue`` per tower, under ``MonitoredTrainingSession`` (which starts the runners)."""
import numpy as np
import pytest

import estimator_npu as tf


def test_prefetch_queue_feeds_towers_in_order():
    with tf.Graph().as_default():
        images = tf.constant(np.arange(24, dtype=np.float32).reshape(6, 2, 2))
        labels = tf.constant(np.arange(6, dtype=np.int32))
        image, label = tf.train.slice_input_producer([images, labels], shuffle=False)
        batch = tf.train.batch([image, label], batch_size=2)
        q = tf.contrib.slim.prefetch_queue.prefetch_queue(batch, capacity=4, num_threads=2)
        assert q.dtypes == [tf.float32, tf.int32]
        towers = [q.dequeue() for _ in range(2)]
        assert towers[0][0].shape.as_list() == [2, 2, 2] and towers[0][1].shape.as_list() == [2]
        tags = [t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]
        assert "prefetch_queue/fraction_of_4_full" in tags
        assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)) == 3  # producer, batch, ours
        seen = []
        with tf.train.MonitoredTrainingSession() as sess:
            for _ in range(3):
                (x0, y0), (x1, y1) = sess.run(towers)
                for x, y in ((x0, y0), (x1, y1)):
                    np.testing.assert_array_equal(x, np.arange(24).reshape(6, 2, 2)[y])
                    seen.extend(y.tolist())
        assert sorted(seen[:6]) == list(range(6))  # each example once per epoch


def test_prefetch_queue_dict_and_bad_input():
    with tf.Graph().as_default():
        q = tf.contrib.slim.prefetch_queue.prefetch_queue(
            {"a": tf.constant([1.0, 2.0]), "b": tf.constant(3)}, capacity=2, name="pf")
        out = q.dequeue()
        assert sorted(out) == ["a", "b"]
        with pytest.raises(TypeError, match="non-empty list or dict"):
            tf.contrib.slim.prefetch_queue.prefetch_queue(tf.constant(1.0))
        with pytest.raises(ValueError, match="num_threads must be >= 1"):
            tf.contrib.slim.prefetch_queue.prefetch_queue([tf.constant(1.0)], num_threads=0)
        with tf.train.MonitoredTrainingSession() as sess:
            got = sess.run(out)
        np.testing.assert_array_equal(got["a"], [1.0, 2.0])
        assert got["b"] == 3

"""A tf.data input pipeline with Options and the experimental / contrib transformations."""
import numpy as np
import tensorflow as tf

features = np.arange(40, dtype=np.float32).reshape(20, 2)
labels = np.arange(20, dtype=np.int64)
dataset = tf.data.Dataset.from_tensor_slices((features, labels))
options = tf.data.Options()
options.experimental_optimization.map_parallelization = True
options.experimental_threading.private_threadpool_size = 4
options.experimental_deterministic = True
dataset = dataset.with_options(options)
print("options kept", dataset.options().experimental_threading.private_threadpool_size)
dataset = dataset.apply(tf.data.experimental.shuffle_and_repeat(20, count=2, seed=3))
dataset = dataset.apply(tf.data.experimental.map_and_batch(lambda x, y: (x * 2.0, y), 8,
                                                           drop_remainder=True))
dataset = dataset.apply(tf.data.experimental.ignore_errors())
dataset = dataset.apply(tf.data.experimental.prefetch_to_device("/gpu:0", 2))
dataset = dataset.prefetch(tf.data.experimental.AUTOTUNE)
contrib = tf.data.Dataset.range(10).apply(tf.contrib.data.batch_and_drop_remainder(4))
xs, ys = dataset.make_one_shot_iterator().get_next()
c = tf.data.make_one_shot_iterator(contrib).get_next()
seen = []
with tf.Session() as sess:
    try:
        while True:
            bx, by = sess.run([xs, ys])
            seen.extend(by.tolist())
            assert (bx[:, 1] == 2 * (2 * by + 1)).all()
    except tf.errors.OutOfRangeError:
        pass
    batches = [sess.run(c).tolist() for _ in range(2)]
print("batches", len(seen) // 8, "each label twice", sorted(seen) == sorted(list(range(20)) * 2)
      if len(seen) == 40 else len(seen))
print("contrib", batches)

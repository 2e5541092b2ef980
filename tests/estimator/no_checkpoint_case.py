"""RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None): the files a
5-step train writes in model_dir, built by both frameworks (real TF through
``tools/record_no_checkpoint_files.py``, ours in ``test_no_checkpoint_schedule.py``)."""
import os
import re

import numpy as np


def model_dir_files(tf, model_dir):
    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
        step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=None,
                                    save_checkpoints_secs=None)
    est = tf.estimator.Estimator(model_fn, config=config)
    x = np.ones((8, 2), np.float32)
    est.train(tf.estimator.inputs.numpy_input_fn(x, x[:, :1], batch_size=4, num_epochs=None,
                                                 shuffle=False), steps=5)
    # event file names carry a time stamp and the host name
    return sorted(re.sub(r"tfevents\..*", "tfevents.*", f) for f in os.listdir(model_dir))

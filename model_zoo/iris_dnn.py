"""TF's premade-estimator tutorial: a ``DNNClassifier`` on the bundled Iris flowers.

Four ``numeric_column`` inputs, two hidden layers of 10 units, three classes, trained with
``tf.data`` input functions under ``NPURunConfig`` (``--iterations_per_loop`` steps per
host call), then evaluated on the 30 held-out flowers.

    python -m model_zoo.iris_dnn                  # test accuracy 0.967 with the defaults

Defaults: 1000 steps of batch 32, DNNClassifier's default optimizer (Adagrad, 0.05),
``tf.set_random_seed(0)``. Stated accuracy (``STATED_ACCURACY``, tested): 0.93.
"""
import argparse
import sys
import tempfile

import estimator_npu as tf
from estimator_npu.datasets import iris

STATED_ACCURACY = 0.93


def train_input_fn(features, labels, batch_size):
    ds = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    return ds.shuffle(1000, seed=1).repeat().batch(batch_size)


def eval_input_fn(features, labels, batch_size):
    ds = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    return ds.batch(batch_size)


def run(steps=1000, batch_size=32, iterations_per_loop=10, model_dir=None):
    """Trains and evaluates; returns the evaluate() dict."""
    (train_x, train_y), (test_x, test_y) = iris.load()
    columns = [tf.feature_column.numeric_column(key) for key in iris.FEATURES]
    config = tf.estimator.NPURunConfig(model_dir=model_dir or tempfile.mkdtemp(),
                                       iterations_per_loop=iterations_per_loop,
                                       tf_random_seed=0)
    est = tf.estimator.DNNClassifier(hidden_units=[10, 10], feature_columns=columns,
                                     n_classes=3, config=config)
    est.train(lambda: train_input_fn(train_x, train_y, batch_size), steps=steps)
    return est.evaluate(lambda: eval_input_fn(test_x, test_y, batch_size))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--iterations_per_loop", type=int, default=10)
    p.add_argument("--model_dir", default=None)
    a = p.parse_args(argv)
    result = run(a.steps, a.batch_size, a.iterations_per_loop, a.model_dir)
    print(f"Test set accuracy: {result['accuracy']:0.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A custom Estimator in the style of tensorflow/models' custom_estimator: a Dataset
input_fn of feature dicts, params, tf.metrics in EVAL, predictions in PREDICT."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", default=20, type=int)
parser.add_argument("--train_steps", default=120, type=int)
parser.add_argument("--model_dir", default="iris_model")


def make_data(n, seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 3, size=n)
    centers = np.array([[0., 0., 0., 0.], [2., 2., 0., 1.], [0., 2., 2., 3.]])
    features = centers[labels] + 0.3 * rng.randn(n, 4)
    names = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]
    return {k: features[:, i].astype(np.float32) for i, k in enumerate(names)}, labels


def train_input_fn(features, labels, batch_size):
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    return dataset.shuffle(200, seed=1).repeat().batch(batch_size)


def eval_input_fn(features, labels, batch_size):
    inputs = dict(features) if labels is None else (dict(features), labels)
    return tf.data.Dataset.from_tensor_slices(inputs).batch(batch_size)


def my_model(features, labels, mode, params):
    net = tf.stack([features[k] for k in sorted(features)], axis=1)
    for units in params["hidden_units"]:
        net = tf.layers.dense(net, units=units, activation=tf.nn.relu)
    logits = tf.layers.dense(net, params["n_classes"], activation=None)
    predicted_classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {"class_ids": predicted_classes[:, tf.newaxis],
                       "probabilities": tf.nn.softmax(logits), "logits": logits}
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))
    accuracy = tf.metrics.accuracy(labels=labels, predictions=predicted_classes,
                                   name="acc_op")
    metrics = {"accuracy": accuracy}
    tf.summary.scalar("accuracy", accuracy[1])
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    optimizer = tf.train.AdagradOptimizer(learning_rate=0.3)
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main(argv):
    args = parser.parse_args(argv[1:])
    train_x, train_y = make_data(300, 0)
    test_x, test_y = make_data(60, 1)
    classifier = tf.estimator.Estimator(
        model_fn=my_model, model_dir=args.model_dir,
        params={"hidden_units": [10, 10], "n_classes": 3})
    classifier.train(input_fn=lambda: train_input_fn(train_x, train_y, args.batch_size),
                     steps=args.train_steps)
    eval_result = classifier.evaluate(input_fn=lambda: eval_input_fn(test_x, test_y,
                                                                     args.batch_size))
    print("\nTest set accuracy: {accuracy:0.3f}\n".format(**eval_result))
    predict_x = {k: v[:3] for k, v in test_x.items()}
    predictions = classifier.predict(input_fn=lambda: eval_input_fn(predict_x, None,
                                                                    args.batch_size))
    for pred_dict, expected in zip(predictions, test_y[:3]):
        class_id = pred_dict["class_ids"][0]
        print('Prediction is "{}" ({:.1f}%), expected "{}"'.format(
            class_id, 100 * pred_dict["probabilities"][class_id], expected))


if __name__ == "__main__":
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.app.run(main)

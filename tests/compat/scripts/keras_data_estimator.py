"""An Estimator trained on data from tf.keras.datasets (as the r1 layers tutorial loads
MNIST), with numpy_input_fn and a StopAtStepHook-free steps budget."""
import numpy as np
import tensorflow as tf

tf.logging.set_verbosity(tf.logging.INFO)


def model_fn(features, labels, mode):
    flat = tf.reshape(features["x"], [-1, 28 * 28])
    logits = tf.layers.dense(tf.layers.dense(flat, 32, activation=tf.nn.relu), 10)
    classes = tf.argmax(logits, axis=1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"classes": classes})
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=logits))
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={
            "accuracy": tf.metrics.accuracy(labels=labels, predictions=classes)})
    train_op = tf.train.AdamOptimizer(1e-2).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main(unused_argv):
    (train_data, train_labels), (eval_data, eval_labels) = \
        tf.keras.datasets.fashion_mnist.load_data()
    train_data = train_data / np.float32(255)
    eval_data = eval_data / np.float32(255)
    train_labels = train_labels.astype(np.int32)
    eval_labels = eval_labels.astype(np.int32)
    classifier = tf.estimator.Estimator(model_fn=model_fn, model_dir="fashion_model")
    classifier.train(tf.estimator.inputs.numpy_input_fn(
        x={"x": train_data}, y=train_labels, batch_size=64, num_epochs=None, shuffle=True),
        steps=60)
    result = classifier.evaluate(tf.estimator.inputs.numpy_input_fn(
        x={"x": eval_data}, y=eval_labels, num_epochs=1, shuffle=False))
    print("accuracy %.3f at step %d" % (result["accuracy"], result["global_step"]))


if __name__ == "__main__":
    tf.app.run()

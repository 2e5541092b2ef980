"""``tf.contrib.slim.learning``: ``create_train_op`` (TF-Slim's training step op)."""
from estimator_npu.compat.missing import module_getattr as _module_getattr

__getattr__ = _module_getattr("tensorflow.contrib.slim.learning")

_USE_GLOBAL_STEP = object()


def create_train_op(total_loss, optimizer, global_step=_USE_GLOBAL_STEP, update_ops=None,
                    variables_to_train=None, transform_grads_fn=None,
                    summarize_gradients=False, gate_gradients=1, aggregation_method=None,
                    colocate_gradients_with_ops=False, check_numerics=True):
    """An op that runs the update ops (default: the ``UPDATE_OPS`` collection), then one
    ``optimizer`` step on ``variables_to_train`` (default: all trainable variables), and
    evaluates to ``total_loss``; added to the ``TRAIN_OP`` collection, as TF-Slim's."""
    import estimator_npu as tf
    if global_step is _USE_GLOBAL_STEP:
        global_step = tf.train.get_or_create_global_step()
    if update_ops is None:
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    if update_ops:
        with tf.control_dependencies(list(update_ops)):
            total_loss = tf.identity(total_loss)
    if variables_to_train is None:
        variables_to_train = tf.trainable_variables()
    grads = optimizer.compute_gradients(total_loss, list(variables_to_train),
                                        gate_gradients=gate_gradients,
                                        aggregation_method=aggregation_method,
                                        colocate_gradients_with_ops=colocate_gradients_with_ops)
    if transform_grads_fn is not None:
        grads = transform_grads_fn(grads)
    if summarize_gradients:
        for grad, var in grads:
            if grad is not None:
                tf.summary.histogram(var.op.name + "/gradient", grad)
    step = optimizer.apply_gradients(grads, global_step=global_step)
    with tf.name_scope("train_op"):
        if check_numerics:
            total_loss = tf.check_numerics(total_loss, "LossTensor is inf or nan")
        with tf.control_dependencies([step]):
            train_op = tf.identity(total_loss, name="train_op")
    if train_op not in tf.get_collection(tf.GraphKeys.TRAIN_OP):
        tf.add_to_collection(tf.GraphKeys.TRAIN_OP, train_op)
    return train_op

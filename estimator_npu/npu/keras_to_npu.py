"""``npu_bridge.estimator.npu.keras_to_npu``: the adapter's ``model_to_npu_estimator``,
which turns a compiled ``tf.keras`` model into an ``NPUEstimator``: the model function of
``tf.keras.estimator.model_to_estimator`` (the compiled loss, optimizer and metrics; the
Keras weights as the warm start) run by an ``NPUEstimator`` with the given
``NPURunConfig`` (``iterations_per_loop`` and the rest apply as for any model_fn).
"""
from estimator_npu.keras.estimator import model_to_estimator
from estimator_npu.npu.npu_estimator import NPUEstimator


def model_to_npu_estimator(keras_model=None, keras_model_path=None, custom_objects=None,
                           model_dir=None, checkpoint_format="saver", config=None,
                           job_start_file=""):
    """An ``NPUEstimator`` for the compiled ``keras_model``.

    Raises:
        ValueError: the adapter's argument errors (neither or both of ``keras_model`` /
            ``keras_model_path``, a bad ``checkpoint_format``), and those of
            ``tf.keras.estimator.model_to_estimator`` (an uncompiled or subclassed model;
            ``keras_model_path``, loading a saved model, is not implemented).
    """
    if not (keras_model or keras_model_path):
        raise ValueError("Either `keras_model` or `keras_model_path` needs to be provided.")
    if keras_model and keras_model_path:
        raise ValueError("Please specify either `keras_model` or `keras_model_path`, "
                         "but not both.")
    if checkpoint_format not in (None, "checkpoint", "saver"):
        raise ValueError(f'Checkpoint format must be one of "checkpoint" or "saver". '
                         f"Got {checkpoint_format}")
    return model_to_estimator(keras_model=keras_model, keras_model_path=keras_model_path,
                              custom_objects=custom_objects, model_dir=model_dir,
                              config=config, checkpoint_format=checkpoint_format,
                              estimator_class=NPUEstimator, job_start_file=job_start_file)


__all__ = ["model_to_npu_estimator"]

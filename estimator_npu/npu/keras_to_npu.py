"""``npu_bridge.estimator.npu.keras_to_npu``: the adapter's ``model_to_npu_estimator``,
which turns a compiled ``tf.keras`` model into an ``NPUEstimator``.

estimator_npu has no ``tf.keras`` models yet (only ``tf.keras.datasets``), so the call
validates its arguments as the adapter does and then raises the "does not implement (yet)"
error; write the network as an Estimator ``model_fn`` (``tf.layers``) instead.
"""


def model_to_npu_estimator(keras_model=None, keras_model_path=None, custom_objects=None,
                           model_dir=None, checkpoint_format="saver", config=None,
                           job_start_file=""):
    """Raises: ValueError for the adapter's argument errors (neither or both of
    ``keras_model`` / ``keras_model_path``, a bad ``checkpoint_format``); otherwise
    ``NotImplementedError``: Keras models are not implemented."""
    if not (keras_model or keras_model_path):
        raise ValueError("Either `keras_model` or `keras_model_path` needs to be provided.")
    if keras_model and keras_model_path:
        raise ValueError("Please specify either `keras_model` or `keras_model_path`, "
                         "but not both.")
    if checkpoint_format not in (None, "checkpoint", "saver"):
        raise ValueError(f'Checkpoint format must be one of "checkpoint" or "saver". '
                         f"Got {checkpoint_format}")
    raise NotImplementedError(
        "estimator_npu does not implement npu_bridge.estimator.npu.keras_to_npu."
        "model_to_npu_estimator (tf.keras models) (yet); docs/porting.md lists what is "
        "supported")


__all__ = ["model_to_npu_estimator"]

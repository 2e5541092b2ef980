"""``tf.saved_model`` (TF1): loading the SavedModels ``Estimator.export_saved_model`` writes,
and the tag / signature constants (re-exports only; the format is in
``estimator.export``)."""
import types

from estimator_npu.estimator.export import (CLASSIFY_METHOD_NAME,  # noqa: F401
                                            DEFAULT_SERVING_SIGNATURE_DEF_KEY,
                                            PREDICT_METHOD_NAME, REGRESS_METHOD_NAME, SERVING,
                                            load)

TRAINING, EVAL, GPU, TPU = "train", "eval", "gpu", "tpu"

tag_constants = types.SimpleNamespace(SERVING=SERVING, TRAINING=TRAINING, EVAL=EVAL, GPU=GPU,
                                      TPU=TPU)
signature_constants = types.SimpleNamespace(
    DEFAULT_SERVING_SIGNATURE_DEF_KEY=DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    PREDICT_METHOD_NAME=PREDICT_METHOD_NAME, CLASSIFY_METHOD_NAME=CLASSIFY_METHOD_NAME,
    REGRESS_METHOD_NAME=REGRESS_METHOD_NAME, PREDICT_INPUTS="inputs",
    PREDICT_OUTPUTS="outputs", CLASSIFY_INPUTS="inputs", CLASSIFY_OUTPUT_CLASSES="classes",
    CLASSIFY_OUTPUT_SCORES="scores", REGRESS_INPUTS="inputs", REGRESS_OUTPUTS="outputs")
loader = types.SimpleNamespace(load=load)

__all__ = ["load", "loader", "tag_constants", "signature_constants", "SERVING",
           "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "PREDICT_METHOD_NAME", "CLASSIFY_METHOD_NAME",
           "REGRESS_METHOD_NAME", "TRAINING", "EVAL", "GPU", "TPU"]

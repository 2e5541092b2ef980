"""The Keras engine: ``Layer``, ``Input``, the functional/subclassed ``Model`` with its
training loops, and ``Sequential``."""
from estimator_npu.keras.engine.base_layer import InputSpec, Layer  # noqa: F401
from estimator_npu.keras.engine.input_layer import Input, InputLayer  # noqa: F401
from estimator_npu.keras.engine.sequential import Sequential  # noqa: F401
from estimator_npu.keras.engine.training import Model  # noqa: F401

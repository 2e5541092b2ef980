"""Old import path of the ``tf.layers`` functions, now ``estimator_npu.layers.functional``
(layers sit above the engine, STYLE §E.5); resolved lazily."""


def __getattr__(name):
    from estimator_npu.layers import functional
    return getattr(functional, name)

"""``tf.keras.layers`` pooling: Max/AveragePooling1D/2D (on the ``tf.layers`` pooling
functions; ``strides`` default to ``pool_size``) and the global poolings."""
from estimator_npu.engine.ops import array_ops, math_ops
from estimator_npu.keras import backend
from estimator_npu.keras.engine.base_layer import Layer
from estimator_npu.layers import functional


def _tuple(value, n):
    return (int(value),) * n if isinstance(value, int) else tuple(int(v) for v in value)


class _Pooling2D(Layer):
    _fn = None

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.pool_size = pool_size
        self.strides = pool_size if strides is None else strides
        self.padding = padding
        self.data_format = data_format or backend.image_data_format()

    def get_config(self):
        return dict(super().get_config(), pool_size=_tuple(self.pool_size, 2),
                    padding=self.padding, strides=_tuple(self.strides, 2),
                    data_format=self.data_format)

    def call(self, inputs):
        return type(self)._fn(inputs, self.pool_size, self.strides, padding=self.padding,
                              data_format=self.data_format, name=self._op_name)


class MaxPooling2D(_Pooling2D):
    _fn = staticmethod(functional.max_pooling2d)
    _op_name = "MaxPool"


class AveragePooling2D(_Pooling2D):
    _fn = staticmethod(functional.average_pooling2d)
    _op_name = "AvgPool"


class _Pooling1D(Layer):
    _fn = None

    def __init__(self, pool_size=2, strides=None, padding="valid",
                 data_format="channels_last", **kwargs):
        super().__init__(**kwargs)
        self.pool_size = _tuple(pool_size, 1)[0]
        self.strides = self.pool_size if strides is None else _tuple(strides, 1)[0]
        self.padding, self.data_format = padding, data_format

    def get_config(self):
        return dict(super().get_config(), strides=(self.strides,),
                    pool_size=(self.pool_size,), padding=self.padding,
                    data_format=self.data_format)

    def call(self, inputs):
        x = inputs
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, [0, 2, 1])
        y = type(self)._fn(array_ops.expand_dims(x, 1), (1, self.pool_size),
                           (1, self.strides), padding=self.padding, name=self._op_name)
        y = array_ops.squeeze(y, [1])
        return array_ops.transpose(y, [0, 2, 1]) if self.data_format == "channels_first" \
            else y


class MaxPooling1D(_Pooling1D):
    _fn = staticmethod(functional.max_pooling2d)
    _op_name = "MaxPool1d"


class AveragePooling1D(_Pooling1D):
    _fn = staticmethod(functional.average_pooling2d)
    _op_name = "AvgPool1d"


class _GlobalPooling(Layer):
    _reduce = None
    _rank = 2

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        self.keepdims = keepdims

    def get_config(self):
        return dict(super().get_config(), data_format=self.data_format,
                    keepdims=self.keepdims)

    def call(self, inputs):
        n = self._rank
        axes = list(range(2, 2 + n)) if self.data_format == "channels_first" else \
            list(range(1, 1 + n))
        return type(self)._reduce(inputs, axes, keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling):
    _reduce = staticmethod(math_ops.reduce_mean)


class GlobalMaxPooling2D(_GlobalPooling):
    _reduce = staticmethod(math_ops.reduce_max)


class GlobalAveragePooling1D(_GlobalPooling):
    _reduce = staticmethod(math_ops.reduce_mean)
    _rank = 1


class GlobalMaxPooling1D(_GlobalPooling):
    _reduce = staticmethod(math_ops.reduce_max)
    _rank = 1


MaxPool1D, MaxPool2D = MaxPooling1D, MaxPooling2D
AvgPool1D, AvgPool2D = AveragePooling1D, AveragePooling2D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D

"""User gradients: ``tf.RegisterGradient(name)`` and ``Graph.gradient_override_map``.

``RegisterGradient("FlipGradient")`` records a Python gradient function under a new name;
ops created inside ``with graph.gradient_override_map({"Identity": "FlipGradient"})`` keep
that name, and ``tf.gradients`` calls the function instead of the op type's own gradient::

    @tf.RegisterGradient("FlipGradient")
    def _flip(op, grad):
        return [tf.negative(grad)]
    with tf.get_default_graph().gradient_override_map({"Identity": "FlipGradient"}):
        y = tf.identity(x)          # forward: x; backward: -dy

The function is called as TF calls it, ``fn(op, *output_grads)``, and returns one
gradient per input (a single tensor is taken as a one-element list). ``NotDifferentiable``
(``no_gradient``) names an override that has no gradient.
"""
_GRADIENTS = {}
_NO_GRADIENT = object()


class RegisterGradient:
    """Decorator: registers ``fn(op, *grads)`` as the gradient named ``op_type``."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError(f"RegisterGradient: op_type must be a string, got "
                            f"{type(op_type).__name__}")
        self._op_type = op_type

    def __call__(self, fn):
        if self._op_type in _GRADIENTS:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
        _GRADIENTS[self._op_type] = fn
        return fn


def NotDifferentiable(op_type):  # noqa: N802 - TF's name
    """Marks the gradient name ``op_type`` as having no gradient."""
    if not isinstance(op_type, str):
        raise TypeError(f"NotDifferentiable: op_type must be a string, got "
                        f"{type(op_type).__name__}")
    _GRADIENTS[op_type] = _NO_GRADIENT


no_gradient = NotDifferentiable


def override_of(op):
    """``(True, fn)`` when ``op`` was made under a gradient override with a registered
    function (``fn`` None: not differentiable), else ``(False, None)``."""
    name = getattr(op, "_gradient_op_type", None)
    if name is None:
        return False, None
    if name not in _GRADIENTS:
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: "
                          f"{op.type}): its gradient_override_map names {name!r}, which no "
                          f"RegisterGradient registered")
    fn = _GRADIENTS[name]
    return True, None if fn is _NO_GRADIENT else fn


def call(fn, op, dys):
    grads = fn(op, *dys)
    return list(grads) if isinstance(grads, (list, tuple)) else [grads]

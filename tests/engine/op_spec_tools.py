"""What the op spec files (``op_specs_*.py``) share: a case list with its ``case`` adder,
and the input makers (each maker takes the test's ``RandomState`` and returns the input
arrays)."""
import numpy as np


def case_list(order=None):
    """``(CASES, case)``: ``case(op_type, case_id, build, make_inputs, **options)`` appends
    to ``CASES``; ``order`` (1: first derivatives only, 2: second derivatives too) is the
    default of the ``order`` option; None leaves gradcheck's default."""
    cases = []

    def case(op_type, case_id, build, make_inputs, **options):
        if order is not None:
            options.setdefault("order", order)
        cases.append((op_type, case_id, build, make_inputs, options))
    return cases, case


def normal(*shapes, scale=1.0):
    return lambda rng: [scale * rng.standard_normal(s) for s in shapes]


def uniform(lo, hi, *shapes):
    return lambda rng: [rng.uniform(lo, hi, s) for s in shapes]


def positive(*shapes, lo=0.5, hi=2.0):
    return uniform(lo, hi, *shapes)


def spread(*shapes):
    """Distinct values at least ~0.2 apart (no ties in any max-pool window)."""
    def make(rng):
        out = []
        for s in shapes:
            n = int(np.prod(s))
            out.append(((rng.permutation(n) - n / 2) * 0.25 +
                        rng.uniform(-0.02, 0.02, n)).reshape(s))
        return out
    return make


def spread_and_normal(a, b):
    """Tie-free pool inputs of shape ``a`` and a normal cotangent of shape ``b``."""
    return lambda rng: spread(a)(rng) + normal(b)(rng)


def pool_gradient_builds(tf, max_pool, avg_pool, x_shape, y_shape):
    """The builds reaching a pool's backprop ops through ``tf.gradients``:
    ``(max_pool_grad(x, c), max_pool_grad_grad(x, g), avg_pool_grad(c))`` (the gradient of
    the max-pool gradient with respect to its cotangent is MaxPoolGradGrad)."""
    def max_pool_grad(x, c):
        return tf.gradients(max_pool(x), x, grad_ys=c)[0]

    def max_pool_grad_grad(x, g):
        c = tf.zeros(list(y_shape), dtype=tf.float64)
        return tf.gradients(max_pool_grad(x, c), c, grad_ys=g)[0]

    def avg_pool_grad(c):
        x = tf.zeros(list(x_shape), dtype=tf.float64)
        return tf.gradients(avg_pool(x), x, grad_ys=c)[0]
    return max_pool_grad, max_pool_grad_grad, avg_pool_grad

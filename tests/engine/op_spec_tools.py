"""What the op spec files (``op_specs_*.py``) share: a case list with its ``case`` adder,
and the input makers (each maker takes the test's ``RandomState`` and returns the input
arrays)."""


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

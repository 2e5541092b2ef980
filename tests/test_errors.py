"""Tests for estimator_npu.errors."""

import pickle

import pytest

from estimator_npu import errors

EXPECTED_CODES = {
    "CancelledError": 1, "UnknownError": 2, "InvalidArgumentError": 3,
    "DeadlineExceededError": 4, "NotFoundError": 5, "AlreadyExistsError": 6,
    "PermissionDeniedError": 7, "ResourceExhaustedError": 8, "FailedPreconditionError": 9,
    "AbortedError": 10, "OutOfRangeError": 11, "UnimplementedError": 12, "InternalError": 13,
    "UnavailableError": 14, "DataLossError": 15, "UnauthenticatedError": 16,
}
CONSTANTS = {
    "OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4,
    "NOT_FOUND": 5, "ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8,
    "FAILED_PRECONDITION": 9, "ABORTED": 10, "OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12,
    "INTERNAL": 13, "UNAVAILABLE": 14, "DATA_LOSS": 15, "UNAUTHENTICATED": 16,
}


def test_constants_have_tf_values():
    for name, value in CONSTANTS.items():
        assert getattr(errors, name) == value, name


@pytest.mark.parametrize("name,code", sorted(EXPECTED_CODES.items()))
def test_subclass_code_and_hierarchy(name, code):
    cls = getattr(errors, name)
    assert issubclass(cls, errors.OpError)
    assert issubclass(cls, Exception)
    assert cls.__module__ == "estimator_npu.errors"
    err = cls(None, None, "boom")
    assert err.error_code == code
    assert errors.error_code_from_exception_type(cls) == code
    assert errors.exception_type_from_error_code(code) is cls


def test_fields_positional_tf_signature():
    op = object()
    err = errors.InvalidArgumentError("node_def", op, "You must feed a value for x")
    assert err.node_def == "node_def"
    assert err.op is op
    assert err.message == "You must feed a value for x"
    assert str(err) == "You must feed a value for x"
    assert err.error_code == errors.INVALID_ARGUMENT


def test_all_arguments_keyword_defaultable():
    err = errors.OutOfRangeError(message="End of sequence")
    assert (err.node_def, err.op, err.message) == (None, None, "End of sequence")
    assert str(errors.NotFoundError()) == ""
    base = errors.OpError(message="x")
    assert base.error_code == errors.UNKNOWN
    assert errors.OpError(None, None, "x", errors.ABORTED).error_code == errors.ABORTED


def test_caught_as_op_error():
    with pytest.raises(errors.OpError) as info:
        raise errors.FailedPreconditionError(None, None, "Attempting to use uninitialized w")
    assert isinstance(info.value, errors.FailedPreconditionError)
    assert "uninitialized w" in str(info.value)


def test_conflicting_error_code_rejected():
    with pytest.raises(ValueError, match="OutOfRangeError has error code 11, got error_code=3"):
        errors.OutOfRangeError(None, None, "x", errors.INVALID_ARGUMENT)
    assert errors.OutOfRangeError(None, None, "x", 11).error_code == 11


def test_bad_argument_types():
    with pytest.raises(TypeError, match="message must be a str, got int: 5"):
        errors.OpError(None, None, 5)
    with pytest.raises(TypeError, match="error_code must be an int, got bool"):
        errors.OpError(None, None, "m", True)


def test_pickle_keeps_all_fields():
    err = errors.DataLossError("nd", "op-name", "checksum mismatch")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is errors.DataLossError
    assert (back.node_def, back.op, back.message, back.error_code) == (
        "nd", "op-name", "checksum mismatch", errors.DATA_LOSS)


def test_code_lookup_errors():
    with pytest.raises(KeyError, match="got 0"):
        errors.exception_type_from_error_code(errors.OK)
    with pytest.raises(KeyError, match="got 17"):
        errors.exception_type_from_error_code(17)
    with pytest.raises(TypeError, match="OpError or a subclass"):
        errors.error_code_from_exception_type(ValueError)
    assert errors.error_code_from_exception_type(errors.OpError) == errors.UNKNOWN

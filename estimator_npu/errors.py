"""TensorFlow 1.x compatible error classes.

Every failure that TF1 reports as an ``OpError`` (an unfed placeholder, an uninitialized
variable, the end of an input pipeline, ...) is raised here as the same class, with the
same canonical error code, so that ported code catching ``tf.errors.OutOfRangeError``
keeps working::

    try:
        while True:
            sess.run(train_op)
    except errors.OutOfRangeError:
        pass  # end of input

``str(err)`` is the message alone; ``err.op`` and ``err.node_def`` name the operation that
failed when one is known.
"""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """The base class of errors raised while running (or building) graph operations.

    Args:
        node_def: The definition of the node that failed, or ``None``.
        op: The ``Operation`` that failed, or ``None``.
        message: The human-readable description of the error.
        error_code: One of the canonical codes of this module. Subclasses fix their own
            code; passing a different one raises ``ValueError``. For ``OpError`` itself
            it defaults to ``UNKNOWN``.

    Raises:
        TypeError: If ``message`` is not a string or ``error_code`` is not an int.
        ValueError: If ``error_code`` contradicts the subclass's code.
    """

    _ERROR_CODE = UNKNOWN

    def __init__(self, node_def=None, op=None, message="", error_code=None):
        if not isinstance(message, str):
            raise TypeError(
                "message must be a str, got %s: %r" % (type(message).__name__, message))
        if error_code is None:
            error_code = self._ERROR_CODE
        elif isinstance(error_code, bool) or not isinstance(error_code, int):
            raise TypeError("error_code must be an int, got %s: %r"
                            % (type(error_code).__name__, error_code))
        elif type(self) is not OpError and error_code != self._ERROR_CODE:
            raise ValueError("%s has error code %d, got error_code=%d"
                             % (type(self).__name__, self._ERROR_CODE, error_code))
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self):
        """The error message (a str)."""
        return self._message

    @property
    def op(self):
        """The operation that failed, or ``None``."""
        return self._op

    @property
    def node_def(self):
        """The node definition of the failed operation, or ``None``."""
        return self._node_def

    @property
    def error_code(self):
        """The canonical integer error code (e.g. ``OUT_OF_RANGE``)."""
        return self._error_code

    def __str__(self):
        return self._message

    def __reduce__(self):
        # Exception pickles its args only; keep all four fields across processes.
        return type(self), (self._node_def, self._op, self._message, self._error_code)


class CancelledError(OpError):
    """Raised when an operation or step is cancelled."""

    _ERROR_CODE = CANCELLED


class UnknownError(OpError):
    """Raised for errors that fit no other category."""

    _ERROR_CODE = UNKNOWN


class InvalidArgumentError(OpError):
    """Raised when an operation receives an invalid argument (e.g. an unfed placeholder)."""

    _ERROR_CODE = INVALID_ARGUMENT


class DeadlineExceededError(OpError):
    """Raised when a deadline expires."""

    _ERROR_CODE = DEADLINE_EXCEEDED


class NotFoundError(OpError):
    """Raised when a requested entity (file, variable) is missing."""

    _ERROR_CODE = NOT_FOUND


class AlreadyExistsError(OpError):
    """Raised when an entity to create already exists."""

    _ERROR_CODE = ALREADY_EXISTS


class PermissionDeniedError(OpError):
    """Raised when the caller lacks permission for an operation."""

    _ERROR_CODE = PERMISSION_DENIED


class ResourceExhaustedError(OpError):
    """Raised when a resource (memory, disk, quota) is exhausted."""

    _ERROR_CODE = RESOURCE_EXHAUSTED


class FailedPreconditionError(OpError):
    """Raised when the system cannot run an operation now (e.g. an uninitialized variable)."""

    _ERROR_CODE = FAILED_PRECONDITION


class AbortedError(OpError):
    """Raised when an operation is aborted (e.g. a session restart)."""

    _ERROR_CODE = ABORTED


class OutOfRangeError(OpError):
    """Raised when an operation iterates past the valid range (e.g. the end of a dataset)."""

    _ERROR_CODE = OUT_OF_RANGE


class UnimplementedError(OpError):
    """Raised when an operation is not implemented."""

    _ERROR_CODE = UNIMPLEMENTED


class InternalError(OpError):
    """Raised when an internal invariant is broken."""

    _ERROR_CODE = INTERNAL


class UnavailableError(OpError):
    """Raised when the runtime is currently unavailable."""

    _ERROR_CODE = UNAVAILABLE


class DataLossError(OpError):
    """Raised when unrecoverable data loss or corruption is detected (e.g. a bad checkpoint)."""

    _ERROR_CODE = DATA_LOSS


class UnauthenticatedError(OpError):
    """Raised when the request lacks valid authentication credentials."""

    _ERROR_CODE = UNAUTHENTICATED


_CODE_TO_CLASS = {cls._ERROR_CODE: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError,
    NotFoundError, AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError,
    InternalError, UnavailableError, DataLossError, UnauthenticatedError)}


def exception_type_from_error_code(error_code):
    """Returns the ``OpError`` subclass for a canonical error code.

    Args:
        error_code: An int between ``CANCELLED`` (1) and ``UNAUTHENTICATED`` (16).

    Returns:
        The subclass, e.g. ``OutOfRangeError`` for ``OUT_OF_RANGE``.

    Raises:
        KeyError: If ``error_code`` is not a canonical error code of an error.
    """
    try:
        return _CODE_TO_CLASS[error_code]
    except (KeyError, TypeError):
        raise KeyError("error_code must be one of %s, got %r"
                       % (sorted(_CODE_TO_CLASS), error_code)) from None


def error_code_from_exception_type(cls):
    """Returns the canonical error code of an ``OpError`` subclass.

    Args:
        cls: ``OpError`` or one of its subclasses.

    Returns:
        The int code (``UNKNOWN`` for ``OpError`` itself).

    Raises:
        TypeError: If ``cls`` is not ``OpError`` or a subclass of it.
    """
    if not (isinstance(cls, type) and issubclass(cls, OpError)):
        raise TypeError("cls must be OpError or a subclass of it, got %r" % (cls,))
    return cls._ERROR_CODE

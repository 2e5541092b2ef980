"""``tf.app``: ``run(main=None, argv=None)`` and ``flags``, on absl-py as in TF1.

``run`` parses the command line with the flags defined so far (unknown flags stay in the
argv given to ``main``, as TF1 tolerates them), then calls ``sys.exit(main(argv))``; a
flag-parsing error (a bad value, a missing required flag) prints absl's
``FATAL Flags parsing error: ...`` message and usage hint and exits with status 1.
"""
import sys as _sys

from absl import app as _absl_app

from estimator_npu import flags  # noqa: F401


def _parse_flags_tolerate_undef(argv):
    try:
        return flags.FLAGS(_sys.argv if argv is None else argv, known_only=True)
    except flags.Error as error:
        # absl's own report (TF 2.15's tf.compat.v1.app.run lets the exception escape
        # with a traceback instead; the exit status, 1, is the same).
        message = str(error).replace("\n", "\n  ")
        sep = ":\n  " if "\n" in str(error) else ": "
        _sys.stderr.write(f"FATAL Flags parsing error{sep}{message}\n")
        _sys.stderr.write("Pass --helpshort or --helpfull to see help on flags.\n")
        _sys.exit(1)


def run(main=None, argv=None):
    """Parses flags from ``argv`` (default ``sys.argv``) and runs ``main(argv)`` (default
    ``__main__.main``), exiting with its return value."""
    main = main or _sys.modules["__main__"].main
    _absl_app.run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)


__all__ = ["run", "flags"]

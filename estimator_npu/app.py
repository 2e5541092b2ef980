"""``tf.app``: ``run(main=None, argv=None)`` and ``flags``, on absl-py as in TF1.

``run`` parses the command line with the flags defined so far (unknown flags stay in the
argv given to ``main``, as TF1 tolerates them), then calls ``sys.exit(main(argv))``; a
flag-parsing error prints absl's message and usage hint and exits with status 1.
"""
import sys as _sys

from absl import app as _absl_app

from estimator_npu import flags  # noqa: F401


def _parse_flags_tolerate_undef(argv):
    return flags.FLAGS(_sys.argv if argv is None else argv, known_only=True)


def run(main=None, argv=None):
    """Parses flags from ``argv`` (default ``sys.argv``) and runs ``main(argv)`` (default
    ``__main__.main``), exiting with its return value."""
    main = main or _sys.modules["__main__"].main
    _absl_app.run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)


__all__ = ["run", "flags"]

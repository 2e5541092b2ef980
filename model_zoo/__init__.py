"""Runnable examples: ``python -m model_zoo.<name> --help``."""

"""Gradient clipping ops (to be filled in)."""

"""Convolution and pooling (to be filled in)."""

"""py_func / numpy_function host-call ops (to be filled in)."""

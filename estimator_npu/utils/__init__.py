"""Small dependency-free helpers: nested structures, argument validation, logging."""

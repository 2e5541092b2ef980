"""Control-flow and host-call ops (to be filled in)."""

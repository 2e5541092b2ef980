"""The device-loop layer: iterations_per_loop, the loop variables and the NPU settings.

One module owns the loop (``loop``); ``config`` validates the NPU settings and writes
them into a session config; ``util`` holds the adapter's ``sess.run``-style helpers.
"""

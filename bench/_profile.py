"""Per-kernel profile of a compiled execution plan: where a step's time goes.

``profile_plan(plan, feed_values, reps)`` times each generated line of the plan separately
(the kernels run on the real values of one step) and returns rows of
``(op type, op name, µs per call)``, most expensive first.
"""
import re
import time


def profile_plan(plan, feed_values, reps=200):
    ns = dict(plan.fn.__globals__)
    lines = plan.source.splitlines()
    args = lines[0][len("def _plan("):-2].split(", ") if lines[0] != "def _plan():" else []
    env = dict(ns)
    env.update(zip([a for a in args if a], feed_values))
    rows = []
    for lineno, line in enumerate(lines[1:-1], start=2):
        stmt = line.strip()
        # the plan frees each local after its last use (``; del x``); a line rerun on its
        # own must keep its inputs for the next repetition and the lines after it
        stmt = re.sub(r"; del [\w, ]+", "", stmt.split("  #")[0])
        code = compile(stmt, "<line>", "exec")
        op = plan.line_ops.get(lineno)
        t0 = time.perf_counter()
        for _ in range(reps):
            exec(code, env)  # noqa: S102 - the plan's own generated code
        dt = (time.perf_counter() - t0) / reps * 1e6
        rows.append((op.type if op else "?", op.name if op else "?", dt))
    return sorted(rows, key=lambda r: -r[2])


def print_profile(rows, top=15):
    total = sum(r[2] for r in rows)
    print(f"{'op type':24s} {'op name':40s} {'µs':>8s} {'share':>6s}")
    for t, n, us in rows[:top]:
        print(f"{t:24s} {n[:40]:40s} {us:8.2f} {us / total:6.1%}")
    print(f"{len(rows)} kernels, {total:.1f} µs in kernels per step")

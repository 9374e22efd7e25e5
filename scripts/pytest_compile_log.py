"""A pytest plugin that writes every numba compile of a test session to a JSON-lines file: which function, for
which test, how long (outermost compiles only: a callee compiled inside its caller counts in the caller), in which
process. Where a cold suite's compile time goes, and which function compiles twice (a second signature)::

    rm -rf /tmp/cold && PYTHONPATH=scripts MEEPLAB_CACHE_DIR=/tmp/cold MEEPLAB_COMPILE_LOG=/tmp/compiles.jsonl \\
        .venv/bin/python -m pytest -q -n 2 --dist loadfile -p pytest_compile_log
    .venv/bin/python scripts/pytest_compile_log.py /tmp/compiles.jsonl      # the summary: seconds per function

A load from numba's on-disk cache is no event (a warm suite writes nothing). Compiles in child processes (the CLI tests'
subprocesses, the parallel compile's helpers) are not seen.

Every compile, nested ones too, is also written with ``"depth"`` (0 = outermost), ``"excl"`` (its own seconds,
its callees' compiles taken out) and ``"sig"`` (the argument types): ``--twice`` lists the functions compiled for
the same signature in more than one process, the work two workers did twice (each compiled it before the other's
cache entry existed)::

    .venv/bin/python scripts/pytest_compile_log.py /tmp/compiles.jsonl --twice
"""

from __future__ import annotations

import collections
import json
import os
import sys
import time

from meeplab.sim.core.files import append_line

LOG_ENV = "MEEPLAB_COMPILE_LOG"


class _Listener:
    """numba event listener: times the outermost ``numba:compile`` events."""

    def __init__(self, path: str):
        self.path = path
        self.stack: list[float] = []
        self.test: str | None = None

    def on_start(self, event):
        self.stack.append([time.perf_counter(), 0.0])

    def on_end(self, event):
        t0, callees = self.stack.pop()
        s = time.perf_counter() - t0
        if self.stack:
            self.stack[-1][1] += s
        fn = getattr(event.data.get("dispatcher"), "py_func", None)
        name = f"{fn.__module__}.{fn.__qualname__}" if fn is not None else "?"
        row = {"test": self.test, "fn": name, "s": round(s, 3), "pid": os.getpid(), "depth": len(self.stack)}
        row.update(excl=round(s - callees, 3), sig=str(event.data.get("args")))
        append_line(self.path, json.dumps(row) + "\n")


_LISTENER: _Listener | None = None


def pytest_configure(config):
    global _LISTENER
    import numba.core.event as ev

    _LISTENER = _Listener(os.environ.get(LOG_ENV, "compiles.jsonl"))
    methods = {"on_start": _LISTENER.on_start, "on_end": _LISTENER.on_end}
    ev.register("numba:compile", type("CompileLog", (ev.Listener,), methods)())


def pytest_runtest_logstart(nodeid, location):
    if _LISTENER is not None:
        _LISTENER.test = nodeid


def summary(path: str, top: int = 40) -> str:
    """Seconds per function (summed over processes and signatures), the number of compiles, the first test
    (outermost compiles)."""
    with open(path, encoding="utf-8") as f:
        rows = [r for r in map(json.loads, f) if r.get("depth", 0) == 0]
    by = collections.defaultdict(list)
    for r in rows:
        by[r["fn"]].append(r)
    out = [f"{sum(r['s'] for r in rows):.0f} s in {len(rows)} compiles (outermost)"]
    for fn, rs in sorted(by.items(), key=lambda kv: -sum(r["s"] for r in kv[1]))[:top]:
        out.append(f"{sum(r['s'] for r in rs):7.1f} s {len(rs):3d}x {fn}  (first: {rs[0]['test']})")
    return "\n".join(out)


def twice(path: str, top: int = 40) -> str:
    """Functions compiled for one signature in more than one process: the seconds (their own, callees apart)
    spent beyond the first process's compile."""
    with open(path, encoding="utf-8") as f:
        rows = [r for r in map(json.loads, f) if "excl" in r]
    by = collections.defaultdict(dict)
    for r in rows:
        by[(r["fn"], r["sig"])].setdefault(r["pid"], []).append(r["excl"])
    extra = []
    for (fn, _sig), per_pid in by.items():
        if len(per_pid) > 1:
            firsts = sorted(v[0] for v in per_pid.values())
            extra.append((sum(firsts[1:]), len(per_pid), fn))
    extra.sort(reverse=True)
    out = [f"{sum(e[0] for e in extra):.0f} s compiled again in another process, {len(extra)} functions"]
    out += [f"{s:7.1f} s {n}x {fn}" for s, n, fn in extra[:top]]
    return "\n".join(out)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    path = args[0] if args else "compiles.jsonl"
    print(twice(path) if "--twice" in sys.argv else summary(path))

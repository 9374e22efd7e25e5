"""A cold compile on every core: an engine's large callees compiled in helper processes into the shared cache.

numba compiles one function at a time, on one core. An engine behind a function pointer
(:func:`sim.core.forward.step_pointer`) is one large tree of functions, and most of its compile time goes to the
game's per-phase rules below ``step``, which do not depend on each other. A game may therefore name them in
*parts* (``step_pointer(..., parts=((f, g), (h, k)))``): on a cold cache the first part
is compiled in this process while each further part is compiled by a helper process (up to one per spare core),
which writes it into numba's on-disk cache; this process waits for the helpers and then compiles ``step``,
which loads their functions from the cache instead of compiling them. The machine code is the same (numba links
a cached function's code into its caller exactly as a fresh one's), so results do not change; only the wait
does.

Every function named in a part must take a prefix of ``step``'s own arguments, with the same types
(``post_action(st, tab)``, ``apply_action(st, tab, i)``): its types are read from ``step``'s signature. Nothing
here is needed for correctness: when a helper cannot start or fails, or the cache is off, ``step`` compiles
everything itself, as before. Processes that need the same ``step`` take turns (a lock under the cache base): the
second loads what the first compiled. ``MEEPLAB_COMPILE_PROCS`` caps the processes (``1``: no helpers); the
default is the number of cores this process may use.

While this process then compiles ``step`` itself, the other cores would wait: a caller that knows what it compiles
next and that needs nothing of the engine's compile (the shared batch loop reaches the engine through its step
pointer) names it with :func:`compile_later`, and a helper compiles it into the cache meanwhile.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import pickle
import subprocess
import sys
import threading

ENV_PROCS = "MEEPLAB_COMPILE_PROCS"


def cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def processes() -> int:
    """How many processes a cold compile may use (this one included)."""
    value = os.environ.get(ENV_PROCS, "").strip()
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            return 1
    return cores()


def is_cached(dispatcher, sig) -> bool:
    """Whether numba's on-disk cache already holds ``dispatcher`` compiled for ``sig`` (True when it cannot tell,
    or when there is no cache: then helpers could not hand anything over)."""
    cache = getattr(dispatcher, "_cache", None)
    if cache is None or type(cache).__name__ == "NullCache":
        return True
    try:
        key = cache._index_key(sig, dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # numba internals changed: behave as before (compile here)
        return True


def _arg_types(fn, sig) -> tuple:
    """The types of the first arguments of ``sig`` (a numba signature or a tuple of types) that ``fn`` (a
    dispatcher) takes."""
    n = len(inspect.signature(fn.py_func).parameters)
    return tuple(getattr(sig, "args", sig)[:n])


def _address(fn) -> tuple[str, str]:
    """(module, attribute) under which ``fn`` can be imported again."""
    module = fn.py_func.__module__
    for name, value in vars(sys.modules[module]).items():
        if value is fn:
            return module, name
    raise LookupError(f"{fn.py_func.__qualname__} is not a module attribute of {module}")


def _compile_all(jobs) -> None:
    for fn, types in jobs:
        fn.compile(types)


_LATER = threading.local()  # jobs for a helper while this thread's next cold split compile compiles its dispatcher


def compile_later(jobs, imports=()) -> None:
    """``jobs`` (``(dispatcher, argument types)`` pairs this thread will need soon, independent of the engine about
    to compile): if this thread's next :func:`compile_split` is cold, a helper process compiles them into the cache
    while this process compiles the split's own dispatcher (its parts done), instead of this process compiling them
    one after the other later. Until :func:`clear_later`; nothing happens where that compile is a cache load.
    ``imports``: modules the helper imports first (the engine module whose ``forward.register`` binds the
    ``fm_*`` names the jobs call)."""
    _LATER.jobs = [(fn, tuple(types)) for fn, types in jobs]
    _LATER.imports = tuple(imports)


def clear_later() -> list:
    """Forget the jobs of :func:`compile_later` (those a cold compile did not take); returns them."""
    jobs = getattr(_LATER, "jobs", [])
    _LATER.jobs = []
    return jobs


def later_imports() -> tuple:
    """The modules :func:`compile_later`'s helper imports first."""
    return getattr(_LATER, "imports", ())


def _start_helper(jobs, imports=()) -> subprocess.Popen | None:
    """A helper process compiling ``jobs`` (``(dispatcher, argument types)``) into the cache, ``imports`` imported
    first; None when it cannot start (the caller then compiles them itself when it needs them)."""
    code = f"import importlib; importlib.import_module({__name__!r})._helper_main()"
    try:
        payload = pickle.dumps((tuple(imports), [(*_address(fn), types) for fn, types in jobs]))
    except Exception:  # a type numba cannot pickle
        return None
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        proc.stdin.write(payload)
        proc.stdin.close()
    except OSError:
        return None
    return proc


class Cold:
    """One cold compile of ``dispatcher`` for ``sig`` with its callees split into ``parts`` (see module doc)."""

    def __init__(self, dispatcher, sig, parts):
        self.dispatcher, self.sig = dispatcher, sig
        self.parts = [[(fn, _arg_types(fn, sig)) for fn in part] for part in parts if part]
        self.helpers: list[subprocess.Popen] = []

    def start(self) -> None:
        """Hand every part but the first to helper processes (round robin over the spare cores)."""
        n_helpers = min(processes() - 1, len(self.parts) - 1)
        if n_helpers <= 0:
            return
        shares: list[list] = [[] for _ in range(n_helpers)]
        for k, part in enumerate(self.parts[1:]):
            shares[k % n_helpers].extend(part)
        for share in shares:
            proc = _start_helper(share)
            if proc is not None:
                self.helpers.append(proc)

    def finish(self) -> None:
        """Compile the first part here, wait for the helpers, then ``dispatcher`` itself (None: only the parts)."""
        if self.parts:
            _compile_all(self.parts[0])
        for proc in self.helpers:
            proc.wait()
        self.helpers = []
        if self.dispatcher is not None:
            # the jobs this thread asked to have compiled meanwhile (compile_later): on the core the parts' helper left
            imports = later_imports()
            later = [(fn, t) for fn, t in clear_later() if not is_cached(fn, t)]
            helper = _start_helper(later, imports) if later and processes() > 1 else None
            self.dispatcher.compile(self.sig)
            if helper is not None:
                helper.wait()


def lock_name(dispatcher, sig) -> str:
    """The lock file (under the cache base) of a cold compile of ``dispatcher`` for ``sig``."""
    fn = dispatcher.py_func
    return "locks/" + hashlib.sha256(f"{fn.__module__}.{fn.__qualname__}|{sig}".encode()).hexdigest()[:20] + ".lock"


def compile_split(dispatcher, sig, parts) -> None:
    """Compile ``dispatcher`` for ``sig``; on a cold cache with spare cores, its ``parts`` in parallel first.

    A cold compile holds a machine-wide lock for ``(dispatcher, sig)``: another process that needs the same code
    meanwhile (a second test worker, Dask worker or run) waits, leaving its core to this compile's helper, and then
    loads the result from the cache instead of compiling it a second time."""
    if is_cached(dispatcher, sig):
        dispatcher.compile(sig)  # a load
        return
    from .numba_cache import cache_lock

    with cache_lock(lock_name(dispatcher, sig)):
        if parts and processes() > 1 and not is_cached(dispatcher, sig):
            job = Cold(dispatcher, sig, parts)
            job.start()
            job.finish()
        else:
            dispatcher.compile(sig)


def warm_parts(parts, types: tuple) -> None:
    """Compile ``parts`` (groups of functions that take a prefix of the argument types ``types``) into the cache
    before a caller that needs them all compiles: on a cold cache with spare cores, the groups after the first in
    helper processes while this process compiles the first; the caller then loads them. Nothing when they are
    cached, when there is one core, or when fewer than two groups are cold (the caller compiles them as before).
    For a game whose engine the shared loop compiles inline (``sim.core.forward.register``'s ``parts``)."""
    jobs = [[(fn, _arg_types(fn, types)) for fn in part] for part in parts if part]
    if processes() <= 1 or sum(not all(is_cached(fn, t) for fn, t in part) for part in jobs) < 2:
        return
    from .numba_cache import cache_lock

    name = "|".join(f"{fn.py_func.__module__}.{fn.py_func.__qualname__}" for part in jobs for fn, _ in part)
    with cache_lock("locks/" + hashlib.sha256(f"{name}|{types}".encode()).hexdigest()[:20] + ".lock"):
        if sum(not all(is_cached(fn, t) for fn, t in part) for part in jobs) < 2:
            return  # another process compiled them meanwhile
        job = Cold(None, types, parts)
        job.start()
        job.finish()


def _helper_main() -> None:
    """A helper process: compile the (module, attribute, argument types) jobs pickled on stdin into the cache, the
    modules named with them imported first."""
    imports, jobs = pickle.loads(sys.stdin.buffer.read())
    for module in imports:
        importlib.import_module(module)
    for module, name, types in jobs:
        getattr(importlib.import_module(module), name).compile(types)

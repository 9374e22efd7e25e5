"""A cold compile on every core: an engine's large callees compiled in helper processes into the shared cache.

numba compiles one function at a time, on one core. An engine behind a function pointer
(:func:`sim.core.forward.step_pointer`) is one large tree of functions, and most of its compile time goes to the
game's per-phase rules below ``step``, which do not depend on each other. A game may therefore name them in
*parts* (``step_pointer(..., parts=((f, g), (h, k)))``): on a cold cache this process and a helper process per
spare core compile them, each writing into numba's on-disk cache; the groups are where each process starts, and
the functions are shared out one at a time as the processes get free (:class:`Board`, :func:`claim_order`); this
process waits for the parts and then compiles ``step``, which loads their functions from the cache instead of
compiling them. The machine code is the same (numba links a cached function's code into its caller exactly as a
fresh one's), so results do not change; only the wait does.

Every function named in a part must take a prefix of ``step``'s own arguments, with the same types
(``post_action(st, tab)``, ``apply_action(st, tab, i)``): its types are read from ``step``'s signature. Nothing
here is needed for correctness: when a helper cannot start or fails, or the cache is off, ``step`` compiles
everything itself, as before. Processes that need the same ``step`` take turns (a lock under the cache base): the
second loads what the first compiled. ``MEEPLAB_COMPILE_PROCS`` caps the processes (``1``: no helpers); the
default is the number of cores this process may use.

While this process then compiles ``step`` itself, the other cores would wait: a caller that knows what it compiles
next and that needs nothing of the engine's compile (the shared batch loop reaches the engine through its step
pointer) names it with :func:`compile_later`, and a helper compiles it into the cache meanwhile; so does
``sim.core.play.search_function`` with the line-up's bots that the cache lacks (``Lineup.pending``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import inspect
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import threading
import time

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


_LATER = threading.local()  # jobs for a helper while this thread's next cold split compile compiles its dispatcher


def compile_later(jobs, imports=()) -> None:
    """``jobs`` (``(dispatcher, argument types)`` pairs this thread will need soon, independent of the engine about
    to compile): if this thread's next :func:`compile_split` is cold, a helper process compiles them into the cache
    while this process compiles the split's own dispatcher (its parts done), instead of this process compiling them
    one after the other later. Until :func:`clear_later`; nothing happens where that compile is a cache load.
    ``imports``: modules the helper imports first (the engine module whose ``forward.register`` binds the
    ``fm_*`` names the jobs call)."""
    _LATER.jobs = [(fn, types if isinstance(types, str) else tuple(types)) for fn, types in jobs]
    _LATER.imports = tuple(imports)


def clear_later() -> list:
    """Forget the jobs of :func:`compile_later` (those a cold compile did not take); returns them."""
    jobs = getattr(_LATER, "jobs", [])
    _LATER.jobs = []
    return jobs


def later_imports() -> tuple:
    """The modules :func:`compile_later`'s helper imports first."""
    return getattr(_LATER, "imports", ())


def _addressed(jobs) -> list | None:
    """``jobs`` as ``(module, attribute, argument types)`` a helper process can import; None where one cannot be
    named (a function that is no module attribute) or its types cannot be pickled."""
    try:
        out = [(*_address(fn), types if isinstance(types, str) else tuple(types)) for fn, types in jobs]
        pickle.dumps(out)
    except Exception:
        return None
    return out


def _start_helper(payload) -> subprocess.Popen | None:
    """A helper process running :func:`_helper_main` on ``payload``; None when it cannot start (the caller then
    compiles everything itself when it needs it)."""
    code = f"import importlib; importlib.import_module({__name__!r})._helper_main()"
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        proc.stdin.write(pickle.dumps(payload))
        proc.stdin.close()
    except OSError:
        return None
    return proc


class Board:
    """Who compiles which job of a cold compile: one folder shared by this process and its helpers; a job is
    *claimed* by creating its file (``O_EXCL``: exactly one process wins it) and *done* when its second file exists."""

    def __init__(self, folder: str):
        self.folder = folder

    def claim(self, i: int) -> bool:
        try:
            os.close(os.open(os.path.join(self.folder, f"{i}.claim"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True

    def done(self, i: int) -> None:
        with open(os.path.join(self.folder, f"{i}.done"), "w"):
            pass

    def is_done(self, i: int) -> bool:
        return os.path.exists(os.path.join(self.folder, f"{i}.done"))


def claim_order(sizes: list[int], own: int, n_later: int = 0) -> list[int]:
    """The order in which the process given group ``own`` (``sizes``: the groups' lengths, their jobs numbered
    group after group) claims jobs: its own group front to back, then the other groups' jobs from their backs (the
    work their own processes would reach last), then the ``n_later`` jobs after the groups. A group's functions
    share callees, so each process compiles mostly its own group, as the games chose them; what is uneven (the
    machine, a group that turned out larger) evens out at the end."""
    first = [sum(sizes[:k]) for k in range(len(sizes))]
    mine = list(range(first[own], first[own] + sizes[own])) if own < len(sizes) else []
    others = [i for k in range(len(sizes)) if k != own for i in reversed(range(first[k], first[k] + sizes[k]))]
    total = sum(sizes)
    return mine + others + list(range(total, total + n_later))


class Cold:
    """One cold compile of ``dispatcher`` for ``sig`` with its callees in ``parts`` (see module doc), on every core.

    The parts' functions (and then ``later``'s jobs, which ``dispatcher`` does not need) are a queue that this
    process and its helpers take from, each the next job nobody has claimed (:class:`Board`) in its own order
    (:func:`claim_order`: group ``k`` first for process ``k``, this process being 0), so the cores share the work
    whatever each job costs. This process takes parts only; once none is left to claim and every part is done (or
    every helper has ended), it compiles ``dispatcher`` (which loads the parts from the cache) while the helpers go
    on with ``later``; then it takes what is left of ``later`` itself and waits for the helpers."""

    def __init__(self, dispatcher, sig, parts, later=(), imports=()):
        self.dispatcher, self.sig = dispatcher, sig
        groups = [[(fn, _arg_types(fn, sig)) for fn in part] for part in parts if part]
        self.sizes = [len(g) for g in groups]
        self.parts = [job for g in groups for job in g]
        self.later = list(later)
        self.imports = tuple(imports)
        self.helpers: list[subprocess.Popen] = []
        self.board: Board | None = None

    def start(self) -> None:
        """Start the helpers (up to one per spare core, no more than there are jobs for them)."""
        n_helpers = min(processes() - 1, len(self.parts) + len(self.later) - 1)
        parts = _addressed(self.parts)
        if n_helpers <= 0 or parts is None:
            return
        self.later = [job for job in self.later if _addressed([job]) is not None]  # the rest: compiled where needed
        self.board = Board(tempfile.mkdtemp(prefix="meeplab-compile-"))
        jobs = parts + _addressed(self.later)
        for k in range(1, n_helpers + 1):
            payload = (self.imports, jobs, claim_order(self.sizes, k, len(self.later)), self.board.folder)
            proc = _start_helper(payload)
            if proc is not None:
                self.helpers.append(proc)

    def _parts_done(self) -> bool:
        if self.board is None or all(p.poll() is not None for p in self.helpers):
            return True
        return all(self.board.is_done(i) for i in range(len(self.parts)))

    def _take_later(self) -> None:
        """Compile each job of ``later`` that no helper has claimed."""
        for j, (fn, types) in enumerate(self.later):
            if self.board is not None and self.board.claim(len(self.parts) + j):
                fn.compile(types)

    def finish(self) -> None:
        """Take parts until none is left, wait for the helpers' parts, compile ``dispatcher`` (None: only the
        parts), take what is left of ``later`` (without a dispatcher: while the helpers finish their parts), wait
        for the helpers."""
        try:
            for i in claim_order(self.sizes, 0):
                if self.board is None or self.board.claim(i):
                    fn, types = self.parts[i]
                    fn.compile(types)
                    if self.board is not None:
                        self.board.done(i)
            if self.dispatcher is None:
                self._take_later()  # nothing here waits for the parts: the jobs for later while helpers finish
            while not self._parts_done():
                time.sleep(0.01)
            if self.dispatcher is not None:
                self.dispatcher.compile(self.sig)
                self._take_later()
            for proc in self.helpers:
                proc.wait()
        finally:
            self.helpers = []
            if self.board is not None:
                shutil.rmtree(self.board.folder, ignore_errors=True)


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
            imports = later_imports()
            later = [(fn, t) for fn, t in clear_later() if not is_cached(fn, t)]
            job = Cold(dispatcher, sig, parts, later, imports)
            job.start()
            job.finish()
        else:
            dispatcher.compile(sig)


def warm_parts(parts, types: tuple) -> None:
    """Compile ``parts`` (groups of functions that take a prefix of the argument types ``types``) into the cache
    before a caller that needs them all compiles: on a cold cache with spare cores, the groups after the first in
    helper processes while this process compiles the first; the caller then loads them. Nothing when they are
    cached, when there is one core, or when fewer than two groups are cold (the caller compiles them as before).
    For a game whose engine the shared loop compiles inline (``sim.core.forward.register``'s ``parts``). Jobs named
    with :func:`compile_later` (which must not need these parts) are taken too, by whichever process is free."""
    jobs = [[(fn, _arg_types(fn, types)) for fn in part] for part in parts if part]
    if processes() <= 1 or sum(not all(is_cached(fn, t) for fn, t in part) for part in jobs) < 2:
        return
    from .numba_cache import cache_lock

    name = "|".join(f"{fn.py_func.__module__}.{fn.py_func.__qualname__}" for part in jobs for fn, _ in part)
    with cache_lock("locks/" + hashlib.sha256(f"{name}|{types}".encode()).hexdigest()[:20] + ".lock"):
        if sum(not all(is_cached(fn, t) for fn, t in part) for part in jobs) < 2:
            return  # another process compiled them meanwhile
        imports = later_imports()
        later = [(fn, t) for fn, t in clear_later() if not is_cached(fn, t)]  # a line-up's bots, say
        job = Cold(None, types, parts, later, imports)
        job.start()
        job.finish()


def _helper_main() -> None:
    """A helper process: the modules named first imported, then each of the (module, attribute, argument types)
    jobs pickled on stdin that it can claim on the board (:class:`Board`), in its order (:func:`claim_order`),
    compiled into the cache. A job that fails is left (marked done): whoever needs it compiles it, and reports its
    error."""
    imports, jobs, order, folder = pickle.loads(sys.stdin.buffer.read())
    board = Board(folder)
    for module in imports:
        importlib.import_module(module)
    for i in order:
        module, name, types = jobs[i]
        if board.claim(i):
            with contextlib.suppress(Exception):  # left to whoever needs it: it compiles it and reports the error
                getattr(importlib.import_module(module), name).compile(types)
            board.done(i)

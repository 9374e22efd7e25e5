"""Numba's on-disk cache, keyed to the sources that compiled code can depend on (no stale machine code).

numba's own cache (``cache=True``) checks only the file that defines a function: a compiled engine
or bot is reused after an edit of ``strategies/common.py``, a game's ``scoring.py`` or any other helper
it calls, and a run then plays the old code without a word. meeplab therefore gives every module of
its packages (``sim``, ``strategies``) its own numba cache directory::

    <cache base>/<module name>/<key>/

where ``key`` hashes the source of the module and of every module of these packages it imports,
directly or through others (read from its ``import`` statements; parent packages'
``__init__.py`` count too, they run on import). An edit anywhere in what a module can reach gives
it a new directory, so its functions compile afresh, on every machine and worker; an edit elsewhere
costs nothing (a bot edit does not recompile an engine: engines call bots through function
pointers and do not import them). The directory is chosen while the module is imported, which is
when numba fixes a dispatcher's cache location (``numba.config.CACHE_DIR``).

The cache base is ``$MEEPLAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/meeplab/numba`` (``~/.cache/...``); all
processes of a machine share it, so a worker loads what another compiled. Each module keeps its
:data:`KEEP` most recently used keys; older ones are deleted when a new key is made (never one used in
the last hour, which another process may still be reading). ``MEEPLAB_NUMBA_KEYED=0`` turns all this
off (numba's default: ``__pycache__`` next to the sources, or ``$NUMBA_CACHE_DIR``).

The shared game loop and search (``GENERIC``: ``sim.core.play``, ``sim.core.search``, ``sim.core.face``) are
compiled for each game's state through overloads the game's engine registers, without importing it. Their
directory follows their own imports only; each compiled signature is keyed, inside numba's index, by the
sources of the game folders ``sim/<game>/`` whose types it takes (:func:`game_keyed`). An edit of one game
recompiles that game's loop and search, not the other games'.

Not covered: modules imported with ``importlib`` by name only (a module's key follows its ``import``
statements) and functions compiled at run time outside an import; game and bot plug-ins from other packages
(entry points) use numba's default for their own modules, and the shared loop and search compiled for a plugin
game's state are keyed by the plugin package's sources (:func:`plugin_key`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from importlib.machinery import PathFinder, SourceFileLoader
from pathlib import Path

TOP = "meeplab"  # the distribution's one import name; sim/ and strategies/ are its subpackages
PACKAGES = ("sim", "strategies")  # the subpackages whose modules are keyed
ROOT = Path(__file__).resolve().parents[2]  # the folder holding sim/ and strategies/ (meeplab.sim, ...)
KEEP = 4  # cache keys kept per module
_IN_USE_S = 3600.0  # a key used this recently is never pruned

_imports_memo: dict[str, frozenset[str]] = {}
_key_memo: dict[str, str] = {}


def cache_base() -> Path:
    env = os.environ.get("MEEPLAB_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "meeplab" / "numba"


def _ours(name: str) -> bool:
    """Whether ``name`` is a module of the keyed packages (``meeplab.sim...``, ``meeplab.strategies...``)."""
    parts = name.split(".")
    return len(parts) >= 2 and parts[0] == TOP and parts[1] in PACKAGES


def _file_of(name: str) -> Path | None:
    if not _ours(name):
        return None
    p = ROOT.joinpath(*name.split(".")[1:])
    if (p / "__init__.py").is_file():
        return p / "__init__.py"
    f = p.parent / (p.name + ".py")
    return f if f.is_file() else None


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


# import statements, wherever they are (a match inside a docstring only adds a dependency: harmless)
_IMPORT_RE = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]*))", re.M
)


# Shared modules whose compiled code is specialised for every game at compile time (numba overloads that
# each game's engine registers, sim.core.forward): they depend on the game folders without importing them.
GENERIC = ("meeplab.sim.core.play", "meeplab.sim.core.search", "meeplab.sim.core.face")
# Every other module of the core too: any of its functions may be compiled for a game's state (restricted play's
# allowed_list, a search of another kind); a signature without a game's types keeps numba's own index key.
CORE = f"{TOP}.sim.core."


def _game_modules(game: str) -> set[str]:
    """Every module of the game folder ``sim/<game>/`` (what a GENERIC function is compiled from for it)."""
    folder = ROOT / "sim" / game
    out = {f"{TOP}.sim.{game}"} if (folder / "__init__.py").is_file() else set()
    out.update(f"{TOP}.sim.{game}.{path.stem}" for path in folder.glob("*.py") if path.name != "__init__.py")
    return out


PLUGIN = "plugin:"  # _games_of's name for a plugin game's package (its classes come from outside meeplab)


def plugin_key(top: str) -> str:
    """Hash of every ``*.py`` file of the installed package ``top`` (a plugin game's package, found by entry point):
    the shared loop and search compiled for its state are keyed by it, so an edit of the plugin compiles them
    again (its own modules use numba's default cache, keyed by each file's own source)."""
    memo = PLUGIN + top
    if memo not in _key_memo:
        module = sys.modules.get(top)
        h = hashlib.sha256()
        paths = list(getattr(module, "__path__", None) or [])
        files = [Path(p) for d in paths for p in sorted(Path(d).rglob("*.py"))]
        if not paths and getattr(module, "__file__", None):
            files = [Path(module.__file__)]
        for f in files:
            with contextlib.suppress(OSError):
                h.update(str(f.name).encode() + b"\0" + f.read_bytes() + b"\0")
        _key_memo[memo] = h.hexdigest()[:20]
    return _key_memo[memo]


def game_key(game: str) -> str:
    """Hash of the sources of game folder ``sim/<game>/`` and of every module of our packages they import
    (a plugin's ``plugin:<package>``: :func:`plugin_key`)."""
    if game.startswith(PLUGIN):
        return plugin_key(game[len(PLUGIN) :])
    memo = f"game:{game}"
    if memo not in _key_memo:
        h = hashlib.sha256()
        for mod in sorted(_game_modules(game)):
            h.update(mod.encode() + b"\0" + source_key(mod).encode())
        _key_memo[memo] = h.hexdigest()[:20]
    return _key_memo[memo]


def _games_of(typ, out: set[str]) -> set[str]:
    """Game folders whose classes appear in numba type ``typ`` (a game's state or context NamedTuple)."""
    cls = getattr(typ, "instance_class", None)
    mod = getattr(cls, "__module__", "") or ""
    parts = mod.split(".")
    if len(parts) >= 3 and parts[:2] == [TOP, "sim"] and parts[2] != "core" and (ROOT / "sim" / parts[2]).is_dir():
        out.add(parts[2])
    elif cls is not None and parts[0] and parts[0] not in (TOP, "numba", "numpy", "builtins", "typing"):
        out.add(PLUGIN + parts[0])  # a plugin game's state or context
    for sub in getattr(typ, "types", ()) or ():
        _games_of(sub, out)
    return out


def game_keyed(dispatcher):
    """Key ``dispatcher``'s cached signatures (a GENERIC function) by the game folders their types come from.

    numba's index key is (signature, machine, bytecode hash); this adds :func:`game_key` of every game whose
    state or context the signature holds, so an edit of that game compiles again and nothing else does."""
    from numba.core.caching import FunctionCache

    if type(getattr(dispatcher, "_cache", None)) is FunctionCache:  # numba made it with cache=True
        dispatcher._cache = _cache_class()(dispatcher.py_func)
    return dispatcher


_CACHE_CLASS: list = []


def _sig_games(sig) -> set[str]:
    games: set[str] = set()
    for typ in getattr(sig, "args", sig):
        _games_of(typ, games)
    return games


def _cache_class():
    """numba's FunctionCache with the game folders' keys in every index key (made once, numba imported late).

    A signature that holds a plugin game's types is kept in an index file of its own per plugin package
    (``<function>-<package>.nbi``): numba unpickles a whole index to read one entry, and an entry naming the classes
    of a plugin that is no longer installed would otherwise break every game's loop. An index that does not unpickle
    reads as empty (compiled again) instead of raising."""
    if not _CACHE_CLASS:
        from numba.core.caching import FunctionCache, IndexDataCacheFile

        class SafeIndex(IndexDataCacheFile):
            def _load_index(self):
                try:
                    return super()._load_index()
                except (ImportError, AttributeError, EOFError, TypeError, ValueError):
                    return {}

        class GameKeyedCache(FunctionCache):
            def _index_key(self, sig, codegen):
                games = _sig_games(sig)
                return super()._index_key(sig, codegen) + (tuple((g, game_key(g)) for g in sorted(games)),)

            def _file_for(self, sig):
                plugins = "+".join(sorted(g[len(PLUGIN) :] for g in _sig_games(sig) if g.startswith(PLUGIN)))
                files = self.__dict__.setdefault("_files", {})
                if plugins not in files:
                    base = self._impl.filename_base + (f"-{plugins}" if plugins else "")
                    stamp = self._impl.locator.get_source_stamp()
                    files[plugins] = SafeIndex(cache_path=self._cache_path, filename_base=base, source_stamp=stamp)
                return files[plugins]

            def _load_overload(self, sig, target_context):
                self._cache_file = self._file_for(sig)
                return super()._load_overload(sig, target_context)

            def _save_overload(self, sig, data):
                self._cache_file = self._file_for(sig)
                return super()._save_overload(sig, data)

        _CACHE_CLASS.append(GameKeyedCache)
    return _CACHE_CLASS[0]


def _imports(name: str) -> frozenset[str]:
    """Modules of our packages that ``name`` imports (anywhere in its source), with their parents."""
    if name in _imports_memo:
        return _imports_memo[name]
    found: set[str] = set(_parents(name))
    path = _file_of(name)
    if path is not None:
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for m in _IMPORT_RE.finditer(path.read_text(encoding="utf-8", errors="replace")):
            dots, module, names, plain = m.groups()
            if plain is not None:
                found.update(part.split()[0] for part in plain.split(",") if part.split())
                continue
            if dots:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - len(dots) + 1])
                base = f"{base}.{module}" if module else base
            else:
                base = module
            found.add(base)
            found.update(f"{base}.{part.split()[0]}" for part in names.strip("()").split(",") if part.split())
    out = set()
    for mod in found:
        if _ours(mod):
            out.update(m for m in (*_parents(mod), mod) if _file_of(m) is not None)
    _imports_memo[name] = frozenset(out)
    return _imports_memo[name]


def source_key(name: str) -> str:
    """Hash of the sources of ``name`` and of every module of our packages it reaches by imports."""
    if name in _key_memo:
        return _key_memo[name]
    seen, todo = set(), [name]
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        todo.extend(_imports(mod) - seen)
    h = hashlib.sha256()
    for mod in sorted(seen):
        path = _file_of(mod)
        if path is not None:
            h.update(mod.encode() + b"\0" + path.read_bytes() + b"\0")
    _key_memo[name] = h.hexdigest()[:20]
    return _key_memo[name]


def cache_dir(name: str) -> Path:
    """The numba cache directory of module ``name`` for its current sources (pruning old keys)."""
    mod_dir = cache_base() / name
    path = mod_dir / source_key(name)
    try:
        if path.is_dir():
            os.utime(path)
        elif mod_dir.is_dir():
            _prune(mod_dir)
    except OSError:
        pass
    return path


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (made if missing) for the block; the kernel releases it if the
    process dies. No lock where ``flock`` or the folder is not available."""
    try:
        import fcntl

        path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(path, "a")  # noqa: SIM115  (held until the caller's block ends: closed in the finally below)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield
    finally:
        fh.close()


def cache_lock(name: str) -> Iterator[None]:
    """Hold the machine-wide lock ``name`` (a file under the cache base, :func:`file_lock`): processes that would
    compile the same code take turns, and the second then loads what the first compiled."""
    return file_lock(cache_base() / name)


_LOCKED_INDEX: list = []


def _same_signature(key, data) -> bool:
    """Whether cache ``data`` (a reduced compile result: its 4th item is the signature) was compiled for the
    argument types of index ``key`` (its 1st item); True where either is not of that shape."""
    sig = key[0] if isinstance(key, tuple) and key else None
    got = data[3] if isinstance(data, tuple) and len(data) > 3 else None
    want, have = getattr(sig, "args", sig), getattr(got, "args", None)
    if not isinstance(want, tuple) or have is None:
        return True
    return tuple(have) == tuple(want)


def locked_index_class():
    """numba's index-and-data cache file, safe when processes compile at once (made once, numba imported late).

    numba saves a new entry by reading the function's index, picking the first data-file number the index does
    not name, and writing index and data file back, with no lock: two processes compiling two signatures of one
    function at the same time (two test workers, two runs, a run and a compile helper) can both pick ``.2.nbc``,
    so the index names one signature's file and the file holds the other's code. Loading that signature then
    returns code for the wrong types, the dispatcher registers it under those, and every caller fails to type
    (seen as ``Invalid use of type(CPUDispatcher(rng_below)) with parameters (array(uint64, 1d, A), int64)`` in
    a cold test run, for good, until the cache was deleted). Here a save holds an ``flock`` on ``<index>.lock``
    for its read-modify-write, and a load whose data was compiled for other types reads as a miss (compiled again
    and saved over the bad file), which also heals a cache damaged before."""
    if not _LOCKED_INDEX:
        from numba.core import caching

        base = caching.IndexDataCacheFile

        class LockedIndex(base):
            def save(self, key, data):
                with file_lock(Path(self._index_path + ".lock")):
                    super().save(key, data)

            def load(self, key):
                data = super().load(key)
                return data if data is None or _same_signature(key, data) else None

        _LOCKED_INDEX.append(LockedIndex)
    return _LOCKED_INDEX[0]


def lock_numba_saves(module=None) -> None:
    """Once numba is imported: every cache numba makes from now on uses :func:`locked_index_class`, and so do the
    cached functions of ``module`` made before (its first ``import numba`` came during its own import)."""
    caching = sys.modules.get("numba.core.caching")
    if caching is None:
        return
    cls = locked_index_class()
    base = cls.__mro__[1]
    caching.IndexDataCacheFile = cls
    for obj in vars(module).values() if module is not None else ():
        cache_file = getattr(getattr(obj, "_cache", None), "_cache_file", None)
        if type(cache_file) is base:
            cache_file.__class__ = cls


def _prune(mod_dir: Path) -> None:
    keys = sorted(mod_dir.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
    now = time.time()
    for old in keys[KEEP - 1 :]:
        if now - old.stat().st_mtime > _IN_USE_S:
            shutil.rmtree(old, ignore_errors=True)


def _set_cache_dir(path: str | None) -> str | None:
    prev = os.environ.get("NUMBA_CACHE_DIR")
    if path is None:
        os.environ.pop("NUMBA_CACHE_DIR", None)
    else:
        os.environ["NUMBA_CACHE_DIR"] = path
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba re-reads the variable when it compiles; dispatchers read the attribute
        config.CACHE_DIR = path or ""
    return prev


class _KeyedLoader(SourceFileLoader):
    """Runs a module with numba's cache directory set to the module's own key."""

    def exec_module(self, module):
        prev = _set_cache_dir(str(cache_dir(module.__name__)))
        lock_numba_saves()
        try:
            super().exec_module(module)
            lock_numba_saves(module)
            if module.__name__ in GENERIC or module.__name__.startswith(CORE):
                _key_by_game(module)
        finally:
            _set_cache_dir(prev)


def _key_by_game(module) -> None:
    """Every cached numba function defined in a GENERIC module gets per-game index keys (:func:`game_keyed`)."""
    from numba.core.registry import CPUDispatcher

    for obj in vars(module).values():
        if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
            game_keyed(obj)


class _KeyedFinder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if not _ours(name):
            return None
        spec = PathFinder.find_spec(name, path, target)
        if spec is None or type(spec.loader) is not SourceFileLoader or not spec.origin:
            return spec
        if not Path(spec.origin).resolve().is_relative_to(ROOT):
            return spec
        spec.loader = _KeyedLoader(spec.loader.name, spec.loader.path)
        return spec


TESTED_NUMBA = "0.68"  # the numba minor version these hooks are tested with (pyproject caps numba below the next)


class NumbaHookMissing(ImportError):
    """The installed numba lacks an internal that meeplab patches (this module's cache keying and locked index
    saves, ``numba_inline``'s scope copies): numba offers no public hook for them, so a numba newer than the tested
    one is refused with one line rather than run with stale or racing caches."""


def require_hook(owner, attr: str, what: str) -> None:
    """Raise :class:`NumbaHookMissing` (one line) unless ``owner`` has ``attr``."""
    if owner is None or not hasattr(owner, attr):
        import numba

        raise NumbaHookMissing(
            f"numba {numba.__version__} has no {what}, which meeplab patches; meeplab is tested with numba "
            f"{TESTED_NUMBA}.x: pip install 'numba>=0.59,<0.69' (or set MEEPLAB_NUMBA_KEYED=0 for numba's own cache)"
        )


def check_hooks() -> None:
    """Every numba internal this module patches is where it expects it (:class:`NumbaHookMissing` otherwise)."""
    from numba.core import caching, config, registry

    require_hook(caching, "FunctionCache", "numba.core.caching.FunctionCache")
    require_hook(caching, "IndexDataCacheFile", "numba.core.caching.IndexDataCacheFile")
    for method in ("save", "load"):
        require_hook(caching.IndexDataCacheFile, method, f"IndexDataCacheFile.{method}")
    require_hook(config, "CACHE_DIR", "numba.core.config.CACHE_DIR")
    require_hook(registry, "CPUDispatcher", "numba.core.registry.CPUDispatcher")


def install() -> None:
    """Key numba's cache for every module of our packages imported from now on (idempotent); a numba without the
    internals it patches is refused (:func:`check_hooks`)."""
    if os.environ.get("MEEPLAB_NUMBA_KEYED", "1") == "0":
        return
    check_hooks()
    if not any(f is _KeyedFinder for f in sys.meta_path):
        sys.meta_path.insert(0, _KeyedFinder)

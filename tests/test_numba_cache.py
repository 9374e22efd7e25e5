"""No stale machine code: an edit of a helper recompiles what uses it (sim/core/numba_cache.py)."""

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from meeplab.sim.core import numba_cache

ROOT = Path(__file__).resolve().parents[1]

# A new result for strategies.common.argmax_column (the greedy bot's only helper): always the first
# candidate. Appended, so it replaces the function whatever the file holds.
EDIT = """

@njit(cache=True)
def argmax_column(feats, n, col, rng):  # noqa: F811
    return 0
"""


def cache_files(module: str, source_dir: Path) -> dict[str, int]:
    """numba's cache files of ``module`` (every key) for sources in ``source_dir``, with their mtimes."""
    tag = f"{source_dir.name}_{hashlib.sha1(str(source_dir).encode()).hexdigest()}"  # numba's subfolder name
    return {str(f): f.stat().st_mtime_ns for f in (numba_cache.cache_base() / module).glob(f"*/{tag}/*")}


# Two modules of the keyed packages, written into the copy only: a bot-like function that calls the helper, and an
# engine-like function that does not import it (engines reach bots through function pointers, never by import).
PROBE_BOT = """
import numpy as np
from numba import njit

from meeplab.sim.core.rng import rng_init
from meeplab.strategies.common import argmax_column


@njit(cache=True)
def pick():
    feats = np.zeros((3, 1))
    feats[1, 0] = 5.0
    feats[2, 0] = 1.0
    rng = np.zeros(4, dtype=np.uint64)
    rng_init(rng, 1, 0)
    return argmax_column(feats, 3, 0, rng)
"""

PROBE_ENGINE = """
import numpy as np
from numba import njit

from meeplab.sim.core.rng import splitmix64


@njit(cache=True)
def step(x):
    return splitmix64(np.uint64(x))[1] % np.uint64(1000)
"""

SESSION = """
import json
from meeplab.sim.core import numba_cache
from meeplab.strategies import probe_bot
from meeplab.sim.core import probe_engine
print(json.dumps({
    "pick": int(probe_bot.pick()),
    "step": int(probe_engine.step(7)),
    "keys": {m: numba_cache.source_key(m) for m in (
        "meeplab.strategies.probe_bot", "meeplab.sim.core.probe_engine",
        "meeplab.strategies.schweinebande.greedy", "meeplab.sim.schweinebande.engine")},
}))
"""


def session(copy: Path) -> dict:
    """A fresh interpreter on the copy: the probes' results and the source keys of the modules concerned."""
    env = dict(os.environ, PYTHONPATH=str(copy))
    cmd = [sys.executable, "-c", SESSION]
    res = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_editing_a_helper_recompiles_its_users_only(tmp_path):
    # The copy lives at a fixed place, so that numba's cache (whose entries also name the source's path)
    # is warm from the second session on; a lock keeps two sessions of the suite apart.
    home = numba_cache.cache_base().parent / "selftest"
    home.mkdir(parents=True, exist_ok=True)
    with open(home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        copy = home / "site"  # the installed layout: site/meeplab/ holding sim/, strategies/, ... (a wheel's)
        lab = copy / "meeplab"
        shutil.rmtree(lab, ignore_errors=True)
        shutil.copytree(ROOT / "meeplab", lab, ignore=shutil.ignore_patterns("__pycache__"))  # keeps mtimes
        for pkg in ("sim", "strategies", "analysis", "reports"):
            shutil.copytree(ROOT / pkg, lab / pkg, ignore=shutil.ignore_patterns("__pycache__"))
        (lab / "strategies" / "probe_bot.py").write_text(PROBE_BOT)
        (lab / "sim" / "core" / "probe_engine.py").write_text(PROBE_ENGINE)

        before = session(copy)
        engine = cache_files("meeplab.sim.core.probe_engine", lab / "sim" / "core")
        assert before["pick"] == 1 and engine  # the best row; the engine-like probe was compiled into the cache

        common = lab / "strategies" / "common.py"
        common.write_text(common.read_text() + EDIT)  # probe_bot.py itself is unchanged: numba alone would not notice
        after = session(copy)

        assert after["pick"] == 0  # the edited helper was compiled and played, not the stale machine code
        assert after["step"] == before["step"]
        changed = {m for m in before["keys"] if before["keys"][m] != after["keys"][m]}
        # every module that reaches the helper gets a new key; the engines (the real one too) keep theirs
        assert changed == {"meeplab.strategies.probe_bot", "meeplab.strategies.schweinebande.greedy"}
        # the engine-like probe never imports the helper: loaded from its cache as it was, not compiled again
        assert cache_files("meeplab.sim.core.probe_engine", lab / "sim" / "core") == engine


def test_key_follows_imports():
    eng = numba_cache.source_key("meeplab.sim.core.rng")
    assert eng == numba_cache.source_key("meeplab.sim.core.rng")
    reach = numba_cache._imports("meeplab.strategies.common")
    assert "meeplab.sim.core.rng" in reach and "meeplab.strategies" in reach
    assert numba_cache.source_key("meeplab.sim.core.rng") != numba_cache.source_key("meeplab.sim.core.play")


def test_shared_loop_is_keyed_per_game():
    # The shared loop's directory follows its own imports; each compiled signature carries the keys of the game
    # folders its types come from, so editing one game does not recompile another game's loop.
    import numba
    import numpy as np

    from meeplab.sim.core import play
    from meeplab.sim.schweinebande.state import CTX_DTYPE, SBCtx

    core = ["meeplab", "sim", "core"]
    reach = numba_cache._imports("meeplab.sim.core.play")
    assert reach and not [m for m in reach if m.split(".")[:3] != core and m != "meeplab.sim"]
    cache = play.play_range._cache
    assert type(cache).__name__ == "GameKeyedCache"
    sig = (numba.typeof(SBCtx(np.zeros(1, dtype=CTX_DTYPE))), numba.int64)
    key = cache._index_key(sig, play.play_range.targetctx.codegen())
    assert key[-1] == (("schweinebande", numba_cache.game_key("schweinebande")),)
    assert numba_cache.game_key("schweinebande") != numba_cache.game_key("hacienda")


def test_a_plugin_game_is_keyed_by_its_own_package_only():
    # The shared loop compiled for a plugin game's state is keyed by the plugin package's sources alone (an index
    # entry of its own; a built-in game's key hashes only its sim/<game>/ folder and our packages): a plugin's first
    # compile, or an edit of it, leaves the built-in engines' cached code where it is.
    import numba
    import numpy as np
    import pytest

    nt = pytest.importorskip("meeplab_nothanks.engine", reason="the example plugin is not installed")
    from meeplab.sim.core import play

    sig = (numba.typeof(nt.NTCtx(np.zeros(4, dtype=np.int64))), numba.int64)
    key = play.play_range._cache._index_key(sig, play.play_range.targetctx.codegen())
    assert key[-1] == (("plugin:meeplab_nothanks", numba_cache.plugin_key("meeplab_nothanks")),)


# Processes that save entries into one numba index at the same time (sim.core.numba_cache.locked_index_class).
SAVER = r"""
import sys
from meeplab.sim.core import numba_cache
from numba.core.typing.templates import Signature
from numba import types
cls = numba_cache.locked_index_class() if sys.argv[2] == "locked" else numba_cache.locked_index_class().__mro__[1]
index = cls(cache_path=sys.argv[1], filename_base="f", source_stamp="s")
me = int(sys.argv[3])
for j in range(40):
    arg = types.Array(types.uint64, 1 + me, "C") if j % 2 else types.Array(types.int64, 1 + me, "A")
    key = ((arg, types.literal(j)),)
    index.save(key, (None, None, None, Signature(types.int64, key[0], None), f"{me}-{j}"))
"""


def saved_and_lost(tmp_path, kind: str) -> tuple[int, list[str]]:
    procs = [
        subprocess.Popen([sys.executable, "-c", SAVER, str(tmp_path), kind, str(me)], cwd=tmp_path) for me in range(4)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    from numba import types

    cls = numba_cache.locked_index_class()
    index = cls(cache_path=str(tmp_path), filename_base="f", source_stamp="s")
    wrong = []
    for me in range(4):
        for j in range(40):
            arg = types.Array(types.uint64, 1 + me, "C") if j % 2 else types.Array(types.int64, 1 + me, "A")
            data = index.load(((arg, types.literal(j)),))
            if data is None or data[4] != f"{me}-{j}":
                wrong.append(f"{me}-{j}")
    return len(index._load_index()), wrong


def test_processes_saving_into_one_index_at_once_lose_nothing(tmp_path):
    # Four processes save 40 signatures each into one function's index at the same time: with the lock every
    # signature loads its own code. (numba's own save loses entries and points one signature at another's data
    # file here; the load-side check then reads those as misses instead of returning the wrong code.)
    entries, wrong = saved_and_lost(tmp_path, "locked")
    assert entries == 160 and wrong == []


def test_data_compiled_for_other_types_reads_as_a_miss(tmp_path):
    from numba import types
    from numba.core.typing.templates import Signature

    cls = numba_cache.locked_index_class()
    index = cls(cache_path=str(tmp_path), filename_base="g", source_stamp="s")
    a = (types.Array(types.uint64, 1, "A"), types.int64)
    b = (types.Array(types.uint64, 1, "A"), types.literal(0))
    index.save((a,), (None, None, None, Signature(types.int64, a, None), "a"))
    index.save((b,), (None, None, None, Signature(types.int64, b, None), "b"))
    assert index.load((a,))[4] == "a" and index.load((b,))[4] == "b"
    # what an unlocked save race leaves behind: a's index entry names the file that holds b's code
    overloads = index._load_index()
    shutil.copy(Path(tmp_path) / overloads[(b,)], Path(tmp_path) / overloads[(a,)])
    assert index.load((a,)) is None and index.load((b,))[4] == "b"
    # compiled again and saved: a's entry and file are a's once more
    index.save((a,), (None, None, None, Signature(types.int64, a, None), "a"))
    assert index.load((a,))[4] == "a"


def test_every_compiled_function_of_ours_caches_in_its_keyed_directory():
    # numba fixes a dispatcher's cache directory when the dispatcher is made: one made outside an import of its
    # module (the policy bot's was made when a line-up first took it) cached beside the sources in __pycache__,
    # where an empty MEEPLAB_CACHE_DIR does not reach it, and a "cold" first run found it compiled.
    from numba.core.registry import CPUDispatcher

    from meeplab.sim.core import bots, registry

    base = numba_cache.cache_base().resolve()
    where = {}
    for game in registry.game_ids():
        registry.get_game(game)
        for spec in bots.discover(game).values():  # a plugin's own bots use numba's default cache (documented)
            if spec.choose is not None and numba_cache._ours(spec.choose.py_func.__module__):
                where[f"{game} bot {spec.name}"] = spec.choose
    for name, module in list(sys.modules.items()):
        if numba_cache._ours(name) and module is not None:
            for attr, obj in vars(module).items():
                if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == name:
                    where[f"{name}.{attr}"] = obj
    assert len(where) > 200
    outside = {}
    for label, fn in where.items():
        cache = getattr(fn, "_cache", None)
        path = getattr(cache, "_cache_path", None)
        if path is not None and not Path(path).resolve().is_relative_to(base):
            outside[label] = path
    assert outside == {}

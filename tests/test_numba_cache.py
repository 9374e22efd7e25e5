"""No stale machine code: an edit of a helper recompiles what uses it (sim/core/numba_cache.py)."""

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl

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


def play(copy: Path, out: Path) -> pl.DataFrame:
    env = dict(os.environ, PYTHONPATH=str(copy))
    cmd = [
        sys.executable,
        "-m",
        "meeplab.cli",
        "run",
        "schweinebande",
        "--quiet",
        "--games",
        "200",
        "--players",
        "3",
        "--bots",
        "greedy",
        "--seed",
        "3",
        "--out",
        str(out),
    ]
    res = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "run.json").read_text())["status"] == "complete"
    return pl.read_parquet(out / "results.parquet")


def test_editing_a_helper_changes_the_next_run(tmp_path):
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
        before = play(copy, tmp_path / "before")
        engine = cache_files("meeplab.sim.schweinebande.engine", lab / "sim" / "schweinebande")

        common = lab / "strategies" / "common.py"
        common.write_text(common.read_text() + EDIT)  # greedy.py itself is unchanged: numba alone would not notice
        after = play(copy, tmp_path / "after")

        assert not before.equals(after)  # the edited helper was played
        # the engine never imports the helper: loaded from its cache as it was, not compiled again
        assert engine and cache_files("meeplab.sim.schweinebande.engine", lab / "sim" / "schweinebande") == engine


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
    cache = play.play_batch._cache
    assert type(cache).__name__ == "GameKeyedCache"
    sig = (numba.typeof(SBCtx(np.zeros(1, dtype=CTX_DTYPE))), numba.int64)
    key = cache._index_key(sig, play.play_batch.targetctx.codegen())
    assert key[-1] == (("schweinebande", numba_cache.game_key("schweinebande")),)
    assert numba_cache.game_key("schweinebande") != numba_cache.game_key("hacienda")

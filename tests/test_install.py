"""The installed layout: one top-level name, ``meeplab``; the repository's folders are its subpackages.

Built as a wheel would be (``pip install --target``, no editable finder), then used from a folder outside the
repository: ``import meeplab`` and the console command work; ``import sim`` and ``import reports`` find nothing.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A wheel-style install, built from a copy of the sources git knows (a stale build/ folder of the checkout
    must not add modules that are gone)."""
    src, target = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("site")
    files = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    res = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target"]
        + [str(target), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    return target


def python(site: Path, code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONNOUSERSITE="1")
    env.pop("PYTHONSAFEPATH", None)
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_wheel_has_one_top_level_name_and_the_layers_inside(site):
    tops = {p.name for p in site.iterdir() if p.is_dir() and not p.name.endswith((".dist-info", ".egg-info"))}
    assert tops - {"bin"} == {"meeplab"}
    for pkg in ("sim/core", "sim/schweinebande", "strategies/schweinebande", "reports", "analysis", "cli"):
        assert (site / "meeplab" / pkg / "__init__.py").is_file(), pkg
    assert list((site / "meeplab" / "sim" / "hacienda").glob("maps/*.haz"))  # package data travels


def test_import_from_outside_the_repository(site, tmp_path):
    res = python(
        site,
        """
import importlib, sys
import meeplab
from meeplab.sim.core.registry import builtin_ids
assert meeplab.__file__.startswith(SITE), meeplab.__file__
print(",".join(builtin_ids()))
for name in ("sim", "reports", "strategies", "analysis"):
    try:
        importlib.import_module(name)
    except ImportError:
        continue
    raise SystemExit(f"import {name} worked")
""".replace("SITE", repr(str(site))),
        tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "acbas,goldrush,hacienda,schweinebande"


def test_console_command_from_the_wheel(site, tmp_path):
    def cli(*args):
        return python(site, f"import sys; from meeplab.cli import main; sys.exit(main({list(args)!r}))", tmp_path)

    games = cli("games")
    assert games.returncode == 0 and "hacienda" in games.stdout, games.stderr
    params = cli("params", "hacienda")
    assert params.returncode == 0 and "water_price" in params.stdout, params.stderr
    bots = cli("bots", "goldrush")
    assert bots.returncode == 0 and "heuristic" in bots.stdout, bots.stderr
    bad = cli("run", "chess", "--games", "10", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "unknown game" in bad.stderr and "Traceback" not in bad.stderr

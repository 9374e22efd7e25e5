"""Shared fixtures. ``browser``: headless Chromium for the tests of pages a person looks at (Debian's ``chromium``
driven by Playwright).

Playwright's own browser download is not used: the tests launch the system's chromium by its path. Where it is
missing the browser tests skip, except under CI (``CI`` set), where ``.ci/run`` installs it and a missing browser
is an error.
"""

import os
import shutil

import pytest


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser():
    path = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if path is None or sync_playwright is None:
        if os.environ.get("CI"):
            pytest.fail("CI: headless chromium and playwright are required (.ci/run installs them)")
        pytest.skip("needs chromium and playwright (apt-get install chromium; pip install playwright)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield b
        finally:
            b.close()


# --- how `-n 2 --dist loadgroup` (the README's test command) shares the suite between the workers ------------------
# Most of a cold suite is numba compiling each game's engine and the shared loop for it. Every test carries its unit of
# work as an ``xdist_group`` mark (pytest-xdist's public grouping): a unit runs on one worker, and units go to the
# workers in collection order. A unit is a test file, except the conformance kit's file, which alone compiles every
# game (~230 s CPU from an empty cache) and as one unit kept one worker busy while the other ran out of files: it is
# one unit per game, and those units are collected first (the heaviest compiles first, so that the last units are
# small ones and both workers finish together). Both workers then compile the same shared functions in the same
# seconds, which numba's cache survives only with meeplab's locked index saves
# (sim.core.numba_cache.locked_index_class: the first cold run in this order hit numba's unlocked save race).
SPLIT_BY_GAME = ("tests/test_conformance.py",)


def work_unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its file, or for a file in SPLIT_BY_GAME its file and game (the first
    part of the test's parameter id, ``test_conformance[acbas-spec]`` -> ``tests/test_conformance.py::acbas``)."""
    path = nodeid.split("::", 1)[0]
    if path in SPLIT_BY_GAME and "[" in nodeid:
        return f"{path}::{nodeid.split('[', 1)[1].split('-', 1)[0].rstrip(']')}"
    return path


def pytest_collection_modifyitems(config, items):
    """Each test's unit of work as its ``xdist_group`` (``--dist loadgroup``); the split files' units first."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(work_unit(item.nodeid)))
    first = [i for i in items if i.nodeid.split("::", 1)[0] in SPLIT_BY_GAME]
    if first:
        items[:] = first + [i for i in items if i.nodeid.split("::", 1)[0] not in SPLIT_BY_GAME]

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
# Most of a cold suite is numba compiling each game's engine and the shared loop for it, and many files build a costly
# module fixture (a set of runs, reports, pages): a file's tests must run on one worker, or both workers pay its
# compiles and fixtures. A unit of work is a test file, except the conformance kit's file, which alone compiles every
# game (~230 s CPU from an empty cache) and as one unit kept one worker busy while the other ran out of files: it is
# one unit per game. Both workers may compile the same shared functions in the same seconds, which numba's cache
# survives only with meeplab's locked index saves (sim.core.numba_cache.locked_index_class).
#
# The units are handed out by the scheduler below (pytest_xdist_make_scheduler, pytest-xdist's hook), not by
# pytest-xdist's own reading of the ``xdist_group`` marks: with pytest 9.2 that reading groups nothing (xdist 3.8 marks
# the group by rewriting ``item._nodeid``, which pytest 9.2's structured node ids no longer read: pytest-xdist issue
# 1386), every test was a unit of its own, and the two workers shared each file's tests, each paying the file's
# module fixtures and compiles (the hostile pages' fixture twice, ~57 s each, warm). A worker takes its next unit when
# it has at most 2 tests left; the units go out heaviest first (HEAVY, measured: a long unit started last keeps one
# worker busy while the other has nothing left), then in collection order.
SPLIT_BY_GAME = ("tests/test_conformance.py",)
# the files whose units take longest (warm and cold, on one worker), longest first
HEAVY = (
    "tests/test_plugins.py",
    "tests/test_conformance.py",
    "tests/test_quality.py",
    "tests/test_hostile_pages.py",
    "tests/test_ismcts.py",
    "tests/test_saved_fuzz.py",
    "tests/test_faults.py",
    "tests/test_every_command.py",
)


def work_unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its file, or for a file in SPLIT_BY_GAME its file and game (the first
    part of the test's parameter id, ``test_conformance[acbas-spec]`` -> ``tests/test_conformance.py::acbas``)."""
    path = nodeid.split("::", 1)[0]
    if path in SPLIT_BY_GAME and "[" in nodeid:
        return f"{path}::{nodeid.split('[', 1)[1].split('-', 1)[0].rstrip(']')}"
    return path


def pytest_collection_modifyitems(config, items):
    """Each test's unit of work as its ``xdist_group`` mark (what the unit is, for a reader, and for pytest-xdist where
    its own grouping works); the scheduler below reads the unit from the node id."""
    for item in items:
        item.add_marker(pytest.mark.xdist_group(work_unit(item.nodeid)))


def _rank(unit: str) -> int:
    path = unit.split("::", 1)[0]
    return HEAVY.index(path) if path in HEAVY else len(HEAVY)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: unknown, and unused, where xdist is not loaded
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup``: pytest-xdist's group scheduling over work_unit's units, the HEAVY ones first."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class UnitScheduling(LoadGroupScheduling):
        ranked = False

        def _split_scope(self, nodeid: str) -> str:
            # a node id may carry pytest-xdist's ``@<group>`` suffix (where its grouping works): the group is the unit
            at = nodeid.rfind("@")
            return work_unit(nodeid[:at] if at > nodeid.rfind("]") else nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self.ranked:  # the queue as xdist built it (units by number of tests), then stably by rank
                for unit in sorted(self.workqueue, key=_rank):
                    self.workqueue.move_to_end(unit)
                self.ranked = True
            super()._assign_work_unit(node)

    return UnitScheduling(config, log)

"""meeplab's pytest plugin (registered under ``pytest11``: every pytest run with meeplab installed loads it): the
conformance kit's coverage tables, printed at the end of the run.

:func:`meeplab.testing.run_case` (a parametrised conformance test, as ``meeplab new`` writes for a plugin game and
meeplab's own suite runs for every game) hands each check's coverage table (the states checked by player count,
decision kind and phase) to :func:`record`; this plugin attaches it to the test's report (a user property named
``coverage``, which pytest-xdist's workers send back with the report) and prints every passed test's table in a
section "conformance kit coverage" after the results. Imports nothing of meeplab, so that loading it costs nothing.
"""

from __future__ import annotations

import pytest

_PENDING: list[str] = []  # tables recorded during the test now running


def record(note: str) -> None:
    """Keep ``note`` (a check's coverage table, with the game and check) for the report of the test now running."""
    _PENDING.append(note)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _PENDING.clear()
    yield
    item.user_properties.extend(("coverage", note) for note in _PENDING)
    _PENDING.clear()


def pytest_terminal_summary(terminalreporter):
    notes = [
        value
        for report in terminalreporter.stats.get("passed", [])
        if report.when == "call"
        for name, value in getattr(report, "user_properties", ())
        if name == "coverage"
    ]
    if notes:
        terminalreporter.section("conformance kit coverage")
        for note in sorted(notes):
            terminalreporter.write_line(note)

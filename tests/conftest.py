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

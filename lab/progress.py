"""Progress bars on stderr (tqdm), one home for every command's and study's bar.

:func:`make_bar` makes one bar (shown after a second, so that quick stages stay quiet; gone when closed);
:func:`ticking` turns a bar factory (or None: no bar) into a context manager yielding the bar's ``update`` (or None),
closed when the block ends, an error included; :func:`progress_bar` is the same for a command with ``--quiet``.
Studies take the ``tick`` (a ``progress=`` callable) or a factory, never a bar of their own, so that a notebook or a
test calls them without any.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any


def make_bar(total: int, desc: str | None = None, unit: str = "game", initial: int = 0, unit_scale: bool = False):
    """A tqdm bar on stderr for ``total`` units."""
    from tqdm import tqdm

    return tqdm(
        total=total, initial=initial, unit=unit, unit_scale=unit_scale, desc=desc, delay=1.0, file=sys.stderr,
        leave=False,
    )  # fmt: skip


@contextlib.contextmanager
def ticking(bar: Callable[[int, str], Any] | None, total: int, desc: str) -> Iterator[Callable[[int], Any] | None]:
    """A bar of the factory ``bar`` (None: none) for ``total`` units, as the ``tick`` callable a stage calls with
    the units done (None without a bar); closed when the block ends, or fails."""
    shown = bar(total, desc) if bar else None
    try:
        yield shown.update if shown else None
    finally:
        if shown:
            shown.close()


def progress_bar(total: int, desc: str, quiet: bool, unit: str = "game"):
    """:func:`ticking` with a :func:`make_bar` bar, or none with ``quiet``."""
    return ticking(None if quiet else partial(make_bar, unit=unit), total, desc)

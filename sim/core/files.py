"""Writing files safely: every file meeplab writes goes through :func:`atomic_write` or :func:`atomic_writer`.

The bytes go to a fresh temporary file in the target's own folder (created with ``O_EXCL`` by :mod:`tempfile`:
never a fixed name, so a link planted beside the target is not followed), are flushed and ``fsync``-ed, get the
requested mode, and are then moved into place with ``os.replace``: a reader sees the old file or the new one,
never half of one, and a crash leaves at most a stray ``.<name>.*.tmp`` file, never a damaged target. The
target itself is replaced, not written through: a symbolic link at the target's path is replaced by the file.

``private=True`` (saved games with their seed while a game runs) makes the file ``0600`` and, where this call
creates it, the folder ``0700``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

PUBLIC_MODE = 0o644
PRIVATE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700


def _umask_mode(mode: int) -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mode & ~mask


def make_folder(folder: Path, private: bool = False) -> Path:
    """``folder`` and its parents, created where missing (``0700`` for the ones made here when ``private``)."""
    folder = Path(folder)
    if private:
        missing = []
        p = folder
        while not p.exists():
            missing.append(p)
            if p.parent == p:
                break
            p = p.parent
        folder.mkdir(parents=True, exist_ok=True)
        for m in missing:
            with contextlib.suppress(OSError):
                os.chmod(m, PRIVATE_DIR_MODE)
    else:
        folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextlib.contextmanager
def atomic_writer(path, mode: str = "wb", private: bool = False, encoding: str | None = None) -> Iterator[IO]:
    """Open a fresh temporary file beside ``path`` for writing (``mode`` "wb" or "w"); on a clean exit it is
    flushed, synced, given its mode and moved onto ``path``; on an exception it is removed and ``path`` is left as
    it was."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_writer writes only, mode 'w' or 'wb', not {mode!r}")
    path = Path(path)
    make_folder(path.parent, private)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, encoding=("utf-8" if encoding is None else encoding) if mode == "w" else None) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, PRIVATE_MODE if private else _umask_mode(PUBLIC_MODE))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write(path, data: str | bytes, private: bool = False, encoding: str = "utf-8") -> Path:
    """Write ``data`` (text as ``encoding``, or bytes) to ``path`` atomically (see the module doc)."""
    raw = data.encode(encoding) if isinstance(data, str) else bytes(data)
    with atomic_writer(path, "wb", private=private) as f:
        f.write(raw)
    return Path(path)

"""Writing files safely: every file meeplab writes goes through :func:`atomic_write` or :func:`atomic_writer`.

The bytes go to a fresh temporary file in the target's own folder (created with ``O_EXCL`` by :mod:`tempfile`:
never a fixed name, so a link planted beside the target is not followed), are flushed and ``fsync``-ed, get the
requested mode, and are then moved into place with ``os.replace``: a reader sees the old file or the new one,
never half of one, and a crash leaves at most a stray ``.<name>.XXXXXXXX.tmp`` file (:func:`stray_temps`),
never a damaged target. The target itself is replaced, not written through: a symbolic link at the target's
path is replaced by the file, and what it pointed to is left alone.

A target that is a character device or a pipe itself (``--out /dev/full``), not a link to one, is written in
place: it cannot be replaced. A link to one, and anything else that is not a plain file (a folder, a socket), is
refused with an ``OSError``.

A new file gets the mode a plain ``open`` would give (``0o666`` less the umask); ``private=True`` (saved games
with their seed while a game runs) makes it ``0600`` and the folders this call creates for it ``0700``.

Two files are written in place, each opened with ``O_NOFOLLOW`` so a planted link is refused, not followed:
a log that grows by whole lines (:func:`append_line`, a run's manifest) and a lock file
(``meeplab.lab.runs.rundir.RunLock``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

PRIVATE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
#: the name of a temporary file :func:`atomic_writer` makes for target NAME: ``.NAME.XXXXXXXX.tmp``
TEMP_RE = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")
_NAME_KEEP = 40  # characters of the target's name kept in its temporary file's name (NAME_MAX is 255 bytes)


def _current_umask() -> int:
    """The process's umask, read without changing it where Linux says it (``/proc/self/status``)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def public_mode() -> int:
    """The mode of a file a plain ``open`` would create now: ``0o666`` less the umask."""
    return 0o666 & ~_current_umask()


def make_folder(folder: Path, private: bool = False) -> Path:
    """``folder`` and its parents, created where missing; the ones made here are ``0700`` when ``private``."""
    folder = Path(folder)
    if not private:
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    missing = []
    p = folder
    while not p.exists() and p.parent != p:
        missing.append(p)
        p = p.parent
    for m in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(m, PRIVATE_DIR_MODE)
            os.chmod(m, PRIVATE_DIR_MODE)
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)  # raises the reason (a file in the way)
    return folder


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the file system allows a folder to be synced)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _in_place(path: Path) -> bool:
    """Whether ``path`` is a stream written in place (a device or a pipe); OSError for a target never written."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(path)
        except OSError:
            return False  # a dangling link: replaced
        if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
            return False  # replaced, never written through
    elif stat.S_ISREG(st.st_mode):
        return False
    elif stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return True
    raise OSError(errno.EINVAL, "not a plain file", str(path))


@contextlib.contextmanager
def atomic_writer(path, mode: str = "wb", private: bool = False, encoding: str | None = None) -> Iterator[IO]:
    """Open a fresh temporary file beside ``path`` for writing (``mode`` "wb" or "w", text as ``encoding``,
    default UTF-8); on a clean exit it is flushed, synced, given its mode and moved onto ``path``; on an exception
    it is removed and ``path`` is left as it was. Libraries that write to a file object (pyarrow, pandas) write
    to the stream this yields."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_writer writes only, mode 'w' or 'wb', not {mode!r}")
    path = Path(path)
    text = mode == "w"
    if _in_place(path):
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, mode, encoding=(encoding or "utf-8") if text else None) as f:
            yield f
        return
    folder = make_folder(path.parent, private)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:_NAME_KEEP]}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, mode, encoding=(encoding or "utf-8") if text else None) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, PRIVATE_MODE if private else public_mode())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(folder)


def atomic_write(path, data: str | bytes, private: bool = False, encoding: str = "utf-8") -> Path:
    """Write ``data`` (text as ``encoding``, or bytes) to ``path`` atomically (see the module doc)."""
    raw = data.encode(encoding) if isinstance(data, str) else bytes(data)
    with atomic_writer(path, "wb", private=private) as f:
        f.write(raw)
    return Path(path)


def append_line(path, line: str, encoding: str = "utf-8") -> None:
    """Append ``line`` (ending in a newline) to ``path`` in one ``write``, creating the file where missing. A
    link or anything but a plain file at ``path`` is refused (OSError), never written through."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a plain file")
        os.write(fd, line.encode(encoding))
    finally:
        os.close(fd)


def stray_temps(folder: Path, name: str | None = None) -> list[Path]:
    """The temporary files :func:`atomic_writer` left in ``folder`` (a crash before the move), for target ``name``
    or for any target; links and folders with such names are not listed."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    out = []
    for f in folder.iterdir():
        m = TEMP_RE.fullmatch(f.name)
        if m and (name is None or m["name"] == name[:_NAME_KEEP]) and not f.is_symlink() and f.is_file():
            out.append(f)
    return sorted(out)

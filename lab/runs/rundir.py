"""A run directory's safety: one writer at a time (an OS lock), verified data (a manifest of checksums), names
that stay inside it, and ``check`` (verify without changing anything).

**The lock.** A writer holds ``fcntl.flock`` on ``OUT/.meeplab.lock`` for the whole run. The kernel releases it
when the process ends, however it ends (kill -9 included), so a lock is never stale; the file itself stays. Once
its command is accepted, the holder writes its pid, host and start time into the file, and a second writer is
refused at once with them. A refused command leaves the folder as it was, lock file included: it writes nothing
into the lock, and removes the lock file only when it created it. A locker checks, once it holds the lock, that
the file it locked is still the one at the path (so a removed lock file never lets two processes lock two
different files). The lock file is opened with ``O_NOFOLLOW``: a link planted in its place is refused.

**The manifest.** Each finished shard is one Parquet part ``OUT/chunks/part-p{P}-{start:012d}.parquet`` and one
line of ``OUT/manifest.jsonl``: player count, first game, games, file, rows and the SHA-256 of the file's bytes.
A finished run merges its parts into ``results.parquet`` and records that file's rows and SHA-256 in
``run.json`` (``results``). Readers trust only what these records vouch for: a part the manifest does not name
(written but not recorded, or foreign) is not read, and a part or results file whose bytes do not match its
record is named as damaged.

**Names.** :func:`safe_name` turns a name a user typed (a bot, a label, a variant) into one path component that
cannot leave its folder; :func:`inside` refuses a path that resolves outside its root.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import hashlib
import json
import os
import re
import socket
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from meeplab.sim.core import schema
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import TEMP_RE, append_line, atomic_write, stray_temps

RUN_JSON = "run.json"  # a run's record (SCHEMA.md); read only through read_meta, written only by the runner
LOCK = ".meeplab.lock"
MANIFEST = "manifest.jsonl"
CHUNKS = "chunks"
RESULTS = "results.parquet"
#: the Parquet key-value metadata entry naming the game whose engine wrote the rows
GAME_KEY = b"meeplab.game"
#: a part's file name: what meeplab writes into chunks/ (and the only names it deletes there)
PART_RE = re.compile(r"part-p(\d+)-(\d{12})\.parquet(\.tmp)?")


def part_name(p: int, start: int) -> str:
    return f"part-p{p}-{start:012d}.parquet"


# -- the lock --------------------------------------------------------------------------------------------------


def _holder_text(path: Path) -> str:
    """'pid N on HOST since TIME' from a lock file (what the holder wrote), or a plain phrase when unreadable."""
    try:
        info = json.loads(path.read_text(encoding="utf-8") or "{}")
        return f"pid {int(info['pid'])} on {info['host']}, started {info['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has not said who it is yet"


class RunLock:
    """An exclusive ``flock`` on ``OUT/.meeplab.lock``, held from :meth:`acquire` to :meth:`release`.

    With ``announce=False`` the holder's pid is written only by :meth:`announce`, once the command is accepted;
    leaving the ``with`` block by an exception before that removes the lock file if this lock created it."""

    def __init__(self, out: Path, announce: bool = True):
        self.out = Path(out)
        self.path = self.out / LOCK
        self.fd: int | None = None
        self.created = False
        self.announced = False
        self.announce_at_once = announce

    def _open(self) -> int:
        flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC
        while True:
            try:
                fd = os.open(self.path, flags)
                self.created = False
            except FileNotFoundError:
                try:
                    fd = os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o644)
                    self.created = True
                except FileExistsError:
                    continue
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise IsADirectoryError(errno.EISDIR, "not a plain file", str(self.path))
            return fd

    def acquire(self) -> RunLock:
        import fcntl

        while True:
            try:
                fd = self._open()
            except OSError as exc:
                why = "a link, not a file" if exc.errno == errno.ELOOP else exc.strerror
                raise MeeplabError(
                    f"{self.out}: cannot write its lock file {self.path} ({why}); choose a writable --out"
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise MeeplabError(
                    f"{self.out} is being written by another meeplab process ({_holder_text(self.path)}); "
                    "wait for it to finish or stop it, then --resume"
                ) from None
            try:
                same = os.stat(self.path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # locked a lock file its creator removed meanwhile: lock the one there now
        self.fd = fd
        if self.announce_at_once:
            self.announce()
        return self

    def announce(self) -> None:
        """Write this process's pid, host and start time into the held lock file."""
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        }
        assert self.fd is not None
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, json.dumps(info).encode(), 0)
        self.announced = True

    def release(self, refused: bool = False) -> None:
        if self.fd is not None:
            if refused and self.created and not self.announced:
                with contextlib.suppress(OSError):
                    os.unlink(self.path)  # still locked: a locker of the old file sees it gone and retries
            os.close(self.fd)  # closing the descriptor releases the flock
            self.fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, exc_type, *exc) -> None:
        self.release(refused=exc_type is not None)


def writer_of(out: Path) -> str | None:
    """Who holds ``out``'s lock now ('pid N on HOST, started T'), or None; changes nothing."""
    import fcntl

    path = Path(out) / LOCK
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _holder_text(path)
    finally:
        os.close(fd)
    return None


# -- checksums and the manifest ------------------------------------------------------------------------------


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class Entry:
    """One manifest line: a finished shard's part and what its bytes must be."""

    p: int
    start: int
    n: int
    file: str
    rows: int | None = None  # None: written before the manifest held checksums
    sha256: str | None = None
    game: str | None = None

    def line(self) -> str:
        rec = {"p": self.p, "start": self.start, "n": self.n, "file": self.file}
        rec.update({k: v for k, v in (("rows", self.rows), ("sha256", self.sha256), ("game", self.game)) if v})
        return json.dumps(rec) + "\n"

    @property
    def games(self) -> str:
        return f"games {self.start}..{self.start + self.n - 1} of {self.p} players"


def entry_for(p: int, start: int, n: int, data: bytes, game: str | None) -> Entry:
    return Entry(p, start, n, part_name(p, start), n * p, hashlib.sha256(data).hexdigest(), game)


def append_entry(out: Path, entry: Entry) -> None:
    append_line(Path(out) / MANIFEST, entry.line())


def read_entries(out: Path) -> list[Entry]:
    """The manifest's entries, first record of each file (torn or foreign lines skipped); reads only."""
    path = Path(out) / MANIFEST
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    seen: dict[str, Entry] = {}
    for line in text.splitlines():
        try:
            rec = schema.parse_json(line, "manifest line")
            e = Entry(
                int(rec["p"]),
                int(rec["start"]),
                int(rec["n"]),
                str(rec["file"]),
                int(rec["rows"]) if rec.get("rows") is not None else None,
                str(rec["sha256"]) if rec.get("sha256") else None,
                str(rec["game"]) if rec.get("game") else None,
            )
        except (MeeplabError, ValueError, KeyError, TypeError, AttributeError):
            continue  # a line torn by a kill, or not a record
        if e.file != part_name(e.p, e.start):
            continue  # not a name meeplab writes: never read or delete through it
        seen.setdefault(e.file, e)
    return list(seen.values())


def file_game(path: Path) -> str | None:
    """The game recorded in a Parquet file's metadata (None: not recorded, an older run)."""
    import pyarrow.parquet as pq

    md = pq.read_schema(path).metadata or {}
    g = md.get(GAME_KEY)
    return g.decode() if g else None


def verify_file(path: Path, rows: int | None, sha: str | None, game: str | None = None) -> str | None:
    """What is wrong with a data file against its record (None: nothing). Without a checksum (older records) the
    file must at least be readable Parquet with the recorded rows."""
    import pyarrow.parquet as pq

    if not path.is_file():
        return "missing"
    if sha is not None and sha256_file(path) != sha:
        return "damaged (checksum mismatch)"
    try:
        md = pq.read_metadata(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid/OSError for a truncated footer
        return f"damaged ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    if rows is not None and md.num_rows != rows:
        return f"damaged ({md.num_rows} rows, recorded {rows})"
    if game is not None:
        wrote = file_game(path)
        if wrote is not None and wrote != game:
            return f"played by {wrote}, not {game}"
    return None


@dataclass
class Verified:
    """What a reader may use of a run directory: ``files`` (verified), ``problems`` (one line each)."""

    files: list[Path] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    source: str = ""


def is_legacy(out: Path) -> bool:
    """Whether ``out`` was written before run directories had a manifest and a lock (no ``manifest.jsonl``, no
    ``.meeplab.lock``): its parts can only be checked for being readable Parquet."""
    return not (Path(out) / MANIFEST).exists() and not (Path(out) / LOCK).exists()


def verify_legacy_chunks(out: Path, game: str | None) -> Verified:
    """The parts of an older run (:func:`is_legacy`): every ``chunks/part-*.parquet`` that reads as Parquet; an
    unreadable one is a problem, named."""
    v = Verified(source=f"{CHUNKS}/ (no manifest: an older run, parts not checksummed)")
    for path in sorted((Path(out) / CHUNKS).glob("part-*.parquet")):
        bad = verify_file(path, None, None, game)
        if bad:
            v.problems.append(f"{path}: {bad}")
        else:
            v.files.append(path)
    return v


def verify_chunks(out: Path, game: str | None) -> Verified:
    """The parts the manifest vouches for and that match it; a missing or damaged one is a problem. A run directory
    from before the manifest (:func:`is_legacy`) is read as it was then: its readable parts."""
    if is_legacy(out):
        return verify_legacy_chunks(out, game)
    v = Verified(source=f"{CHUNKS}/ (manifest)")
    for e in sorted(read_entries(out), key=lambda e: (e.p, e.start)):
        path = Path(out) / CHUNKS / e.file
        bad = verify_file(path, e.rows, e.sha256, game)
        if bad is None and e.game is not None and game is not None and e.game != game:
            bad = f"played by {e.game}, not {game}"
        if bad:
            v.problems.append(f"{path}: {bad} ({e.games})")
        else:
            v.files.append(path)
            v.entries.append(e)
    return v


def verify_results(out: Path, meta: dict[str, Any]) -> str | None:
    """What is wrong with a complete run's results.parquet against run.json's record (None: nothing)."""
    rec = meta.get("results") if isinstance(meta.get("results"), dict) else {}
    rows, sha = rec.get("rows"), rec.get("sha256")
    bad = verify_file(
        Path(out) / RESULTS, int(rows) if rows is not None else None, sha, meta.get("game") if meta else None
    )
    return f"{Path(out) / RESULTS}: {bad}" if bad else None


def write_meta(out, meta: dict[str, Any]) -> Path:
    """Write ``meta`` as the run folder ``out``'s ``run.json`` (atomically: a reader sees the old record or the
    new one)."""
    return atomic_write(Path(out) / RUN_JSON, json.dumps(meta, indent=2))


def is_run(folder) -> bool:
    """Whether ``folder`` holds a run (its ``run.json``)."""
    return (Path(folder) / RUN_JSON).is_file()


def read_meta(out: Path) -> dict[str, Any]:
    """A run folder's ``run.json``, checked whole before anything of the run is used
    (:class:`~meeplab.sim.core.schema.RunMeta`: size, nesting, strict types, every number's range, the game's player
    counts); every problem is one MeeplabError line naming the file."""
    path = Path(out) / RUN_JSON
    if not path.is_file():
        raise MeeplabError(f"{path}: missing run.json (not a meeplab run directory?)")
    try:
        data = schema.read_json(path, RUN_JSON)
    except MeeplabError as exc:
        raise MeeplabError(f"{path}: corrupt run.json ({str(exc).removeprefix(f'{path}: ')})") from None
    meta = schema.run_meta(data, str(path))
    from meeplab.sim.core.registry import game_ids, get_game

    if meta["game"] in game_ids():  # an installed game: its player counts
        spec = get_game(meta["game"])
        for k, p in enumerate(meta.get("players") or []):
            if not spec.min_players <= p <= spec.max_players:
                raise MeeplabError(f"{path}: players[{k}]: {schema.outside_players(spec, p)}")
    return meta


def check(out: Path) -> tuple[dict[str, Any] | None, list[str], list[str]]:
    """Verify a run directory without changing anything: (run.json, facts, problems). A run.json that is missing or
    not a valid run record is a MeeplabError (one line)."""
    out = Path(out)
    facts: list[str] = []
    problems: list[str] = []
    if not out.is_dir():
        raise MeeplabError(f"{out}: not a directory")
    if not (out / RUN_JSON).is_file():
        raise MeeplabError(f"{out}: no run.json (not a meeplab run directory)")
    meta = read_meta(out)
    holder = writer_of(out)
    status = str(meta.get("status", "unknown"))
    facts.append(f"{meta.get('game', '?')} run, status {status}" + (f", being written by {holder}" if holder else ""))
    if status == "complete" and (out / RESULTS).exists():
        bad = verify_results(out, meta)
        if bad:
            problems.append(bad)
        else:
            rows = (meta.get("results") or {}).get("rows")
            how = "checksum and rows verified" if rows is not None else "readable (no checksum recorded)"
            facts.append(f"{RESULTS}: {how}")
        return meta, facts, problems
    if status == "complete":
        problems.append(f"{out / RESULTS}: missing (run.json says the run is complete)")
        return meta, facts, problems
    v = verify_chunks(out, meta.get("game"))
    problems += v.problems
    games = {}
    for e in v.entries:
        games[e.p] = games.get(e.p, 0) + e.n
    want = meta.get("games")
    done = ", ".join(f"{p} players {n:,}/{want:,}" if want else f"{p} players {n:,}" for p, n in sorted(games.items()))
    facts.append(f"{len(v.files)} verified part(s): {done or 'no games yet'}")
    return meta, facts, problems


# -- removing what meeplab wrote -----------------------------------------------------------------------------


def remove_owned(out: Path) -> None:
    """Delete the run meeplab wrote in ``out``: run.json, results, the manifest and the parts it names (or whose
    names meeplab writes), their temporary files; never a file meeplab does not write (the lock stays too)."""
    out = Path(out)
    for name in (RUN_JSON, RESULTS, MANIFEST):
        (out / name).unlink(missing_ok=True)
        remove_temps(out, name)
    remove_unrecorded(out, keep=set())
    with contextlib.suppress(OSError):
        (out / CHUNKS).rmdir()  # only if nothing foreign is left in it


def remove_temps(folder: Path, name: str) -> None:
    """Delete the temporary files a write of ``folder/name`` left (a kill before the move), and the fixed-name
    ``name.tmp`` older versions wrote."""
    for f in [*stray_temps(folder, name), Path(folder) / (name + ".tmp")]:
        f.unlink(missing_ok=True)


def remove_unrecorded(out: Path, keep: set[str]) -> list[str]:
    """Delete the part files (meeplab's names only) in ``out/chunks`` that are not in ``keep``, and the temporary
    files of parts; returns them."""
    chunks = Path(out) / CHUNKS
    gone = []
    if chunks.is_dir():
        for f in chunks.iterdir():
            m = TEMP_RE.fullmatch(f.name)
            part = PART_RE.fullmatch(m["name"] if m else f.name)
            if part and (m or f.name not in keep) and f.is_file():
                f.unlink()
                gone.append(f.name)
    return gone


def rewrite_manifest(out: Path, entries: list[Entry]) -> None:
    """Write the manifest anew with exactly ``entries`` (a torn last line must not swallow the next record)."""
    atomic_write(Path(out) / MANIFEST, "".join(e.line() for e in sorted(entries, key=lambda e: (e.p, e.start))))


# -- names ---------------------------------------------------------------------------------------------------

_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+=,@-]{0,99}")


def safe_name(text: str) -> str:
    """``text`` as one path component that stays in its folder: kept when it is already a plain name (letters,
    digits and ``. _ + = , @ -``, not starting with a dot, at most 100 characters), otherwise the other
    characters become ``_`` and a short hash of the original keeps different names apart."""
    text = str(text)
    if _SAFE.fullmatch(text) and ".." not in text:
        return text
    slug = re.sub(r"[^A-Za-z0-9._+=,@-]+", "_", text).replace("..", "_").strip("._") or "x"
    return f"{slug[:80]}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def inside(root: Path, path: Path, what: str = "path") -> Path:
    """``path`` when it resolves inside ``root``; otherwise a MeeplabError naming it."""
    r, p = Path(root).resolve(), Path(path).resolve()
    if p != r and r not in p.parents:
        raise MeeplabError(f"{what} {path} would be outside {root}; choose a plain name")
    return Path(path)

"""Small, quick set-ups of each game for the tests that play a whole game through the play page or its API
(fewer cards, tiles or rounds: a complete game in a few dozen decisions), and :class:`Server`, a play session's app
served on 127.0.0.1 for the browser tests."""

import atexit
import csv
import functools
import shutil
import tempfile
import threading
import time
from pathlib import Path

# game -> rule-parameter overrides ("deck": "small" stands for small_goldrush_deck())
SMALL = {
    "schweinebande": {"rounds": 1},
    # smaller decks and hands: a complete game of ~70 decisions instead of ~180 (each click redraws the hex map)
    "hacienda": {
        "land_per_terrain": 5,
        "pampa_cards": 2,
        "animals_per_kind": 6,
        "animals_removed": [10, 10, 5, 0],
        "land_hand": 3,
        "animal_hand": 2,
    },
    # half the deck (two copies of each tile type at most): a complete game of ~35 tiles instead of ~72
    "goldrush": {"deck": "small"},
    "acbas": {"rounds": 2},
}


def small_params(game: str) -> dict:
    """The overrides of ``game``'s small set-up, with the small deck's file written where one is asked for."""
    over = dict(SMALL[game])
    if over.get("deck") == "small":
        over["deck"] = str(small_goldrush_deck())
    return over


@functools.cache
def small_goldrush_deck(copies: int = 2) -> Path:
    """Gold Rush's deck file with at most ``copies`` copies of each tile type (per-copy cells cut to match)."""
    from meeplab.sim import goldrush

    src = Path(goldrush.__file__).parent / "data" / "deck.csv"
    lines = src.read_text().splitlines()
    head = [x for x in lines if x.startswith("#")]
    rows = list(csv.DictReader(x for x in lines if not x.startswith("#")))
    for row in rows:
        k = min(int(row["count"]), copies)
        row["count"] = str(k)
        for col, cell in row.items():
            if ";" in cell:
                row[col] = ";".join(cell.split(";")[:k])
    folder = tempfile.mkdtemp(prefix="meeplab-deck-")  # one per test process, removed when it ends
    atexit.register(shutil.rmtree, folder, True)
    out = Path(folder) / "deck.csv"
    with out.open("w", newline="") as f:
        f.write("\n".join(head) + "\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return out


class Server:
    """uvicorn serving ``session``'s play app on a free port of 127.0.0.1 in a thread (the socket bound and
    listening before the app is made, as ``meeplab play`` does); ``launch_url()`` is a fresh launch link."""

    def __init__(self, session, save_dir=None):
        import uvicorn

        from meeplab.cli.play import listen
        from meeplab.play.server import create_app

        self.session = session
        self.sock = listen(None)
        self.port = self.sock.getsockname()[1]
        self.app = create_app(session, save_dir, port=self.port)
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def launch_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/launch/{self.session.new_launch_code()}"

    def __enter__(self):
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                return self
            time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()

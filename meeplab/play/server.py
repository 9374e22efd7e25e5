"""The play page's web app (Starlette): one game at a time for the people at this computer, against bots.

Every route needs the session's secret token (printed in the URL ``meeplab play`` opens): ``?token=...`` or the
header ``Authorization: Bearer ...``; without it a route answers 401, with a wrong one 403. The server binds to
127.0.0.1 (``meeplab play``), so only this machine reaches it, and the token keeps other users of the machine out.

The JSON API (``docs/playtest.md`` documents it with examples):

=====================  ================================================================================================
``GET /``              the page
``GET /api/state``     what the seat at the screen sees: ``seat`` (theirs, from 1), ``turn`` (whose decision is pending,
                       from 1; null once over), ``legal`` (``[{"id", "label", "target"}]``, empty unless it is their
                       turn), ``scores``, ``over``, ``board``/``info``/``status`` (the drawing for that seat),
                       ``pass_to`` (a person's seat that must take the screen first: nothing private is shown then),
                       ``bot_turn``, ``decisions`` (count; send it back as ``at``), ``result`` once over
``POST /api/move``     ``{"move": id, "at": decisions}`` plays a legal move of the seat at the screen
``POST /api/bot``      the pending bot decision is made and played (the page calls it after a short delay)
``POST /api/undo``     takes back the last decision a person made (and the bot moves after it)
``POST /api/seat``     ``{"seat": n}``: person ``n`` takes the screen (hot-seat), when it is their turn
``GET /api/log``       the decisions so far as the seat at the screen may see them (bots' alternatives and values);
                       ``?since=k``: from decision ``k + 1`` on (``total`` = how many there are)
``POST /api/new``      play again: the next deal (game index + 1) with the same players, bots and rules
``POST /api/save``     write the saved game (it is also written after every decision); answers its path
``GET /api/saved``     the saved game as JSON, once the game is over (while it runs it would tell the deal)
=====================  ================================================================================================

A refused request (not your turn, an illegal or stale move, a malformed body) answers 4xx with ``{"error": ...}``
and leaves the game as it was.
"""

from __future__ import annotations

import json
import secrets
import threading
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from meeplab.sim.core.errors import MeeplabError

from . import saved
from .table import Table


class Refused(Exception):
    """A request the game cannot take: answered with ``status`` and the message, the game unchanged."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class Session:
    """The server's one game and who sits at the screen. ``make(index)`` deals a new table (``play again``);
    ``save_path`` is where the game is written after every decision (None: only on request, to ``save_dir``)."""

    def __init__(self, table: Table, save_path: Path | None, bot_delay_ms: int = 700):
        self.table = table
        self.save_path = Path(save_path) if save_path is not None else None
        self.bot_delay_ms = int(bot_delay_ms)
        self.token = secrets.token_urlsafe(24)
        self.lock = threading.Lock()
        self.viewer = self._first_viewer()

    def _first_viewer(self) -> int:
        t = self.table
        if t.human_turn():
            return t.turn
        return t.humans[0]

    # -- the game ---------------------------------------------------------------------------------------------------

    def pass_to(self) -> int | None:
        """A person (0-based) whose turn it is but who is not at the screen yet."""
        t = self.table
        if t.human_turn() and t.turn != self.viewer:
            return t.turn
        return None

    def state(self) -> dict[str, Any]:
        t = self.table
        p = self.pass_to()
        if p is not None:
            out = {
                "game": t.spec.id,
                "title": t.spec.title,
                "players": t.n_players,
                "seat": self.viewer + 1,
                "turn": p + 1,
                "pass_to": p + 1,
                "legal": [],
                "over": False,
                "scores": None,
                "board": None,
                "info": None,
                "status": "",
                "seats": [
                    {"seat": s + 1, "who": "person" if b is None else b, "human": b is None}
                    for s, b in enumerate(t.seats)
                ],
            }
        else:
            out = t.view(self.viewer)
            out["pass_to"] = None
        out["bot_turn"] = t.bot_turn() and p is None
        out["decisions"] = len(t.history)
        out["bot_delay_ms"] = self.bot_delay_ms
        out["people"] = [s + 1 for s in t.humans]
        out["saved_to"] = str(self.save_path) if self.save_path is not None else None
        return out

    def _autosave(self) -> None:
        if self.save_path is not None:
            saved.save(self.table, self.save_path)

    def move(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict) or "move" not in body:
            raise Refused(400, 'the body must be a JSON object {"move": id}')
        mv = body["move"]
        if isinstance(mv, bool) or not isinstance(mv, int):
            raise Refused(400, f"move must be an integer id from the legal list, not {mv!r}")
        t = self.table
        self._check_at(body)
        if t.over:
            raise Refused(409, "the game is over")
        if self.pass_to() is not None:
            raise Refused(409, f"P{self.pass_to() + 1} must take the seat first")
        if not t.human_turn():
            raise Refused(409, f"it is P{t.turn + 1}'s turn (a bot): wait for its move")
        n = len(t.labels())
        if not 0 <= mv < n:
            raise Refused(422, f"move {mv} is not legal now: the legal ids are 0..{n - 1}")
        entry = t.play(mv)
        self._autosave()
        return {"played": entry["label"]}

    def _check_at(self, body: dict) -> None:
        at = body.get("at")
        if at is None:
            return
        if isinstance(at, bool) or not isinstance(at, int):
            raise Refused(400, f"at must be the integer decision count of the state you saw, not {at!r}")
        if at != len(self.table.history):
            raise Refused(409, f"stale move: the game has moved on ({len(self.table.history)} decisions, not {at})")

    def bot(self, body: Any) -> dict[str, Any]:
        t = self.table
        if isinstance(body, dict):
            self._check_at(body)
        if not t.bot_turn():
            raise Refused(409, "no bot's decision is pending")
        entry = t.play_bot()
        self._autosave()
        return {"played": entry["label"], "seat": entry["seat"] + 1, "who": entry["who"]}

    def undo(self) -> dict[str, Any]:
        t = self.table
        if not t.snapshots:
            raise Refused(409, "nothing to undo: no decision of a person yet")
        entry = t.undo()
        # the person whose decision it was takes the screen (asked first when it is another person)
        self._autosave()
        return {"undone": entry["label"], "seat": entry["seat"] + 1}

    def take_seat(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict) or isinstance(body.get("seat"), bool) or not isinstance(body.get("seat"), int):
            raise Refused(400, 'the body must be a JSON object {"seat": n}')
        s = body["seat"] - 1
        t = self.table
        if s not in t.humans:
            raise Refused(422, f"P{s + 1} is not a person's seat (people: {', '.join(f'P{h + 1}' for h in t.humans)})")
        if t.over:
            self.viewer = s
            return {"seat": s + 1}
        if self.pass_to() != s:
            raise Refused(409, f"it is not P{s + 1}'s turn to take the screen")
        self.viewer = s
        return {"seat": s + 1}

    def new_game(self) -> dict[str, Any]:
        t = self.table
        self.table = Table(t.spec, t.values, t.seats, t.seed, t.index + 1, t.bot_configs)
        if self.save_path is not None:
            stem = self.save_path.stem.rsplit("-g", 1)[0]
            self.save_path = self.save_path.with_name(f"{stem}-g{self.table.index}.json")
        self.viewer = self._first_viewer()
        self._autosave()
        return {"index": self.table.index}

    def save(self, save_dir: Path) -> dict[str, Any]:
        if self.save_path is None:
            self.save_path = Path(save_dir) / default_name(self.table)
        saved.save(self.table, self.save_path)
        return {"path": str(self.save_path)}

    def saved_json(self) -> dict[str, Any]:
        if not self.table.over:
            raise Refused(409, "the saved game is handed out once the game is over (it would tell the deal)")
        return saved.to_dict(self.table)


def default_name(table: Table) -> str:
    import datetime as _dt

    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"{table.spec.id}-{stamp}-g{table.index}.json"


# -- the page ---------------------------------------------------------------------------------------------------


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("meeplab.play", "templates"),
        autoescape=select_autoescape(["html", "j2"], default=True),
    )


def page(session: Session) -> str:
    folder = resources.files("meeplab.play") / "templates"
    css = Markup((folder / "play.css").read_text(encoding="utf-8"))
    js = Markup((folder / "play.js").read_text(encoding="utf-8"))
    t = session.table
    return _environment().get_template("play.html.j2").render(title=t.spec.title, css=css, js=js)


# -- the app ------------------------------------------------------------------------------------------------------


class TokenGate:
    """ASGI middleware: every request must carry the session token (query ``token`` or ``Authorization: Bearer``)."""

    def __init__(self, app, token: str):
        self.app = app
        self.token = token

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        got = None
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                text = value.decode("latin-1")
                if text.lower().startswith("bearer "):
                    got = text[7:].strip()
        if got is None:
            from urllib.parse import parse_qs

            q = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            if q.get("token"):
                got = q["token"][0]
        if got is None or not secrets.compare_digest(got.encode(), self.token.encode()):
            status = 401 if got is None else 403
            msg = "this game needs its token (the URL meeplab play printed)" if got is None else "wrong token"
            resp = JSONResponse({"error": msg}, status_code=status)
            await resp(scope, receive, send)
            return
        await self.app(scope, receive, send)


def create_app(session: Session, save_dir: Path | None = None) -> Any:
    """The ASGI app of ``session`` behind its token gate."""
    save_dir = Path(save_dir) if save_dir is not None else Path.cwd()

    def guarded(fn, *, body=False):
        async def endpoint(request: Request):
            data = None
            if body:
                raw = await request.body()
                if raw.strip():
                    try:
                        data = json.loads(raw)
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        return JSONResponse({"error": "the body is not JSON"}, status_code=400)
            try:
                with session.lock:
                    out = fn(data) if body else fn()
            except Refused as exc:
                return JSONResponse({"error": exc.message}, status_code=exc.status)
            except MeeplabError as exc:
                return JSONResponse({"error": str(exc)}, status_code=409)
            return JSONResponse(out)

        return endpoint

    async def log(request: Request):
        raw = request.query_params.get("since", "0")
        if not raw.isdigit():
            return JSONResponse({"error": f"since must be a decision count (0 or more), not {raw!r}"}, status_code=400)
        with session.lock:
            got = session.table.log_for(session.viewer)
        return JSONResponse({"decisions": got[int(raw) :], "total": len(got)})

    async def index(request: Request):
        return HTMLResponse(page(session))

    routes = [
        Route("/", index),
        Route("/api/state", guarded(session.state)),
        Route("/api/log", log),
        Route("/api/move", guarded(session.move, body=True), methods=["POST"]),
        Route("/api/bot", guarded(session.bot, body=True), methods=["POST"]),
        Route("/api/undo", guarded(session.undo), methods=["POST"]),
        Route("/api/seat", guarded(session.take_seat, body=True), methods=["POST"]),
        Route("/api/new", guarded(session.new_game), methods=["POST"]),
        Route("/api/save", guarded(lambda: session.save(save_dir)), methods=["POST"]),
        Route("/api/saved", guarded(session.saved_json)),
    ]
    app = Starlette(routes=routes)
    return TokenGate(app, session.token)

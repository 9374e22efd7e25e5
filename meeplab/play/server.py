"""The play page's web app (Starlette): one game at a time for the people at this computer, against bots.

Who may talk to it. The server listens on 127.0.0.1 only and every request must carry the session's secret token:
the cookie the page's browser got from a launch link, or the header ``Authorization: Bearer <token>`` (scripts,
tests). ``meeplab play`` never puts the token on a command line or in a URL: the browser is started with
``/launch/<code>``, a one-time code (single use, :data:`LAUNCH_TTL_S` seconds), which this app exchanges for an
``HttpOnly; SameSite=Strict`` cookie holding the token and a redirect (303) to ``/``; the page's script never sees the
token. A request without a token answers 401, with a wrong one 403. Before that, every request must name this
server in ``Host`` (``127.0.0.1:PORT``, ``localhost:PORT`` or ``[::1]:PORT``: a page of another site that a DNS name
points at 127.0.0.1 is refused, 421) and, where it carries an ``Origin``, come from one of those origins (403).
Every response carries a strict Content-Security-Policy (:func:`security_headers`): the page's one inline script and
style run by a fresh nonce, nothing else runs, and the page reaches nothing but this server.

The JSON API (``docs/playtest.md`` documents it with examples):

=====================  ================================================================================================
``GET /``              the page
``GET /launch/<code>`` exchanges a launch code for the session cookie and redirects to ``/`` (the only route that
                       needs no token)
``GET /api/state``     what the seat at the screen sees: ``seat`` (theirs, from 1), ``turn`` (whose decision is pending,
                       from 1; null once over), ``legal`` (``[{"id", "label", "target"}]``, empty unless it is their
                       turn), ``scores``, ``over``, ``board``/``info``/``status`` (the drawing for that seat),
                       ``pass_to`` (a person's seat that must take the screen first: nothing private is shown then),
                       ``bot_turn``, ``decisions`` (count; send it back as ``at``), ``result`` once over, and
                       ``thinking``: true while a bot's decision is being made (the state from before it is served
                       then, without waiting for the bot)
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
and leaves the game as it was. Bodies are JSON of at most :data:`MAX_BODY` bytes, :data:`MAX_DEPTH` levels of
nesting and integers of at most :data:`MAX_DIGITS` digits; ``since`` is ASCII digits, at most :data:`MAX_DIGITS`.

Game and bot work runs in Starlette's thread pool, one request at a time under :attr:`Session.lock`; the event loop
only reads requests, and ``GET /api/state`` does not wait for a bot's decision (:meth:`Session.state_now`). The
engine's compiled decision code (``sim.core.play.decide``) releases the interpreter lock while it runs, so the
event loop answers during a long search.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.schema import parse_json

from . import saved
from .table import Table

MAX_BODY = 64 * 1024  # bytes of a request body
MAX_DEPTH = 32  # nesting of a body's JSON arrays and objects
MAX_DIGITS = 12  # digits of an integer in a body or in ?since=
LAUNCH_TTL_S = 120.0  # a launch code is good for this long, and once
STATE_WAIT_S = 0.05  # how long GET /api/state waits for the game's lock before it looks whether a bot is thinking


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
        self.token = secrets.token_urlsafe(32)
        # held by every request that reads or changes the game (they run in the thread pool, one at a time)
        self.lock = threading.Lock()
        self.viewer = self._first_viewer()
        # while a bot decides (under the lock): the state from before its decision, served to GET /api/state
        self.thinking = False
        self.shown: dict[str, Any] | None = None
        self.launch_codes: dict[str, float] = {}  # one-time launch code -> monotonic time it expires
        self.codes_lock = threading.Lock()

    # -- who may come in --------------------------------------------------------------------------------------------

    def new_launch_code(self, ttl_s: float = LAUNCH_TTL_S) -> str:
        """A fresh one-time code for ``/launch/<code>``, good for ``ttl_s`` seconds."""
        code = secrets.token_urlsafe(18)
        with self.codes_lock:
            now = time.monotonic()
            self.launch_codes = {c: t for c, t in self.launch_codes.items() if t > now}
            self.launch_codes[code] = now + ttl_s
        return code

    def use_launch_code(self, code: str) -> bool:
        """Whether ``code`` is a launch code not used yet and not expired; it is spent either way."""
        with self.codes_lock:
            expires = self.launch_codes.pop(code, None)
        return expires is not None and time.monotonic() < expires

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
                "can_undo": False,
                "undo_note": None,
                "seats": [
                    {"seat": s + 1, "who": "person" if b is None else b, "human": b is None}
                    for s, b in enumerate(t.seats)
                ],
            }
        else:
            out = t.view(self.viewer)
            out["pass_to"] = None
        out["bot_turn"] = t.bot_turn() and p is None
        out["thinking"] = False
        out["decisions"] = len(t.history)
        out["bot_delay_ms"] = self.bot_delay_ms
        out["people"] = [s + 1 for s in t.humans]
        out["saved_to"] = str(self.save_path) if self.save_path is not None else None
        return out

    def state_now(self) -> dict[str, Any]:
        """:meth:`state`, taken under the lock; while a bot is deciding, the state from before its decision with
        ``"thinking": true`` instead of waiting for the bot."""
        while True:
            if self.lock.acquire(timeout=STATE_WAIT_S):
                try:
                    return self.state()
                finally:
                    self.lock.release()
            shown = self.shown
            if self.thinking and shown is not None:
                return {**shown, "thinking": True}

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
        self.shown = self.state()
        self.thinking = True
        try:
            entry = t.play_bot()
        finally:
            self.thinking = False
            self.shown = None
        self._autosave()
        seen = t.entry_for(entry["n"] - 1, self.viewer)  # a face-down choice is named only once revealed
        return {"played": seen["label"], "seat": entry["seat"] + 1, "who": entry["who"]}

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


def page(session: Session, nonce: str) -> str:
    """The play page; its inline style and script carry ``nonce`` (the response's Content-Security-Policy)."""
    folder = resources.files("meeplab.play") / "templates"
    css = Markup((folder / "play.css").read_text(encoding="utf-8"))
    js = Markup((folder / "play.js").read_text(encoding="utf-8"))
    t = session.table
    return _environment().get_template("play.html.j2").render(title=t.spec.title, css=css, js=js, nonce=nonce)


def security_headers(nonce: str) -> dict[str, str]:
    """The headers every response carries. The Content-Security-Policy lets run only the page's own inline script
    and style (by ``nonce``, fresh per response): no other script (an injected ``<script>``, an ``onerror=``
    attribute, a ``javascript:`` link), no style attribute (the boards' SVG uses presentation attributes and
    classes, no ``style=``), no fonts, frames, plugins or images but ``data:``; requests go to this server only
    (``connect-src 'self'``); no ``<base>``, no form posts, no framing by another page."""
    csp = (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; img-src data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    return {
        "Content-Security-Policy": csp,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
        "X-Frame-Options": "DENY",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cross-Origin-Resource-Policy": "same-origin",
    }


# -- reading requests ---------------------------------------------------------------------------------------------

_COUNT = re.compile(f"[0-9]{{1,{MAX_DIGITS}}}")


def parse_body(raw: bytes) -> Any:
    """The JSON of a request body (None when empty), read by the one JSON reader of files people send
    (:func:`meeplab.sim.core.schema.parse_json`) with this server's caps; refused (400, its one line) when it is not
    UTF-8 JSON, nests deeper than :data:`MAX_DEPTH` or holds an integer longer than :data:`MAX_DIGITS` digits."""
    if not raw.strip():
        return None
    try:
        return parse_json(raw, "the body", max_depth=MAX_DEPTH, max_digits=MAX_DIGITS)
    except MeeplabError as exc:
        raise Refused(400, str(exc)) from None


async def read_body(request: Request) -> Any:
    """The request's JSON body (:func:`parse_body`), read up to :data:`MAX_BODY` bytes (413 beyond)."""
    length = request.headers.get("content-length")
    if length is not None and (not _COUNT.fullmatch(length) or int(length) > MAX_BODY):
        raise Refused(413, f"the body is longer than {MAX_BODY} bytes")
    size = 0
    chunks = []
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise Refused(413, f"the body is longer than {MAX_BODY} bytes")
        chunks.append(chunk)
    return parse_body(b"".join(chunks))


def decision_count(raw: str) -> int:
    """``?since=``: ASCII digits, at most :data:`MAX_DIGITS` of them (400 otherwise)."""
    if not _COUNT.fullmatch(raw):
        shown = raw if len(raw) <= 20 else raw[:20] + "..."
        raise Refused(400, f"since must be a decision count (0 or more, ASCII digits), not {shown!r}")
    return int(raw)


# -- the gate -------------------------------------------------------------------------------------------------------


def cookie_name(port: int) -> str:
    """The session cookie's name: one per port (a browser's cookies for 127.0.0.1 are shared by all its ports)."""
    return f"meeplab-play-{int(port)}"


class Gate:
    """ASGI middleware in front of the app: the security headers on every response, then the ``Host`` and
    ``Origin`` checks, the launch route, and the token (cookie or ``Authorization: Bearer``)."""

    def __init__(self, app, session: Session, port: int):
        self.app = app
        self.session = session
        self.port = int(port)
        self.hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}", f"[::1]:{self.port}"}
        self.origins = {f"http://{h}" for h in self.hosts}
        self.cookie = cookie_name(self.port)

    @property
    def token(self) -> str:
        return self.session.token

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        nonce = secrets.token_urlsafe(18)
        scope["meeplab.nonce"] = nonce
        extra = security_headers(nonce)

        async def send_secured(message):
            if message["type"] in ("http.response.start", "websocket.http.response.start"):
                headers = MutableHeaders(scope=message)
                for k, v in extra.items():
                    headers[k] = v
            await send(message)

        if scope["type"] != "http":  # no websockets here: the handshake is refused (403)
            await receive()
            await send({"type": "websocket.close", "code": 1008})
            return
        refusal = self.refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send_secured)
            return
        await self.app(scope, receive, send_secured)

    def refusal(self, scope) -> Response | None:
        """The response refusing this request, or, for a launch, the redirect; None: let it through."""
        headers: dict[str, list[str]] = {}
        for name, value in scope.get("headers", []):
            headers.setdefault(name.decode("latin-1").lower(), []).append(value.decode("latin-1"))
        host = headers.get("host", [""])
        if len(host) != 1 or host[0].lower() not in self.hosts:
            shown = ", ".join(f"{h}" for h in sorted(self.hosts))
            return JSONResponse({"error": f"this server answers only to Host {shown}"}, status_code=421)
        origin = headers.get("origin")
        if origin is not None and (len(origin) != 1 or origin[0].lower() not in self.origins):
            return JSONResponse({"error": "requests from another origin are refused"}, status_code=403)
        # a browser's own account of where a request comes from: another site, or another port of this host
        # (same-site); "same-origin" (the page) and "none" (a link opened or typed) are let through
        if headers.get("sec-fetch-site", [""])[0] in ("cross-site", "same-site"):
            return JSONResponse({"error": "requests from another site or origin are refused"}, status_code=403)
        path = scope.get("path", "")
        if path.startswith("/launch/"):
            return self.launch(scope, path[len("/launch/") :])
        got = None
        for text in headers.get("authorization", []):
            if text[:7].lower() == "bearer ":
                got = text[7:].strip()
        if got is None:
            for text in headers.get("cookie", []):
                for part in text.split(";"):
                    name, _, value = part.strip().partition("=")
                    if name == self.cookie:
                        got = value.strip()
        if got is None:
            msg = "this game needs its token: open the launch link meeplab play printed, or send Authorization: Bearer"
            return JSONResponse({"error": msg}, status_code=401)
        if not secrets.compare_digest(got.encode("utf-8", "replace"), self.token.encode()):
            return JSONResponse({"error": "wrong token"}, status_code=403)
        return None

    def launch(self, scope, code: str) -> Response:
        if scope.get("method") != "GET":  # a HEAD (a link preview) does not spend the code
            return JSONResponse({"error": "a launch link is opened with GET"}, status_code=405)
        if not self.session.use_launch_code(code):
            msg = (
                "this launch link was used already or has expired: ask meeplab play for a fresh one (press Enter in "
                "its terminal). If you did not use it, someone else may have: stop the server."
            )
            return JSONResponse({"error": msg}, status_code=403)
        resp = Response(status_code=303, headers={"Location": "/"})
        resp.set_cookie(self.cookie, self.token, path="/", httponly=True, samesite="strict")
        return resp


def create_app(session: Session, save_dir: Path | None = None, *, port: int) -> Gate:
    """The ASGI app of ``session`` served on 127.0.0.1:``port``, behind its :class:`Gate`."""
    save_dir = Path(save_dir) if save_dir is not None else Path.cwd()

    def respond(call) -> Any:
        try:
            return JSONResponse(call())
        except Refused as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        except MeeplabError as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)

    def guarded(fn, *, body=False, lock=True):
        async def endpoint(request: Request):
            try:
                data = await read_body(request)
            except Refused as exc:
                return JSONResponse({"error": exc.message}, status_code=exc.status)

            def call():
                if not lock:
                    return fn(data) if body else fn()
                with session.lock:
                    return fn(data) if body else fn()

            return await run_in_threadpool(respond, call)

        return endpoint

    def log(data: Any, since: str) -> dict[str, Any]:
        k = decision_count(since)
        with session.lock:
            got = session.table.log_for(session.viewer)
        return {"decisions": got[k:], "total": len(got)}

    async def log_endpoint(request: Request):
        since = request.query_params.get("since", "0")
        return await guarded(lambda data: log(data, since), body=True, lock=False)(request)

    async def index(request: Request):
        try:
            await read_body(request)
        except Refused as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        return HTMLResponse(page(session, request.scope["meeplab.nonce"]))

    async def http_error(request: Request, exc: HTTPException):
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)

    routes = [
        Route("/", index),
        Route("/api/state", guarded(session.state_now, lock=False)),
        Route("/api/log", log_endpoint),
        Route("/api/move", guarded(session.move, body=True), methods=["POST"]),
        Route("/api/bot", guarded(session.bot, body=True), methods=["POST"]),
        Route("/api/undo", guarded(session.undo), methods=["POST"]),
        Route("/api/seat", guarded(session.take_seat, body=True), methods=["POST"]),
        Route("/api/new", guarded(session.new_game), methods=["POST"]),
        Route("/api/save", guarded(lambda: session.save(save_dir)), methods=["POST"]),
        Route("/api/saved", guarded(session.saved_json)),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    return Gate(app, session, port)

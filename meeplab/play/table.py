"""One game at the table: people and bots taking turns on a game's forward model, and what each seat may see.

A :class:`Table` holds the live state of one game (``sim.core.forward``: reset, advance, apply), asks the bots for
their decisions exactly as the batch does (the same draws from the game's stream, so a saved game replays to the
same table) and records every decision. :meth:`Table.view` is everything the play page shows one seat, built only
from what that seat can see:

* the board and the panel beside it come from the game's drawing module (``GameSpec.draw``, contract in
  ``sim/core/draw.py``) for that seat: hidden tiles as backs, other hands as counts;
* the seat's own legal moves (labels and the board elements they point at) only when it is its turn;
* the decisions so far (:meth:`Table.log_for`): who chose what (a move once made is public: a card played, a tile
  placed); another seat's decision's kind, candidate count and alternatives only where they are the same whatever
  the seat has not seen (a count of ``play <card>`` candidates would tell which cards a hidden hand holds); a bot's
  alternatives and their values only where the bot knows nothing the seat does not, or once the game is over;
  another seat's secret decision (``GameSpec.secret``) only as "chose face down" until the game reveals it;
* whether the person's last move can be taken back: not once it revealed something (``can_undo``, ``undo_note``).

What a seat has not seen is what the forward model's re-deal for it (``determinise``) deals otherwise; the rules
and how they are checked are in :mod:`meeplab.play.hidden`. Nothing else of the state (the seed, the view array
``pub``, the stream) leaves the table while the game runs.
"""

from __future__ import annotations

import math

import numpy as np

from meeplab.sim.core.bots import available, make_lineup
from meeplab.sim.core.draw import checked_info
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.forward import C_KIND, C_N, C_OVER, C_SEAT
from meeplab.sim.core.game import rank_and_win
from meeplab.sim.core.play import new_player, search_function
from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND, EXPLAIN_VISITS

from . import engine
from .hidden import FACE_DOWN, decision_secrecy, face_down, is_secret_kind, knows_more, labels_of, reveals, undo_note

LOG_ROWS = 4096  # event rows kept per decision (the search's explanation rows come first)
TRACE_LOG_ROWS = 200_000  # the whole game's event log, in trace mode
MAX_DECISIONS = 100_000  # a game longer than this is refused (no engine comes near it)


def seat_list(text: str, n_players: int, what: str = "--human") -> list[int]:
    """``"1,3"`` -> ``[0, 2]``: seats as people type them (from 1 = the start player) to 0-based indices."""
    out: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        try:
            s = int(part)
        except ValueError:
            raise MeeplabError(f"{what}: '{part}' is not a seat number (seats are 1..{n_players})") from None
        if not 1 <= s <= n_players:
            raise MeeplabError(f"{what}: seat {s} does not exist at {n_players} players (seats are 1..{n_players})")
        if s - 1 in out:
            raise MeeplabError(f"{what}: seat {s} given twice")
        out.append(s - 1)
    if not out:
        raise MeeplabError(f"{what} needs at least one seat (seats are 1..{n_players})")
    return sorted(out)


def seat_bots(bots: list[str], humans: list[int], n_players: int) -> list[str | None]:
    """The bot of every seat (``None`` for a person): ``bots`` fill the other seats in order; one name fills all."""
    free = [s for s in range(n_players) if s not in humans]
    if not free:
        return [None] * n_players
    if len(bots) == 1:
        bots = bots * len(free)
    if len(bots) != len(free):
        raise MeeplabError(
            f"--bots lists {len(bots)} bot(s) for {len(free)} bot seat(s) "
            f"(seats {', '.join(str(s + 1) for s in free)}): give one name for all or one per seat"
        )
    out: list[str | None] = [None] * n_players
    for s, b in zip(free, bots):
        out[s] = b
    return out


def _stand_in(game: str, bots: list[str | None], bot_configs) -> str:
    """A plain bot for the people's entries of the lineup (never asked: the shared arrays need a row)."""
    known = available(game, bot_configs)
    if "random" in known and not known["random"].search:
        return "random"
    return next(n for n, b in sorted(known.items()) if not b.search)


class Table:
    """One game of ``spec`` (a ``GameSpec`` on the forward model) at ``n_players`` seats: ``seats[s]`` is the bot
    name of seat ``s`` or ``None`` for a person; game ``index`` of ``seed`` deals the table (as in a run).

    :meth:`view` (``GET /api/state``) carries, besides the board and the legal moves:

    * ``can_undo`` (bool): :meth:`undo` would take back the person's last move now;
    * ``undo_note`` (str or None): why it cannot, where a move was made and it cannot (one line, for the page:
      "something hidden from you was revealed since your last move: it cannot be taken back").

    A move that revealed hidden information (a face-down tile turned, a card drawn, face-down choices turned face
    up, by that move or the bot moves and forced steps after it) cannot be taken back: :meth:`undo` refuses it with
    a :class:`MeeplabError` (:func:`meeplab.play.hidden.undo_note` says how a reveal is recognised)."""

    def __init__(
        self, spec, values: dict, seats: list[str | None], seed: int, index: int = 0, bot_configs=(), trace=False
    ):
        if not spec.forward_model:
            raise MeeplabError(f"{spec.id} is not on the forward model: it cannot be played step by step")
        self.spec = spec
        self.values = values
        self.seats = list(seats)
        self.n_players = len(seats)
        self.seed = int(seed)
        self.index = int(index)
        self.bot_configs = tuple(bot_configs)
        self.humans = [s for s, b in enumerate(seats) if b is None]
        stand = _stand_in(spec.id, self.seats, self.bot_configs)
        names = [b if b is not None else stand for b in self.seats]
        self.lineup = make_lineup(spec.id, names, self.n_players, False, self.bot_configs)
        self.ctx = spec.prepare(values)
        self.cx = spec.forward_context(self.ctx, self.lineup) if spec.forward_context is not None else self.ctx.cx
        self.draw = spec.draw
        self.ncat = len(spec.categories)
        width = int(getattr(self.draw, "LOG_WIDTH", 16)) if self.draw is not None else 16
        self.log = np.zeros((TRACE_LOG_ROWS if trace else LOG_ROWS, max(width, 6)), dtype=np.int64)
        # the state and its bots' search scratch (sim.core.scratch.SearchScratch: the searched candidates and their
        # summed playout values are read from it after a search)
        self.st, self.search_scratch = new_player(self.cx, self.n_players, self.ncat, self.log)
        self.scratch = engine.new_state(self.cx, self.n_players, self.log[:0])
        self.srch = search_function(self.cx, self.lineup, self.n_players, self.ncat)
        self.history: list[dict] = []  # one entry per decision (people's and bots')
        self.before: list[np.ndarray] = []  # the record each decision of the history was made in
        self.shown: list[dict[int, dict[str, bool]]] = []  # per decision, per seat: what it withholds (lazily)
        self._undo: tuple[tuple[int, int], str | None] | None = None  # (history, snapshots) -> undo_note
        self.snapshots: list[tuple[int, np.ndarray]] = []  # (len(history), record) before each person's decision
        self.final: dict | None = None
        # trace mode (``meeplab view`` of a saved game): the record before every decision and the whole event log
        self.trace = {"states": [], "picks": [], "logat": [], "sacc": [], "scand": []} if trace else None
        self.st.nlog[1] = 1 if trace else 0
        engine.reset(self.st, self.cx, self.seed, self.index)
        self._advance()

    # -- the game -------------------------------------------------------------------------------------------------

    @property
    def rec(self):
        return self.st.rec[0]

    @property
    def turn(self) -> int:
        """The seat deciding now (0-based), -1 once the game is over."""
        return -1 if self.over else int(self.rec["ctl"][C_SEAT])

    @property
    def over(self) -> bool:
        return bool(self.rec["ctl"][C_OVER]) or self.final is not None

    def human_turn(self) -> bool:
        return not self.over and self.turn in self.humans

    def bot_turn(self) -> bool:
        return not self.over and self.turn not in self.humans

    def _advance(self) -> None:
        """Run the forced steps to the next decision; a person's lone candidate is played for them."""
        while True:
            seat = int(engine.advance(self.st, self.cx))
            if seat < 0:
                self._finish()
                return
            if seat in self.humans and int(self.rec["ctl"][C_N]) <= 1:
                self._keep_state()
                self._record(seat, 0, human=True, forced=True)
                engine.apply(self.st, self.cx, 0)
                continue
            return

    def _finish(self) -> None:
        sc = np.zeros(self.n_players)
        tb = np.zeros(self.n_players)
        brk = np.zeros((self.n_players, self.ncat))
        engine.result(self.st, self.cx, sc, tb, brk)
        ranker = getattr(self.spec, "rank_and_win", None)
        rank, win = ranker(sc[None, :], tb[None, :]) if callable(ranker) else rank_and_win(sc[None, :], tb[None, :])
        self.final = {
            "score": [float(x) for x in sc],
            "tiebreak": [float(x) for x in tb],
            "breakdown": [[float(x) for x in row] for row in brk],
            "rank": [int(x) for x in rank[0]],
            "win": [float(x) for x in win[0]],
        }
        if self.trace is not None:
            self.trace["states"].append(self.st.rec[0].copy())
            self.trace["logat"].append(int(self.st.nlog[0]))

    def labels(self) -> list[tuple[str, str | None]]:
        """The pending decision's candidates in words, with the board element each points at (or None)."""
        return labels_of(self, self.rec)

    def kind_name(self, kind: int) -> str:
        if self.draw is not None and hasattr(self.draw, "kind_name"):
            return str(self.draw.kind_name(kind))
        return f"decision {kind}"

    def _keep_state(self) -> None:
        """Trace mode: keep the record before the decision about to be made (and where the log stands)."""
        if self.trace is not None:
            m = self.search_scratch.acc.shape[0]
            self.trace["states"].append(self.st.rec[0].copy())
            self.trace["logat"].append(int(self.st.nlog[0]))
            self.trace["sacc"].append(np.zeros(m))
            self.trace["scand"].append(np.zeros(m, dtype=np.int64))

    def _record(self, seat, pick, human, forced=False, alts=None, secret=False) -> dict:
        kind = int(self.rec["ctl"][C_KIND])
        lab = self.labels()
        entry = {
            "n": len(self.history) + 1,
            "seat": int(seat),
            "human": bool(human),
            "who": "you" if human else str(self.seats[seat]),
            "kind": self.kind_name(kind),
            "pick": int(pick),
            "candidates": int(self.rec["ctl"][C_N]),
            "label": lab[pick][0] if 0 <= pick < len(lab) else f"candidate {pick}",
            "target": lab[pick][1] if 0 <= pick < len(lab) else None,
            "forced": bool(forced),
            "alternatives": alts,
            "secret": bool(secret),
            "kind_id": kind,
            # a secret decision (GameSpec.secret): Secret.reveals when it was made; None for any other
            "reveal_at": reveals(self, self.rec) if is_secret_kind(self, kind) else None,
        }
        self.history.append(entry)
        self.before.append(self.st.rec.copy())
        self.shown.append({})
        if self.trace is not None:
            self.trace["picks"].append(int(pick))
        if len(self.history) > MAX_DECISIONS:
            raise MeeplabError(f"the game passed {MAX_DECISIONS} decisions: the engine does not end it")
        return entry

    def play(self, pick: int) -> dict:
        """A person's decision: candidate ``pick`` of the pending decision (checked; the game is unchanged when it
        is refused)."""
        if self.over:
            raise MeeplabError("the game is over")
        seat = self.turn
        if seat not in self.humans:
            raise MeeplabError(f"it is P{seat + 1}'s turn, a bot's: no move of yours is pending")
        n = int(self.rec["ctl"][C_N])
        if isinstance(pick, bool) or not isinstance(pick, int) or not 0 <= pick < n:
            raise MeeplabError(f"move {pick!r} is not one of the {n} legal moves (ids 0..{n - 1})")
        self.snapshots.append((len(self.history), self.st.rec.copy()))
        self._keep_state()
        entry = self._record(seat, pick, human=True)
        engine.apply(self.st, self.cx, pick)
        self._advance()
        return entry

    def play_bot(self) -> dict:
        """The bot whose turn it is decides (as in a run), and its move is played."""
        if not self.bot_turn():
            raise MeeplabError("no bot's decision is pending")
        seat = self.turn
        n = int(self.rec["ctl"][C_N])
        lab = self.labels()
        feats0 = [float(x) for x in self.rec["feats"][:n, 0]]
        secret = any(knows_more(self, self.rec, seat, h) for h in self.humans)
        self._keep_state()
        if self.trace is None:
            self.st.nlog[0] = 0
        start = int(self.st.nlog[0])
        self.st.nlog[1] = 1
        try:
            pick = int(
                engine.decide(
                    self.st,
                    self.search_scratch,
                    self.cx,
                    self.lineup.fns,
                    self.lineup.weights,
                    self.lineup.search,
                    self.lineup.rotate,
                    self.index,
                    self.srch,
                )
            )
        finally:
            self.st.nlog[1] = 1 if self.trace is not None else 0
        alts = self._alternatives(n, pick, lab, feats0, start)
        entry = self._record(seat, pick, human=False, alts=alts, secret=secret)
        engine.apply(self.st, self.cx, pick)
        self._advance()
        return entry

    def _alternatives(self, n, pick, lab, feats0, start) -> list[dict]:
        """The candidates the bot weighed: a search bot's searched ones with their mean playout values, a plain
        bot's every candidate with its immediate value (feature 0); best first."""
        rows = self.log[start : int(self.st.nlog[0])]
        search = [r for r in rows if int(r[0]) == E_SEARCH]
        acc, cand = self.search_scratch.acc, self.search_scratch.cand
        if self.trace is not None:
            m = acc.shape[0]
            self.trace["sacc"][-1] = acc.copy() if search else np.zeros(m)
            self.trace["scand"][-1] = cand.copy() if search else np.zeros(m, dtype=np.int64)
        out = []
        if search and int(search[-1][5]) < 0:  # ismcts: its root candidates' mean values and visits, as it logs them
            for r in (r for r in rows if int(r[0]) == E_SEARCH_CAND):
                c, visits = int(r[1]), int(r[5]) // EXPLAIN_VISITS
                out.append(
                    {
                        "id": c,
                        "label": lab[c][0] if c < len(lab) else f"candidate {c}",
                        "value": float(r[4]) / 1e6,
                        "measure": f"mean playout value, {visits} visits",
                        "chosen": c == pick,
                    }
                )
            if not any(a["chosen"] for a in out):  # played, but not among the most visited it logs
                label = lab[pick][0] if pick < len(lab) else f"candidate {pick}"
                out.append({"id": pick, "label": label, "value": None, "measure": "its choice", "chosen": True})
        elif search:
            nc, vis = int(search[-1][3]), self.search_scratch.vis
            for j in range(nc):
                c = int(cand[j])
                out.append(
                    {
                        "id": c,
                        "label": lab[c][0] if c < len(lab) else f"candidate {c}",
                        "value": float(acc[j]) / max(1.0, float(vis[j])),  # vis: its playouts (a race gives some fewer)
                        "measure": f"mean playout value, {int(vis[j])} playouts",
                        "chosen": c == pick,
                    }
                )
        else:
            for c in range(n):
                out.append(
                    {
                        "id": c,
                        "label": lab[c][0] if c < len(lab) else f"candidate {c}",
                        "value": feats0[c],
                        "measure": "immediate value",
                        "chosen": c == pick,
                    }
                )
        out.sort(key=lambda a: (-a["chosen"], -(a["value"] if a["value"] is not None else -math.inf)))
        return out

    def undo_note(self) -> str | None:
        """Why the person's last move cannot be taken back now (it revealed something), or None."""
        if not self.snapshots:
            return None
        key = (len(self.history), len(self.snapshots))
        if self._undo is None or self._undo[0] != key:
            n, rec = self.snapshots[-1]
            self._undo = (key, undo_note(self, rec, self.history[n:]))
        return self._undo[1]

    def can_undo(self) -> bool:
        return bool(self.snapshots) and not self.over and self.undo_note() is None

    def undo(self) -> dict:
        """Take back the last decision a person made (and every bot move after it), unless it revealed something or
        the game is over (its result is final, as at a table)."""
        if not self.snapshots:
            raise MeeplabError("nothing to undo: no decision of yours yet")
        if self.over:
            raise MeeplabError("the game is over: its result stands (start a new game instead)")
        note = self.undo_note()
        if note is not None:
            raise MeeplabError(note)
        n, rec = self.snapshots.pop()
        undone = self.history[n]
        del self.history[n:]
        del self.before[n:]
        del self.shown[n:]
        self.st.rec[:] = rec
        self.final = None
        return undone

    # -- what a seat sees --------------------------------------------------------------------------------------------

    def scores_now(self) -> list[float] | None:
        if self.final is not None:
            return self.final["score"]
        if self.draw is not None and hasattr(self.draw, "score"):
            return [float(x) for x in self.draw.score(self.ctx, self.rec)]
        return None

    def board(self, seat: int) -> dict | None:
        """The board as ``seat`` sees it: SVG size, the static part and the pieces (``GameSpec.draw``)."""
        if self.draw is None:
            return None
        w, h = self.draw.size(self.ctx, self.n_players)
        return {
            "width": w,
            "height": h,
            "base": self.draw.base(self.ctx, self.n_players),
            "pieces": "".join(self.draw.pieces(self.ctx, self.rec, seat)),
        }

    def withheld(self, i: int, seat: int) -> dict[str, bool]:
        """What decision ``i`` of the history withholds from ``seat`` (:func:`meeplab.play.hidden.decision_secrecy`
        of the state it was made in; worked out once)."""
        if seat not in self.shown[i]:
            self.shown[i][seat] = decision_secrecy(self, self.before[i][0], seat)
        return self.shown[i][seat]

    def pending_for(self, seat: int) -> dict | None:
        """What ``seat`` will be shown of the decision pending now, apart from the choice (what :meth:`log_for` gives
        once it is made): None once the game is over."""
        if self.over:
            return None
        rec = self.rec
        kind = int(rec["ctl"][C_KIND])
        if int(rec["ctl"][C_SEAT]) == seat:
            return {"kind": self.kind_name(kind), "candidates": [a for a, _ in self.labels()]}
        w = decision_secrecy(self, rec, seat)
        return {
            "kind": None if w["kind"] else self.kind_name(kind),
            "candidates": None if w["count"] else [a for a, _ in self.labels()],
            "alternatives": not w["alternatives"],
            "face_down": is_secret_kind(self, kind),
        }

    def log_for(self, seat: int) -> list[dict]:
        """The decisions so far as ``seat`` may see them (:meth:`entry_for` of each)."""
        return [self.entry_for(i, seat) for i in range(len(self.history))]

    def entry_for(self, i: int, seat: int) -> dict:
        """Decision ``i`` of the history as ``seat`` may see it: its own in full; another seat's kind, candidate
        count and ``forced`` flag only where they are the same whatever ``seat`` has not seen, a bot's alternatives
        only where the bot knows nothing ``seat`` does not (or once the game is over), a secret decision only as
        "chose face down" (``face_down``: true; no label, target, count or alternatives) until the game reveals it
        (:mod:`meeplab.play.hidden`). A reply that names a decision just made (the move a bot played) takes its
        label from here, never from the history."""
        e = self.history[i]
        d = {k: e[k] for k in ("n", "seat", "human", "who", "kind", "label", "target", "candidates", "forced")}
        d["seat"] = e["seat"] + 1
        if e["human"]:
            d["who"] = "you" if e["seat"] == seat else f"P{e['seat'] + 1}"
        w = self.withheld(i, seat) if not self.over else {"kind": False, "count": False, "alternatives": False}
        if w["kind"]:
            d["kind"] = "decision"
        if w["count"]:
            d["candidates"] = None
            d["forced"] = None
        if face_down(self, e, seat):
            d.update(label=FACE_DOWN, target=None, candidates=None, forced=None, face_down=True)
            if not e["human"]:
                d["alternatives"] = None
            return d
        if not e["human"]:
            if e["alternatives"] is None:
                d["alternatives"] = None
            elif w["alternatives"]:
                d["alternatives"] = None
                d["withheld"] = "shown when the game is over (they would show what the bot knows and you do not)"
            else:
                d["alternatives"] = e["alternatives"]
        return d

    def view(self, seat: int) -> dict:
        """Everything the page shows ``seat`` (0-based) now: the JSON of ``GET /api/state``."""
        turn = self.turn
        mine = not self.over and turn == seat
        rec = self.rec
        legal = []
        if mine:
            legal = [{"id": i, "label": a, "target": b} for i, (a, b) in enumerate(self.labels())]
        out = {
            "game": self.spec.id,
            "title": self.spec.title,
            "players": self.n_players,
            "seat": seat + 1,
            "turn": None if turn < 0 else turn + 1,
            "seats": [
                {"seat": s + 1, "who": ("you" if s == seat else "person") if b is None else b, "human": b is None}
                for s, b in enumerate(self.seats)
            ],
            "legal": legal,
            "kind": self.kind_name(int(rec["ctl"][C_KIND])) if mine else None,
            "over": self.over,
            "scores": self.scores_now(),
            "status": str(self.draw.status(self.ctx, rec)) if self.draw is not None else "",
            "info": checked_info(self.draw.info(self.ctx, rec, seat), self.spec.id) if self.draw is not None else None,
            "board": self.board(seat),
            "decisions": len(self.history),
            "can_undo": self.can_undo(),
            "undo_note": self.undo_note(),
        }
        if self.final is not None:
            out["result"] = {
                "categories": list(self.spec.categories),
                "score": self.final["score"],
                "breakdown": self.final["breakdown"],
                "rank": self.final["rank"],
                "win": self.final["win"],
            }
        return out

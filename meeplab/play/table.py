"""One game at the table: people and bots taking turns on a game's forward model, and what each seat may see.

A :class:`Table` holds the live state of one game (``sim.core.forward``: reset, advance, apply), asks the bots for
their decisions exactly as the batch does (the same draws from the game's stream, so a saved game replays to the
same table) and records every decision. :meth:`Table.view` is everything the play page shows one seat, built only
from what that seat can see:

* the board and the panel beside it come from the game's drawing module (``GameSpec.draw``, contract in
  ``sim/core/draw.py``) for that seat: hidden tiles as backs, other hands as counts;
* the seat's own legal moves (labels and the board elements they point at) only when it is its turn;
* the decisions so far: who chose what (a move once made is public: a card played, a tile placed);
* a bot's alternatives and their values only where they reveal nothing: a bot that knows something the seat does
  not (its hand) has candidates made from it, so they are shown once the game is over. What a seat does not know
  is what the game declares unseen by it (``GameSpec.hidden``) and what the forward model's re-deal
  (``determinise``) changes for it: parts unseen by the person but seen by the bot are the bot's secret (checked at
  each bot decision; the re-deal on a few draws).

Nothing else of the state (the seed, the view array ``pub``, the stream) leaves the table while the game runs.
"""

from __future__ import annotations

import numpy as np

from meeplab.sim.core.bots import available, make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.forward import C_KIND, C_N, C_OVER, C_SEAT
from meeplab.sim.core.game import rank_and_win
from meeplab.sim.core.play import new_player, search_function
from meeplab.sim.core.search import E_SEARCH

from . import engine

LOG_ROWS = 4096  # event rows kept per decision (the search's explanation rows come first)
TRACE_LOG_ROWS = 200_000  # the whole game's event log, in trace mode
REDEALS = 4  # re-deals per seat when checking whether a bot holds a secret
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
    name of seat ``s`` or ``None`` for a person; game ``index`` of ``seed`` deals the table (as in a run)."""

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
        (self.st, self.sim, self.acc, self.cand, self.used, self.sc, self.tb, self.brk) = new_player(
            self.cx, self.n_players, self.ncat, self.log
        )
        self.scratch = engine.new_state(self.cx, self.n_players, self.log[:0])
        self.srch = search_function(self.cx, self.lineup, self.n_players, self.ncat)
        self.history: list[dict] = []  # one entry per decision (people's and bots')
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
        n = int(self.rec["ctl"][C_N])
        if self.draw is not None:
            got = list(self.draw.moves(self.ctx, self.rec))
            if len(got) == n:
                return [(str(a), None if b is None else str(b)) for a, b in got]
        kind = int(self.rec["ctl"][C_KIND])
        return [(f"kind {kind}: move {tuple(int(x) for x in self.rec['moves'][i][:3])}", None) for i in range(n)]

    def kind_name(self, kind: int) -> str:
        if self.draw is not None and hasattr(self.draw, "kind_name"):
            return str(self.draw.kind_name(kind))
        return f"decision {kind}"

    def _keep_state(self) -> None:
        """Trace mode: keep the record before the decision about to be made (and where the log stands)."""
        if self.trace is not None:
            m = self.acc.shape[0]
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
        }
        self.history.append(entry)
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
        secret = any(self._bot_secret(seat, h) for h in self.humans)
        self._keep_state()
        if self.trace is None:
            self.st.nlog[0] = 0
        start = int(self.st.nlog[0])
        self.st.nlog[1] = 1
        try:
            pick = int(
                engine.decide(
                    self.st,
                    self.sim,
                    self.cx,
                    self.lineup.fns,
                    self.lineup.weights,
                    self.lineup.search,
                    self.lineup.rotate,
                    self.index,
                    self.acc,
                    self.cand,
                    self.used,
                    self.sc,
                    self.tb,
                    self.brk,
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
        if self.trace is not None:
            m = self.acc.shape[0]
            self.trace["sacc"][-1] = self.acc.copy() if search else np.zeros(m)
            self.trace["scand"][-1] = self.cand.copy() if search else np.zeros(m, dtype=np.int64)
        out = []
        if search:
            nc, k_play = int(search[-1][3]), max(1, int(search[-1][5]))
            for j in range(nc):
                c = int(self.cand[j])
                out.append(
                    {
                        "id": c,
                        "label": lab[c][0] if c < len(lab) else f"candidate {c}",
                        "value": float(self.acc[j]) / k_play,
                        "measure": "mean playout value",
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
        out.sort(key=lambda a: (-a["chosen"], -a["value"]))
        return out

    def _hidden_mask(self, seat: int) -> dict[str, np.ndarray]:
        """The parts of the state record that re-deals for ``seat`` change (what ``seat`` does not know)."""
        masks: dict[str, np.ndarray] = {}
        rec = self.rec
        names = [f for f in rec.dtype.names if f != "rng"]
        for k in range(REDEALS):
            self.scratch.rec[0] = rec
            r = np.zeros(4, dtype=np.uint64)
            r[0], r[1], r[2], r[3] = 0x9E3779B97F4A7C15 + k, 12345 + 7 * seat, 99 + k, 1
            engine.determinise(self.scratch, self.cx, seat, r)
            other = self.scratch.rec[0]
            for f in names:
                d = np.asarray(rec[f] != other[f])
                masks[f] = d if f not in masks else (masks[f] | d)
        return masks

    def _bot_secret(self, bot: int, human: int) -> bool:
        """Whether ``bot`` knows something ``human`` does not: an element the game declares unseen by the person
        but seen by the bot (``GameSpec.hidden``), or a part of the state that re-deals for the person change and
        re-deals for the bot never do. Both are asked: a declaration may leave a field to the re-deal (``unseen``
        None: a field derived from others, or a plugin game's own choice), and a few re-deals may by chance leave a
        part as it was."""
        for h in tuple(getattr(self.spec, "hidden", ()) or ()):
            if h.unseen is None:
                continue
            mine = h.unseen(self.rec, human, self.cx)
            theirs = h.unseen(self.rec, bot, self.cx)
            if mine is not None and len(np.setdiff1d(mine, [] if theirs is None else theirs)):
                return True
        mh = self._hidden_mask(human)
        mb = self._hidden_mask(bot)
        return any(bool(np.any(mh[f] & ~mb[f])) for f in mh)

    def undo(self) -> dict:
        """Take back the last decision a person made (and every bot move after it)."""
        if not self.snapshots:
            raise MeeplabError("nothing to undo: no decision of yours yet")
        n, rec = self.snapshots.pop()
        undone = self.history[n]
        del self.history[n:]
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

    def log_for(self, seat: int) -> list[dict]:
        """The decisions so far as ``seat`` may see them: a bot's alternatives only where they reveal no secret of
        the bot's, or once the game is over."""
        out = []
        for e in self.history:
            d = {k: e[k] for k in ("n", "seat", "human", "who", "kind", "label", "target", "candidates", "forced")}
            d["seat"] = e["seat"] + 1
            if e["human"]:
                d["who"] = "you" if e["seat"] == seat else f"P{e['seat'] + 1}"
            if not e["human"]:
                if e["alternatives"] is None:
                    d["alternatives"] = None
                elif e["secret"] and not self.over:
                    d["alternatives"] = None
                    d["withheld"] = "shown when the game is over (they would show the bot's hidden cards)"
                else:
                    d["alternatives"] = e["alternatives"]
            out.append(d)
        return out

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
            "info": self.draw.info(self.ctx, rec, seat) if self.draw is not None else None,
            "board": self.board(seat),
            "decisions": len(self.history),
            "can_undo": bool(self.snapshots),
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

"""The conformance checks, one function each: ``check(kit)`` raises ``AssertionError`` (or ``MeeplabError``) with
what is wrong, or returns a short note of what it looked at. ``kit`` (:class:`Kit`) holds one game, its default
parameters and the games it plays, so the checks of one game share one preparation and one compile."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from meeplab.lab.runs.results import batch_table
from meeplab.sim.core import face, forward
from meeplab.sim.core.bots import available, make_lineup
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.files import atomic_write
from meeplab.sim.core.forward import C_DECISIONS, C_KIND, C_N, C_OVER
from meeplab.sim.core.game import GameSpec
from meeplab.sim.core.play import LogOverflow, run_logged
from meeplab.sim.core.registry import get_game

from .coverage import phase_of
from .hidden import check_hidden
from .redraw import check_redraw
from .secret import check_secret

SEED = 7
SCHEMA = ("n_players", "game_index", "seat", "entry", "bot", "score", "rank", "win", "length", "tiebreak", "end")
TINY_SEARCH = '[bots.kit-search]\nbase = "{base}"\n[bots.kit-search.weights]\nplayouts = 2\nmax_candidates = 3\n'


@dataclass
class Kit:
    """One game under test: its spec, default parameters and context, and the plain bots it plays with."""

    game: GameSpec
    games: int = 3  # games per player count (tiny: the checks are about the contract, not about statistics)
    # the sample of the hidden, redraw and secret checks (decision_sample): states per (player count, decision kind,
    # phase of the game) cell (secret: twice that), and the games it draws them from; raise both to look wider
    # (check_game(game, breadth=3))
    breadth: int = 1
    sample_games: int = 2
    seed: int = SEED
    tmp: Any = None  # a folder for files the checks write (a bot config); None = a temporary one
    _ctx: Any = None
    _cache: dict = field(default_factory=dict)

    @classmethod
    def of(cls, game: str | GameSpec, **kw) -> Kit:
        return cls(game if isinstance(game, GameSpec) else get_game(game), **kw)

    @property
    def ctx(self):
        if self._ctx is None:
            self._ctx = self.game.prepare(self.game.params.resolve({}, self.game.id))
        return self._ctx

    @property
    def players(self) -> list[int]:
        return list(range(self.game.min_players, self.game.max_players + 1))

    def plain_bots(self) -> list[str]:
        """Two plain bots to play with (random and greedy where the game has them), first the likeliest to vary."""
        bots = available(self.game.id)
        plain = [n for n, b in bots.items() if not b.search]
        pick = [n for n in ("random", "greedy") if n in plain] or plain[:2]
        if not pick:
            raise AssertionError(f"{self.game.id} has no plain bot (a module with choose): nothing can play it")
        return pick

    def lineup(self, p: int, names=None, rotate=True, configs=()):
        return make_lineup(self.game.id, list(names or self.plain_bots()), p, rotate, configs)

    def batch(self, p: int):
        """The tiny batch of ``p`` players that several checks read (played once)."""
        key = ("batch", p)
        if key not in self._cache:
            self._cache[key] = self.game.play(self.ctx, self.lineup(p), self.seed, 0, self.games, p)
        return self._cache[key]

    # -- stepping from Python (the forward model through sim.core.face) ----------------------------------------------
    def cx(self, lineup):
        return self.game.engine_context(self.ctx, lineup)

    def new(self, cx, p: int, log=None):
        if log is None:
            log = np.zeros((0, 6), dtype=np.int64)
        return face.new_state(cx, p, log)

    @staticmethod
    def ask(st, lineup, entry) -> int:
        """What the shared loop's ``forward.ask`` does, from Python: no bot for one candidate, a count of the bot
        decisions, an out-of-range answer clamped to the first candidate."""
        r = st.rec[0]
        n = int(r["ctl"][C_N])
        if n <= 1:
            return 0
        r["ctl"][C_DECISIONS] += 1
        i = int(
            lineup.fns[entry](r["ctl"][C_KIND], r["pub"], r["moves"], n, r["feats"], lineup.weights[entry], r["rng"])
        )
        return i if 0 <= i < n else 0

    def decision_points(self, p: int, g: int, every: int = 7, most: int = 6):
        """Copies of game ``g``'s state at some of its decisions (every ``every``-th with more than one candidate,
        at most ``most``), played by the kit's plain bots without rotation: (state, seat) pairs."""
        lu = self.lineup(p, rotate=False)
        cx = self.cx(lu)
        st = self.new(cx, p)
        face.reset(st, cx, self.seed, g)
        out, k = [], 0
        while len(out) < most:
            seat = int(face.advance(st, cx))
            if seat < 0:
                break
            if st.rec[0]["ctl"][C_N] > 1:
                if k % every == every // 2:
                    cp = self.new(cx, p)
                    face.copy(cp, st)
                    out.append((cp, seat))
                k += 1
            face.apply(st, cx, self.ask(st, lu, seat))
        return out, lu, cx

    def decision_kinds(self, cx, lu, p: int, g: int) -> list[int]:
        """The decision kind of each of game ``g``'s decisions with more than one candidate, in order (the game played
        from its seed by ``lu`` at ``p`` players): what a sample spreads over kinds and phases."""
        st = self.new(cx, p)
        face.reset(st, cx, self.seed, g)
        kinds = []
        while True:
            seat = int(face.advance(st, cx))
            if seat < 0:
                break
            if st.rec[0]["ctl"][C_N] > 1:
                kinds.append(int(st.rec[0]["ctl"][C_KIND]))
            face.apply(st, cx, self.ask(st, lu, seat))
        return kinds

    def decision_sample(self, p: int, g: int, covered: dict | None = None):
        """Copies of game ``g``'s state covering its decisions with more than one candidate: per (decision kind, phase:
        the first, middle and last third of those decisions) at most ``self.breadth`` states, spread over the cell,
        skipping a cell ``covered`` (a dict (p, kind, phase) -> states, updated) already holds ``breadth`` of. The game
        is played twice from its seed (once to count, once to copy), so no state is kept that is not sampled. Returns
        ((state, seat, kind, phase) list, lineup, context)."""
        lu = self.lineup(p, rotate=False)
        cx = self.cx(lu)
        covered = {} if covered is None else covered
        st = self.new(cx, p)
        kinds = self.decision_kinds(cx, lu, p, g)
        cells: dict[tuple[int, int], list[int]] = {}
        for k, kind in enumerate(kinds):
            cells.setdefault((kind, phase_of(k, len(kinds))), []).append(k)
        want: dict[int, tuple[int, int]] = {}
        for (kind, ph), ks in cells.items():
            room = self.breadth - covered.get((p, kind, ph), 0)
            for j in range(min(room, len(ks))):
                want[ks[(2 * j + 1) * len(ks) // (2 * min(room, len(ks)))]] = (kind, ph)
        out = []
        face.reset(st, cx, self.seed, g)
        k = 0
        while want:
            seat = int(face.advance(st, cx))
            if seat < 0:
                break
            if st.rec[0]["ctl"][C_N] > 1:
                if k in want:
                    kind, ph = want.pop(k)
                    cp = self.new(cx, p)
                    face.copy(cp, st)
                    out.append((cp, seat, kind, ph))
                    covered[(p, kind, ph)] = covered.get((p, kind, ph), 0) + 1
                k += 1
            face.apply(st, cx, self.ask(st, lu, seat))
        return out, lu, cx


def check_spec(kit: Kit) -> str:
    """The face is consistent: player counts, categories, endings, options, declared fields."""
    g = kit.game
    assert 1 <= g.min_players <= g.default_players <= g.max_players, (
        f"players: min {g.min_players} <= default {g.default_players} <= max {g.max_players} does not hold"
    )
    assert len(set(g.categories)) == len(g.categories), f"categories repeat a name: {g.categories}"
    clash = set(g.categories) & set(SCHEMA)
    assert not clash, f"categories {sorted(clash)} clash with result columns"
    assert g.end_codes and g.end_codes[0] == "rules", f"end_codes must start with 'rules', got {g.end_codes}"
    assert len({n for n, _ in g.options}) == len(g.options), "option class names repeat"
    assert len(g.options) <= 62, "more than 62 option classes do not fit a mask"
    if g.forward_model:
        cx = kit.cx(kit.lineup(g.min_players))
        names = kit.new(cx, g.min_players).rec.dtype.names
        for h in g.hidden:
            assert h.field in names, f"hidden field '{h.field}' is not a field of the state record ({names})"
            assert h.derive is None or (h.counts is None and not h.pool), (
                f"hidden field '{h.field}': a derived field is recomputed, it has no pool and no counts"
            )
        for f in {h.field for h in g.hidden}:
            kinds = {h.counts is None for h in g.hidden if h.field == f}
            assert len(kinds) == 1, f"hidden field '{f}' is declared both as counts and as a list of cards"
        for f in g.chance_fields:
            assert f in names, f"chance field '{f}' is not a field of the state record"
    return f"{g.min_players}-{g.max_players} players, {len(g.categories)} categories"


def check_players(kit: Kit) -> str:
    """Every player count from min to max plays; outputs have the documented shapes; scores are finite; the
    breakdown adds up to the score where the game says it does."""
    g = kit.game
    for p in kit.players:
        b = kit.batch(p)
        n = kit.games
        assert b.score.shape == (n, p), f"{p} players: score shape {b.score.shape}, expected {(n, p)}"
        assert b.tiebreak.shape == (n, p), f"{p} players: tiebreak shape {b.tiebreak.shape}"
        assert b.breakdown.shape == (n, p, len(g.categories)), f"{p} players: breakdown shape {b.breakdown.shape}"
        assert b.length.shape == (n,), f"{p} players: length shape {b.length.shape}"
        assert np.isfinite(b.score).all() and np.isfinite(b.breakdown).all(), f"{p} players: a score is not finite"
        if b.end is not None:
            assert ((b.end >= 0) & (b.end < len(g.end_codes))).all(), f"{p} players: end code out of end_codes"
        if g.categories:
            gap = np.abs(b.breakdown.sum(axis=2) - b.score).max()
            assert gap < 1e-6, f"{p} players: the breakdown does not add up to the score (off by {gap:g})"
    return f"players {kit.players[0]}..{kit.players[-1]}, {kit.games} games each"


def check_schema(kit: Kit) -> str:
    """The result rows: every documented column, one winner's worth of win share per game, ranks from 1."""
    g = kit.game
    p = g.default_players
    lu = kit.lineup(p)
    t = batch_table(g, kit.batch(p), 0, p, lu.names, True)
    cols = t.column_names
    want = [*SCHEMA, *g.categories]
    assert cols[: len(want)] == want, f"result columns {cols}, expected {want}"
    win = np.asarray(t["win"]).reshape(kit.games, p)
    rank = np.asarray(t["rank"]).reshape(kit.games, p)
    assert np.allclose(win.sum(axis=1), 1.0), "win shares of a game do not add up to 1"
    assert (rank.min(axis=1) == 1).all(), "a game has no rank 1"
    score = np.asarray(t["score"]).reshape(kit.games, p)
    best = score.min(axis=1) if g.lower_wins else score.max(axis=1)
    winners = win > 0
    assert (score[winners] == np.repeat(best, winners.sum(axis=1))).all(), (
        f"a winner does not have the {'lowest' if g.lower_wins else 'highest'} score"
    )
    return f"{len(cols)} columns"


SCRUB_MOVE = -0x5C5C5C5C5C5C  # what the stepping check writes into the candidate rows past the pending decision's
SCRUB_FEAT = -1.2345678e300


def _scrub(r) -> None:
    """Overwrite the candidate rows past the pending decision's ``ctl[C_N]`` with values no engine writes."""
    n = int(r["ctl"][C_N])
    r["moves"][n:] = SCRUB_MOVE
    r["feats"][n:] = SCRUB_FEAT


def _play_stepping(kit: Kit, p: int, g: int, scrub: bool = False):
    """Game ``g`` stepped from Python on the forward model: (score, tiebreak, breakdown, length, end). ``scrub``:
    before every ``advance`` and every ``apply`` the candidate rows past the pending decision's (``moves``,
    ``feats`` from ``ctl[C_N]`` on) are overwritten with values no engine writes, and every decision posted must
    hold none of them in its own rows: a decision writes whole rows for its candidates and nothing reads the rows
    past them (the searches copy a state's candidate rows up to ``ctl[C_N]`` only)."""
    lu = kit.lineup(p)
    cx = kit.cx(lu)
    st = kit.new(cx, p)
    face.reset(st, cx, kit.seed, g)
    r = st.rec[0]
    while True:
        if scrub:
            _scrub(r)
        seat = int(face.advance(st, cx))
        if seat < 0:
            break
        if scrub:
            n, kind = int(r["ctl"][C_N]), int(r["ctl"][C_KIND])
            for name, bad in (("moves", SCRUB_MOVE), ("feats", SCRUB_FEAT)):
                left = np.argwhere(r[name][:n] == bad)
                assert not left.size, (
                    f"{p} players, game {g}: decision kind {kind} posted {n} candidates but left {name}"
                    f"{tuple(int(i) for i in left[0])} unwritten (a candidate's row holds what an earlier decision "
                    "left there: write every column of every candidate's row)"
                )
            _scrub(r)
        e = (seat + g) % p  # rotated line-up (sim.core.bots.entry_of_seat)
        face.apply(st, cx, kit.ask(st, lu, e))
    sc, tb, brk = np.zeros(p), np.zeros(p), np.zeros((p, len(kit.game.categories)))
    face.result(st, cx, sc, tb, brk)
    assert r["ctl"][C_OVER] == 1, "advance returned -1 but ctl[C_OVER] is not 1"
    return sc, tb, brk, int(r["ctl"][forward.C_LENGTH]), int(r["ctl"][forward.C_END])


def check_stepping(kit: Kit) -> str:
    """The batch and the forward model stepped from Python play identical games (every player count)."""
    if not kit.game.forward_model:
        return "skipped: not on the forward model"
    for p in kit.players:
        b = kit.batch(p)
        for g in range(min(2, kit.games)):
            sc, tb, brk, length, end = _play_stepping(kit, p, g)
            assert np.array_equal(sc, b.score[g]), f"{p} players, game {g}: stepping scored {sc}, batch {b.score[g]}"
            assert np.array_equal(tb, b.tiebreak[g]), f"{p} players, game {g}: tie-breaks differ"
            assert np.array_equal(brk, b.breakdown[g]), f"{p} players, game {g}: breakdowns differ"
            assert length == int(b.length[g]), f"{p} players, game {g}: length {length}, batch {int(b.length[g])}"
            if b.end is not None:
                assert end == int(b.end[g]), f"{p} players, game {g}: end {end}, batch {int(b.end[g])}"
        if kit.games:  # the rows past each decision's candidates overwritten: the same game, every row written
            scrubbed = _play_stepping(kit, p, 0, scrub=True)
            assert all(np.array_equal(x, y) for x, y in zip(scrubbed, _play_stepping(kit, p, 0))), (
                f"{p} players, game 0: overwriting the candidate rows past the pending decision's changed the game "
                "(something reads rows an earlier decision left)"
            )
    return "batch = stepping; candidate rows written whole, none read past ctl[C_N]"


def _finish(kit: Kit, st, cx, lu, p):
    while (seat := int(face.advance(st, cx))) >= 0:
        face.apply(st, cx, kit.ask(st, lu, seat))
    sc, tb, brk = np.zeros(p), np.zeros(p), np.zeros((p, len(kit.game.categories)))
    face.result(st, cx, sc, tb, brk)
    return sc, tb, brk


def check_copy(kit: Kit) -> str:
    """A copy is exact and independent: playing it on leaves the original untouched, and both play alike."""
    if not kit.game.forward_model:
        return "skipped: not on the forward model"
    p = kit.game.default_players
    points, lu, cx = kit.decision_points(p, 1, most=3)
    assert points, "no decision with more than one candidate in game 1"
    for st, _ in points:
        before = st.rec.tobytes()
        cp = kit.new(cx, p)
        face.copy(cp, st)
        assert cp.rec.tobytes() == before, "a copy differs from its original"
        a = _finish(kit, cp, cx, lu, p)
        assert st.rec.tobytes() == before, "playing a copy changed the original"
        b = _finish(kit, st, cx, lu, p)
        for x, y in zip(a, b):
            assert np.array_equal(x, y), "a copy and its original, played on alike, ended differently"
    return f"{len(points)} states"


def check_chance(kit: Kit) -> str:
    """The same (seed, game) deals the same; other games deal otherwise in the declared chance fields."""
    g = kit.game
    if not g.forward_model:
        return "skipped: not on the forward model"
    p = g.default_players
    cx = kit.cx(kit.lineup(p))

    def deal(i):
        st = kit.new(cx, p)
        face.reset(st, cx, kit.seed, i)
        face.advance(st, cx)
        return st

    a, a2 = deal(0), deal(0)
    assert a.rec.tobytes() == a2.rec.tobytes(), "two resets of the same (seed, game) set up different tables"
    if not g.chance_fields:
        return "same game, same table" + ("" if g.chance else " (no chance)")
    others = [deal(i) for i in range(1, 5)]
    for f in g.chance_fields:
        assert any(not np.array_equal(a.rec[0][f], o.rec[0][f]) for o in others), (
            f"chance field '{f}' is the same in games 0-4: it is not dealt from the game's stream"
        )
    return f"chance fields {', '.join(g.chance_fields)} vary"


def check_search(kit: Kit) -> str:
    """Search bots play the same games on 1 and 2 threads (their random numbers come from (seed, game))."""
    import numba

    g = kit.game
    if not g.forward_model:
        return "skipped: not on the forward model"
    bots = available(g.id)
    base = next((n for n, b in bots.items() if b.search == "rollout"), None)
    if base is None:
        return "skipped: no search bot"
    import tempfile
    from pathlib import Path

    folder = Path(kit.tmp or tempfile.mkdtemp(prefix="meeplab-kit-"))
    cfg = folder / f"{g.id}-kit-search.toml"
    atomic_write(cfg, TINY_SEARCH.format(base=base))
    p = g.min_players
    lu = make_lineup(g.id, ["kit-search", kit.plain_bots()[-1]], p, True, [str(cfg)])
    n = 2
    was = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = g.play(kit.ctx, lu, kit.seed, 0, n, p)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = g.play(kit.ctx, lu, kit.seed, 0, n, p)
    finally:
        numba.set_num_threads(was)
    assert np.array_equal(one.score, two.score) and np.array_equal(one.length, two.length), (
        f"search bot {base} plays differently on 1 and 2 threads"
    )
    text = g.replay(kit.ctx, lu, kit.seed, 0, p, explain=True)
    assert "search:" in text, "replay --explain shows no search decision (sim.core.explain.search_lines)"
    return f"{base}: 1 thread = 2 threads, --explain runs"


def check_replay(kit: Kit) -> str:
    """The replay runs and is text; it replays the batch's game (same scores where the game reports events)."""
    g = kit.game
    p = g.default_players
    lu = kit.lineup(p)
    text = g.replay(kit.ctx, lu, kit.seed, 1, p)
    assert isinstance(text, str) and text.strip(), "replay gave no text"
    if g.events is not None:
        log, length, score, _ = g.events(kit.ctx, lu, kit.seed, 1, p)
        b = kit.batch(p)
        assert np.array_equal(np.asarray(score), b.score[1]), "the replayed game's scores differ from the batch's"
        assert length == int(b.length[1]), "the replayed game's length differs from the batch's"
        assert len(log) > 0, "the event log of a game is empty"
    return f"{len(text.splitlines())} lines"


def check_event_log(kit: Kit) -> str:
    """An event log too small for a game is reported (LogOverflow), never silently cut short."""
    g = kit.game
    if not g.forward_model or g.events is None:
        return "skipped: the game offers no events()"
    p = g.default_players
    lu = kit.lineup(p)
    log, _, _, _ = g.events(kit.ctx, lu, kit.seed, 1, p)
    width = log.shape[1]
    small = np.zeros((max(1, len(log) // 2), width), dtype=np.int64)
    try:
        run_logged(kit.cx(lu), lu, p, kit.seed, 1, small, len(g.categories))
    except LogOverflow:
        return f"{len(log)} events; a {len(small)}-row log is reported full"
    raise AssertionError(f"a game of {len(log)} events fitted a log of {len(small)} rows without a word")


def check_options(kit: Kit) -> str:
    """Option classes mask only legal candidates with declared bits, and restricted play runs for every class, at
    every player count (a class can exist at one count only: a mask read from a seat table sized for another)."""
    g = kit.game
    if not g.options:
        return "skipped: no option classes"
    from meeplab.lab.studies.options import restricted_lineup

    limit = 1 << len(g.options)
    seen = 0
    bot = kit.plain_bots()[-1]
    for p in kit.players:
        points, _, cx = kit.decision_points(p, 0, every=3, most=8)
        for st, _ in points:
            n = int(st.rec[0]["ctl"][C_N])
            for i in range(n):
                m = int(face.option_mask(st, cx, i))
                assert 0 <= m < limit, (
                    f"at {p} players, candidate {i}: mask {m:b} has bits beyond the {len(g.options)} declared classes"
                )
                seen |= m
        for c in range(len(g.options)):
            for mode in ("forbid", "only"):
                lu = restricted_lineup(g, bot, p, mode, c)
                b = g.play(kit.ctx, lu, kit.seed, 0, 1, p)
                assert np.isfinite(b.score).all(), (
                    f"at {p} players, restricted play ({mode} {g.options[c][0]}) gave a non-finite score"
                )
    return f"classes seen: {seen:b} at {', '.join(map(str, kit.players))} players"


def check_params(kit: Kit) -> str:
    """Parameter validation refuses NaN, infinities and out-of-range values with one clear MeeplabError."""
    checked = 0
    for prm in kit.game.params:
        bad: list[Any] = []
        if prm.kind in ("int", "float", "ints", "floats"):
            bad += ["nan", "inf"] if prm.kind in ("float", "floats") else ["nan"]
            one = prm.default[0] if isinstance(prm.default, (list, tuple)) and prm.default else prm.default
            if prm.lo is not None:
                bad.append(_as(prm, prm.lo - (1 if prm.kind in ("int", "ints") else abs(prm.lo) * 0.5 + 1), one))
            if prm.hi is not None:
                bad.append(_as(prm, prm.hi + (1 if prm.kind in ("int", "ints") else abs(prm.hi) * 0.5 + 1), one))
            if prm.kind in ("ints", "floats"):
                bad = [_table(prm, v) for v in bad]
        for raw in bad:
            try:
                prm.parse(raw)
            except MeeplabError as e:
                assert "\n" not in str(e), f"parameter '{prm.name}': a multi-line error for {raw!r}"
                checked += 1
                continue
            raise AssertionError(f"parameter '{prm.name}' accepted {raw!r}")
        try:
            prm.parse(_default_text(prm))
        except MeeplabError as e:
            raise AssertionError(f"parameter '{prm.name}' refuses its own default: {e}") from None
    return f"{checked} bad values refused"


def _as(prm, v, like) -> str:
    if prm.kind in ("int", "ints"):
        return str(int(v))
    return repr(float(v)) if not math.isnan(v) else "nan"


def _table(prm, v: str) -> str:
    n = prm.length or max(prm.min_length, len(prm.default) if isinstance(prm.default, (list, tuple)) else 1)
    return ",".join([v] * n)


def _default_text(prm) -> Any:
    d = prm.default
    if isinstance(d, (list, tuple)):
        return ",".join(str(x) for x in d)
    return d


CHECKS = {
    "spec": check_spec,
    "players": check_players,
    "schema": check_schema,
    "stepping": check_stepping,
    "copy": check_copy,
    "hidden": check_hidden,
    "redraw": check_redraw,
    "secret": check_secret,
    "chance": check_chance,
    "options": check_options,
    "replay": check_replay,
    "event_log": check_event_log,
    "search": check_search,
    "params": check_params,
}

"""The kit's check of secret decisions (``GameSpec.secret``, :class:`~meeplab.sim.core.game.Secret`): a face-down
choice shows nothing to the other seats until the game reveals it.

At secret decisions sampled over every player count, secret decision kind and phase of the game (early, middle, late:
``2 * Kit.breadth`` per cell from ``Kit.sample_games`` games, the kit's plain bots, no rotation) the kit plays the game
on twice from that state: once with the candidate the bot chose, once with another candidate, then the same decisions in
both (each the one the bot chooses in the first) as long as both can be played alike. Until ``Secret.reveals`` grows
past its value at the secret decision, everything every other seat is shown must be the same in both: the drawing for
that seat (``draw.pieces(ctx, rec, seat)``), its panel (``draw.info``), the status line and the scores, the event lines
as that seat reads them (``draw.events(..., seat)``, the rows written since the decision) and, at that seat's own
decisions, what its bots are shown (the view ``pub``, the candidates, their features) and the candidates' labels.
At every decision in between that is not the deciding seat's own, ``determinise`` for each other seat (the re-deal
the search bots ``rollout`` and ``ismcts`` read) must give the same state from both, from the same streams, in every
field but the shared stream ``rng`` (the deciding seat's bots draw from it): a face-down choice kept where
``determinise`` does not re-deal it (a field not declared in ``GameSpec.hidden``) would be read by the search before
the reveal. Everywhere the kit plays, ``reveals`` never goes down."""

from __future__ import annotations

import numpy as np

from meeplab.sim.core import face
from meeplab.sim.core.forward import C_KIND, C_N, C_SEAT

from .hidden import locate
from .hidden import view as bot_view

LOG_ROWS = 20_000  # event rows per game (a log too small is reported as such by the event_log check)
STEPS = 400  # decisions played on in each branch at most
STREAMS = 2  # streams each other seat's re-deals of the two branches are compared on


class _Branch:
    """A state with its own event log (``face.copy`` copies the record only)."""

    def __init__(self, kit, cx, p, width, src=None):
        self.log = np.zeros((LOG_ROWS, width), dtype=np.int64)
        self.st = kit.new(cx, p, self.log)
        self.st.nlog[1] = 1
        if src is not None:
            face.copy(self.st, src.st)
            k = int(src.st.nlog[0])
            self.log[:k] = src.log[:k]
            self.st.nlog[0] = k

    @property
    def rec(self):
        return self.st.rec[0]


def _seen_by(kit, b: _Branch, seat: int, lo: int, names: list[str]) -> dict:
    """Everything ``seat`` is shown of branch ``b`` (event lines from row ``lo`` on)."""
    dr, ctx = kit.game.draw, kit.ctx
    rec = b.rec
    out: dict = {}
    if dr is not None:
        out["drawing"] = list(dr.pieces(ctx, rec, seat))
        out["panel"] = dr.info(ctx, rec, seat)
        out["status line"] = str(dr.status(ctx, rec))
        if hasattr(dr, "score"):
            out["scores"] = [float(x) for x in dr.score(ctx, rec)]
        if hasattr(dr, "events"):
            out["event lines"] = list(dr.events(ctx, b.log, lo, int(b.st.nlog[0]), names, seat))
    if int(rec["ctl"][C_SEAT]) == seat and int(rec["ctl"][C_N]) > 0:
        for name, x in zip(("bot view", "seat", "kind", "candidate count", "candidates", "features"), bot_view(b.st)):
            out[name] = np.asarray(x).tolist()
        if dr is not None:
            out["candidate labels"] = [a for a, _ in dr.moves(ctx, rec)]
    return out


def _first_difference(x: dict, y: dict) -> str | None:
    for k in x:
        if x[k] != y.get(k):
            return k
    return None


def check_secret(kit) -> str:
    """A secret decision shows nothing to the other seats until its reveal, and ``reveals`` never goes down (see the
    module)."""
    g = kit.game
    sec = g.secret
    if sec is None:
        return "skipped: no secret decisions (GameSpec.secret)"
    if not g.forward_model:
        return "skipped: not on the forward model"
    kinds = tuple(int(k) for k in sec.kinds)
    assert kinds, "GameSpec.secret declares no decision kind"
    dr = g.draw
    width = int(getattr(dr, "LOG_WIDTH", 16)) if dr is not None else 16
    kname = (lambda k: f"{k} ({dr.kind_name(k)})") if dr is not None and hasattr(dr, "kind_name") else str
    from .coverage import coverage_table

    covered: dict = {}  # secret decisions branched per (player count, kind, phase): 2 x Kit.breadth at most
    branched = compared = redeals = revealed = 0
    for p in kit.players:  # every player count, each secret kind early, middle and late in the game
        lu = kit.lineup(p, rotate=False)
        names = list(lu.names)
        cx = kit.cx(lu)
        for game_index in range(kit.sample_games):
            want = _sample(kit, cx, lu, p, game_index, kinds, covered)
            main = _Branch(kit, cx, p, width)
            face.reset(main.st, cx, kit.seed, game_index)
            last = int(sec.reveals(main.rec, cx))
            k = 0
            while True:
                seat = int(face.advance(main.st, cx))
                now = int(sec.reveals(main.rec, cx))
                assert now >= last, f"Secret.reveals went down from {last} to {now} ({p} players, game {game_index})"
                last = now
                if seat < 0:
                    break
                r = main.rec
                kind, n = int(r["ctl"][C_KIND]), int(r["ctl"][C_N])
                pick = kit.ask(main.st, lu, seat)
                if n > 1:
                    if k in want:
                        for other in sorted({(pick + 1) % n, (pick + n // 2) % n} - {pick}):
                            b, c = _Branch(kit, cx, p, width, main), _Branch(kit, cx, p, width, main)
                            face.apply(b.st, cx, pick)
                            face.apply(c.st, cx, other)
                            branched += 1
                            lo = int(main.st.nlog[0])  # the decision's own event rows read too
                            where = f"at {p} players, {want[k]} in the game"
                            views, dets = _follow(kit, b, c, cx, lu, names, seat, now, kname(kind), where, p, lo)
                            compared += views
                            redeals += dets
                    k += 1
                face.apply(main.st, cx, pick)
            revealed += last
    assert branched, f"no secret decision (kinds {list(kinds)}) with two candidates or more came up in the kit's games"
    table = coverage_table(covered, kit.players, list(g.features) if g.features else [])
    return (
        f"{branched} face-down choices played otherwise, {compared} views and {redeals} re-deals compared, "
        f"{revealed} reveals; secret decisions branched by player count, decision kind and phase:\n{table}"
    )


def _sample(kit, cx, lu, p: int, game_index: int, kinds: tuple[int, ...], covered: dict) -> dict[int, str]:
    """The secret decisions of game ``game_index`` to branch at, by their index among the game's decisions with more
    than one candidate (the phase: which third of those): per (kind, phase) ``2 * Kit.breadth`` at most (a branch
    is cheap), spread over the cell, less what ``covered`` (updated) already holds at ``p`` players. Returns
    {index: phase name}."""
    from .coverage import PHASES, phase_of

    seen = kit.decision_kinds(cx, lu, p, game_index)
    cells: dict[tuple[int, int], list[int]] = {}
    for k, kind in enumerate(seen):
        if kind in kinds:
            cells.setdefault((kind, phase_of(k, len(seen))), []).append(k)
    want = {}
    for (kind, ph), ks in cells.items():
        m = min(2 * kit.breadth - covered.get((p, kind, ph), 0), len(ks))
        for j in range(max(0, m)):
            want[ks[(2 * j + 1) * len(ks) // (2 * m)]] = PHASES[ph]
        covered[(p, kind, ph)] = covered.get((p, kind, ph), 0) + max(0, m)
    return want


def _follow(
    kit, b: _Branch, c: _Branch, cx, lu, names, who: int, r: int, kind: str, where: str, p: int, lo: int
) -> tuple[int, int]:
    """Play branches ``b`` and ``c`` on alike until the reveal; every seat but ``who`` is shown the same (event lines
    from row ``lo`` on) and, at a decision not ``who``'s, re-dealt the same by ``determinise``. Returns (views
    compared, re-deals compared)."""
    sec = kit.game.secret
    compared = redeals = 0
    for _ in range(STEPS):
        sb, sc = int(face.advance(b.st, cx)), int(face.advance(c.st, cx))
        rb, rc = int(sec.reveals(b.rec, cx)), int(sec.reveals(c.rec, cx))
        assert min(rb, rc) >= r, f"Secret.reveals went down from {r} to {min(rb, rc)} after a secret decision"
        if rb > r and rc > r:
            return compared, redeals
        assert rb == rc, (
            f"Secret.reveals differs ({rb} and {rc}) with P{who + 1}'s face-down choice of decision kind {kind} "
            f"({where}): the reveal count tells what was chosen"
        )
        for s in range(p):
            if s == who:
                continue
            x, y = _seen_by(kit, b, s, lo, names), _seen_by(kit, c, s, lo, names)
            diff = _first_difference(x, y)
            assert diff is None, (
                f"P{who + 1}'s face-down choice of secret decision kind {kind} shows in P{s + 1}'s {diff} before the "
                f"reveal ({where}: the same state with another choice is shown otherwise)"
            )
            compared += 1
        if sb < 0 or sc < 0:
            assert sb == sc, (
                f"the game ends with one face-down choice of P{who + 1} (kind {kind}, {where}) and not another"
            )
            return compared, redeals
        if sb != sc or int(b.rec["ctl"][C_N]) != int(c.rec["ctl"][C_N]):
            return compared, redeals  # the deciding seat itself, whose own choice differs: the branches part
        if sb != who:  # the pending decision (its candidates and features) is the same in both: compared above
            redeals += _redealt_alike(kit, b, c, cx, who, kind, where, p)
        i = kit.ask(b.st, lu, sb)
        kit.ask(c.st, lu, sc)  # the same bot call (its draws from ``rng``, the decision count), its answer unused
        face.apply(b.st, cx, i)
        face.apply(c.st, cx, i)
    return compared, redeals


def _redealt_alike(kit, b: _Branch, c: _Branch, cx, who: int, kind: str, where: str, p: int) -> int:
    """``determinise`` for every seat but ``who`` turns branches ``b`` and ``c`` (the same state with another
    face-down choice of ``who``) into the same state, from the same streams, in every field but ``rng`` (the game's
    shared stream, which the deciding seat's own bots draw from). Returns the re-deals compared."""
    hidden = {h.field for h in kit.game.hidden}
    done = 0
    for s in range(p):
        if s == who:
            continue
        for k in range(STREAMS):
            db, dc = kit.new(cx, p), kit.new(cx, p)
            face.copy(db, b.st)
            face.copy(dc, c.st)
            rnd = np.zeros(4, dtype=np.uint64)
            rnd[0], rnd[1] = 2000 + k, 91 + s
            face.determinise(db, cx, s, rnd.copy())
            face.determinise(dc, cx, s, rnd.copy())
            for f in db.rec.dtype.names:
                x, y = db.rec[0][f], dc.rec[0][f]
                if f == "rng" or np.array_equal(x, y):
                    continue
                raise AssertionError(
                    f"determinise for P{s + 1} keeps P{who + 1}'s face-down choice of secret decision kind {kind} in "
                    f"field '{f}'{locate(x, y)} ({where}): the search would read it before the reveal; "
                    + (
                        f"'{f}' is declared in GameSpec.hidden, but determinise for P{s + 1} does not re-deal it "
                        f"from what P{s + 1} has seen alone (it keeps it, or re-deals it otherwise for each choice)"
                        if f in hidden
                        else "keep the choice in a field declared in GameSpec.hidden that determinise re-deals"
                    )
                )
            done += 1
    return done

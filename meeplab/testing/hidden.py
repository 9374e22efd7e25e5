"""The kit's hidden-information check: a second state the deciding seat cannot tell apart, built by the KIT from
what the game declares hidden (``GameSpec.hidden``, :class:`~meeplab.sim.core.game.Hidden`), never by the game's own
``determinise``.

:func:`deal_otherwise` takes the unseen cards of every declaration and deals them otherwise: the cards of one
``pool`` (the other seats' unseen cards and the deck's unseen cards, say) at random among its places, every place
keeping its number of unseen cards (a hand its size) and every element the seat has seen; then it recomputes the
derived fields (``derive``). :func:`check_hidden` then asks that the seat's view and its bots' decisions are the
same on both states, and that ``determinise`` turns both into the same state, keeping what the seat has seen and
re-dealing the same cards."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from meeplab.sim.core import face
from meeplab.sim.core.forward import C_KIND, C_N, C_SEAT
from meeplab.sim.core.game import GameSpec, Hidden


def unseen_indices(h: Hidden, rec, seat: int, cx) -> np.ndarray | None:
    """The flat indices of field ``h.field`` that ``seat`` has not seen; None for a field declared derived or scratch
    without saying how (``unseen`` returns None)."""
    if h.unseen is None:
        return np.arange(rec[h.field].size)
    idx = h.unseen(rec, seat, cx)
    return None if idx is None else np.asarray(idx, dtype=np.int64).reshape(-1)


def scratch_indices(h: Hidden, rec, seat: int, cx) -> np.ndarray:
    if h.scratch is None:
        return np.zeros(0, dtype=np.int64)
    return np.asarray(h.scratch(rec, seat, cx), dtype=np.int64).reshape(-1)


@dataclass
class Place:
    """The unseen cards of one declaration in one state: ``cards`` one value each, in place order; a list field's
    cards lie at the flat indices ``idx``, a ``counts`` field's in the rows ``rows`` of ``unseen`` (the unseen counts
    as a (rows, types) array)."""

    h: Hidden
    cards: np.ndarray
    idx: np.ndarray | None = None
    rows: np.ndarray | None = None
    unseen: np.ndarray | None = None


def unseen_counts(h: Hidden, rec, seat: int, cx) -> np.ndarray:
    """A ``counts`` declaration's unseen counts as (rows, types), checked against the field and its ``unseen``."""
    f = np.asarray(rec[h.field])
    u = np.asarray(h.counts(rec, seat, cx), dtype=np.int64)
    assert u.shape == f.shape, f"counts of hidden field '{h.field}' have shape {u.shape}, the field {f.shape}"
    assert (u >= 0).all() and (u <= f).all(), (
        f"unseen counts of '{h.field}' for seat {seat + 1} are not between 0 and the counts held "
        "(a seat cannot have seen more cards than a holding holds)"
    )
    idx = unseen_indices(h, rec, seat, cx)
    if idx is not None:
        outside = np.ones(u.size, dtype=bool)
        outside[idx] = False
        assert not u.reshape(-1)[outside].any(), (
            f"unseen counts of '{h.field}' lie outside the elements its `unseen` names"
        )
    return u.reshape(-1, f.shape[-1]) if f.ndim else u.reshape(1, 1)


def places(game: GameSpec, rec, seat: int, cx) -> list[Place]:
    """The unseen cards of every declaration the kit deals (not derived, not declared None)."""
    out = []
    for h in game.hidden:
        if h.derive is not None:
            continue
        if h.counts is not None:
            u = unseen_counts(h, rec, seat, cx)
            r, t = np.nonzero(u)
            n = u[r, t]
            out.append(Place(h, np.repeat(t, n).astype(np.int64), rows=np.repeat(r, n), unseen=u))
            continue
        idx = unseen_indices(h, rec, seat, cx)
        if idx is None:
            continue
        out.append(Place(h, np.asarray(rec[h.field]).reshape(-1)[idx].astype(np.int64), idx=idx))
    return out


def pools(pl: list[Place]) -> dict[Any, list[Place]]:
    """Places by pool (a declaration without a pool is a pool of its own)."""
    out: dict[Any, list[Place]] = {}
    for i, p in enumerate(pl):
        out.setdefault(p.h.pool or ("", i, p.h.field), []).append(p)
    return out


def pool_name(key) -> str:
    return key if isinstance(key, str) else f"'{key[2]}'"


def _gained(p: Place, new: np.ndarray) -> int:
    """Cards of place ``p`` dealt otherwise (``new``) that its holding did not hold before: how many came from another
    place, or from another row of a ``counts`` field (another seat's hand)."""
    rows = p.rows if p.unseen is not None else np.zeros(p.cards.size, dtype=np.int64)
    before = Counter(zip(rows.tolist(), p.cards.tolist()))
    return sum((Counter(zip(rows.tolist(), new.tolist())) - before).values())


def deal_otherwise(game: GameSpec, st, cx, seat: int, rng: np.random.Generator, only: Any = None) -> tuple[int, int]:
    """Deal the unseen cards of ``st`` otherwise, in place (see the module): returns (cards whose place changed,
    cards that went to another holding of their pool). ``only``: the key of one pool (:func:`pools`) to deal
    otherwise, the others kept as they are (None: every pool)."""
    rec = st.rec[0]
    pl = places(game, rec, seat, cx)
    if only is not None:
        pl = pools(pl).get(only, [])
    moved = exchanged = 0
    new: dict[int, np.ndarray] = {}
    for members in pools(pl).values():
        cards = np.concatenate([p.cards for p in members])
        perm = cards
        if cards.size >= 2:
            for _ in range(8):
                perm = rng.permutation(cards)
                if not np.array_equal(perm, cards):
                    break
        moved += int(np.count_nonzero(perm != cards))
        k = 0
        for p in members:
            new[id(p)] = perm[k : k + p.cards.size]
            k += p.cards.size
            if len(members) > 1 or p.unseen is not None:
                exchanged += _gained(p, new[id(p)])
    fields = {p.h.field: np.array(rec[p.h.field]) for p in pl}
    for p in pl:
        if p.unseen is not None:
            fields[p.h.field].reshape(p.unseen.shape)[...] -= p.unseen
    for p in pl:
        v = new[id(p)]
        if p.unseen is not None:
            types = p.unseen.shape[1]
            bad = v[(v < 0) | (v >= types)]
            assert not bad.size, (
                f"pool {p.h.pool or p.h.field} holds card {int(bad[0])}, which is no type of counts field "
                f"'{p.h.field}' (0..{types - 1} on its last axis)"
            )
            np.add.at(fields[p.h.field].reshape(p.unseen.shape), (p.rows, v), 1)
        else:
            fields[p.h.field].reshape(-1)[p.idx] = v
    for name, value in fields.items():
        rec[name] = value
    for h in game.hidden:
        if h.derive is not None:
            h.derive(rec, cx)
    return moved, exchanged


def view(st) -> tuple:
    """What the deciding seat's bots are shown: (pub, seat, kind, n, moves, feats)."""
    r = st.rec[0]
    n = int(r["ctl"][C_N])
    return (
        r["pub"].copy(),
        int(r["ctl"][C_SEAT]),
        int(r["ctl"][C_KIND]),
        n,
        r["moves"][:n].copy(),
        r["feats"][:n].copy(),
    )


VIEW_PARTS = ("view", "seat", "kind", "n", "moves", "features")


def _same_view(x, y) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(x, y))


def locate(x: np.ndarray, y: np.ndarray) -> str:
    """Where two arrays first differ, as the kit's messages say it (`` (first at index (i, j))``; empty if nowhere):
    shared by the hidden and secret checks."""
    d = np.argwhere(np.asarray(x) != np.asarray(y))
    return f" (first at index {tuple(int(i) for i in d[0])})" if d.size and d.shape[1] else ""


def _same_cards(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether two re-deals of a field hold the same cards (the same multiset of values), in another order."""
    return x.shape == y.shape and np.array_equal(np.sort(x, axis=None), np.sort(y, axis=None))


def _derived(h: Hidden, st, cx) -> np.ndarray:
    """Field ``h.field`` of state ``st`` as ``h.derive`` recomputes it (on a copy of its record)."""
    cp = st.rec.copy()
    h.derive(cp[0], cx)
    return np.asarray(cp[0][h.field])


def _check_redeal(game: GameSpec, a, da, seat: int, cx) -> None:
    """``determinise`` turned state ``a`` into ``da``: it kept what ``seat`` has seen and re-dealt the same cards."""
    ra, rd = a.rec[0], da.rec[0]
    for f in {h.field for h in game.hidden}:
        decls = [h for h in game.hidden if h.field == f]
        idx = [unseen_indices(h, ra, seat, cx) for h in decls]
        if any(i is None for i in idx):
            continue  # declared derived or scratch without saying how
        fa, fd = np.asarray(ra[f]), np.asarray(rd[f])
        free = np.zeros(fa.size, dtype=bool)
        for h, i in zip(decls, idx):
            free[scratch_indices(h, ra, seat, cx)] = True
            if h.counts is None:
                free[i] = True
        keep = ~free.reshape(fa.shape)
        seen_a, seen_d = fa.copy(), fd.copy()
        for h in decls:
            if h.counts is not None:
                ua, ud = unseen_counts(h, ra, seat, cx), unseen_counts(h, rd, seat, cx)
                assert np.array_equal(ua.sum(axis=1), ud.sum(axis=1)), (
                    f"determinise changed how many unseen cards a holding of '{f}' holds "
                    f"({ua.sum(axis=1).tolist()} -> {ud.sum(axis=1).tolist()} per row)"
                )
                seen_a.reshape(ua.shape)[...] -= ua
                seen_d.reshape(ud.shape)[...] -= ud
        assert np.array_equal(seen_a[keep], seen_d[keep]), (
            f"determinise changed elements of '{f}' that seat {seat + 1} has seen{locate(seen_a * keep, seen_d * keep)}"
        )
        for h in decls:
            if h.derive is not None:
                want = _derived(h, da, cx)
                assert np.array_equal(want, fd), (
                    f"determinise left derived field '{f}' other than its derive computes from the re-dealt cards"
                    f"{locate(want, fd)}: it forgets to recompute it"
                )
    if any(unseen_indices(h, ra, seat, cx) is None for h in game.hidden):
        return  # cards may move into a field declared derived without saying how: no pool is closed
    before, after = pools(places(game, ra, seat, cx)), pools(places(game, rd, seat, cx))
    for key, members in before.items():
        x = np.sort(np.concatenate([p.cards for p in members]))
        y = np.sort(np.concatenate([p.cards for p in after.get(key, [])] or [np.zeros(0, np.int64)]))
        assert np.array_equal(x, y), (
            f"determinise changed which cards are unseen in pool {pool_name(key)} (not a re-deal of the same cards)"
        )


def posted_again(kit, a, b, cx, p: int):
    """Copies of state ``a`` and of ``b`` (``a`` with the unseen cards dealt otherwise) with the pending decision
    posted again on both (``advance``), where posting it again shows the seat the same decision; else plain copies.
    Returns (copy of a, copy of b, whether it was posted again)."""
    a2, b2 = kit.new(cx, p), kit.new(cx, p)
    face.copy(a2, a)
    face.copy(b2, b)
    face.advance(a2, cx)
    if _same_view(view(a2), view(a)):
        face.advance(b2, cx)
        return a2, b2, True
    face.copy(a2, a)
    face.copy(b2, b)
    return a2, b2, False


def _culprits(kit, a, cx, seat: int, p: int, rng: np.random.Generator) -> list[str]:
    """The declarations (pools) of ``GameSpec.hidden`` whose cards, dealt otherwise alone, change what the deciding
    seat is shown at ``a`` (its decision posted again where that shows the same decision): where a view changed, the
    one to blame, named by field."""
    g = kit.game
    out = []
    for key, members in pools(places(g, a.rec[0], seat, cx)).items():
        for _ in range(4):  # a few deals: one may happen to leave the leaking cards where they were
            b = kit.new(cx, p)
            face.copy(b, a)
            deal_otherwise(g, b, cx, seat, rng, only=key)
            a2, b2, _ = posted_again(kit, a, b, cx, p)
            if not _same_view(view(a2), view(b2)):
                fields = sorted({m.h.field for m in members})
                out.append(
                    ", ".join(f"'{f}'" for f in fields) + (f" (pool {pool_name(key)})" if len(fields) > 1 else "")
                )
                break
    return out


def _blame(culprits: list[str], seat: int) -> str:
    """Whose fault a changed view is: the declarations that alone change it (:func:`_culprits`), named."""
    if not culprits:
        return (
            "the engine shows a seat something it has not seen, or GameSpec.hidden declares as unseen something the "
            "seat does see"
        )
    which = " and ".join(culprits)
    return (
        f"dealing otherwise only GameSpec.hidden's {which} changes it: either that declaration is too loose (seat "
        f"{seat + 1} does see it: narrow its `unseen`, or drop it) or the engine shows seat {seat + 1} what it has not "
        "seen there (a feature or view reading it)"
    )


def check_hidden(kit) -> str:
    """Hidden information, checked against states the KIT builds: dealing otherwise what a seat has not seen (the
    fields ``GameSpec.hidden`` declares, pools exchanged among their holdings) changes nothing the seat's bots see
    (the decision posted again on both states), and ``determinise`` of the two states is the same state (it depends
    only on what the seat has seen, so a hidden field it forgets to re-deal is caught); it keeps everything else as
    it was and re-deals the same cards. ``kit``: a :class:`meeplab.testing.Kit`."""
    g = kit.game
    if not g.forward_model:
        return "skipped: not on the forward model"
    from .coverage import PHASES, coverage_table

    rng = np.random.default_rng(kit.seed)
    covered: dict = {}
    points = []
    for p in kit.players:  # every player count, every decision kind, early, middle and late in the game
        for game_index in range(kit.sample_games):
            pts, _, cx = kit.decision_sample(p, game_index, covered)
            points += [(p, cx, *x) for x in pts]
    assert points, f"no decision with more than one candidate in games 0-{kit.sample_games - 1}"
    hidden = {h.field for h in g.hidden}
    shared = {h.pool for h in g.hidden if h.pool and sum(x.pool == h.pool for x in g.hidden) > 1}
    names = list(g.features) if g.features else []
    moved_any = exchanged_any = reposted = 0
    for p, cx, st, seat, kind, ph in points:
        at = (
            f" (at {p} players, decision kind {names[kind] if kind < len(names) else kind} ({kind}), "
            f"{PHASES[ph]} in the game)"
        )
        a = st
        for h in g.hidden:
            if h.derive is not None:
                want, got = _derived(h, a, cx), a.rec[0][h.field]
                assert np.array_equal(want, got), (
                    f"derive of '{h.field}' does not give the field of the state as played{locate(want, got)}{at}"
                )
        b = kit.new(cx, p)
        face.copy(b, a)
        moved, exchanged = deal_otherwise(g, b, cx, seat, rng)
        moved_any += moved
        exchanged_any += exchanged
        a2, b2, again = posted_again(kit, a, b, cx, p)
        reposted += again
        va, vb = view(a2), view(b2)
        for name, x, y in zip(VIEW_PARTS, va, vb):
            if not np.array_equal(x, y):
                blame = _blame(_culprits(kit, a, cx, seat, p, rng), seat)
                raise AssertionError(
                    f"the deciding seat's {name} changed{locate(x, y)} when only what seat {seat + 1} has not seen "
                    f"was dealt otherwise ({sorted(hidden)}){at}: {blame}"
                )
        for bot in kit.plain_bots():
            lu1 = kit.lineup(p, [bot], rotate=False)
            ra, rb = a2.rec[0]["rng"].copy(), b2.rec[0]["rng"].copy()
            ca = lu1.fns[0](va[2], va[0], a2.rec[0]["moves"], va[3], a2.rec[0]["feats"], lu1.weights[0], ra)
            cb = lu1.fns[0](vb[2], vb[0], b2.rec[0]["moves"], vb[3], b2.rec[0]["feats"], lu1.weights[0], rb)
            assert ca == cb, f"bot {bot} decided differently on two states that differ only in what it has not seen{at}"
        for k in range(3):
            da, db = kit.new(cx, p), kit.new(cx, p)
            face.copy(da, a)
            face.copy(db, b)
            r = np.zeros(4, dtype=np.uint64)
            r[0], r[1] = 1000 + k, 77
            face.determinise(da, cx, seat, r.copy())
            face.determinise(db, cx, seat, r.copy())
            for f in a.rec.dtype.names:
                x, y = da.rec[0][f], db.rec[0][f]
                if f not in hidden:
                    assert np.array_equal(x, a.rec[0][f]), (
                        f"determinise changed field '{f}'{locate(x, a.rec[0][f])}{at}, which GameSpec.hidden does "
                        "not declare hidden: declare it (Hidden(field=...)) or leave it alone"
                    )
                if f in hidden and not np.array_equal(x, y) and _same_cards(x, y):
                    raise AssertionError(
                        f"determinise re-deals the same cards in field '{f}' in an order that depends on the order "
                        f"they were in{locate(x, y)}{at}: two states that differ only in what seat {seat + 1} has not "
                        "seen must re-deal alike; either its shuffle reads the old order (sort the unseen cards before "
                        "shuffling them) or the declaration calls unseen places determinise does not deal (GameSpec."
                        f"hidden's '{f}' too wide, e.g. a deck's unused slots)"
                    )
                assert np.array_equal(x, y), (
                    f"determinise left field '{f}' depending on what seat {seat + 1} has not seen{locate(x, y)}{at} "
                    "(two states that differ only there re-deal differently): it forgets to re-deal it"
                    if f in hidden
                    else f"determinise of two indistinguishable states differs in field '{f}'{locate(x, y)}{at}"
                )
            _check_redeal(g, a, da, seat, cx)
    table = coverage_table(covered, kit.players, names)
    if not g.hidden:
        return f"{len(points)} states: no hidden fields declared, determinise is the identity\n{table}"
    assert moved_any > 0, "no hidden element could be moved at any tested state: the declaration is empty in play"
    assert not shared or exchanged_any > 0, (
        f"no card was exchanged between the holdings of pools {sorted(shared)} at any tested state"
    )
    return (
        f"{len(points)} states, {moved_any} hidden elements moved, {exchanged_any} exchanged between holdings; "
        f"views posted again at {reposted}; states checked by player count, decision kind and phase:\n{table}"
    )

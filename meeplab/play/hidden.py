"""What one seat at the play table may learn of a decision, and whether a person's move can be taken back.

A seat ``s`` has not seen what the forward model's re-deal for ``s`` (``determinise``) deals otherwise. Everything
the table tells ``s`` must be the same in every such re-dealt world, so the table asks those worlds directly:

* **A decision of another seat** (:func:`decision_secrecy`, from the state the decision was made in): its kind, its
  number of candidates (with the ``forced`` flag of a lone candidate) and its candidates' labels are shown to ``s``
  only where :data:`REDEALS` re-deals for ``s`` give the same; the game's ``PRIVATE_MOVES`` (candidates that name the
  cards in the deciding seat's hand) withholds them wherever the deciding seat knows something ``s`` does not. A
  bot's alternatives and their values are withheld from ``s`` until the game is over wherever the deciding seat knows
  something ``s`` does not (:func:`knows_more`): an element the game declares unseen by ``s`` and seen by the deciding
  seat (``GameSpec.hidden``), or one that re-deals for ``s`` change and re-deals for the deciding seat never do.
* **A secret decision** (``GameSpec.secret``, a kind in ``Secret.kinds``): recorded with ``Secret.reveals`` at the
  time; the other seats see only that the seat chose (:func:`face_down`) until ``reveals`` has grown past it.
* **Undo** (:func:`undo_note`): a person's move, with the bot moves and forced steps after it, revealed something if
  what a person seat ``h`` sees now depends on what ``h`` had not seen before the move. The rule: re-deal the state
  before the move for ``h`` (``determinise``, and the game's random stream replaced by a fresh one, so future chance
  is dealt otherwise too: a die, a card drawn from the stream), replay the same decisions (the same candidate
  indices) in each re-dealt world and compare what ``h`` sees afterwards (the drawing for ``h``, the panel, the
  status line, the scores, whose turn and, on ``h``'s turn, its candidates; the chosen labels of the decisions
  replayed that ``h`` may read). Any difference, a decision that cannot be replayed (a candidate index beyond the
  re-dealt world's count, the game ending sooner), or a secret decision revealed in between is a reveal: the move
  cannot be taken back (as on the common online table sites). This is sound for what the drawing and labels show,
  and it refuses as little as it can: a move that only changes what ``h`` saw anyway (ACBAS, a tile placed face up)
  stays undoable. Re-deals are seeded from the seat and the re-deal's number, so the same table always answers the
  same.
"""

from __future__ import annotations

import numpy as np

from meeplab.sim.core.forward import C_KIND, C_N, C_OVER, C_SEAT

from . import engine

REDEALS = 4  # re-deals per seat for what a decision shows the other seats
UNDO_REDEALS = 3  # re-deals per person for whether a move revealed something
FACE_DOWN = "chose face down"  # the label other seats read for a secret decision before its reveal


def labels_of(table, rec) -> list[tuple[str, str | None]]:
    """The pending decision's candidates in ``rec`` in words, with the board element each points at (or None)."""
    n = int(rec["ctl"][C_N])
    if table.draw is not None:
        got = list(table.draw.moves(table.ctx, rec))
        if len(got) == n:
            return [(str(a), None if b is None else str(b)) for a, b in got]
    kind = int(rec["ctl"][C_KIND])
    return [(f"kind {kind}: move {tuple(int(x) for x in rec['moves'][i][:3])}", None) for i in range(n)]


def _stream(seat: int, k: int) -> np.ndarray:
    r = np.zeros(4, dtype=np.uint64)
    r[0], r[1], r[2], r[3] = 0x9E3779B97F4A7C15 + k, 12345 + 7 * seat, 99 + k, 1
    return r


def redeal(table, rec, seat: int, k: int, fresh_chance: bool = False):
    """The table's scratch state holding ``rec`` re-dealt for ``seat`` (re-deal number ``k``); with
    ``fresh_chance`` the game's random stream is replaced too (future chance dealt otherwise)."""
    sc = table.scratch
    sc.rec[0] = rec
    engine.determinise(sc, table.cx, seat, _stream(seat, k))
    if fresh_chance:
        sc.rec[0]["rng"][:] = _stream(seat + 101, k + 7)[: sc.rec[0]["rng"].size]
    return sc


def _masks(table, rec, seat: int) -> dict[str, np.ndarray]:
    masks: dict[str, np.ndarray] = {}
    names = [f for f in rec.dtype.names if f != "rng"]
    for k in range(REDEALS):
        other = redeal(table, rec, seat, k).rec[0]
        for f in names:
            d = np.asarray(rec[f] != other[f])
            masks[f] = d if f not in masks else (masks[f] | d)
    return masks


def hidden_mask(table, rec, seat: int) -> dict[str, np.ndarray]:
    """The parts of state record ``rec`` that re-deals for ``seat`` change (what ``seat`` does not know)."""
    return _masks(table, rec.copy(), seat)


def knows_more(table, rec, who: int, seat: int, masks: dict | None = None) -> bool:
    """Whether seat ``who`` knows something ``seat`` does not in ``rec``: an element the game declares unseen by
    ``seat`` but seen by ``who`` (``GameSpec.hidden``). A field declared without saying which elements are unseen
    (``unseen`` None) is asked of the re-deal instead: a part of it that re-deals for ``seat`` change and re-deals for
    ``who`` never do. ``masks``: seat -> :func:`hidden_mask`, filled as needed."""
    if who == seat:
        return False
    undeclared = set()
    for h in tuple(getattr(table.spec, "hidden", ()) or ()):
        mine = None if h.unseen is None else h.unseen(rec, seat, table.cx)
        if mine is None:
            undeclared.add(h.field)
            continue
        theirs = h.unseen(rec, who, table.cx)
        if theirs is None:
            undeclared.add(h.field)
            continue
        if len(np.setdiff1d(np.asarray(mine).reshape(-1), np.asarray(theirs).reshape(-1))):
            return True
    if not undeclared:
        return False
    masks = {} if masks is None else masks
    for s in (seat, who):
        if s not in masks:
            masks[s] = hidden_mask(table, rec, s)
    return any(bool(np.any(masks[seat][f] & ~masks[who][f])) for f in undeclared)


def decision_secrecy(table, rec, seat: int, masks: dict | None = None) -> dict[str, bool]:
    """What of the decision pending in ``rec`` (made by ``ctl[C_SEAT]``) seat ``seat`` may not be shown:
    ``kind`` (the decision's kind differs in a re-deal for ``seat``), ``count`` (its number of candidates or their
    labels differ, or the game's ``PRIVATE_MOVES`` and the deciding seat knows more), ``alternatives`` (a bot's
    weighed candidates and values: ``count``, or the deciding seat knows more; shown once the game is over)."""
    rec = rec.copy()
    who = int(rec["ctl"][C_SEAT])
    out = {"kind": False, "count": False, "alternatives": False}
    if who == seat:
        return out
    masks = {} if masks is None else masks
    more = knows_more(table, rec, who, seat, masks)
    kind, n = int(rec["ctl"][C_KIND]), int(rec["ctl"][C_N])
    labels = None
    for k in range(REDEALS):
        other = redeal(table, rec, seat, k).rec[0]
        if int(other["ctl"][C_KIND]) != kind:
            out["kind"] = out["count"] = True
            break
        if out["count"]:
            continue
        if int(other["ctl"][C_N]) != n:
            out["count"] = True
            continue
        if labels is None:
            labels = labels_of(table, rec)
        if [a for a, _ in labels_of(table, other)] != [a for a, _ in labels]:
            out["count"] = True
    if more and getattr(table.draw, "PRIVATE_MOVES", False):
        out["count"] = True
    out["alternatives"] = out["count"] or more
    return out


def is_secret_kind(table, kind: int) -> bool:
    sec = getattr(table.spec, "secret", None)
    return sec is not None and int(kind) in tuple(sec.kinds)


def reveals(table, rec) -> int:
    """``Secret.reveals`` of ``rec`` (0 for a game without secret decisions)."""
    sec = getattr(table.spec, "secret", None)
    return 0 if sec is None else int(sec.reveals(rec, table.cx))


def face_down(table, entry: dict, seat: int) -> bool:
    """Whether ``seat`` sees decision ``entry`` only as "chose face down": a secret decision of another seat not
    revealed yet."""
    at = entry.get("reveal_at")
    return at is not None and entry["seat"] != seat and reveals(table, table.rec) <= at


def _sight(table, rec, h: int) -> tuple:
    """What person seat ``h`` sees of state ``rec`` (drawing, panel, status, scores, turn, own candidates)."""
    ctl = rec["ctl"]
    over = bool(ctl[C_OVER])
    seat = -1 if over else int(ctl[C_SEAT])
    dr = table.draw
    parts: list = [over, seat]
    if dr is not None:
        parts += [
            list(dr.pieces(table.ctx, rec, h)),
            dr.info(table.ctx, rec, h),
            str(dr.status(table.ctx, rec)),
        ]
        if hasattr(dr, "score"):
            parts.append([float(x) for x in dr.score(table.ctx, rec)])
    if seat == h:
        parts += [int(ctl[C_KIND]), labels_of(table, rec)]
    return tuple(parts)


def _replay(table, st, entries: list[dict], h: int) -> tuple | None:
    """Replay ``entries`` (their candidate indices) on ``st`` at the first one's pending decision; what ``h`` sees
    afterwards and the chosen labels ``h`` may read, or None where a decision cannot be replayed."""
    chosen = []
    for i, e in enumerate(entries):
        if i > 0 and int(engine.advance(st, table.cx)) < 0:
            return None
        r = st.rec[0]
        n = int(r["ctl"][C_N])
        if int(r["ctl"][C_SEAT]) != e["seat"] or not 0 <= e["pick"] < max(n, 1):
            return None
        if e["seat"] == h or not is_secret_kind(table, int(r["ctl"][C_KIND])):
            chosen.append(labels_of(table, r)[e["pick"]][0] if n else e["label"])
        engine.apply(st, table.cx, e["pick"])
    if not bool(st.rec[0]["ctl"][C_OVER]):
        engine.advance(st, table.cx)
    return (*_sight(table, st.rec[0], h), tuple(chosen))


def _truth(table, entries: list[dict], h: int) -> tuple:
    """What ``h`` sees now and the chosen labels of ``entries`` it may read (as :func:`_replay` gives them)."""
    chosen = [e["label"] for e in entries if e["seat"] == h or e.get("reveal_at") is None]
    return (*_sight(table, table.rec, h), tuple(chosen))


def undo_note(table, before: np.ndarray, entries: list[dict]) -> str | None:
    """Why the decisions ``entries`` made from state ``before`` (a person's move and what followed it) cannot be
    taken back, or None where they can (see the module)."""
    if not entries:
        return None
    now = table.rec
    if getattr(table.spec, "secret", None) is not None and reveals(table, now) > reveals(table, before[0]):
        return "face-down choices were revealed since your last move: it cannot be taken back"
    for h in table.humans:
        truth = _truth(table, entries, h)
        for k in range(UNDO_REDEALS):
            redeal(table, before[0], h, 1000 + k, fresh_chance=True)
            if _replay(table, table.scratch, entries, h) != truth:
                who = "you" if len(table.humans) == 1 else f"P{h + 1}"
                return f"something hidden from {who} was revealed since your last move: it cannot be taken back"
    return None

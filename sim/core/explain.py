"""The search lines of ``meeplab replay --explain`` in words: under each search-bot decision, what it chose in the
words of the ranked list below it, then that list (its best candidates by mean playout value, or by visits for
``ismcts``)::

      search: 14 candidates x 8 playouts, chose #2 place cowboy at (3, 4) (the policy's move: no candidate beat
        it by the switch margin)
        #1 place cowboy at (2, 5): mean value 0.412
        #2 place cowboy at (3, 4): mean value 0.398

A search decision is logged as one ``E_SEARCH`` row (seat, kind, candidates searched, the chosen candidate's row in
``moves``, playouts per candidate or ``-iterations``) followed by its ``E_SEARCH_CAND`` rows (row in ``moves``, the
move's first two columns, mean value x 1e6, rank; :mod:`meeplab.sim.core.search`). The row in ``moves`` means
nothing to a reader, so the chosen move is named by its place in the list and its label. The rollout search keeps
the policy's move unless another beats it by the switch margin, so a chosen move below #1 is the policy's (so does
``ismcts`` with ``switch > 0``; without, it plays #1, the most visited); one outside the list (the list shows the
best few) is the move the game log prints next.

Pure Python (no numba): the replays call it while they format a game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .search import E_SEARCH, E_SEARCH_CAND, EXPLAIN_VISITS

__all__ = ["search_lines"]

Describe = Callable[[int, int, int], str]  # (decision kind, moves[c, 0], moves[c, 1]) -> the move in words


def search_lines(rows: Iterable[Sequence[int]], describe: Describe) -> list[str]:
    """Readable lines for the search rows of a replay log, one or more decisions in log order (``rows``: tuples
    ``(code, a, b, c, d, e)`` of E_SEARCH and E_SEARCH_CAND events; other codes are skipped)."""
    out: list[str] = []
    head: tuple[int, ...] | None = None
    cands: list[tuple[int, ...]] = []
    for row in rows:
        code = int(row[0])
        if code == E_SEARCH:
            if head is not None:
                out += _decision(head, cands, describe)
            head, cands = tuple(int(x) for x in row[:6]), []
        elif code == E_SEARCH_CAND and head is not None:
            cands.append(tuple(int(x) for x in row[:6]))
    if head is not None:
        out += _decision(head, cands, describe)
    return out


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _decision(head: tuple[int, ...], cands: list[tuple[int, ...]], describe: Describe) -> list[str]:
    _code, _seat, kind, n, chosen, budget = head
    ismcts = budget < 0
    ranked = []  # (rank from 1, row in moves, label, mean value, visits or None)
    for _c, c, m0, m1, mean, packed in cands:
        visits, rank = divmod(packed, EXPLAIN_VISITS) if packed >= EXPLAIN_VISITS else (None, packed)
        ranked.append((rank + 1, c, describe(kind, m0, m1), mean / 1e6, visits))
    ranked.sort(key=lambda r: r[0])
    pick = next((r for r in ranked if r[1] == chosen), None)
    if pick is not None:
        what = f"chose #{pick[0]} {pick[2]}"
        if pick[0] > 1 and not ismcts:
            what += " (the policy's move: no candidate beat it by the switch margin)"
        elif pick[0] > 1:  # ismcts plays the most visited (#1) unless its switch margin kept the policy's move
            what += " (the policy's move: the most visited did not beat it by the switch margin)"
    elif not ismcts:
        what = f"chose the policy's move, not among the best {len(ranked)} below (the next line of the log)"
    else:
        what = f"chose a move not among the {len(ranked)} below (the next line of the log)"
    if ismcts:
        line = f"      ismcts: {_plural(n, 'candidate')}, {_plural(-budget, 'iteration')}, {what}"
    else:
        line = f"      search: {_plural(n, 'candidate')} x {_plural(budget, 'playout')}, {what}"
    out = [line]
    for rank, _c, label, mean, visits in ranked:
        if visits is not None:
            out.append(f"        #{rank} {label}: {_plural(visits, 'visit')}, mean value {mean:.3f}")
        else:
            out.append(f"        #{rank} {label}: mean value {mean:.3f}")
    return out

"""Bots for Agricola: All Creatures Big and Small (see sim/acbas/bots.md).

``learned`` is the default lineup (what every command plays where ``--bots`` is left out): it beats ``tuned`` and,
at its default budget, ``ismcts`` (issue 56, point 3; docs/bots-and-search.md, "Tuned for one player count").
ACBAS has no chance, so self-play of this near-deterministic bot plays few distinct games (8 in 10,000): its seat
shares are not a seat finding (docs/findings.md)."""

DEFAULT_LINEUP = "learned"

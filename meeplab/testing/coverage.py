"""Where the conformance kit looked: the phases of a game (thirds of its decisions with more than one candidate) and
the table of the states a check covered by player count, decision kind and phase."""

from __future__ import annotations

__all__ = ["PHASES", "coverage_table", "phase_of"]

PHASES = ("early", "middle", "late")  # thirds of a game's decisions with more than one candidate


def phase_of(k: int, total: int) -> int:
    """The phase (index into :data:`PHASES`) of decision ``k`` of ``total``."""
    return min(len(PHASES) - 1, 3 * k // max(1, total))


def coverage_table(covered: dict, players: list[int], kind_names: list[str]) -> str:
    """The states checked per player count, decision kind and phase, as text (one line per player count and kind)."""
    kinds = sorted({k for _, k, _ in covered})
    lines = [f"  {'players':>7}  {'kind':<16} " + " ".join(f"{ph:>6}" for ph in PHASES)]
    for p in players:
        for kind in kinds:
            name = kind_names[kind] if kind < len(kind_names) else str(kind)
            row = [covered.get((p, kind, ph), 0) for ph in range(len(PHASES))]
            if any(row):
                lines.append(f"  {p:>7}  {name:<16} " + " ".join(f"{n:>6}" for n in row))
    return "\n".join(lines)

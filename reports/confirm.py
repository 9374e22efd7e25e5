"""Report section of a strong-bot confirmation (``--confirm BOT`` on compare, sweep, fair and experiment): the fast
lineup's change and the strong bot's sequential verdict side by side, one row per question replayed. The rows are
``OUT/confirm.json``'s (:func:`meeplab.analysis.confirm.row`), handed to :func:`confirm_section` by the command;
``templates/confirm.html.j2`` renders the view model (:class:`reports.views.ConfirmSection`)."""

from __future__ import annotations

from typing import Any

from .format import b, num, table
from .views import ConfirmSection

#: the columns that name which question a row replays, in the order shown (whichever the command wrote)
WHICH = ("value", "variant", "from", "to")


def confirm_section(data: dict[str, Any]) -> ConfirmSection:
    """The side-by-side table and the verdict counts of a confirmation."""
    bot = data["bot"]
    rows = [r for r in data["rows"] if isinstance(r, dict)]
    which = [k for k in WHICH if any(k in r for r in rows)]
    head = [*which, "players", "seat", "fast change", "fast 95% CI", f"{bot} change", f"{bot} games",
            f"{bot} test", "verdict", f"{bot}'s own seats (baseline)"]  # fmt: skip
    body = []
    for r in rows:
        fast, strong = r.get("fast change"), r.get(f"{bot} change")
        body.append(
            [
                *(str(r.get(k, "")) for k in which),
                r.get("players", ""),
                r.get("seat", ""),
                f"{100 * fast:+.1f} pp" if isinstance(fast, (int, float)) else "–",
                str(r.get("fast 95% CI", "")),
                f"{100 * strong:+.1f} pp" if isinstance(strong, (int, float)) else "–",
                num(r.get(f"{bot} games"), 0) if isinstance(r.get(f"{bot} games"), int) else "–",
                str(r.get(f"{bot} test", "")),
                b(str(r.get("verdict", "")))
                if not r.get("caveat")
                else [b(str(r.get("verdict", ""))), " (not credible)"],
                str(r.get(f"{bot} seats (baseline)", "–")),
            ]
        )
    counts = {}
    for r in rows:
        v = str(r.get("verdict", ""))
        counts[v] = counts.get(v, 0) + 1
    said = ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "nothing to replay (no significant change)"
    caveats = sorted({str(r["caveat"]) for r in rows if r.get("caveat")})
    if caveats:
        said += ". Caution: " + "; ".join(caveats) + " (docs/findings.md): confirm with the bot behind the finding"
    numeric = [False] * len(which) + [True, True, True, False, True, True, False, False, False]
    return ConfirmSection(bot=bot, summary=said, table=table(head, body, numeric))

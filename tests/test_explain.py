"""replay --explain names what a search bot chose in the words of the ranked list below it (its rank and its label),
not by its row in the engine's candidate table (issue 36)."""

from __future__ import annotations

import re

import pytest

from meeplab.cli import main
from meeplab.sim.core.explain import search_lines
from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND, EXPLAIN_VISITS


def label(kind, m0, m1):
    return f"k{kind} move {m0}/{m1}"


def rollout(chosen, ranked):
    """A rollout decision of kind 2 over 9 candidates x 8 playouts; ``ranked``: candidate rows best first."""
    rows = [(E_SEARCH, 1, 2, 9, chosen, 8)]
    rows += [(E_SEARCH_CAND, c, 10 + c, 0, 500_000 - 1000 * r, r) for r, c in enumerate(ranked)]
    return rows


def test_the_chosen_move_is_named_by_its_rank_and_label():
    out = search_lines(rollout(18, [4, 18, 7]), label)
    assert out[0].strip() == (
        "search: 9 candidates x 8 playouts, chose #2 k2 move 28/0 (the policy's move: no candidate beat it by the "
        "switch margin)"
    )
    assert [ln.strip() for ln in out[1:]] == [
        "#1 k2 move 14/0: mean value 0.500",
        "#2 k2 move 28/0: mean value 0.499",
        "#3 k2 move 17/0: mean value 0.498",
    ]
    assert "candidate 18" not in "\n".join(out)
    assert search_lines(rollout(4, [4, 18, 7]), label)[0].endswith("chose #1 k2 move 14/0")
    assert search_lines(rollout(0, [4, 18, 7]), label)[0].endswith(
        "chose the policy's move, not among the best 3 below (the next line of the log)"
    )


def test_ismcts_visits_and_several_decisions_in_one_call():
    ism = [
        (E_SEARCH, 0, 5, 4, 2, -40),
        (E_SEARCH_CAND, 2, 7, 1, 812_500, 0 + EXPLAIN_VISITS * 25),
        (E_SEARCH_CAND, 0, 3, 0, 500_000, 1 + EXPLAIN_VISITS * 1),
    ]
    out = search_lines(ism + rollout(7, [7]), label)
    assert [ln.strip() for ln in out] == [
        "ismcts: 4 candidates, 40 iterations, chose #1 k5 move 7/1",
        "#1 k5 move 7/1: 25 visits, mean value 0.812",
        "#2 k5 move 3/0: 1 visit, mean value 0.500",
        "search: 9 candidates x 8 playouts, chose #1 k2 move 17/0",
        "#1 k2 move 17/0: mean value 0.500",
    ]
    assert search_lines([], label) == []
    # ismcts with switch > 0 may keep the policy's move below the most visited one: the line says why
    kept = [(E_SEARCH, 0, 5, 4, 0, -40)] + ism[1:]
    assert search_lines(kept, label)[0].strip() == (
        "ismcts: 4 candidates, 40 iterations, chose #2 k5 move 3/0 "
        "(the policy's move: the most visited did not beat it by the switch margin)"
    )


TINY = '[bots.tiny]\nbase = "rollout"\n[bots.tiny.weights]\nplayouts = 2\nmax_candidates = 6\n'


@pytest.mark.parametrize("game", ["schweinebande"])
def test_replay_explain_heads_name_a_listed_move(game, tmp_path, capsys):
    bots = tmp_path / "tiny.toml"
    bots.write_text(TINY)
    args = ["replay", game, "--index", "2", "--players", "2", "--bots", "tiny,heuristic", "--bot-config", str(bots)]
    assert main([*args, "--explain"]) in (0, None)
    lines = capsys.readouterr().out.splitlines()
    heads = [i for i, ln in enumerate(lines) if ln.strip().startswith("search: ")]
    assert heads and not any("chose candidate" in ln for ln in lines)
    named = 0
    for i in heads:
        m = re.search(r", chose #(\d+) (.+?)( \(the policy's move.*)?$", lines[i])
        if m is None:
            assert lines[i].endswith("not among the best 3 below (the next line of the log)"), lines[i]
            continue
        listed = [ln.strip() for ln in lines[i + 1 : i + 4] if ln.strip().startswith("#")]
        assert any(ln.startswith(f"#{m[1]} {m[2]}: mean value ") for ln in listed), (lines[i], listed)
        assert (m[3] is not None) == (m[1] != "1")  # below #1: the policy's move, kept
        named += 1
    assert named > 0

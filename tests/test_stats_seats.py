"""Statistics that match how meeplab plays its games (issue 21): the seat test with rotated bots of
different strength, intervals with the game as the unit, Holm marks, and reports that agree with their
own tables. The simulations are vectorised with numpy: thousands of simulated runs cost about a second."""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from meeplab.analysis.load import load_run
from meeplab.analysis.stats import (
    holm,
    newcombe_diff,
    newcombe_p,
    run_stats,
    seat_design,
    seat_effect,
    seat_score_test,
    seat_uniformity_p,
    t_p,
    wilson,
)
from meeplab.reports import build_report

# -- simulated tables --------------------------------------------------------------------------


def _softmax(eta: np.ndarray) -> np.ndarray:
    e = np.exp(eta - eta.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def rotation(P: int, games: int, rotate: bool = True) -> np.ndarray:
    """Lineup entry in each seat of each game: (seat + game index) mod P, as the runner rotates."""
    seat = np.arange(P)[None, :]
    return (seat + np.arange(games)[:, None]) % P if rotate else np.broadcast_to(seat, (games, P))


def order_totals(strength, alpha, games: int, reps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``reps`` simulated runs of ``games`` rotated games, as the seat model sees them: the lineup entry
    in each seat of each seat order (C, P) and the win totals per order and seat (reps, C, P). The
    winner of a game is seat s with probability proportional to exp(alpha[s] + strength[entry])."""
    strength, alpha = np.asarray(strength, float), np.asarray(alpha, float)
    P = alpha.size
    entries = rotation(P, P)
    pi = _softmax(alpha[None, :] + strength[entries])
    n_c = np.bincount(np.arange(games) % P, minlength=P)
    rng = np.random.default_rng(seed)
    W = np.stack([rng.multinomial(n_c[c], pi[c], size=reps) for c in range(P)], axis=1)
    return entries, W.astype(np.float64)


def sim_rows(
    lineup: list[str], strength: dict[str, float], alpha, games: int, seed: int, tie: float = 0.0, rotate: bool = True
) -> pl.DataFrame:
    """Result rows (lab/runs/SCHEMA.md) of ``games`` games; with probability ``tie`` the winner shares
    first place with one other seat (1/2 each). The same seed gives the same draws (paired runs)."""
    P = len(lineup)
    alpha = np.asarray(alpha, float)
    entry = rotation(P, games, rotate)
    names = np.asarray(lineup)[entry]
    s = np.vectorize(strength.get)(names).astype(float)
    pi = _softmax(alpha[None, :] + s)
    rng = np.random.default_rng(seed)
    u, t, other = rng.random(games), rng.random(games), rng.integers(1, P, games)
    g = np.arange(games)
    winner = np.minimum((u[:, None] > np.cumsum(pi, axis=1)).sum(axis=1), P - 1)
    win = np.zeros((games, P))
    win[g, winner] = 1.0
    tied = (t < tie) & (pi[g, (winner + other) % P] > 0)
    win[g[tied], winner[tied]] = 0.5
    win[g[tied], ((winner + other) % P)[tied]] = 0.5
    score = 10.0 * win + rng.integers(0, 5, (games, P))
    return pl.DataFrame(
        {
            "n_players": np.full(games * P, P),
            "game_index": np.repeat(g, P),
            "seat": np.tile(np.arange(P), games),
            "entry": entry.ravel(),
            "bot": names.ravel(),
            "score": score.ravel(),
            "rank": np.where(win.ravel() > 0, 1, 2),
            "win": win.ravel(),
            "length": np.full(games * P, 10),
        }
    )


def write_run(
    path: Path,
    frames: list[pl.DataFrame],
    lineups: dict[str, list[str]],
    *,
    seed: int = 1,
    rotate: bool = True,
    params: dict | None = None,
    label: str | None = None,
) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    pl.concat(frames).write_parquet(path / "results.parquet")
    meta = {
        "game": "toy",
        "title": "Toy",
        "status": "complete",
        "params": params or {"bonus": 1},
        "params_changed": {},
        "lineups": lineups,
        "players": sorted(int(p) for p in lineups),
        "rotate": rotate,
        "seed": seed,
        "games": frames[0]["game_index"].n_unique(),
        "categories": [],
        "label": label,
    }
    (path / "run.json").write_text(json.dumps(meta))
    return path


# -- the seat test -----------------------------------------------------------------------------

STRONG_WEAK = [
    ([1.5, 0.0, -1.5], [0, 1, 2]),  # like heuristic / greedy / random
    ([1.0, 1.0, 0.0, -1.5], [0, 0, 1, 2]),  # a strong bot in two of four seats
]


@pytest.mark.parametrize("strength,lineup", STRONG_WEAK)
def test_seat_test_false_alarm_rate_with_rotated_bots(strength, lineup):
    """No seat effect, bots of very different strength rotated over the seats: 2,000 simulated runs of
    3,000 games. The score test rejects at 5% +- 2%; the chi-squared test on seat totals, which ignores
    the rotation, almost never does."""
    P = len(lineup)
    entries, W = order_totals(strength, np.zeros(P), 3000, 2000, seed=P)
    bots = np.asarray(lineup)[entries]
    X, mask, reason = seat_design(bots, W.sum(axis=0))
    assert reason == ""
    _, p = seat_score_test(X, W, mask, P)
    rate = float((p < 0.05).mean())
    assert 0.03 <= rate <= 0.07, rate
    chi2 = np.array([seat_uniformity_p(w.sum(axis=0)) for w in W])
    assert float((chi2 < 0.05).mean()) < rate
    if P == 3:
        assert float((chi2 < 0.05).mean()) < 0.02  # the 0.4%: far below the nominal 5%


def test_seat_effect_recovers_a_planted_effect():
    alpha = np.array([0.25, -0.3, 0.0, 0.05])
    entries, W = order_totals([1.0, 1.0, 0.0, -1.5], alpha, 80_000, 1, seed=7)
    m = seat_effect(np.array([0, 0, 1, 2])[entries], W[0])
    truth = _softmax(alpha)
    se = (m.hi - m.lo) / (2 * 1.959963984540054)
    assert m.estimable and m.p < 1e-10
    assert np.all(np.abs(m.rate - truth) < 3.5 * se), (m.rate, truth, se)
    assert np.all(se < 0.006)
    assert m.sig.tolist() == [True, True, False, False] or m.sig[:2].all()
    # coverage of the seat intervals over 300 smaller runs (each interval is 95%)
    entries, W = order_totals([1.0, 1.0, 0.0, -1.5], alpha, 3000, 300, seed=8)
    bots = np.array([0, 0, 1, 2])[entries]
    hits = np.array(
        [[lo <= a <= hi for lo, hi, a in zip(f.lo, f.hi, truth - 0.25)] for f in (seat_effect(bots, w) for w in W)]
    )
    assert 0.90 <= hits.mean() <= 0.99


def test_self_play_is_pearson_and_fixed_mixed_seats_are_not_estimable():
    rng = np.random.default_rng(3)
    W = rng.multinomial(1000, [0.4, 0.35, 0.25], size=3).astype(float)  # one bot, three seat orders
    m = seat_effect(np.zeros((3, 3), int), W)
    assert m.p == pytest.approx(seat_uniformity_p(W.sum(axis=0)), rel=1e-9)
    assert m.rate == pytest.approx(W.sum(axis=0) / W.sum(), rel=1e-8)  # the raw win rates
    fixed = seat_effect(np.array([[0, 1, 2]]), W[:1])
    assert not fixed.estimable and "not rotated" in fixed.reason and math.isnan(fixed.p)
    # a bot that never wins leaves the choice set; the others still measure the seats
    W2 = W.copy()
    W2[0, 2] = W2[1, 1] = W2[2, 0] = 0.0
    m2 = seat_effect(np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]]), W2)
    assert m2.estimable and np.isfinite(m2.p) and np.isfinite(m2.lo).all()


# -- intervals with the game as the unit -------------------------------------------------------


def test_two_seat_bot_interval_matches_bootstrap_by_game(tmp_path):
    """A bot in two of three seats, rotated, with 10% shared wins: its interval and the seats'
    intervals match a bootstrap over games (stratified by rotation offset), and the old per-seat Wilson
    interval is far wider."""
    lineup = ["strong", "strong", "weak"]
    G = 3000
    rows = sim_rows(lineup, {"strong": 0.6, "weak": 0.0}, [0.3, 0.0, -0.3], G, seed=11, tie=0.1)
    st = run_stats(load_run(write_run(tmp_path / "r", [rows], {"3": lineup})))
    win = rows["win"].to_numpy().reshape(G, 3)
    strong = (rows["bot"].to_numpy() == "strong").reshape(G, 3)
    offset = np.arange(G) % 3
    rng = np.random.default_rng(0)
    B = 2000

    def boot(y: np.ndarray, m: int) -> np.ndarray:  # resample games within each offset
        tot = np.zeros(B)
        for c in range(3):
            yc = y[offset == c]
            tot += yc[rng.integers(0, yc.size, (B, yc.size))].sum(axis=1)
        return tot / (m * G)

    def check(r: dict, est: np.ndarray) -> None:
        se_formula = math.sqrt(r["win_rate"] * (1 - r["win_rate"]) / r["n_eff"])
        assert se_formula == pytest.approx(est.std(ddof=1), rel=0.08)
        q = np.quantile(est, [0.025, 0.975])
        assert r["lo"] == pytest.approx(q[0], abs=0.15 * (q[1] - q[0]))
        assert r["hi"] == pytest.approx(q[1], abs=0.15 * (q[1] - q[0]))

    r = st.by_bot.filter(pl.col("bot") == "strong").row(0, named=True)
    assert r["by_game"] and r["seats_per_game"] == 2
    check(r, boot((win * strong).sum(axis=1), 2))
    lo, hi = wilson(r["wins"], r["n"])
    assert (hi - lo) > 1.3 * (r["hi"] - r["lo"])
    weak = st.by_bot.filter(pl.col("bot") == "weak").row(0, named=True)
    assert (weak["lo"], weak["hi"]) == pytest.approx(wilson(weak["wins"], weak["n"]))  # one seat: Wilson
    for s in range(3):
        check(st.by_seat.filter(pl.col("seat") == s).row(0, named=True), boot(win[:, s], 1))


# -- several comparisons -----------------------------------------------------------------------


def test_holm_and_p_values_match_intervals():
    assert holm([0.01, 0.04, 0.03, math.nan]) == pytest.approx([0.03, 0.06, 0.06, math.nan], nan_ok=True)
    assert holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    for k1, n1, k2, n2 in [(48, 80, 56, 70), (30, 100, 44, 100), (30.5, 100, 41.5, 100), (0, 50, 6, 50)]:
        d, lo, hi = newcombe_diff(k1, n1, k2, n2)
        p = newcombe_p(k1, n1, k2, n2)
        assert (p < 0.05) == (lo > 0 or hi < 0)
        _, lo2, hi2 = newcombe_diff(k1, n1, k2, n2, z=float(sps.norm.isf(p / 2)))  # the edge touches 0
        assert (lo2 if d > 0 else hi2) == pytest.approx(0.0, abs=1e-7)
    assert newcombe_p(0, 50, 0, 50) == 1.0
    assert t_p(0.0, 0.0, 100) == 1.0 and t_p(0.2, 1.0, 100) == pytest.approx(2 * sps.t.sf(2.0, 99))


# -- the report agrees with itself -------------------------------------------------------------


def _rows_of(doc: str, heading: str) -> list[list[str]]:
    part = doc.split(heading, 1)[1]
    body = part.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body)]


def _text(cell: str) -> str:
    return re.sub(r"<[^>]+>", "", cell).replace("●", "").strip()


def test_report_findings_agree_with_tables(tmp_path):
    """Planted handicap of seat 2 at 3 players (rotated strong / middle / weak bots) and no seat effect at
    4 players: the findings name exactly the seats the table marks, with the table's intervals and the
    test's p-value, and the leading bot's interval is the table's."""
    strength = {"heuristic": 1.5, "greedy": 0.0, "random": -1.5}
    lu3, lu4 = ["heuristic", "greedy", "random"], ["heuristic", "heuristic", "greedy", "random"]
    d = write_run(
        tmp_path / "run",
        [
            sim_rows(lu3, strength, [0.0, -0.35, 0.1], 4000, seed=5),
            sim_rows(lu4, strength, [0.0] * 4, 4000, seed=6, tie=0.05),
        ],
        {"3": lu3, "4": lu4},
    )
    doc = build_report([d], tmp_path / "r.html").read_text()
    st = run_stats(load_run(d))
    findings = doc.split("Key findings", 1)[1].split("</ul>", 1)[0]
    seat_rows = _rows_of(doc, "<h3>Seat fairness</h3>")
    note = html.unescape(doc.split("Test of “no seat effect”: ", 1)[1].split(" (small p", 1)[0])
    for P in (3, 4):
        line = re.search(rf"Seats at {P} players:(.*?)</li>", findings).group(1)
        m = st.seat_model[P]
        assert f"{P}P: {'p < 0.001' if m.p < 0.001 else f'p = {m.p:.3f}'}" in note
        assert ("significant seat effect</span>" in line) == (m.p < 0.05)
        named = {int(s): ci for s, ci in re.findall(r"seat (\d) (?:advantage|handicap) \S+ pp \(95% CI (.*?)\)", line)}
        table = {int(_text(r[1]).split()[0]): (r[6], _text(r[7])) for r in seat_rows if r[0] == str(P)}
        marked = {s for s, (cell, _) in table.items() if "●" in cell}
        assert set(named) == marked
        for s, ci in named.items():
            assert ci == table[s][1]
    assert "seat 2 handicap" in re.search(r"Seats at 3 players:(.*?)</li>", findings).group(1)
    assert not any("●" in r[6] for r in seat_rows if r[0] == "4")
    # the leading bot's interval in the findings is the win table's, labelled per seat when it has 2 seats
    win_rows = _rows_of(doc, "<h3>Win rate per bot</h3>")
    for P in (3, 4):
        line = re.search(rf"<b>{P} players:</b>(.*?)</li>", findings).group(1)
        ci = re.search(r"\(95% CI (.*?)\)", line).group(1)
        row = next(r for r in win_rows if r[0] == str(P) and r[1] == "heuristic")
        assert ci == _text(row[5]).rstrip(" †")
        assert ("per seat (2 seats" in line) == (P == 4)


def test_comparison_holm_marks_and_no_wins(tmp_path):
    """A paired what-if with a bot that never wins and a two-seat bot: marks come from Holm's correction
    (named in the report), the never-winning bot prints "no wins in either run", the two-seat bot's
    rates are labelled per seat."""
    lu = ["heuristic", "heuristic", "greedy", "never"]
    base = {"heuristic": 0.5, "greedy": 0.0, "never": -np.inf}
    var = dict(base, greedy=0.4)
    runs = [
        write_run(
            tmp_path / name,
            [sim_rows(lu, s, [0.0] * 4, 3000, seed=2)],
            {"4": lu},
            seed=2,
            params={"bonus": b},
            label=name,
        )
        for name, s, b in (("base", base, 1), ("variant", var, 2))
    ]
    doc = build_report(runs, tmp_path / "c.html").read_text()
    assert "Holm" in doc and "+0.0 pp … +0.0 pp" not in doc
    rows = _rows_of(doc, "paired</span>")
    never = next(r for r in rows if r[1].startswith("never"))
    assert never[8] == "no wins in either run" and "●" not in never[7]
    heur = next(r for r in rows if r[1].startswith("heuristic"))
    assert "per seat, 2 seats" in heur[1]
    greedy = next(r for r in rows if r[1].startswith("greedy"))
    assert "●" in greedy[7]  # the planted change survives the correction
    key = html.unescape(doc.split("Key changes", 1)[1].split("</div>", 1)[0])  # the text a reader sees
    assert (
        "greedy's win rate rises" in key and "Holm-adjusted" in key and "heuristic's win rate per seat (2 seats)" in key
    )
    assert "across all 3 win-rate comparisons" in key


def test_fair_is_an_equivalence_with_its_margin_stated():
    """ "No seat effect found" is not "fair": fair within the margin only when every seat's advantage interval lies
    inside it; otherwise the margin the intervals do rule out is stated."""
    from meeplab.analysis.stats import FAIR_MARGIN, fair_within

    assert fair_within([-0.015, -0.012], [0.012, 0.015]) == (True, 0.015)
    wide, ruled = fair_within([-0.046, -0.03], [0.03, 0.046])
    assert not wide and ruled == 0.046
    assert fair_within([-0.01], [0.03])[0] is False and FAIR_MARGIN == 0.02
    assert fair_within([], [])[0] is False

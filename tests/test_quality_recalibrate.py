"""meeplab quality --recalibrate: miscalibrated win probabilities (a search bot's playouts are played by its playout
policy, so they misjudge the search's games) are recalibrated by Platt scaling, cross-fitted over halves of the games,
and the calibration is measured again on estimates whose map never saw their game (docs/quality.md, calibration)."""

import json

import numpy as np
import pandas as pd
import pytest

from meeplab.analysis import quality as q

SHARP = 2.5  # planted: the estimates' log-odds are 2.5 times the true ones (too confident, as a weak playout policy)


def _planted(games: int = 600, seed: int = 1, sharp: float = SHARP) -> pd.DataFrame:
    """Three seats, five points per game: the true chances drift along the game, the winner is drawn from the last
    point's, and each estimate is the true chance with its log-odds times ``sharp``, normalised over the seats, as the
    share of 64 playouts (the file's columns, ``p_half`` from 32 of them)."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(games):
        z = rng.normal(0.0, 0.4, 3)
        per = []
        for _ in range(4):
            z = z + rng.normal(0.0, 0.5, 3)
            true = np.exp(z) / np.exp(z).sum()
            est = true**sharp / np.sum(true**sharp)
            per.append(est)
        win = int(rng.choice(3, p=true))
        for j in range(5):
            final = j == 4
            for s in range(3):
                p = float(s == win) if final else float(per[j][s])
                rows.append((3, g, j, 10 * j, j, j / 4, s + 1, p, 0.0, 0 if final else 64, final, p, 0.0,
                             0 if final else 32))  # fmt: skip
    cols = ["n_players", "game", "point", "step", "round", "progress", "seat", "p_win", "se", "playouts", "final",
            "p_half", "se_half", "playouts_half"]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def test_platt_scaling_recovers_a_planted_slope():
    rng = np.random.default_rng(0)
    true = rng.uniform(0.05, 0.95, 20000)
    won = (rng.random(true.size) < true).astype(float)
    logit = np.log(true / (1 - true))
    est = 1 / (1 + np.exp(-SHARP * logit + 0.3))
    w = q.platt_fit(est, np.zeros(est.size), won)  # no playout count: not clipped at half a playout; no progress
    assert w[0] == pytest.approx(1 / SHARP, abs=0.03) and w[2] == pytest.approx(0.3 / SHARP, abs=0.05)
    # the overconfidence fades along the game (4 times the log-odds at the start, 1 at the end): the slope drifts
    t = rng.uniform(0, 1, true.size)
    est = 1 / (1 + np.exp(-logit / (0.25 + 0.75 * t)))
    w = q.platt_fit(est, np.zeros(est.size), won, t)
    assert w[0] == pytest.approx(1 / 4, abs=0.05) and w[1] == pytest.approx(1.0, abs=0.15)
    assert list(q.platt_fit(np.full(5, 0.5), np.full(5, 64.0), np.ones(5))) == [1.0, 1.0, 0.0, 0.0]  # the identity
    # estimates that say the opposite of the results: the slopes stop at 0 (the map never reverses the seats' order)
    w = q.platt_fit(1 - true, np.zeros(true.size), won, t)
    assert min(w[0], w[1]) >= 0.0 and max(w[0], w[1]) < 0.05


def test_recalibrated_estimates_are_calibrated_out_of_fold_and_keep_the_favourite():
    traj = _planted()
    raw = q.calibration(traj, reps=300)
    assert q.calibrated({"calibration": raw}) == "miscalibrated"
    t, info = q.recalibrate(traj)
    assert [m["fold"] for m in info["maps"]] == [0, 1] and all(m["games"] == 300 for m in info["maps"])
    # too confident all along (no drift planted): every map's slope well below 1 at both ends
    assert all(0.15 < m[k] < 0.65 for m in info["maps"] for k in ("slope_start", "slope_end"))
    used = q.recalibrated_frame(t)
    assert set(used.columns) == set(traj.columns) | {"p_raw", "p_half_raw"}
    fixed = q.calibration(used, reps=300)
    assert q.calibrated({"calibration": fixed}) == "calibrated" and fixed["hi"] < raw["lo"]
    live = ~t["final"]
    sums = t[live].groupby(["game", "point"])["p_cal"].sum()
    assert np.allclose(sums, 1.0)  # the seats' chances still add up to one at every point
    assert (t.loc[~live, "p_cal"] == t.loc[~live, "p_win"]).all()  # the results are kept
    fav_raw = t[live].loc[t[live].groupby(["game", "point"])["p_win"].idxmax(), "seat"].to_numpy()
    fav_cal = t[live].loc[t[live].groupby(["game", "point"])["p_cal"].idxmax(), "seat"].to_numpy()
    assert (fav_raw == fav_cal).all()  # the map is monotone and shared: the favourite never changes
    m_raw, m_cal = q.trajectory_metrics(traj, noise=False), q.trajectory_metrics(used, noise=False)
    assert m_cal["lead_changes"]["value"] == m_raw["lead_changes"]["value"]
    assert (
        m_cal["drama"]["value"] < m_raw["drama"]["value"]
        or m_cal["uncertainty"]["value"] > m_raw["uncertainty"]["value"]
    )
    assert "p_half_cal" in t and np.allclose(t[live].groupby(["game", "point"])["p_half_cal"].sum(), 1.0)


def test_no_estimate_is_recalibrated_with_its_own_games_result():
    """Cross-fitting: the results of the even games move the odd games' recalibrated estimates, never their own."""
    traj = _planted(games=200)
    flipped = traj.copy()
    even_final = (flipped["game"] % 2 == 0) & flipped["final"]
    flipped.loc[even_final, "p_win"] = (
        flipped.loc[even_final].groupby("game")["p_win"].transform(lambda w: np.roll(w.to_numpy(), 1))
    )  # another seat wins every even game
    a, _ = q.recalibrate(traj)
    b, _ = q.recalibrate(flipped)
    even = (a["game"] % 2 == 0) & ~a["final"]
    assert np.allclose(a.loc[even, "p_cal"], b.loc[even, "p_cal"])
    assert not np.allclose(a.loc[~even & ~a["final"], "p_cal"], b.loc[~even & ~b["final"], "p_cal"])


def test_the_findings_say_the_metrics_read_recalibrated_estimates_and_mark_kingmaking():
    from meeplab.reports.quality import findings

    traj = _planted()
    raw = q.calibration(traj, reps=200)
    t, info = q.recalibrate(traj)
    used = q.recalibrated_frame(t)
    rec = {**q.trajectory_metrics(used), "calibration": {**q.calibration(used, reps=200), "raw": raw,
           "recalibrated": info}, "relative_skill": None, "margin_share": {"median": 0.2}, "margin": {"median": 3.0},
           "tiebreak_decided": {"value": 0.0}, "shared_wins": {"value": 0.0}, "decisions_per_seat": {"value": 4.0},
           "branching": {"mean": 2.0}, "forced_share": {"value": 0.0},
           "kingmaking": {"games": {"value": 0.02, "lo": 0.0, "hi": 0.05}, "flagged": 3, "confirmed": 1}}  # fmt: skip
    assert q.raw_miscalibrated(rec) and q.calibrated(rec) == "calibrated"
    lines = [" ".join(x if isinstance(x, str) else str(x) for x in f) for f in findings({"players": {"3": rec}}, 3)]
    (cal,) = [line for line in lines if "calibration:" in line]
    assert "recalibrated" in cal and "the playouts' own estimates were off by" in cal
    assert not any("uncalibrated" in line for line in lines if "drama" in line or "lead changes" in line)
    assert any("uncalibrated" in line for line in lines if "kingmaking" in line)


def test_the_command_recalibrates_exports_both_and_repeats_itself(tmp_path, capsys):
    """``--recalibrate on`` end to end on a small run: quality.json holds the recalibrated calibration with the raw one
    and the maps, trajectories.parquet both estimates (the metrics recomputed from ``p_cal`` give the JSON's), stderr
    says so, and the report's reproduce line carries the setting."""
    from meeplab.cli import main
    from meeplab.reports.quality import reproduce_command

    out = tmp_path / "q"
    args = ["quality", "schweinebande", "-p", "3", "-n", "40", "--trajectory-games", "12", "--playouts", "8",
            "--se-target", "0", "--points", "4", "--skill-games", "0", "-q", "--out", str(out)]  # fmt: skip
    assert main([*args, "--recalibrate", "on"]) == 0
    assert "the metrics read them recalibrated" in capsys.readouterr().err
    data = json.loads((out / "quality.json").read_text())
    cal = data["players"]["3"]["calibration"]
    assert {"raw", "recalibrated"} <= set(cal) and len(cal["recalibrated"]["maps"]) == 2
    traj = pd.read_parquet(out / "trajectories.parquet")
    assert {"p_win", "p_cal"} <= set(traj.columns)
    again = q.trajectory_metrics(q.recalibrated_frame(traj[traj["n_players"] == 3]), noise=False)
    assert again["drama"]["value"] == pytest.approx(data["players"]["3"]["drama"]["value"])
    assert "--recalibrate on" in reproduce_command(out, data, [3])
    assert data["settings"]["recalibrate"] == "on"
    off = tmp_path / "off"
    assert main([*args[:-1], str(off), "--recalibrate", "off"]) == 0
    assert "raw" not in json.loads((off / "quality.json").read_text())["players"]["3"]["calibration"]
    assert "p_cal" not in pd.read_parquet(off / "trajectories.parquet").columns


def test_the_intervals_draw_the_playout_noise_of_the_playouts_own_estimates_through_the_map():
    """A map that flattens the early estimates (too sure early) flattens their noise too: drawn around the
    recalibrated estimates instead, near-equal seats would swap the favourite at every draw and inflate lead changes'
    interval. The noise-aware interval of lead changes stays close to the games-only one."""
    traj = _planted(games=300)
    t, info = q.recalibrate(traj)
    used = q.recalibrated_frame(t)
    assert {"p_raw", "p_half_raw"} <= set(used.columns)
    rec = q.trajectory_metrics(used, recal=info)
    lc = rec["lead_changes"]
    assert lc["hi"] - lc["lo"] < 1.5 * (lc["games_hi"] - lc["games_lo"])
    blocks = q.game_blocks(used, "p_raw", maps=q.fold_maps(info))
    assert all(b[3] is not None for b in blocks) and len(blocks) == 300


def test_a_stage_shown_with_a_progress_bar_plays_the_same_numbers_in_parts():
    """quality's progress bars: the trajectories and the relative-skill games played in parts of consecutive games
    (ticking the bar after each) give every array the one call gives (game g depends on (seed, g) alone)."""
    from meeplab.lab.studies import quality as core
    from meeplab.sim.core.registry import get_game

    g = get_game("schweinebande")
    ctx = g.prepare(g.params.resolve({}, g.id))
    whole = core.play_trajectories(g, ctx, ["heuristic"], 3, 7, 13, 4, 3, se_target=0.05, max_playouts=16)
    done = []
    parts = core.play_trajectories(g, ctx, ["heuristic"], 3, 7, 13, 4, 3, se_target=0.05, max_playouts=16,
                                   tick=done.append)  # fmt: skip
    assert sum(done) == 13 and len(done) == len(core.progress_parts(13))
    for key in core.TRAJECTORY_KEYS:
        assert np.array_equal(whole[key], parts[key], equal_nan=whole[key].dtype.kind == "f"), key
    done.clear()
    sk_whole = core.play_skill(g, ctx, 3, 7, 9, "random", "rollout", "greedy")
    sk_parts = core.play_skill(g, ctx, 3, 7, 9, "random", "rollout", "greedy", tick=done.append)
    assert sum(done) == 3 * 9
    for role in core.SKILL_ROLES:
        assert np.array_equal(sk_whole["wins"][role], sk_parts["wins"][role]), role


def test_per_game_reads_each_game_as_a_pivot_of_its_points_and_seats():
    """``per_game`` cuts a frame as ``meeplab quality`` writes it (one row per point and seat) in one sort; any other
    frame (a seat missing at a point, a seat twice, a missing estimate, points whose progress differs by seat) is read
    as the pivot table of its points by seats (the mean per seat, NaN where one has none) with the progress's first
    value at each point. Both give what the pivot table gives, row order of the frame regardless."""

    def pivoted(traj):
        out = []
        for (np_, g), d in traj.groupby(["n_players", "game"], sort=True):
            piv = d.pivot_table(index="point", columns="seat", values="p_win").sort_index()
            prog = d.groupby("point")["progress"].first().sort_index().to_numpy()
            out.append({"n_players": np_, "game": g, **q.game_metrics(prog, piv.to_numpy())})
        return pd.DataFrame(out)

    traj = pd.concat(
        [_planted(games=40), _planted(games=30, seed=2).assign(n_players=2, seat=lambda d: d.seat % 2 + 1)]
    )
    traj = traj.drop_duplicates(["n_players", "game", "point", "seat"]).sample(frac=1.0, random_state=3)
    odd = traj.copy()
    odd = odd.drop(index=odd.index[[4, 50]])  # a seat missing at a point
    odd = pd.concat([odd, odd.iloc[[7, 90]].assign(p_win=0.25)])  # a seat twice at a point
    odd.iloc[[20], odd.columns.get_loc("p_win")] = np.nan
    odd.iloc[[33], odd.columns.get_loc("progress")] = 0.123
    for frame in (traj, odd):
        with np.errstate(all="ignore"):
            got, want = q.per_game(frame), pivoted(frame)
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert len(q.per_game(traj)) == 70 and len(q.per_game(traj.iloc[:0])) == 0

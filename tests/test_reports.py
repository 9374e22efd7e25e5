"""Tests for the report package on hand-built (synthetic) run directories, independent of any engine."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from meeplab.analysis.compare import paired_compare, pairing, sweep_param, unpaired_compare
from meeplab.analysis.load import load_run
from meeplab.analysis.stats import (
    newcombe_diff,
    paired_mean_diff,
    run_stats,
    seat_uniformity_p,
    welch_diff,
    wilson,
    wilson_arrays,
)
from meeplab.reports import build_report
from meeplab.sim.core.bots import entry_of_seat
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.game import rank_and_win

CATS = ["cards", "sets", "bonus", "penalty"]
DEFAULTS = {"bonus": 2, "hand_size": 5, "variant": "base"}


def synth_rows(
    seed: int, players: int, games: int, lineup: list[str], rotate: bool, bonus: int, skill: dict[str, float]
) -> pl.DataFrame:
    """Integer scores from a per-game random stream fixed by (seed, players, game): the same seed and
    lineup give the same luck whatever ``bonus`` is (common random numbers)."""
    rows = {k: [] for k in ("n_players", "game_index", "seat", "entry", "bot", "score", "rank", "win", "length", *CATS)}
    scores = np.zeros((games, players))
    parts = np.zeros((games, players, len(CATS)))
    lengths = np.zeros(games, dtype=np.int64)
    entries = np.zeros((games, players), dtype=np.int64)
    for g in range(games):
        r = np.random.default_rng([seed, players, g])
        luck = r.integers(0, 6, size=(players, 3))
        extra = r.integers(0, 3, size=players)
        for s in range(players):
            e = entry_of_seat(s, g, players, rotate)
            entries[g, s] = e
            bot = lineup[e]
            cards = luck[s, 0] + round(skill[bot])
            sets = luck[s, 1] * 2
            bon = bonus * (luck[s, 2] >= 3) + (1 if s == 0 else 0)  # start player edge
            pen = -int(extra[s])
            parts[g, s] = (cards, sets, bon, pen)
            scores[g, s] = cards + sets + bon + pen
        lengths[g] = 8 + int(r.integers(0, 5)) + players
    rank, win = rank_and_win(scores, np.zeros_like(scores))
    for g in range(games):
        for s in range(players):
            rows["n_players"].append(players)
            rows["game_index"].append(g)
            rows["seat"].append(s)
            rows["entry"].append(int(entries[g, s]))
            rows["bot"].append(lineup[entries[g, s]])
            rows["score"].append(float(scores[g, s]))
            rows["rank"].append(int(rank[g, s]))
            rows["win"].append(float(win[g, s]))
            rows["length"].append(int(lengths[g]))
            for c, name in enumerate(CATS):
                rows[name].append(float(parts[g, s, c]))
    return pl.DataFrame(
        rows,
        schema={
            "n_players": pl.Int8,
            "game_index": pl.Int64,
            "seat": pl.Int8,
            "entry": pl.Int8,
            "bot": pl.String,
            "score": pl.Float64,
            "rank": pl.Int8,
            "win": pl.Float64,
            "length": pl.Int32,
            **dict.fromkeys(CATS, pl.Float64),
        },
    )


def make_run(
    path: Path,
    *,
    seed: int = 1,
    players=(3, 4),
    games: int = 300,
    bots=("greedy", "random"),
    rotate: bool = True,
    bonus: int = 2,
    label: str | None = None,
    status: str = "complete",
    chunks: int = 0,
    games_done: int | None = None,
    skill: dict[str, float] | None = None,
) -> Path:
    """Write a run directory following lab/runs/SCHEMA.md (``skill``: points each bot adds to its cards)."""
    path.mkdir(parents=True, exist_ok=True)
    skill = skill or {"greedy": 3.0, "random": 0.0, "heuristic": 2.0}
    lineups = {str(p): [bots[i % len(bots)] for i in range(p)] for p in players}
    done = games if games_done is None else games_done
    frames = [synth_rows(seed, p, done, lineups[str(p)], rotate, bonus, skill) for p in players]
    df = pl.concat(frames)
    if chunks:
        (path / "chunks").mkdir(exist_ok=True)
        for i, part in enumerate(np.array_split(np.arange(df.height), chunks)):
            df[part.tolist()].write_parquet(path / "chunks" / f"part-{i:05d}.parquet")
    else:
        df.write_parquet(path / "results.parquet")
    params = dict(DEFAULTS, bonus=bonus)
    meta = {
        "game": "toygame",
        "title": "Toy Game",
        "version": "1",
        "status": status,
        "params": params,
        "params_changed": {k: v for k, v in params.items() if DEFAULTS[k] != v},
        "notes": ["reconstructed deck (synthetic test data)"],
        "bots": list(bots),
        "bot_weights": {},
        "lineups": lineups,
        "players": list(players),
        "rotate": rotate,
        "seed": seed,
        "games": games,
        "games_completed": {str(p): done for p in players},
        "categories": CATS,
        "length_unit": "rounds",
        "threads": 2,
        "wall_time_s": 3.5,
        "compile_time_s": 1.2,
        "games_per_second": 171.4,
        "started": "2026-01-01T10:00:00",
        "finished": "2026-01-01T10:00:04",
        "command": f"meeplab run toygame --games {games} --seed {seed}",
        "label": label,
    }
    (path / "run.json").write_text(json.dumps(meta, indent=1))
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return {
        "base": make_run(root / "base", label="base rules"),
        "variant": make_run(root / "variant", bonus=5, label="bonus 5"),
        "other_seed": make_run(root / "seed2", seed=2, bonus=5),
        "interrupted": make_run(root / "intr", status="interrupted", chunks=3, games=300, games_done=120, players=(3,)),
    }


# -- loading ---------------------------------------------------------------------------------


def test_load_complete_run(runs):
    run = load_run(runs["base"])
    assert run.label == "base rules"
    assert run.players == [3, 4]
    assert run.n_rows == 300 * 3 + 300 * 4
    assert run.categories == CATS
    assert run.source == "results.parquet"
    assert run.complete


def test_load_interrupted_chunks(runs):
    run = load_run(runs["interrupted"])
    assert run.source.startswith("chunks/part-*.parquet (3 files, no manifest")  # written before manifests
    assert run.n_rows == 120 * 3
    assert not run.complete
    st = run_stats(run)
    assert st.games["games"].to_list() == [120]


def test_label_falls_back_to_directory(runs):
    assert load_run(runs["other_seed"]).label == "seed2"


def _err(path) -> str:
    with pytest.raises(MeeplabError) as ei:
        load_run(path)
    msg = str(ei.value)
    assert "\n" not in msg
    return msg


def test_missing_directory(tmp_path):
    msg = _err(tmp_path / "nope")
    assert "does not exist" in msg and str(tmp_path / "nope") in msg


def test_missing_and_corrupt_run_json(tmp_path):
    d = tmp_path / "r"
    d.mkdir()
    assert "missing run.json" in _err(d)
    (d / "run.json").write_text("{not json")
    msg = _err(d)
    assert "corrupt run.json" in msg and str(d / "run.json") in msg
    (d / "run.json").write_text("[1, 2]")
    assert "corrupt run.json" in _err(d)


def test_missing_corrupt_empty_parquet(runs, tmp_path):
    d = tmp_path / "r"
    d.mkdir()
    (d / "run.json").write_text((runs["base"] / "run.json").read_text())
    assert "missing results" in _err(d)
    (d / "results.parquet").write_bytes(b"PAR1 this is not parquet")
    msg = _err(d)
    assert "damaged" in msg and "results.parquet" in msg
    # truncated copy of a real file
    good = (runs["base"] / "results.parquet").read_bytes()
    (d / "results.parquet").write_bytes(good[: len(good) // 2])
    assert "damaged" in _err(d)
    # valid file, zero rows
    pl.read_parquet(runs["base"] / "results.parquet").head(0).write_parquet(d / "results.parquet")
    assert "empty" in _err(d)
    # missing a category column
    pl.read_parquet(runs["base"] / "results.parquet").drop("bonus").write_parquet(d / "results.parquet")
    assert "lack column(s) bonus" in _err(d)


def test_corrupt_chunk_named(runs, tmp_path):
    d = tmp_path / "r"
    (d / "chunks").mkdir(parents=True)
    meta = json.loads((runs["base"] / "run.json").read_text())
    (d / "run.json").write_text(json.dumps(dict(meta, status="interrupted")))  # an older run: chunks, no manifest
    pl.read_parquet(runs["base"] / "results.parquet").write_parquet(d / "chunks" / "part-00000.parquet")
    (d / "chunks" / "part-00001.parquet").write_bytes(b"garbage")
    assert "part-00001.parquet" in _err(d)


def test_runner_style_chunks(runs, tmp_path):
    """The runner writes ``bot`` dictionary-encoded with a different dictionary per player count, one
    chunk file per (player count, start); scores need not be integers or span a small range."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path / "r"
    (d / "chunks").mkdir(parents=True)
    meta = json.loads((runs["base"] / "run.json").read_text())
    meta["status"] = "running"
    (d / "run.json").write_text(json.dumps(meta))
    full = pl.read_parquet(runs["base"] / "results.parquet").with_columns(  # 4P: wide, non-integer scores
        pl.when(pl.col("n_players") == 4)
        .then(pl.col("score") * 7.25 + pl.col("seat") * 0.1)
        .otherwise(pl.col("score"))
        .alias("score")
    )
    for p in (3, 4):
        part = full.filter(pl.col("n_players") == p)
        names = meta["lineups"][str(p)]
        for start in (0, 150):
            chunk = part.filter((pl.col("game_index") >= start) & (pl.col("game_index") < start + 150))
            cols = {c: chunk[c].to_arrow() for c in chunk.columns}
            cols["bot"] = pa.DictionaryArray.from_arrays(
                pa.array(chunk["entry"].cast(pl.Int32).to_numpy()), pa.array(names, type=pa.string())
            )
            pq.write_table(pa.table(cols), d / "chunks" / f"part-p{p}-{start:012d}.parquet")
    run = load_run(d)
    assert run.n_rows == full.height and run.players == [3, 4]
    st = run_stats(run)
    assert int(st.score_hist["count"].sum()) == full.height
    assert st.by_bot["bot"].to_list() == ["greedy", "random", "greedy", "random"]
    doc = build_report([d], tmp_path / "r.html").read_text()
    assert "Run still in progress." in doc


def test_not_a_directory(tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    assert "not a directory" in _err(f)


# -- statistics ------------------------------------------------------------------------------


def _wilson_ref(k, n, z):
    # textbook formula, written out independently
    p = k / n
    a = p + z * z / (2 * n)
    b = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    c = 1 + z * z / n
    return (a - b) / c, (a + b) / c


def test_wilson_known_values():
    # published example (Newcombe 1998, table I): 81/263 -> 0.2553 .. 0.3662
    lo, hi = wilson(81, 263)
    assert lo == pytest.approx(0.2553, abs=5e-5) and hi == pytest.approx(0.3662, abs=5e-5)
    # 15/148 -> 0.0624 .. 0.1605 (Newcombe 1998)
    lo, hi = wilson(15, 148)
    assert lo == pytest.approx(0.0624, abs=5e-5) and hi == pytest.approx(0.1605, abs=5e-5)
    # edge cases: 0/10 and 10/10 keep the point inside and stay within [0, 1]
    assert wilson(0, 10)[0] == 0.0 and wilson(0, 10)[1] == pytest.approx(0.2775, abs=5e-5)
    assert wilson(10, 10)[1] == 1.0 and wilson(10, 10)[0] == pytest.approx(0.7225, abs=5e-5)
    assert all(math.isnan(x) for x in wilson(0, 0))
    with pytest.raises(ValueError):
        wilson(5, 3)


@pytest.mark.parametrize("k,n,z", [(12.5, 40, 1.96), (1 / 3, 7, 2.576), (333.5, 1000, 1.645)])
def test_wilson_fractional_and_vectorised(k, n, z):
    ref = _wilson_ref(k, n, z)
    assert wilson(k, n, z) == pytest.approx(ref, abs=1e-12)
    lo, hi = wilson_arrays(np.array([k]), np.array([n]), z)
    assert (lo[0], hi[0]) == pytest.approx(ref, abs=1e-12)


def test_paired_mean_diff_matches_scipy():
    rng = np.random.default_rng(3)
    a = rng.normal(10, 3, 200)
    b = a + rng.normal(0.4, 1.0, 200)
    md = paired_mean_diff(a, b)
    d = b - a
    t = sps.ttest_rel(b, a)
    lo, hi = t.confidence_interval(0.95)
    assert md.mean == pytest.approx(d.mean())
    assert (md.lo, md.hi) == pytest.approx((lo, hi), rel=1e-9)
    # the paired interval is far narrower than the unpaired one on the same data
    un = welch_diff(a.mean(), a.std(ddof=1), 200, b.mean(), b.std(ddof=1), 200)
    assert (md.hi - md.lo) < 0.5 * (un.hi - un.lo)
    tw = sps.ttest_ind(b, a, equal_var=False).confidence_interval(0.95)
    assert (un.lo, un.hi) == pytest.approx((tw.low, tw.high), rel=1e-9)


def test_newcombe_example():
    # Newcombe 1998 table II example (method 10): 56/70 - 48/80 = 0.2, CI 0.0524 .. 0.3339
    d, lo, hi = newcombe_diff(48, 80, 56, 70)
    assert d == pytest.approx(0.2)
    assert lo == pytest.approx(0.0524, abs=5e-4) and hi == pytest.approx(0.3339, abs=5e-4)


def test_seat_uniformity():
    assert seat_uniformity_p([100, 100, 100]) == pytest.approx(1.0)
    assert seat_uniformity_p([150, 100, 50]) < 1e-6
    assert seat_uniformity_p([10, 10, 10, 10]) == pytest.approx(sps.chisquare([10, 10, 10, 10]).pvalue)


def test_run_stats_against_pandas(runs):
    run = load_run(runs["base"])
    st = run_stats(run)
    df = pl.read_parquet(runs["base"] / "results.parquet").to_pandas()
    for (p, bot), g in df.groupby(["n_players", "bot"]):
        r = st.by_bot.filter((pl.col("n_players") == p) & (pl.col("bot") == bot)).row(0, named=True)
        assert r["n"] == len(g)
        assert r["win_rate"] == pytest.approx(g["win"].mean())
        if r["seats_per_game"] == 1:  # a bot in several seats gets a by-game interval (tests/test_stats_*.py)
            assert (r["lo"], r["hi"]) == pytest.approx(wilson(g["win"].sum(), len(g)))
        assert r["mean_score"] == pytest.approx(g["score"].mean())
        for c in CATS:
            assert r[f"cat_{c}"] == pytest.approx(g[c].mean())
    for p, g in df.groupby("n_players"):
        first = g[g["rank"] == 1].groupby("game_index").size()
        games = g["game_index"].nunique()
        r = st.games.filter(pl.col("n_players") == p).row(0, named=True)
        assert r["games"] == games
        assert r["tie_share"] == pytest.approx((first > 1).mean())
        assert r["tie_games"] > 0  # integer scores and no tie-break: ties do happen
        t = st.ties.filter(pl.col("n_players") == p)
        assert int(t["games"].sum()) == games
        seat_w = g.groupby("seat")["win"].sum()
        got = st.by_seat.filter(pl.col("n_players") == p).sort("seat")["wins"].to_numpy()
        assert got == pytest.approx(seat_w.to_numpy())
        # every game's win shares add up to 1
        assert g["win"].sum() == pytest.approx(games)
    # histogram keeps every row
    assert int(st.score_hist["count"].sum()) == len(df)
    ranks = st.ranks.group_by("n_players", "bot").agg(pl.col("share").sum())
    assert ranks["share"].to_numpy() == pytest.approx(1.0)


def test_paired_comparison(runs):
    base, var, other = (load_run(runs[k]) for k in ("base", "variant", "other_seed"))
    assert pairing(base, var)[0]
    ok, reason = pairing(base, other)
    assert not ok and "seed" in reason
    df = paired_compare(base, var)
    a = pl.read_parquet(runs["base"] / "results.parquet")
    b = pl.read_parquet(runs["variant"] / "results.parquet")
    key = ["n_players", "game_index", "bot"]
    ga = a.group_by(key).agg(pl.col("score").mean(), pl.col("win").mean())
    gb = b.group_by(key).agg(pl.col("score").mean(), pl.col("win").mean())
    j = ga.join(gb, on=key, suffix="_v")
    for r in df.iter_rows(named=True):
        s = j.filter((pl.col("n_players") == r["n_players"]) & (pl.col("bot") == r["bot"]))
        ref = paired_mean_diff(s["score"].to_numpy(), s["score_v"].to_numpy())
        assert r["games"] == s.height == 300
        assert r["d_score"] == pytest.approx(ref.mean)
        assert (r["d_score_lo"], r["d_score_hi"]) == pytest.approx((ref.lo, ref.hi))
        refw = paired_mean_diff(s["win"].to_numpy(), s["win_v"].to_numpy())
        assert (r["d_win"], r["d_win_lo"], r["d_win_hi"]) == pytest.approx((refw.mean, refw.lo, refw.hi))
        # bonus 2 -> 5 adds 3 points to every seat whose luck triggers the bonus: the mean goes up
        assert r["d_score_lo"] > 0
    # against itself: all differences are exactly zero
    same = paired_compare(base, base)
    assert same["d_score"].abs().max() == 0 and same["d_win"].abs().max() == 0


def test_unpaired_comparison(runs):
    sa, sb = run_stats(load_run(runs["base"])), run_stats(load_run(runs["other_seed"]))
    df = unpaired_compare(sa, sb)
    assert df.height == sa.by_bot.height
    r = df.row(0, named=True)
    a = sa.by_bot.row(0, named=True)
    b = sb.by_bot.row(0, named=True)
    assert (r["d_win"], r["d_win_lo"], r["d_win_hi"]) == pytest.approx(
        newcombe_diff(
            a["win_rate"] * a["n_eff"], a["n_eff"], b["win_rate"] * b["n_eff"], b["n_eff"], sps.norm.ppf(0.975)
        )
    )  # effective sample sizes: by game for a bot in several seats


def test_sweep_detection(runs):
    base, var, other = (load_run(runs[k]) for k in ("base", "variant", "other_seed"))
    assert sweep_param([base, var]) == "bonus"
    assert sweep_param([base, other]) == "bonus"  # parameters only; the seed is reported separately
    assert sweep_param([base]) is None
    assert sweep_param([base, base]) is None


# -- HTML ------------------------------------------------------------------------------------


def _external_refs(doc: str) -> list[str]:
    return re.findall(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", doc, flags=re.I)


def test_single_report_self_contained(runs, tmp_path):
    out = build_report([runs["base"]], tmp_path / "sub" / "report.html")
    doc = out.read_text()
    assert out.exists() and doc.startswith("<!DOCTYPE html>")
    assert not _external_refs(doc)
    assert "<link" not in doc and "<script src" not in doc and "@import" not in doc
    for section in (
        "Win rate per bot",
        "Seat fairness",
        "Ties",
        "Score distribution",
        "Where the points come from",
        "Game length",
        "Finishing ranks",
        "Key findings",
        "reconstructed deck",
        "Toy Game",
    ):
        assert section in doc, section
    imgs = re.findall(r'<img src="([^"]+)"', doc)
    assert len(imgs) >= 6 and all(s.startswith("data:image/png;base64,") for s in imgs)
    assert "Comparison" not in doc


def test_interrupted_warning(runs, tmp_path):
    out = build_report([runs["interrupted"]], tmp_path)  # an existing directory: OUT/report.html
    assert out == tmp_path / "report.html"
    doc = out.read_text()
    assert "Interrupted run." in doc and "Only 120 at 3P games were played out of 300 requested" in doc


def test_paired_and_sweep_report(runs, tmp_path):
    doc = build_report([runs["base"], runs["variant"]], tmp_path / "cmp.html", title="Bonus what-if").read_text()
    assert "<title>Bonus what-if</title>" in doc
    assert "Comparison" in doc and "paired</span>" in doc and "common random numbers" in doc
    assert "Sweep over <code>bonus</code>" in doc
    assert "Key changes" in doc and "where the points come from" in doc
    assert re.search(r"points shift in bonus \(\+\d", doc)  # the bonus category carries the change
    assert not _external_refs(doc)


def test_unpaired_report(runs, tmp_path):
    doc = build_report([runs["base"], runs["other_seed"]], tmp_path / "u.html").read_text()
    assert "unpaired</span>" in doc and "Not paired (different seed)" in doc


def test_many_player_counts_one_bot(tmp_path):
    d = make_run(tmp_path / "mirror", players=(2, 3, 4, 5), games=60, bots=("greedy",), bonus=3)
    st = run_stats(load_run(d))
    assert st.by_bot["seats_per_game"].to_list() == [2.0, 3.0, 4.0, 5.0]
    # one bot in every seat: it wins every game, 1/P per seat
    assert st.by_bot["games_won"].to_numpy() == pytest.approx(1.0)
    assert st.by_bot["win_rate"].to_numpy() == pytest.approx([1 / 2, 1 / 3, 1 / 4, 1 / 5])
    doc = build_report([d], tmp_path / "m.html").read_text()
    assert "games won by the bot" in doc and "bonus" in doc and "Parameters changed from the rule book" in doc


def test_report_errors(runs, tmp_path):
    with pytest.raises(MeeplabError, match="no run directories"):
        build_report([], tmp_path / "x.html")
    with pytest.raises(MeeplabError, match="does not exist"):
        build_report([runs["base"], tmp_path / "missing"], tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()
    (tmp_path / "blocker").write_text("a file where a folder is needed")
    with pytest.raises(MeeplabError, match="cannot write report"):
        build_report([runs["interrupted"]], tmp_path / "blocker" / "r.html")


def test_distinct_games_counted_for_a_game_without_chance(tmp_path):
    from meeplab.analysis.stats import distinct_games

    d = make_run(tmp_path / "nochance", players=(3,), games=40)
    df = pl.read_parquet(d / "results.parquet")
    # games 20..39 repeat games 0..19 exactly (same bots, scores, breakdowns and lengths): 20 distinct games
    first = df.filter(pl.col("game_index") < 20)
    df = pl.concat([first, first.with_columns(pl.col("game_index") + 20)])
    df.write_parquet(d / "results.parquet")
    meta = json.loads((d / "run.json").read_text())
    meta["chance"] = False
    (d / "run.json").write_text(json.dumps(meta))
    run = load_run(d)
    counts = distinct_games(run).row(0, named=True)
    assert (counts["games"], counts["distinct"]) == (40, 20)
    out = build_report([d], tmp_path / "r.html")
    html = out.read_text()
    assert "Distinct games" in html and "no chance once it starts" in html
    meta["chance"] = True  # a game with chance: no such section
    (d / "run.json").write_text(json.dumps(meta))
    assert "Distinct games" not in build_report([d], tmp_path / "r2.html").read_text()


def test_a_bot_that_never_wins_is_named_as_adding_nothing_to_the_seat_model(tmp_path):
    skill = {"greedy": 3.0, "heuristic": 2.0, "hopeless": -100.0}
    d = make_run(tmp_path / "r", players=(3,), bots=("greedy", "heuristic", "hopeless"), skill=skill)
    st = run_stats(load_run(d))
    assert st.seat_model[3].estimable and st.seat_model[3].never_won == ("hopeless",)
    doc = build_report([d], tmp_path / "r.html").read_text()
    assert "hopeless never won at 3 players and adds nothing to the seat model." in doc
    base = run_stats(load_run(make_run(tmp_path / "b", players=(3,), bots=("greedy", "heuristic", "random"))))
    assert base.seat_model[3].never_won == ()


def test_compare_report_reads_the_score_direction(runs, tmp_path):
    """A game whose highest score wins keeps its wording; the same comparison of a lower-wins game (run.json's
    ``lower_wins``) says in its key changes, column heads and chart caption that a lower score is better."""
    doc = build_report([runs["base"], runs["other_seed"]], tmp_path / "hi.html").read_text()
    assert "lower is better" not in doc and "Lowest score wins" not in doc
    low = {}
    for key in ("base", "other_seed"):
        src = runs[key]
        dst = tmp_path / key
        dst.mkdir()
        (dst / "results.parquet").write_bytes((src / "results.parquet").read_bytes())
        meta = json.loads((src / "run.json").read_text())
        (dst / "run.json").write_text(json.dumps({**meta, "lower_wins": True}))
        low[key] = dst
    doc = build_report([low["base"], low["other_seed"]], tmp_path / "lo.html").read_text()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", doc))
    assert "Lowest score wins: a bot gains when its mean score falls, so a Δ score below 0 is better" in text
    assert "unpaired" in text and "Δ score (lower is better)" in text
    assert "(lowest score wins: points count against a player)" in text


# -- the view models -------------------------------------------------------------------------


def test_view_models_are_small_frozen_dataclasses():
    """reports/views.py is the contract between the data and the templates: every class in it is a frozen dataclass
    with a docstring, and every section names a template that exists."""
    import dataclasses
    import inspect
    from importlib import resources

    from meeplab.reports import views

    classes = [c for _, c in inspect.getmembers(views, inspect.isclass) if c.__module__ == views.__name__]
    assert len(classes) > 20
    templates = {p.name for p in (resources.files("meeplab.reports") / "templates").iterdir()}
    for c in classes:
        assert dataclasses.is_dataclass(c) and c.__dataclass_params__.frozen, c
        assert c.__doc__ and c.__doc__.strip(), c
        if issubclass(c, views.Section) and c is not views.Section:
            assert c.template in templates, c


def test_report_templates_read_fields_only():
    """The report templates read the view models' fields and loop over them: no subscript or ``.get`` lookup of
    data, no mapping test, and no statistical threshold of their own (the viewer page, whose data is its script's
    JSON, is not a report)."""
    from importlib import resources

    folder = resources.files("meeplab.reports") / "templates"
    for path in folder.iterdir():
        if not path.name.endswith(".html.j2") or path.name.startswith("viewer"):
            continue
        for expr in re.findall(r"\{\{.*?\}\}|\{%.*?%\}", path.read_text(encoding="utf-8"), flags=re.S):
            assert "[" not in expr and ".get(" not in expr and "mapping" not in expr, (path.name, expr)
            assert not re.search(r"[<>]=?\s*0?\.\d", expr), (path.name, expr)


def test_a_report_of_three_runs_or_more_folds_each_runs_details(tmp_path, capsys):
    """A sweep's report answers on its first screens: with three runs or more each run's charts and tables sit in a
    closed <details> under its key findings; a compare's two runs stay open."""
    from meeplab.reports import build_report
    from tests.cli_run import run_cli

    dirs = []
    for v in (2, 3, 4):
        d = tmp_path / f"v{v}"
        code, _, se = run_cli(["run", "schweinebande", "-n", "60", "-p", "3", "-b", "greedy", "--set",
                               f"pig_bonus_farm={v}", "-q", "--threads", "1", "--out", str(d)], capsys)  # fmt: skip
        assert code == 0, se
        dirs.append(d)
    three = build_report(dirs, tmp_path / "three.html").read_text()
    two = build_report(dirs[:2], tmp_path / "two.html").read_text()
    assert three.count('<details class="run-detail">') == 3 and "run-detail" not in two


def test_a_chart_drawn_again_from_the_same_content_is_the_same_picture(monkeypatch):
    """A run's charts recur in every report holding the run: drawn once per process from the same content (frames
    equal in values, order and types; the same names and colours; matplotlib's settings), then handed out again; any
    change of content or style draws anew, and so does every chart while the figures themselves are looked at
    (to_uri replaced)."""
    from meeplab.reports import charts

    def frame(win):
        return pl.DataFrame({"n_players": [2, 2, 3], "bot": ["a", "b", "a"], "win_rate": win, "lo": [0.1] * 3,
                             "hi": [0.9] * 3, "fair": [0.5, 0.5, 1 / 3]})  # fmt: skip

    colors = {"a": "#3B6FB6", "b": "#E07B39"}
    drawn = []
    real = charts.plt.subplots
    monkeypatch.setattr(charts.plt, "subplots", lambda *a, **k: drawn.append(1) or real(*a, **k))
    charts._DRAWN.clear()
    first = charts.win_rate_by_bot(frame([0.5, 0.4, 0.3]), colors)
    again = charts.win_rate_by_bot(frame([0.5, 0.4, 0.3]), dict(colors))
    assert again == first and first.startswith("data:image/png;base64,") and len(drawn) == 1
    other = charts.win_rate_by_bot(frame([0.5, 0.4, 0.35]), colors)  # one value changed
    recoloured = charts.win_rate_by_bot(frame([0.5, 0.4, 0.3]), {"a": "#000000", "b": "#E07B39"})
    typed = charts.win_rate_by_bot(frame([0.5, 0.4, 0.3]).with_columns(pl.col("n_players").cast(pl.Int32)), colors)
    assert len(drawn) == 4 and len({first, other, recoloured}) == 3 and typed == first
    with charts.matplotlib.rc_context({"font.size": 14}):  # another style: drawn anew
        bigger = charts.win_rate_by_bot(frame([0.5, 0.4, 0.3]), colors)
    assert bigger != first and len(drawn) == 5
    monkeypatch.setattr(charts, "to_uri", lambda fig: "looked at")
    assert charts.win_rate_by_bot(frame([0.5, 0.4, 0.3]), colors) == "looked at" and len(drawn) == 6
    assert charts.win_rate_by_bot(frame([0.5, 0.4, 0.3]), colors) == "looked at" and len(drawn) == 7

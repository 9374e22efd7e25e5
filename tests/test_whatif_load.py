"""meeplab.load opens every directory meeplab writes: runs, comparisons, sweeps, fair searches, experiments (with and
without [sprt]), tournaments and ladders, each with its own frames; seats numbered from 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_whatif_seats import seat_run

import meeplab
from meeplab.cli import main
from meeplab.sim.core.errors import MeeplabError

EXAMPLES = Path(__file__).resolve().parents[1] / "scripts" / "experiments"
SB = ["schweinebande", "--quiet", "--players", "2", "--bots", "greedy", "--games", "60"]


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    """Real commands where the directory's record is the command's own (fair, tournament, ladder); sweeps and
    experiments are directories of runs laid out as the commands lay them out (synthetic rows: no report to draw)."""
    root = tmp_path_factory.mktemp("load")
    out = {k: root / k for k in ("run", "sweep", "fair", "exp", "seq", "tournament", "ladder")}
    calls = [
        ["run", *SB, "--out", str(out["run"])],
        ["fair", *SB, "--param", "start_feed:2", "--range", "0:2", "--target", "gap", "--steps", "1"]
        + ["--out", str(out["fair"])],
        ["tournament", "schweinebande", "--quiet", "--players", "2", "--bots", "greedy,random", "--games", "40"]
        + ["--out", str(out["tournament"])],
        ["ladder", "schweinebande", "--players", "2", "--bots", "random,greedy", "--games", "40", "--quiet"]
        + ["--out", str(out["ladder"])],
    ]
    for args in calls:
        assert main(args) == 0, args
    probs = [[0.5, 0.3, 0.2], [0.45, 0.3, 0.25], [0.4, 0.3, 0.3]]
    for v, pr in enumerate(probs):
        seat_run(out["sweep"] / f"bonus={v}", pr, games=600, value=v, label=f"bonus={v}")
    for name, pr in zip(("baseline", "more", "less"), probs):
        seat_run(out["exp"] / name, pr, games=600, value=probs.index(pr), label=name)
    for name, pr in zip(("more", "less"), probs[1:]):
        seat_run(out["seq"] / name / "baseline", probs[0], games=600, label="baseline")
        var = seat_run(out["seq"] / name / "variant", pr, games=600, value=1, label=name)
        meta = json.loads((var / "run.json").read_text())
        meta["sprt"] = {"tests": [], "metric_label": "seat 1's win rate", "status": "complete"}
        (var / "run.json").write_text(json.dumps(meta))
    return out


def test_run_and_seats_from_one(dirs):
    r = meeplab.load(dirs["run"])
    assert isinstance(r, meeplab.Result)
    assert sorted(r.seats()["seat"]) == [1, 2]
    res = r.results
    assert set(res["seat"]) == {1, 2} and set(res["seat_index"]) == {0, 1}


def test_sweep(dirs):
    s = meeplab.load(dirs["sweep"])
    assert isinstance(s, meeplab.Study) and s.kind == "sweep" and len(s.runs) == 3
    v = s.values()
    assert list(v.columns) == ["run", "path", "bonus"] and list(v["bonus"]) == [0, 1, 2]
    g = s.seat_gaps()
    assert len(g) == 3 and {"gap", "lo", "hi", "best", "worst", "d", "d_lo", "d_hi", "p", "run"} <= set(g.columns)
    assert list(g["run"]) == ["bonus=0", "bonus=1", "bonus=2"]
    assert set(g["best"]) == {1} and list(g["worst"][:2]) == [3, 3]
    assert g["gap"].is_monotonic_decreasing and g["d"][2] < 0
    assert set(s.win_rates()["run"]) == set(s.runs)
    assert len(s.comparisons()) == 2
    with pytest.raises(MeeplabError, match="belongs to tournament"):
        s.ratings()


def test_fair(dirs):
    f = meeplab.load(dirs["fair"])
    assert f.kind == "fair" and f.record["target"] == "gap"
    a = f.answers()
    assert len(a) == 1 and 0 <= a["value"][0] <= 2 and a["seat_gap"][0] >= 0
    assert len(f.search()) >= 2 and len(f.runs) >= 2


def test_experiments(dirs):
    e = meeplab.load(dirs["exp"])
    assert e.kind == "experiment" and "baseline" in e.runs and len(e.comparisons()) == len(e.runs) - 1
    assert len(e.seat_gaps()) >= len(e.runs)
    q = meeplab.load(dirs["seq"])
    assert q.kind == "experiment" and all(c.sprt is not None for c in q.comparisons().values())


def test_tournament_and_ladder(dirs):
    t = meeplab.load(dirs["tournament"])
    assert t.kind == "tournament" and set(t.ratings()["bot"]) == {"greedy", "random"}
    assert t.seats()["seat"].min() == 1
    assert sorted(t.record["seats"], key=lambda r: r["seat"])[0]["effect"] == 0.0  # the file: seat 1 the reference


def test_an_older_tournament_json_counting_seats_from_0(dirs, tmp_path):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(dirs["tournament"], old)
    rec = json.loads((old / "tournament.json").read_text())
    rec["seats"] = [dict(r, seat=r["seat"] - 1) for r in rec["seats"]]  # as tournament wrote it before 2026-12-03
    (old / "tournament.json").write_text(json.dumps(rec))
    assert meeplab.load(old).seats().to_dict("records") == meeplab.load(dirs["tournament"]).seats().to_dict("records")
    lad = meeplab.load(dirs["ladder"])
    assert lad.kind == "ladder" and len(lad.rungs()) >= 2


def test_not_a_meeplab_directory(tmp_path):
    with pytest.raises(MeeplabError, match="not a directory meeplab wrote"):
        meeplab.load(tmp_path)
    with pytest.raises(MeeplabError, match="no such directory"):
        meeplab.load(tmp_path / "nope")


def test_a_sweeps_baseline_is_its_first_value_given_in_python_as_in_its_report(tmp_path, capsys):
    """`--values "3;1"`: the report and the stdout table compare against 3, the value given first; meeplab.load
    reads the same order from the sweep's sweep.json (it took the lowest value before)."""
    out = tmp_path / "sw"
    args = ["sweep", "schweinebande", "--param", "start_feed", "--values", "3;1", "--players", "3", "--games", "200",
            "--bots", "greedy", "--threads", "1", "-q", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    s = meeplab.load(out)
    assert s.kind == "sweep" and s.record["runs"] == ["start_feed=3", "start_feed=1"]
    assert list(s.comparisons()) == ["start_feed=1"]  # against the baseline start_feed=3
    assert list(s.values()["start_feed"]) == [3, 1]


def test_a_ladders_seat_gaps_are_its_self_play_rungs(dirs):
    s = meeplab.load(dirs["ladder"])
    g = s.seat_gaps()
    assert sorted(set(g["run"])) == sorted(f"{r} (self-play)" for r in ("random", "greedy"))
    assert g["run"].iloc[0] == "random (self-play)"  # weakest rung first: the others' change is against it


def test_a_compare_directory_has_seat_gaps(tmp_path):
    c = meeplab.compare("schweinebande", {"start_feed": 1}, games=200, players=3, bots="greedy", threads=1,
                        out=tmp_path / "c")  # fmt: skip
    again = meeplab.load(tmp_path / "c")
    for cmp in (c, again):
        g = cmp.seat_gaps()
        assert list(g["run"]) == ["baseline", "variant"]
        assert {"gap", "lo", "hi", "d", "d_lo", "d_hi"} <= set(g.columns)

"""``meeplab learn --target values|visits``: the search's values recorded with its decisions, and the policy fitted
to the search's whole verdict (AlphaZero's policy target) instead of its one pick."""

from __future__ import annotations

import math

import numpy as np
import pytest

from meeplab.lab.studies import learn as ln
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.policy import Shape

ONLY = Shape({"only": ("a", "b", "c")})


def _decisions(values, visits, picks, feats=None):
    """Decisions of one kind from per-decision lists of candidate values and visits."""
    sizes = [len(v) for v in values]
    rows = sum(sizes)
    return ln.Decisions(
        kind=np.zeros(len(values), np.int64), seat=np.zeros(len(values), np.int64),
        game=np.arange(len(values)), n=np.array(sizes), pick=np.array(picks),
        start=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        feats=np.zeros((rows, 3)) if feats is None else feats, code=np.zeros(rows, np.int64),
        progress=np.zeros(len(values)), value=np.concatenate(values).astype(float),
        visits=np.concatenate(visits).astype(float),
    )  # fmt: skip


def test_the_targets_are_the_searched_values_softmax_or_their_visit_shares():
    data = _decisions(
        values=[[0.2, 0.5, 0.0], [0.0, 0.0], [0.7, 0.0, 0.3]],
        visits=[[8, 8, 0], [0, 0], [30, 0, 10]],
        picks=[1, 0, 0],
    )
    which = np.arange(3)
    soft = ln.targets_of(data, which, "values", temperature=0.1)
    e = math.exp(-3.0)
    assert soft[:3] == pytest.approx([e / (1 + e), 1 / (1 + e), 0.0])  # left out by the search: 0
    assert list(soft[3:5]) == [1.0, 0.0]  # no search values: the candidate played
    e4 = math.exp(-4.0)
    assert soft[5:] == pytest.approx([1 / (1 + e4), 0.0, e4 / (1 + e4)])
    shares = ln.targets_of(data, which, "visits")
    assert list(shares) == [0.5, 0.5, 0.0, 1.0, 0.0, 0.75, 0.0, 0.25]
    assert ln.targets_of(data, which, "pick") is None
    assert ln.targets_of(data, np.array([2]), "values", 1.0) == pytest.approx(
        np.exp([0.7, -np.inf, 0.3]) / np.exp([0.7, 0.3]).sum()
    )


def _noisy_teacher(n_dec, seed, noise):
    """A search whose candidates' true values are 0.1 (2 a - b c), measured with noise ``noise``: it plays the best
    measured one. Also the index of the truly best candidate of each decision."""
    rng = np.random.default_rng(seed)
    values, visits, picks, rows, best = [], [], [], [], []
    for _ in range(n_dec):
        k = int(rng.integers(3, 7))
        f = rng.normal(size=(k, 3))
        true = 0.1 * (2 * f[:, 0] - f[:, 1] * f[:, 2])
        v = true + noise * rng.normal(size=k)
        values.append(v)
        visits.append(np.full(k, 8.0))
        picks.append(int(np.argmax(v)))
        rows.append(f)
        best.append(int(np.argmax(true)))
    return _decisions(values, visits, picks, np.concatenate(rows)), np.array(best)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_value_targets_learn_more_from_a_noisy_search_than_its_picks(seed):
    """Fitted to the same 400 noisy decisions, the value targets find the truly best candidate more often (on 3,000
    fresh decisions) than the picks do: a decision's values say how much better, and which others are close."""
    data, _ = _noisy_teacher(400, seed, 0.1)
    fresh, best = _noisy_teacher(3000, 100 + seed, 0.1)
    fresh.pick = best
    got = {}
    for target in ("pick", "values"):
        f = ln.fit(data, ONLY, holdout=0.0, l2=1e-4, target=target, temperature=0.1)
        got[target] = ln.agreement_of(fresh, ONLY, dict(zip(f.names, f.weights)), holdout=0.9999)
    assert got["values"] > got["pick"] + 0.005, got


def test_a_record_without_values_is_refused_for_value_targets_and_old_records_still_load(tmp_path):
    data = _decisions(values=[[0.0, 0.0]], visits=[[0, 0]], picks=[1])
    assert not data.has_values()
    with pytest.raises(MeeplabError, match="carry no search values"):
        ln.fit(data, ONLY, target="values")
    # a record written before values were kept (no value/visits arrays) loads with none
    fields = {k: getattr(data, k) for k in data.__dataclass_fields__ if k not in ("value", "visits")}
    np.savez(tmp_path / "old.npz", **fields)
    back = ln.Decisions.load(tmp_path / "old.npz")
    assert not back.has_values() and back.visits.shape == (2,)
    np.savez(tmp_path / "bad.npz", **fields, value=np.zeros(2), visits=np.array([1.0, -1.0]))
    with pytest.raises(MeeplabError, match="do not fit together"):
        ln.Decisions.load(tmp_path / "bad.npz")


@pytest.fixture(scope="module")
def sb():
    from meeplab.lab.runs.plan import RunConfig, plan_run
    from meeplab.sim.core.registry import get_game

    g = get_game("schweinebande")
    return g, plan_run(RunConfig(g, 4, [2], ["rollout"]))


def test_recording_a_search_keeps_its_values_and_the_same_games(sb):
    """With values, each decision keeps every candidate the rollout searched (at most 8, before those drawn at
    random), with its mean playout value over its playouts (8, fewer where the race left it early); the games and the
    candidates played are those of a record without values, and the one played is always one the search weighed."""
    g, plan = sb
    lineup = ln.reading_all(plan.lineups[2])
    plain = ln.record(g, plan.ctx, lineup, 2, 5, range(3), max_candidates=10)
    withv = ln.record(g, plan.ctx, lineup, 2, 5, range(3), max_candidates=10, values=True)
    for k in ("kind", "seat", "game", "n", "progress"):
        assert np.array_equal(getattr(plain, k), getattr(withv, k)), k
    assert not plain.has_values() and withv.has_values()
    many = 0
    for d in range(len(withv)):
        s, e = withv.start[d], withv.start[d + 1]
        vis = withv.visits[s:e]
        assert np.count_nonzero(vis) == min(withv.n[d], 8)  # rollout's budget: at most 8 candidates searched
        # 8 playouts each, or fewer for a candidate out of the race early (rollout races from round 4 on)
        assert set(vis[vis > 0]) <= {4.0, 5.0, 6.0, 7.0, 8.0}
        assert vis[withv.pick[d]] == vis.max()  # the one played was still in the race at its end
        assert np.array_equal(withv.feats[s + withv.pick[d]], plain.feats[plain.start[d] + plain.pick[d]])
        many += withv.n[d] > 10
    assert many > 0  # some decisions were sampled down, and kept their searched candidates


def test_an_ismcts_record_keeps_its_root_visits(sb):
    """ismcts leaves its root candidates' value sums and visits in the scratch: the record's visits of a decision
    add up to the search's iterations (8 per root candidate at its default budget)."""
    from meeplab.sim.core.bots import make_lineup

    g, plan = sb
    lineup = ln.reading_all(make_lineup(g.id, ["ismcts"], 2, True))
    got = ln.record(g, plan.ctx, lineup, 2, 5, range(2), max_candidates=32, values=True)
    tot = np.add.reduceat(got.visits, got.start[:-1])
    searched = np.add.reduceat((got.visits > 0).astype(int), got.start[:-1])
    assert np.all(tot[searched > 1] == 8 * searched[searched > 1])
    assert np.all(np.abs(got.value[got.visits > 0]) < 10)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--target", "values", "--teacher", "heuristic"], "heuristic is no search bot"),
        (["--target", "visits", "--temperature", "0"], "--temperature must be in"),
        (["--target", "nosuch"], "Invalid value for '--target'"),
    ],
)
def test_learn_refuses_a_target_it_cannot_fit_in_one_line(tmp_path, capsys, extra, message):
    from tests.cli_run import run_cli

    code, _, se = run_cli(["learn", "schweinebande", "--out", str(tmp_path / "o"), *extra], capsys)
    assert code == 2 and message in se and "Traceback" not in se
    assert not (tmp_path / "o").exists()


def test_learn_fits_a_search_value_target_end_to_end(tmp_path, capsys):
    """A tiny run: rollout's values recorded, the fit to them, the header says so, and --resume fits its visits
    on the same record without playing."""
    import json

    from tests.cli_run import run_cli

    out = tmp_path / "v"
    args = ["learn", "schweinebande", "-p", "2", "--teacher", "rollout", "--games", "4", "--threads", "1",
            "--out", str(out), "--target", "values"]  # fmt: skip
    code, so, se = run_cli(args, capsys)
    assert code == 0 and "learned against its teacher rollout" in so, se
    rec = json.loads((out / "learn.json").read_text())
    assert rec["target"] == "values" and rec["temperature"] == 0.1
    assert "the softmax of rollout's searched values (temperature 0.1)" in (out / "learned.toml").read_text()
    assert json.loads((out / "decisions-p2.json").read_text())["values"] is True
    code, _, se = run_cli([*args[:-1], "visits", "--resume", "--name", "byvisits"], capsys)
    assert code == 0 and "recorded before" in se, se
    assert "rollout's visit shares" in (out / "byvisits.toml").read_text()

"""meeplab learn: the policy's compiled scoring equals its definition, the fit recovers a teacher it can express,
agreement is measured on games it never saw, and the files it writes are bots the lab loads."""

import numpy as np
import pytest

from meeplab.lab.studies import learn as ln
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.policy import phi, phi_names, policy_choose, policy_weight_names, width
from meeplab.sim.core.rng import rng_init


def _choose(kind, feats, weights, seed=1):
    rng = np.zeros(4, dtype=np.uint64)
    rng_init(rng, seed, 0)
    n = feats.shape[0]
    return policy_choose(kind, np.zeros(1, np.int64), np.zeros((n, 1), np.int64), n, feats, weights, rng)


def test_the_compiled_policy_plays_the_best_score_of_its_definition():
    rng = np.random.default_rng(5)
    for trial in range(200):
        nf, n, kinds = int(rng.integers(1, 6)), int(rng.integers(2, 12)), 3
        feats = rng.normal(size=(n, nf)).round(2)
        weights = rng.normal(size=kinds * width(nf))
        kind = int(rng.integers(kinds))
        d = width(nf)
        scores = phi(feats) @ weights[kind * d : (kind + 1) * d]
        best = np.flatnonzero(scores >= scores.max() - 1e-9)
        assert _choose(kind, feats, weights, seed=trial + 1) in best


def test_phi_names_every_term_in_order():
    names = phi_names(("gain", "left"))
    assert names == ["gain", "left", "gain*gain", "gain*left", "left*left", "top:gain"]
    assert len(names) == width(2)
    assert policy_weight_names({"place": ("gain", "left"), "sell": ("gain", "left")})[6] == "sell.gain"


def test_a_kind_without_weights_is_a_uniform_pick():
    feats = np.arange(12.0).reshape(6, 2)
    picks = {_choose(5, feats, np.ones(width(2)), seed=s) for s in range(1, 60)}
    assert picks == set(range(6))


def _teacher_data(n_dec=3000, nf=3, seed=0, noise=0.0):
    """Decisions of a teacher that plays the best of 2*f0 - f1*f2 (a policy the model can express)."""
    rng = np.random.default_rng(seed)
    kind, n, pick, start, rows, game = [], [], [], [0], [], []
    for d in range(n_dec):
        k = int(rng.integers(2, 7))
        f = rng.normal(size=(k, nf))
        score = 2 * f[:, 0] - f[:, 1] * f[:, 2] + noise * rng.normal(size=k)
        kind.append(0)
        n.append(k)
        pick.append(int(np.argmax(score)))
        rows.append(f)
        start.append(start[-1] + k)
        game.append(d // 30)
    return ln.Decisions(
        kind=np.array(kind), seat=np.zeros(n_dec, np.int64), game=np.array(game), n=np.array(n),
        pick=np.array(pick), start=np.array(start), feats=np.concatenate(rows),
    )  # fmt: skip


def test_the_fit_recovers_a_teacher_it_can_express_and_measures_it_on_unseen_games():
    data = _teacher_data()
    got = ln.fit(data, {"only": ("a", "b", "c")}, holdout=0.25, l2=1e-4)
    (k,) = got.kinds
    assert k.held_out > 500 and k.train > 1500
    assert k.agreement > 0.93  # the teacher is inside the model's reach
    assert k.greedy_agreement < 0.8  # playing the best column 0 is not the teacher
    d = width(3)
    w = got.weights[:d]
    assert w[phi_names(("a", "b", "c")).index("b*c")] < 0 < w[0]
    agree, n = got.agreement()
    assert n == k.held_out and agree == k.agreement


def test_noise_in_the_teacher_lowers_held_out_agreement_not_the_fit():
    clean = ln.fit(_teacher_data(noise=0.0), {"only": ("a", "b", "c")}).agreement()[0]
    noisy = ln.fit(_teacher_data(noise=2.0), {"only": ("a", "b", "c")}).agreement()[0]
    assert noisy < clean - 0.1


def test_a_record_of_decisions_survives_a_round_trip_and_a_strangers_file_is_refused(tmp_path):
    data = _teacher_data(200)
    data.save(tmp_path / "d.npz")
    back = ln.Decisions.load(tmp_path / "d.npz")
    assert np.array_equal(back.feats, data.feats) and np.array_equal(back.start, data.start)
    (tmp_path / "bad.npz").write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(MeeplabError, match="not a record of teacher decisions"):
        ln.Decisions.load(tmp_path / "bad.npz")
    np.savez(tmp_path / "edited.npz", **{**{k: getattr(data, k) for k in data.__dataclass_fields__},
                                        "pick": data.pick + 50})  # fmt: skip
    with pytest.raises(MeeplabError, match="do not fit together"):
        ln.Decisions.load(tmp_path / "edited.npz")


def test_phi_of_all_rows_at_once_is_phi_of_each_decision():
    data = _teacher_data(50)
    whole = ln.phi_rows(data)
    each = np.concatenate([phi(data.feats[s:e]) for s, e in zip(data.start[:-1], data.start[1:])])
    assert np.array_equal(whole, each)


def test_learn_writes_a_bot_that_the_lab_plays_and_fits_again_without_playing(tmp_path, capsys):
    """A tiny run end to end: the teacher's decisions, the fit, OUT/NAME.toml as a bot config, and a second learn
    into OUT reading the recorded games instead of playing them."""
    import json

    from tests.cli_run import run_cli

    out = tmp_path / "learn"
    args = ["learn", "schweinebande", "--players", "3", "--teacher", "heuristic", "--games", "12", "--threads", "1",
            "--out", str(out), "--name", "mine"]  # fmt: skip
    code, so, se = run_cli(args, capsys)
    assert code == 0, se
    assert "mine against its teacher heuristic" in so and "agreement" in so
    rec = json.loads((out / "learn.json").read_text())
    assert rec["teacher"] == "heuristic" and rec["decisions"] > 100 and 0 <= rec["agreement"] <= 1
    # the teacher is a linear bot on the recorded columns: on its own decisions it agrees with itself wherever its
    # candidates differ (where they tie, as Schweinebande's face-down tiles do, a random pick agrees by chance)
    mine = rec["linear_bots_agreement"]["heuristic"]
    assert mine >= rec["agreement"] - 0.01 and mine > rec["best_column_0_agreement"]
    text = (out / "mine.toml").read_text()
    assert text.startswith("# Made by: meeplab ") and 'base = "policy"' in text
    code, so, se = run_cli(
        ["run", "schweinebande", "-n", "30", "-p", "3", "-b", "mine,heuristic", "--bot-config", str(out / "mine.toml"),
         "--threads", "1", "-q", "--out", str(tmp_path / "run")],
        capsys,
    )  # fmt: skip
    assert code == 0, se
    code, so, se = run_cli(args, capsys)
    assert code == 2 and "already holds a learned bot" in se
    code, so2, se = run_cli(args + ["--resume", "--json"], capsys)
    assert code == 0 and "recorded before" in se, se
    assert json.loads(so2)["agreement"] == rec["agreement"]  # the same decisions, the same fit
    code, so3, se = run_cli(args + ["--force", "--json"], capsys)
    assert code == 0 and "recorded before" not in se  # --force plays again, from the same seeds
    assert json.loads(so3)["agreement"] == rec["agreement"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--teacher", "nosuchbot"], "nosuchbot"),
        (["--games", "0"], "--games must be a positive"),
        (["--name", "a/b"], "--name"),
        (["--holdout", "1.5"], "--holdout must be in"),
        (["--max-candidates", "1"], "--max-candidates must be at least 2"),
    ],
)
def test_learn_refuses_bad_input_in_one_line(tmp_path, capsys, extra, message):
    from tests.cli_run import run_cli

    code, _, se = run_cli(["learn", "schweinebande", "--out", str(tmp_path / "o"), *extra], capsys)
    assert code == 2 and message in se and "Traceback" not in se
    assert not (tmp_path / "o").exists()


def test_a_linear_bot_is_measured_on_the_same_decisions_as_the_fit():
    data = _teacher_data(600)
    feats = {"only": ("a", "b", "c")}
    assert ln.agreement_of(data, feats, {"only.a": 2.0, "only.b*c": -1.0}) > 0.99  # the teacher itself
    assert ln.agreement_of(data, feats, {"only.a": 1.0}) == pytest.approx(ln.fit(data, feats).greedy_agreement())


def test_recording_is_the_same_for_any_thread_count_and_keeps_only_real_choices():
    from meeplab.lab.runs.plan import RunConfig, plan_run
    from meeplab.sim.core.registry import get_game

    g = get_game("schweinebande")
    plan = plan_run(RunConfig(g, 6, [3], ["heuristic"]))
    lineup = ln.reading_all(plan.lineups[3])
    one = ln.record(g, plan.ctx, lineup, 3, 5, range(6), max_candidates=4, threads=1)
    two = ln.record(g, plan.ctx, lineup, 3, 5, range(6), max_candidates=4, threads=2)
    for k in one.__dataclass_fields__:
        assert np.array_equal(getattr(one, k), getattr(two, k)), k
    sizes = np.diff(one.start)
    assert np.all(one.n >= 2) and np.all(sizes == np.minimum(one.n, 4))  # sampled down to 4, the pick kept
    assert np.all(one.pick < sizes) and set(np.unique(one.game)) == set(range(6))

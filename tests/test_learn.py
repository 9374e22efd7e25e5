"""meeplab learn: the policy's compiled scoring equals its definition, the fit recovers a teacher it can express,
agreement is measured on games it never saw, and the files it writes are bots the lab loads."""

import numpy as np
import pytest

from meeplab.lab.studies import learn as ln
from meeplab.sim.core.bots import ready_bot
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.policy import Shape, phi, phi_names, policy_bot_choose, width
from meeplab.sim.core.rng import rng_below, rng_init


def _choose(kind, feats, weights, seed=1, codes=None, view=None):
    """The policy as a line-up plays it: the bot's choose, compiled for the bots' signature only (no compile of its
    own for these arrays' types)."""
    rng = np.zeros(4, dtype=np.uint64)
    rng_init(rng, seed, 0)
    n = feats.shape[0]
    moves = np.zeros((n, 1), np.int64) if codes is None else np.asarray(codes, np.int64).reshape(n, 1)
    view = np.zeros(1, np.int64) if view is None else np.asarray(view, np.int64)
    return ready_bot(policy_bot_choose)(kind, view, moves, n, feats, weights, rng)


def test_the_compiled_policy_plays_the_best_score_of_its_definition():
    """Random shapes (kinds with and without move codes, with progress), random weights: the compiled choice is
    always among the best of phi's scores in the candidate's own code block."""
    rng = np.random.default_rng(5)
    for trial in range(200):
        nf, n = int(rng.integers(1, 6)), int(rng.integers(2, 12))
        cols = tuple(f"c{j}" for j in range(nf))
        shape = Shape({"a": cols, "b": cols, "c": cols}, {"b": 3}, (0, 1) if trial % 2 else None)
        w = shape.vector({})
        h = len(shape.header())
        w[h : h + len(shape.weight_names())] = rng.normal(size=len(shape.weight_names()))  # temperature 0: the best
        feats = rng.normal(size=(n, nf)).round(2)
        codes = rng.integers(-1, 5, size=n)  # out of range: clamped
        view = np.array([int(rng.integers(0, 9)), 8])
        kind = int(rng.integers(3))
        name = shape.kinds[kind]
        x = view[0] / view[1] if shape.progress else 0.0
        block = np.clip(codes, 0, shape.n_codes(name) - 1) * width(nf) + shape.at(name)
        P = phi(feats, x=x)
        scores = np.array([P[i] @ w[block[i] : block[i] + width(nf)] for i in range(n)])
        best = np.flatnonzero(scores >= scores.max() - 1e-9)
        assert _choose(kind, feats, w, seed=trial + 1, codes=codes, view=view) in best


def _drawn_among_ties(scores, trial):
    """What one pass over the rows in order picks: the rows within 1e-9 of the best score, one drawn with the
    stream of seed ``trial`` when several tie; and whether there was a draw."""
    scores = np.asarray(scores)
    tied = np.flatnonzero(scores >= scores.max() - 1e-9)
    if len(tied) == 1:
        return int(tied[0]), False
    stream = np.zeros(4, dtype=np.uint64)
    rng_init(stream, trial, 0)
    return int(tied[rng_below(stream, len(tied))]), True


def test_the_compiled_policy_draws_among_exact_ties_as_a_row_by_row_pass_does():
    """The compiled policy scores four rows at a time: with duplicate rows (exact ties; up to 40 rows, so several
    blocks of four and a tail, rows of several move codes) it picks exactly what one pass over the rows in order
    does: count the rows within TIE of the best, then draw one with the candidate's stream."""
    rng = np.random.default_rng(17)
    drawn = 0
    for trial in range(300):
        nf, n = int(rng.integers(1, 7)), int(rng.integers(2, 41))
        cols = tuple(f"c{j}" for j in range(nf))
        shape = Shape({"a": cols, "b": cols}, {"b": 3}, (0, 1) if trial % 2 else None)
        w = shape.vector({})
        h = len(shape.header())
        w[h : h + len(shape.weight_names())] = rng.normal(size=len(shape.weight_names()))
        distinct = rng.normal(size=(max(1, n // 3), nf)).round(1)
        pick = rng.integers(0, len(distinct), size=n)
        feats = distinct[pick]  # repeated rows
        codes = rng.integers(0, 2, size=n) * (pick % 2)  # a repeated row keeps its code: its score ties exactly
        view = np.array([int(rng.integers(0, 9)), 8])
        kind = int(rng.integers(2))
        x = view[0] / view[1] if shape.progress else 0.0
        block = np.clip(codes, 0, shape.n_codes(shape.kinds[kind]) - 1) * width(nf) + shape.at(shape.kinds[kind])
        P = phi(feats, x=x)
        scores = np.array([P[i] @ w[block[i] : block[i] + width(nf)] for i in range(n)])
        want, drew = _drawn_among_ties(scores, trial)
        drawn += drew
        assert _choose(kind, feats, w, seed=trial, codes=codes, view=view) == want
    assert drawn > 100  # most decisions had a tie to draw from


def test_at_a_temperature_the_policy_draws_from_the_softmax_of_its_scores():
    """The weight after the blocks, ``temperature``: 0 plays the best score; 1 draws each candidate with the
    softmax probability of its score (20,000 draws of a 3-candidate decision, each from its own stream); a very low
    one is the best again."""
    shape = Shape({"only": ("a",)})
    assert shape.names()[-1] == "temperature" and shape.accepts("temperature")
    w = shape.vector({"only.a": 1.0, "temperature": 1.0})
    feats = np.array([[0.0], [1.0], [2.0]])
    draws = np.array([_choose(0, feats, w, seed=s) for s in range(20_000)])
    want = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    got = np.bincount(draws, minlength=3) / len(draws)
    assert np.abs(got - want).max() < 0.015, got
    assert _choose(0, feats, shape.vector({"only.a": 1.0}), seed=3) == 2
    assert {_choose(0, feats, shape.vector({"only.a": 1.0, "temperature": 1e-3}), seed=s) for s in range(50)} == {2}


def _row_score(f, w, off, nf, top0, x):
    """One candidate's score added up term by term in the policy's order (Python floats are the same doubles)."""
    v = w[off]
    for a in range(nf):
        v += f[a] * w[off + 1 + a]
    k = off + 1 + nf
    for a in range(nf):
        for b in range(a, nf):
            v += f[a] * f[b] * w[k]
            k += 1
    top = 1.0 if nf > 0 and f[0] >= top0 - 1e-9 else 0.0
    v += top * w[k]
    if x != 0.0:
        u = w[k + 1] + top * w[k + 2 + nf]
        for a in range(nf):
            u += f[a] * w[k + 2 + a]
        v += x * u
    return v


def _random_policy(rng, trial, nf, named=None):
    """Two kinds (one with 3 move codes), progress in every other trial, random weights (rounded, none 0)."""
    cols = tuple(f"c{j}" for j in range(nf))
    shape = Shape({"a": cols, "b": cols}, {"b": 3}, (0, 1) if trial % 2 else None)
    w = shape.vector(named or {})
    h = len(shape.header())
    w[h : h + len(shape.weight_names())] = rng.normal(size=len(shape.weight_names())).round(3)
    return shape, w


def _full_scores(shape, w, feats, codes, view, kind):
    """Every row's score over all of its terms (``_row_score``), each in its move code's block."""
    nf = feats.shape[1]
    name = shape.kinds[kind]
    x = view[0] / view[1] if shape.progress else 0.0
    block = np.clip(codes, 0, shape.n_codes(name) - 1) * width(nf) + shape.at(name)
    top0 = feats[:, 0].max()
    fl, wl = feats.tolist(), w.tolist()
    return [_row_score(fl[i], wl, int(block[i]), nf, top0, x) for i in range(len(fl))]


def test_at_a_temperature_the_draw_is_a_row_by_row_pass_bit_for_bit():
    """The softmax draw scores four rows at a time: on random decisions (up to 40 rows, so blocks of four and a
    tail, rows of several move codes, temperatures from near 0 to 2) it draws exactly what three passes row by row
    draw (the best score; the sum of exp((score - best) / T) in row order; one uniform of the candidate's stream
    times that sum, less each row's term in order until it falls below 0)."""
    import math

    from meeplab.sim.core.rng import rng_float

    rng = np.random.default_rng(23)
    picks = set()
    for trial in range(300):
        nf, n = int(rng.integers(1, 7)), int(rng.integers(2, 41))
        temp = float(rng.choice([0.005, 0.1, 0.5, 2.0]))
        shape, w = _random_policy(rng, trial, nf, {"temperature": temp})
        feats = rng.normal(size=(n, nf)).round(1)
        for r in range(n):  # a kind's trailing columns left 0, from a different column in each row
            feats[r, int(rng.integers(0, nf + 1)) :] = 0.0
        codes = rng.integers(-1, 4, size=n)
        view = np.array([int(rng.integers(0, 9)), 8])
        kind = int(rng.integers(2))
        scores = _full_scores(shape, w, feats, codes, view, kind)
        best = -math.inf
        for v in scores:
            if v > best:
                best = v
        tot = 0.0
        for v in scores:
            tot += math.exp((v - best) / temp)
        stream = np.zeros(4, dtype=np.uint64)
        rng_init(stream, trial, 0)
        u = rng_float(stream) * tot
        want = n - 1
        for i, v in enumerate(scores):
            u -= math.exp((v - best) / temp)
            if u < 0.0:
                want = i
                break
        got = _choose(kind, feats, w, seed=trial, codes=codes, view=view)
        assert got == want, (trial, got, want)
        picks.add(got != int(np.argmax(scores)))
    assert picks == {True, False}  # some draws are not the best score: the softmax, not the argmax, was checked


def test_the_best_score_is_a_row_by_row_pass_bit_for_bit_with_trailing_zero_columns():
    """The compiled best score leaves out the terms of columns past the last one any of four rows fills: on random
    decisions whose rows leave trailing columns 0 (from a different column in each row; weights on those columns
    not 0) it picks exactly what a pass row by row over the full scores does (the rows within 1e-9 of the best, one
    drawn with the candidate's stream)."""
    rng = np.random.default_rng(29)
    drawn = 0
    for trial in range(300):
        nf, n = int(rng.integers(1, 9)), int(rng.integers(2, 41))
        shape, w = _random_policy(rng, trial, nf)
        distinct = rng.normal(size=(max(1, n // 3), nf)).round(1)
        for r in range(len(distinct)):
            distinct[r, int(rng.integers(0, nf + 1)) :] = 0.0
        pick = rng.integers(0, len(distinct), size=n)
        feats = distinct[pick]  # repeated rows: exact ties to draw from
        codes = rng.integers(0, 2, size=n) * (pick % 2)
        view = np.array([int(rng.integers(0, 9)), 8])
        kind = int(rng.integers(2))
        scores = _full_scores(shape, w, feats, codes, view, kind)
        want, drew = _drawn_among_ties(scores, trial)
        drawn += drew
        assert _choose(kind, feats, w, seed=trial, codes=codes, view=view) == want, trial
    assert drawn > 100


def test_phi_names_every_term_in_order():
    names = phi_names(("gain", "left"))
    assert names == ["1", "gain", "left", "gain*gain", "gain*left", "left*left", "top:gain", "x", "x*gain",
                     "x*left", "x*top:gain"]  # fmt: skip
    assert len(names) == width(2)
    shape = Shape({"place": ("gain", "left"), "sell": ("gain", "left")}, {"sell": 2})
    assert shape.weight_names()[width(2) + 1] == "sell[0].gain"
    assert shape.weight_names()[2 * width(2) + 1] == "sell[1].gain"
    assert len(shape.names()) == len(shape.header()) + 3 * width(2) + 1  # and the temperature
    # a name without a code stands for the term in every code's block (a linear bot's kind.column)
    w = shape.vector({"sell.gain": 2.0, "place.left": 1.0})
    names = shape.names()
    assert w[names.index("sell[0].gain")] == w[names.index("sell[1].gain")] == 2.0
    assert w[names.index("place.left")] == 1.0 and shape.accepts("sell.gain") and not shape.accepts("shape.kinds")


def test_a_kind_without_weights_is_a_uniform_pick():
    feats = np.arange(12.0).reshape(6, 2)
    shape = Shape({"only": ("a", "b")})
    w = shape.vector({"only.a": 1.0})
    picks = {_choose(5, feats, w, seed=s) for s in range(1, 60)}
    assert picks == set(range(6))
    assert {_choose(0, feats, np.ones(width(2)), seed=s) for s in range(1, 60)} == set(range(6))  # no header


def test_the_move_code_and_the_progress_choose_the_weights():
    """A kind with codes scores each candidate by its code's block; the progress term turns a preference round."""
    shape = Shape({"act": ("gain",)}, {"act": 2}, (0, 1))
    w = shape.vector({"act[1].1": 1.0, "act[0].x": 3.0})
    feats = np.zeros((2, 1))
    assert _choose(0, feats, w, codes=[0, 1], view=[0, 10]) == 1  # early: code 1's constant
    assert _choose(0, feats, w, codes=[0, 1], view=[9, 10]) == 0  # late: code 0's progress term (2.7 > 1)


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
    feats = np.concatenate(rows)
    return ln.Decisions(
        kind=np.array(kind), seat=np.zeros(n_dec, np.int64), game=np.array(game), n=np.array(n),
        pick=np.array(pick), start=np.array(start), feats=feats, code=np.zeros(len(feats), np.int64),
        progress=np.zeros(n_dec),
    )  # fmt: skip


ONLY = Shape({"only": ("a", "b", "c")})


def test_the_fit_recovers_a_teacher_it_can_express_and_measures_it_on_unseen_games():
    data = _teacher_data()
    got = ln.fit(data, ONLY, holdout=0.25, l2=1e-4)
    (k,) = got.kinds
    assert k.held_out > 500 and k.train > 1500
    assert k.agreement > 0.93  # the teacher is inside the model's reach
    assert k.greedy_agreement < 0.8  # playing the best column 0 is not the teacher
    names = got.names
    assert got.weights[names.index("only.b*c")] < 0 < got.weights[names.index("only.a")]
    agree, n = got.agreement()
    assert n == k.held_out and agree == k.agreement


def test_the_fit_learns_each_codes_own_weights():
    """A teacher that plays code 0's candidates by column a and code 1's against it, and prefers code 1 late in
    the game: a fit with the codes and the progress recovers it; one without them cannot."""
    rng = np.random.default_rng(3)
    kind, n, pick, start, rows, codes, game, prog = [], [], [], [0], [], [], [], []
    for d in range(3000):
        k = int(rng.integers(2, 6))
        f = rng.normal(size=(k, 2))
        c = rng.integers(0, 2, size=k)
        x = rng.random()
        score = np.where(c == 0, f[:, 0], -f[:, 0]) + 3.0 * x * c
        kind.append(0), n.append(k), pick.append(int(np.argmax(score))), rows.append(f), codes.append(c)
        start.append(start[-1] + k), game.append(d // 30), prog.append(x)
    data = ln.Decisions(
        kind=np.array(kind), seat=np.zeros(len(kind), np.int64), game=np.array(game), n=np.array(n),
        pick=np.array(pick), start=np.array(start), feats=np.concatenate(rows), code=np.concatenate(codes),
        progress=np.array(prog),
    )  # fmt: skip
    coded = ln.fit(data, Shape({"act": ("a", "b")}, {"act": 2}, (0, 1)), l2=1e-4).agreement()[0]
    plain = ln.fit(data, Shape({"act": ("a", "b")}), l2=1e-4).agreement()[0]
    assert coded > 0.9 and plain < coded - 0.2


def test_a_strong_pull_keeps_the_prior_and_a_weak_one_fits_the_teacher():
    """--prior: the fit starts from a policy and is pulled towards it. Pulled hard it stays there (the weights come
    back through the standardisation unchanged, in a kind with codes too); pulled softly the teacher wins."""
    data = _teacher_data()
    prior = ONLY.vector({"only.b": 3.0, "only.a*a": -0.5})
    held = ln.fit(data, ONLY, l2=1e6, prior=prior)
    assert np.allclose(held.weights, prior, atol=1e-3)
    assert ln.fit(data, ONLY, l2=1e-4, prior=prior).agreement()[0] > 0.93
    coded = Shape({"only": ("a", "b", "c")}, {"only": 3}, (0, 1))
    data.code = np.arange(len(data.feats)) % 3
    data.progress = np.linspace(0, 1, len(data))
    rng = np.random.default_rng(2)
    p2 = coded.vector({})
    p2[len(coded.header()) :] = rng.normal(size=len(p2) - len(coded.header()))
    back = ln.fit(data, coded, l2=1e6, prior=p2).weights
    assert np.allclose(back, p2, atol=1e-3)
    with pytest.raises(MeeplabError, match="prior policy has"):
        ln.fit(data, coded, prior=p2[:-1])


def test_noise_in_the_teacher_lowers_held_out_agreement_not_the_fit():
    clean = ln.fit(_teacher_data(noise=0.0), ONLY).agreement()[0]
    noisy = ln.fit(_teacher_data(noise=2.0), ONLY).agreement()[0]
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
    data.progress = np.linspace(0, 1, len(data))
    whole = ln.phi_rows(data)
    each = np.concatenate(
        [phi(data.feats[s:e], x=x) for s, e, x in zip(data.start[:-1], data.start[1:], data.progress)]
    )
    assert np.array_equal(whole, each)
    some = np.array([3, 7, 8])
    assert np.array_equal(ln.phi_rows(data, some), np.concatenate([phi(data.feats[data.start[d] : data.start[d + 1]],
                                                                       x=data.progress[d]) for d in some]))  # fmt: skip


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
        (["--prior", "nosuchbot"], "--prior nosuchbot: no such bot"),
        (["--prior", "tuned"], "--prior tuned: a policy bot"),
        (["--refine", "-5"], "--refine must be 0 or more"),
        (["--refine", "500", "--teacher", "tuned"], "--refine 500 is too small: one generation of"),
        (["--refine", "1000", "--refine-vs", "nosuchbot"], "--refine-vs: unknown bot 'nosuchbot'"),
        (["--refine", "1000", "--teacher", "rollout"], "--refine: give --refine-vs"),
    ],
)
def test_learn_refuses_bad_input_in_one_line(tmp_path, capsys, extra, message):
    from tests.cli_run import run_cli

    code, _, se = run_cli(["learn", "schweinebande", "--out", str(tmp_path / "o"), *extra], capsys)
    assert code == 2 and message in se and "Traceback" not in se
    assert not (tmp_path / "o").exists()


def test_refine_searches_the_linear_weights_for_wins_and_says_what_it_gained(tmp_path, capsys):
    """learn --refine: after the fit, CMA-ES moves only the policy's linear weights (no product term), the bot
    written is the refined one, and its header and learn.json give its share against the field on fresh games
    beside the fitted policy's; the bot loads and plays."""
    import json
    import tomllib

    from meeplab.sim.core.registry import get_game
    from tests.cli_run import run_cli

    out = tmp_path / "learn"
    base = ["learn", "schweinebande", "--players", "2", "--teacher", "heuristic", "--games", "12", "--threads", "1",
            "--out", str(out)]  # fmt: skip
    refining = ["--refine", "3000", "--refine-games-per-eval", "60", "--refine-vs", "greedy", "--refine-rounds", "2"]
    code, so, _ = run_cli([*base, *refining, "--dry-run"], capsys)  # the plan prices the refinement too
    assert code == 0 and "then --refine: 6,000 games against greedy: about" in so and not out.exists()
    code, _, se = run_cli(base + refining, capsys)
    assert code == 0, se
    assert "learned refined (round 2), 2 players: win share" in se and "against greedy, learned-league1" in se
    rec = json.loads((out / "learn.json").read_text())
    ref = rec["refine"]
    assert [r["vs"] for r in ref["rounds"]] == [["greedy"], ["greedy", "learned-league1"]]  # round 1 in the field
    assert ref["round"] == 2 and all(r["generations"] >= 1 and r["games"] <= 3000 for r in ref["rounds"])
    assert ref["objective"] == "relative"  # the default: each count's share over its fair share
    (row,) = ref["final"]
    assert row["players"] == 2 and row["games"] == 200 and row["lo"] <= row["share"] <= row["hi"]
    assert (out / "league" / "learned-league1.toml").exists()
    text = (out / "learned.toml").read_text()
    assert "# Refined for wins, round 1: CMA-ES on its" in text and "# Refined for wins, round 2" in text
    assert "refined for wins against greedy and its own earlier rounds (2 rounds)" in text
    refined = tomllib.loads(text)["bots"]["learned"]["weights"]
    code, _, se = run_cli([*base, "--resume", "--name", "plain"], capsys)  # the same fit, not refined
    assert code == 0, se
    fitted = tomllib.loads((out / "plain.toml").read_text())["bots"]["plain"]["weights"]
    linear = set(ln.linear_names(ln.features_of(get_game("schweinebande"))))
    moved = {n for n in set(refined) | set(fitted) if refined.get(n, 0.0) != fitted.get(n, 0.0)}
    assert moved and moved <= linear, moved - linear
    play = ["run", "schweinebande", "-n", "20", "-p", "2", "-b", "learned,greedy", "--bot-config",
            str(out / "learned.toml"), "--threads", "1", "-q", "--out", str(tmp_path / "r")]  # fmt: skip
    code, _, se = run_cli(play, capsys)
    assert code == 0, se


def test_linear_names_leave_out_every_product_term():
    names = ln.linear_names(ONLY)
    assert names and all("*" not in n.partition(".")[2] for n in names)
    assert set(names) < set(ONLY.weight_names()) and "only.x" in names


def test_a_linear_bot_is_measured_on_the_same_decisions_as_the_fit():
    data = _teacher_data(600)
    assert ln.agreement_of(data, ONLY, {"only.a": 2.0, "only.b*c": -1.0}) > 0.99  # the teacher itself
    assert ln.agreement_of(data, ONLY, {"only.a": 1.0}) == pytest.approx(ln.fit(data, ONLY).greedy_agreement())


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


def test_learn_records_the_same_teacher_games_on_a_cluster(tmp_path, capsys):
    """--workers 2: the teacher's games are recorded by Dask worker processes in parts of consecutive games; the
    decisions (and so the fit) are those of one process."""
    from tests.cli_run import run_cli

    args = ["learn", "schweinebande", "--players", "3", "--teacher", "heuristic", "--games", "8", "-q"]
    code, so1, se = run_cli([*args, "--threads", "1", "--out", str(tmp_path / "one"), "--json"], capsys)
    assert code == 0, se
    code, so2, se = run_cli([*args, "--workers", "2", "--out", str(tmp_path / "two"), "--json"], capsys)
    assert code == 0, se
    one = ln.Decisions.load(tmp_path / "one" / "decisions-p3.npz")
    two = ln.Decisions.load(tmp_path / "two" / "decisions-p3.npz")
    for k in one.__dataclass_fields__:
        assert np.array_equal(getattr(one, k), getattr(two, k)), k
    import json

    assert json.loads(so1)["agreement"] == json.loads(so2)["agreement"]
    code, _, se = run_cli([*args, "--workers", "2", "--scheduler", "tcp://x:1", "--out", str(tmp_path / "x")], capsys)
    assert code == 2 and "not both" in se and not (tmp_path / "x").exists()

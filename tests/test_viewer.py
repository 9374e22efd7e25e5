"""meeplab view without a browser: the trace is the batch's game, the drawing hides what a seat cannot see (checked
against the engine's own re-deal of the hidden parts), the page's data (alternatives, search values, trajectories),
run directories and bad input."""

import json
import re

import numpy as np
import polars as pl
import pytest
from numba import njit
from viewer_helpers import GAMES, HIDDEN, page_data, traced

from meeplab.cli import main
from meeplab.reports.viewer import pack, unpack, view_data
from meeplab.sim.core.forward import C_N, C_SEAT, fm_determinise
from meeplab.sim.core.play import new_player
from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND, EXPLAIN_VISITS

SECRET = re.compile(r'class="[^"]*\bsecret\b')


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_trace_is_the_batch_game(game_id):
    g, ctx, lineup, tr = traced(game_id)
    p, _bots, seed, index = GAMES[game_id]
    batch = g.play(ctx, lineup, seed, index, 1, p)
    assert np.array_equal(tr.score, batch.score[0])
    assert np.array_equal(tr.breakdown, batch.breakdown[0])
    assert not tr.truncated and len(tr.states) == len(tr.picks) + 1 > 20
    for k, rec in enumerate(tr.states[:-1]):
        assert 0 <= tr.picks[k] < max(1, int(rec["ctl"][C_N]))
    assert int(tr.states[-1]["ctl"][C_SEAT]) < 0 or int(tr.states[-1]["ctl"][C_N]) == 0


@njit
def _redeal(st, cx, seat, r):
    fm_determinise(st, cx, seat, r)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_seat_view_shows_nothing_that_seat_cannot_see(game_id):
    """Re-deal everything seat s has not seen (the engine's determinise): s's drawing and table stay the same, byte
    for byte. The full view changes somewhere (else the check would be empty) in games with hidden parts."""
    g, ctx, lineup, tr = traced(game_id)
    p = GAMES[game_id][0]
    cx = g.forward_context(ctx, lineup) if g.forward_context else ctx.cx
    st = new_player(cx, p, len(g.categories), np.zeros((0, g.draw.LOG_WIDTH), dtype=np.int64))[0]
    dr = g.draw
    full_changed = 0
    for k in range(0, len(tr.states) - 1, max(1, len(tr.states) // 12)):
        for seat in range(p):
            st.rec[0] = tr.states[k]
            r = np.array([7 + k, 11 + seat, 13, 17], dtype=np.uint64)
            _redeal(st, cx, seat, r)
            other = st.rec[0]
            assert dr.pieces(ctx, other, seat) == dr.pieces(ctx, tr.states[k], seat), (k, seat)
            assert dr.info(ctx, other, seat) == dr.info(ctx, tr.states[k], seat), (k, seat)
            full_changed += dr.pieces(ctx, other, None) != dr.pieces(ctx, tr.states[k], None)
            assert not any(SECRET.search(x) for x in dr.pieces(ctx, tr.states[k], seat))
    if game_id in HIDDEN:
        assert full_changed > 0


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_page_data_lists_every_candidate_with_a_place_on_the_board(game_id):
    g, ctx, _lineup, tr = traced(game_id)
    p = GAMES[game_id][0]
    data = view_data(g, ctx, tr, seat_names=["a"] * p, title="t", subtitle="s")
    steps = data["steps"]
    assert len(steps) == len(tr.states)
    svg = data["base"] + "".join(data["pool"])
    placed = 0
    for k, step in enumerate(steps[:-1]):
        n = int(tr.states[k]["ctl"][C_N])
        assert len(step["alts"]) == n and step["pick"] == tr.picks[k]
        assert all(isinstance(a[0], str) and a[0] for a in step["alts"])
        for _label, target, _imm, _search in step["alts"]:
            if target is not None:
                assert f'id="{target}"' in svg, target
                placed += 1
    assert placed > len(steps) // 2
    # the views: everything, then one per seat (None where the same as everything)
    assert all(len(s["p"]) == p + 1 and s["p"][0] for s in steps)
    seat_views_differ = any(v is not None for s in steps for v in s["p"][1:])
    assert seat_views_differ == (game_id in HIDDEN)
    assert "alts" not in steps[-1] and data["final"]["score"] == [float(x) for x in tr.score]
    assert all(len(s["ev"]) == p + 1 for s in steps)
    # the page stores it packed (pieces as changes, rows and labels pooled): unpacking gives it back exactly
    plain = json.loads(json.dumps(data))
    packed = json.loads(json.dumps(pack(data)))
    assert unpack(packed) == plain and len(json.dumps(packed)) < len(json.dumps(plain))
    assert data["private_moves"] == (game_id == "hacienda")


def searched_game(tmp_path, config: str, bot: str):
    """A 3-player Schweinebande game (seed 2, game 1) of the search bot ``bot`` (from the TOML ``config``) against
    greedy, traced for 60 decisions: (trace, page data)."""
    from meeplab.sim.core.bots import make_lineup
    from meeplab.sim.core.draw import trace_spec

    cfg = tmp_path / "bots.toml"
    cfg.write_text(config)
    g, ctx, _lineup, _tr = traced("schweinebande")
    lineup = make_lineup(g.id, [bot, "greedy"], 3, True, (str(cfg),))
    tr = trace_spec(g, ctx, lineup, 3, 2, 1, max_steps=60)
    return tr, view_data(g, ctx, tr, seat_names=[bot, "greedy", bot], title="t", subtitle="s")


TINY = '[bots.tiny]\nbase = "rollout"\n[bots.tiny.weights]\nplayouts = 3\nmax_candidates = 4\n'


def test_search_values_are_the_ones_explain_prints(tmp_path):
    """A search bot's decisions carry the mean playout value of every candidate it searched; the best ones agree with
    the values --explain logs."""
    tr, data = searched_game(tmp_path, TINY, "tiny")
    searched = [(k, s) for k, s in enumerate(data["steps"][:-1]) if s["search"]]
    assert searched
    for k, s in searched:
        vals = {i: a[3] for i, a in enumerate(s["alts"]) if a[3] is not None}
        assert 1 <= len(vals) <= 4 and s["pick"] in vals
        rows = tr.log[tr.logat[k] : tr.logat[k + 1]]
        assert rows[0, 0] == E_SEARCH and s["search"] == rows[0, 5] >= 3  # playouts per candidate
        for row in rows[rows[:, 0] == E_SEARCH_CAND]:
            assert abs(vals[int(row[1])] - row[4] / 1e6) < 1e-6


TINY_ISMCTS = (
    '[bots.tiny-ismcts]\nbase = "ismcts"\n[bots.tiny-ismcts.weights]\niterations = 12\nper_candidate = 0\n'
    "max_candidates = 4\nkinds = 0\n"
)


def test_ismcts_decisions_show_the_roots_visits_and_values(tmp_path):
    """An ismcts decision carries its iterations and, for the root's most visited candidates, the visits and mean
    value --explain logs; the chosen candidate is among them; the packed page gives them back."""
    tr, data = searched_game(tmp_path, TINY_ISMCTS, "tiny-ismcts")
    searched = [(k, s) for k, s in enumerate(data["steps"][:-1]) if s.get("iters")]
    assert searched
    for k, s in searched:
        assert s["search"] == 0 and all(len(a) == 5 for a in s["alts"])
        rows = tr.log[tr.logat[k] : tr.logat[k + 1]]
        assert rows[0, 0] == E_SEARCH and s["iters"] == -rows[0, 5] >= 12  # the budget grows with the players
        cands = rows[rows[:, 0] == E_SEARCH_CAND]
        assert len(cands) == len([a for a in s["alts"] if a[4] is not None]) >= 1
        for row in cands:
            a = s["alts"][int(row[1])]
            assert a[4] == int(row[5]) // EXPLAIN_VISITS and abs(a[3] - row[4] / 1e6) < 1e-6
        assert sum(a[4] for a in s["alts"] if a[4] is not None) <= s["iters"]
        assert s["alts"][s["pick"]][4] is not None
    plain = json.loads(json.dumps(data))
    assert unpack(json.loads(json.dumps(pack(data)))) == plain
    # the rollout decisions of the same page carry no visits
    assert all(len(a) == 4 for s in data["steps"][:-1] if "alts" in s and not s.get("iters") for a in s["alts"])


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("view") / "run"
    code = main(
        ["run", "schweinebande", "--games", "4", "--players", "3", "--bots", "greedy,random", "--seed", "5"]
        + ["--out", str(out)]
    )
    assert code == 0
    return out


def test_view_of_a_run_is_the_recorded_game(run_dir, tmp_path, capsys):
    out = tmp_path / "g.html"
    assert main(["view", str(run_dir), "--index", "3", "--out", str(out)]) == 0
    data = page_data(out)
    rows = pl.read_parquet(run_dir / "results.parquet").filter(pl.col("game_index") == 3).sort("seat")
    assert data["final"]["score"] == rows["score"].to_list()
    assert [s["bot"] for s in data["seats"]] == rows["bot"].to_list()
    assert data["traj"] is None
    assert "warning" not in capsys.readouterr().err


def test_view_plots_the_quality_trajectories_when_the_run_has_them(run_dir, tmp_path):
    rows = [
        {"n_players": 3, "game": g, "step": s, "round": 1, "seat": seat, "p_win": 0.1 * seat if g == 1 else 0.9}
        | {"se": 0.05}
        for g in (0, 1)
        for s in (0, 10, 20)
        for seat in (1, 2, 3)  # numbered from 1, as meeplab quality writes them
    ]
    pl.DataFrame(rows).write_parquet(run_dir / "trajectories.parquet")
    try:
        out = tmp_path / "q.html"
        assert main(["view", str(run_dir), "--index", "1", "--out", str(out)]) == 0
        traj = page_data(out)["traj"]
        assert traj["step"] == [0, 10, 20]
        assert traj["p"] == [[0.1] * 3, [0.2] * 3, [0.3] * 3]
    finally:
        (run_dir / "trajectories.parquet").unlink()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--index", "9"], "holds 3-player games 0..3"),
        (["--players", "4"], "no 4-player games"),
        (["--index", "-1"], "--index must be >= 0"),
    ],
)
def test_bad_input_is_one_line_exit_2(run_dir, tmp_path, capsys, args, message):
    code = main(["view", str(run_dir), *args, "--out", str(tmp_path / "x.html")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_unknown_sources_are_refused(tmp_path, capsys):
    assert main(["view", "nosuchgame", "--out", str(tmp_path / "x.html")]) == 2
    assert "unknown game" in capsys.readouterr().err
    assert main(["view", str(tmp_path / "missing.json"), "--out", str(tmp_path / "x.html")]) == 2
    assert "no such run directory or saved game" in capsys.readouterr().err
    (tmp_path / "d").mkdir()
    assert main(["view", str(tmp_path / "d"), "--out", str(tmp_path / "x.html")]) == 2
    assert "not a run directory" in capsys.readouterr().err


def test_page_is_one_file_with_nothing_from_the_network(tmp_path):
    out = tmp_path / "sb.html"
    from viewer_helpers import page_args

    assert main(page_args("schweinebande", out)) == 0
    text = out.read_text(encoding="utf-8")
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text
    assert "<script src" not in text and "<link" not in text
    json.dumps(page_data(out))  # the embedded data is plain JSON


def test_a_seat_reads_no_card_another_seat_bought_blind():
    from meeplab.sim.hacienda.layout import E_BUY, E_SETUP
    from meeplab.sim.hacienda.replay import CARD

    g, ctx, _lineup, tr = traced("hacienda")
    names = ["a", "b", "c"]
    blind = [(i, int(r[1]), int(r[2])) for i, r in enumerate(tr.log) if r[0] == E_BUY and r[3] == 0]
    assert blind
    for i, buyer, card in blind[:12]:
        for seat in range(3):
            (line,) = g.draw.events(ctx, tr.log, i, i + 1, names, seat)
            assert (f"buys {CARD[card]} (blind)" in line) == (seat == buyer), line
            assert ("buys ? (blind)" in line) == (seat != buyer), line
    setup = [i for i, r in enumerate(tr.log) if r[0] == E_SETUP]
    assert setup
    for i in setup:
        own = g.draw.events(ctx, tr.log, i, i + 1, names, int(tr.log[i, 1]))[0]
        other = g.draw.events(ctx, tr.log, i, i + 1, names, (int(tr.log[i, 1]) + 1) % 3)[0]
        assert own != other and other.endswith("a hand of cards")


def test_a_seat_reads_no_value_of_another_seats_token():
    from meeplab.sim.goldrush.const import EV_MINE, EV_TAKE

    g, ctx, _lineup, tr = traced("goldrush")
    names = ["a", "b", "c"]
    rows = [(i, int(r[1])) for i, r in enumerate(tr.log) if r[0] in (EV_MINE, EV_TAKE)]
    assert rows
    for i, owner in rows[:10]:
        for seat in range(3):
            (line,) = g.draw.events(ctx, tr.log, i, i + 1, names, seat)
            assert ("worth ?" in line) == (seat != owner), line


def test_a_folder_named_like_the_game_without_run_json_is_the_game(tmp_path, monkeypatch, capsys):
    """`meeplab new GAME --out GAME` leaves a folder GAME beside the designer: `meeplab view GAME` there still views
    the game; a folder of another name without run.json is refused in one line."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "schweinebande").mkdir()
    assert main(["view", "schweinebande", "--players", "2", "--bots", "greedy", "--out", "g.html"]) == 0
    assert page_data(tmp_path / "g.html")["final"]["score"]
    (tmp_path / "elsewhere").mkdir()
    assert main(["view", "elsewhere", "--out", "h.html"]) == 2
    assert "not a run directory (no run.json)" in capsys.readouterr().err

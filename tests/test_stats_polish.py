"""Statistics polish (issue 38): Benjamini-Hochberg next to Holm, and the tournament's match-ups with the game as
the unit."""

import math

import numpy as np
import polars as pl
import pytest
import scipy.stats as sps

from meeplab.analysis.maps import rank
from meeplab.lab.stats import adjust, bh, holm, wilson
from meeplab.lab.studies.tournament import matchups, pairs_of
from meeplab.sim.core.errors import MeeplabError


def test_bh_matches_scipy_and_is_never_stricter_than_holm():
    rng = np.random.default_rng(3)
    for m in (1, 2, 7, 40):
        p = np.concatenate([rng.uniform(0, 0.02, m // 2), rng.uniform(0, 1, m - m // 2)])
        q = bh(p)
        np.testing.assert_allclose(q, sps.false_discovery_control(p, method="bh"), rtol=1e-12)
        assert np.all(q <= holm(p) + 1e-15) and np.all(q >= p - 1e-15)
    assert np.isnan(bh([0.01, math.nan, 0.04])[1])
    np.testing.assert_allclose(bh([0.01, math.nan, 0.04]), [0.02, math.nan, 0.04])
    # 0.01, 0.02, 0.03, 0.04 in a family of 4: BH keeps all four at 0.05, Holm only the first
    p = [0.01, 0.02, 0.03, 0.04]
    assert (bh(p) < 0.05).sum() == 4 and (holm(p) < 0.05).sum() == 1
    with pytest.raises(MeeplabError, match="unknown adjustment"):
        adjust(p, "bonferroni")


def test_map_ranking_takes_the_adjustment():
    rows = [{"p_seat": p, "seat_gap": g, "spread": 1.0, "length": 1.0} for p, g in [(0.01, 3), (0.02, 2), (0.03, 1)]]
    q_holm = {r["seat_gap"]: r["q_seat"] for r in rank([dict(r) for r in rows])}
    q_bh = {r["seat_gap"]: r["q_seat"] for r in rank([dict(r) for r in rows], "bh")}
    assert q_holm == pytest.approx({3: 0.03, 2: 0.04, 1: 0.04})
    assert q_bh == pytest.approx({3: 0.03, 2: 0.03, 1: 0.03})


def test_matchups_take_the_game_as_the_unit():
    # game 0 (3 players): a, b, a -> two a-b pairs; games 1 and 2 (2 players): one pair each
    df3 = pl.DataFrame(
        {"n_players": [3] * 3, "game_index": [0] * 3, "seat": [0, 1, 2], "bot": ["a", "b", "a"], "rank": [1, 2, 3]}
    )
    df2 = pl.DataFrame(
        {"n_players": [2] * 4, "game_index": [0, 0, 1, 1], "seat": [0, 1] * 2, "bot": ["a", "b", "b", "a"]}
    ).with_columns(rank=pl.Series([2, 1, 1, 2]))
    pr = pairs_of([df3, df2], ["a", "b"])
    m = {(r["bot"], r["opponent"]): r for r in matchups(pr, ["a", "b"]).to_dicts()}
    ab = m[("a", "b")]
    # per game: game 0 a won one of two pairs (0.5), the two 2-player games a lost (0, 0)
    assert ab["games"] == 3 and ab["pairs"] == 4
    assert ab["share"] == pytest.approx(0.5 / 3)
    assert (ab["lo"], ab["hi"]) == pytest.approx(wilson(0.5, 3))
    assert m[("b", "a")]["share"] == pytest.approx(1 - ab["share"])

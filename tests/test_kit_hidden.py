"""The conformance kit's hidden-information check has teeth: it builds its second state itself (the other seats'
unseen cards exchanged with the deck's, GameSpec.hidden's pools; derived fields recomputed), so a re-deal that keeps
another seat's hand or token sum, or a feature that reads another seat's hand, fails with a clear message. The bugs
are planted on the Python side of the forward model (monkeypatched), the engines untouched."""

import re
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from meeplab.sim.core import face
from meeplab.sim.core.forward import C_NP, C_SEAT
from meeplab.sim.core.game import Hidden
from meeplab.testing import Kit
from meeplab.testing.hidden import check_hidden, deal_otherwise, places, pools


@pytest.fixture(scope="module")
def hacienda():
    return Kit.of("hacienda")


def _other(st, seat):
    return (seat + 1) % int(st.rec[0]["ctl"][C_NP])


def test_hacienda_passes(hacienda):
    note = check_hidden(hacienda)
    exchanged = re.search(r"(\d+) exchanged between holdings", note)
    assert exchanged and int(exchanged.group(1)) > 0, note  # cards went between the decks and the other hands


def test_the_kits_exchange_keeps_hand_sizes_and_what_the_seat_saw(hacienda):
    from meeplab.sim.hacienda.layout import T_ANIMAL

    g = hacienda.game
    rng = np.random.default_rng(3)
    exchanged = 0
    points, _, cx = hacienda.decision_points(g.default_players, 0)
    for st, seat in points:
        b = hacienda.new(cx, g.default_players)
        face.copy(b, st)
        _, x = deal_otherwise(g, b, cx, seat, rng)
        exchanged += x
        ra, rb = st.rec[0], b.rec[0]
        for f in ra.dtype.names:
            if f not in ("hand", "ldeck", "adeck"):
                assert np.array_equal(ra[f], rb[f]), f
        assert np.array_equal(ra["hand"][seat], rb["hand"][seat])  # its own hand
        assert (rb["hand"] >= rb["known"]).all()  # every card it saw bought is still there
        for lo, hi in ((0, T_ANIMAL), (T_ANIMAL, ra["hand"].shape[1])):  # every hand keeps its land and animal count
            assert np.array_equal(ra["hand"][:, lo:hi].sum(axis=1), rb["hand"][:, lo:hi].sum(axis=1))
        for name, members in pools(places(g, ra, seat, cx)).items():  # the same cards, dealt otherwise
            after = pools(places(g, rb, seat, cx))[name]
            assert Counter(np.concatenate([p.cards for p in members]).tolist()) == Counter(
                np.concatenate([p.cards for p in after]).tolist()
            )
    assert exchanged > 0  # cards went from the decks into the other hands and back


def _keep_other_hand(monkeypatch):
    real = face.determinise

    def determinise(st, cx, seat, r):  # forgets to re-deal the next seat's hand
        q = _other(st, seat)
        kept = st.rec[0]["hand"][q].copy()
        real(st, cx, seat, r)
        st.rec[0]["hand"][q] = kept

    monkeypatch.setattr(face, "determinise", determinise)


def test_a_redeal_that_keeps_another_hand_is_caught(hacienda, monkeypatch):
    _keep_other_hand(monkeypatch)
    with pytest.raises(AssertionError, match=r"determinise left field 'hand' depending on what seat \d has not seen"):
        check_hidden(hacienda)


def test_without_the_pools_the_same_bug_went_unseen(hacienda, monkeypatch):
    """The declaration before the pools (hands derived, unseen None): the kit could not deal the hands otherwise,
    so the same planted bug passed. This is what the pools are for."""
    old = (
        *(h for h in hacienda.game.hidden if h.field in ("ldeck", "adeck")),
        Hidden("hand", lambda rec, seat, cx: None),
        Hidden("pool", lambda rec, seat, cx: None),
    )
    old = tuple(replace(h, pool="") for h in old)
    kit = Kit(replace(hacienda.game, hidden=old))
    _keep_other_hand(monkeypatch)
    check_hidden(kit)


def test_a_feature_that_reads_another_hand_is_caught(hacienda, monkeypatch):
    real = face.advance

    def advance(st, cx):  # the engine's features peek at the next seat's hand
        seat = real(st, cx)
        r = st.rec[0]
        if seat >= 0:
            hand = r["hand"][_other(st, int(r["ctl"][C_SEAT]))]
            r["feats"][:, 0] += float(hand @ np.arange(1, hand.size + 1))
        return seat

    monkeypatch.setattr(face, "advance", advance)
    with pytest.raises(AssertionError, match=r"the deciding seat's features changed .* when only what seat \d has not"):
        check_hidden(hacienda)


def test_counts_beyond_a_hand_are_refused(hacienda):
    lying = tuple(
        replace(h, counts=lambda rec, seat, cx: rec["hand"] + 1) if h.counts is not None else h
        for h in hacienda.game.hidden
    )
    with pytest.raises(AssertionError, match=r"unseen counts of 'hand' for seat .* not between 0 and the counts held"):
        check_hidden(Kit(replace(hacienda.game, hidden=lying)))


def test_goldrush_a_redeal_that_keeps_the_token_sums_is_caught(monkeypatch):
    from meeplab.sim.goldrush.const import PI_TOKSUM

    kit = Kit.of("goldrush")
    check_hidden(kit)
    real = face.determinise

    def determinise(st, cx, seat, r):  # re-deals the faces, forgets the other seats' sums
        kept = st.rec[0]["pl_int"][:, PI_TOKSUM].copy()
        real(st, cx, seat, r)
        st.rec[0]["pl_int"][:, PI_TOKSUM] = kept

    monkeypatch.setattr(face, "determinise", determinise)
    with pytest.raises(AssertionError, match="'pl_int'"):
        check_hidden(kit)


def test_schweinebande_a_redeal_that_keeps_the_bag_is_caught(monkeypatch):
    from meeplab.sim.schweinebande.state import C_DRAWN

    kit = Kit.of("schweinebande")
    check_hidden(kit)
    real = face.determinise

    def determinise(st, cx, seat, r):  # deals the face-down tiles from the unseen counts, keeps the bag as it was
        drawn = int(st.rec[0]["ctl"][C_DRAWN])
        kept = st.rec[0]["bag"][drawn:].copy()
        real(st, cx, seat, r)
        st.rec[0]["bag"][drawn:] = kept

    monkeypatch.setattr(face, "determinise", determinise)
    with pytest.raises(AssertionError, match="field 'bag'"):
        check_hidden(kit)


def test_the_redraw_check_reads_the_declarations():
    """The kit's redraw check (meeplab.testing.redraw) knows a game only by its declarations: Gold Rush passes
    (tokens others took and every hand kept, the pile and the stock's faces re-dealt); declared with no token face
    unseen by everyone, the same redraw is caught moving faces that some seat 'holds or has seen'."""
    from meeplab.testing.redraw import check_redraw

    gold = Kit.of("goldrush")
    note = check_redraw(gold)
    moved = re.search(r"(\d+) unseen elements re-dealt", note)
    assert moved and int(moved.group(1)) > 0, note
    tight = tuple(
        replace(h, unseen=lambda rec, seat, cx: np.zeros(0, np.int64)) if h.field == "tokvals" else h
        for h in gold.game.hidden
    )
    with pytest.raises(AssertionError, match=r"redraw changed 'tokvals' .* holds or has seen"):
        check_redraw(Kit(replace(gold.game, hidden=tight)))


def _leak_when(monkeypatch, when):
    """A planted leak: after each step, where ``when(record)`` holds, the view's last word shows which cards the next
    seat holds (a number that changes when they are dealt otherwise, their count does not)."""
    real = face.advance

    def advance(st, cx):
        seat = real(st, cx)
        r = st.rec[0]
        if seat >= 0 and when(r):
            q = (int(r["ctl"][C_SEAT]) + 1) % int(r["ctl"][C_NP])
            r["pub"][-1] = int((r["hand"][q] * np.arange(1, r["hand"].shape[1] + 1)).sum())
        return seat

    monkeypatch.setattr(face, "advance", advance)


def test_a_leak_at_one_player_count_only_is_caught_and_named(monkeypatch):
    """The kit samples every player count: a leak only at 5 players fails, naming the count."""
    _leak_when(monkeypatch, lambda r: int(r["ctl"][C_NP]) == 5)
    with pytest.raises(
        AssertionError,
        match=r"at 5 players, decision kind .* in the game\): dealing otherwise only .* or the engine shows seat \d",
    ):
        check_hidden(Kit.of("hacienda"))


def test_a_leak_in_one_phase_of_the_game_only_is_caught(monkeypatch):
    """A leak only after the mid-game scoring (Hacienda's second half) fails at a middle or late state."""
    from meeplab.sim.hacienda.layout import V_PHASE

    _leak_when(monkeypatch, lambda r: int(r["pub"][V_PHASE]) >= 1)
    with pytest.raises(
        AssertionError, match=r"(middle|late) in the game\): dealing otherwise only .* or the engine shows seat \d"
    ):
        check_hidden(Kit.of("hacienda"))


def test_a_leak_in_one_decision_kind_only_is_caught_and_named(monkeypatch):
    """A leak only at the water decision (kind 4), which a player meets a few times a game, fails naming it."""
    from meeplab.sim.core.forward import C_KIND
    from meeplab.sim.hacienda.layout import Kind

    _leak_when(monkeypatch, lambda r: int(r["ctl"][C_KIND]) == Kind.WATER)
    with pytest.raises(AssertionError, match=r"decision kind water \(4\)"):
        check_hidden(Kit.of("hacienda"))


def test_the_kit_prints_what_it_covered_and_can_look_wider():
    """Every player count, every decision kind, early, middle and late: the coverage table; breadth=2 checks up to
    two states per cell."""
    note = check_hidden(Kit.of("goofspiel"))
    assert "players  kind" in note and all(f"  {p}  bid" in note for p in (2, 3, 4, 5))
    wide = check_hidden(Kit.of("goofspiel", breadth=2))
    assert int(wide.split(" states")[0]) > int(note.split(" states")[0])


def test_a_redraw_that_redeals_nothing_fails(monkeypatch):
    """A redraw that keeps the true state as it is passes every keep-check, but quality's playouts would then see
    no fresh chance: the kit fails it."""
    from meeplab.testing import redraw

    def keep_all(st, cx, seed, stream):  # planted: re-deals nothing
        return None

    monkeypatch.setattr(redraw, "_call_redraw", keep_all)
    with pytest.raises(AssertionError, match="redraw re-dealt nothing"):
        redraw.check_redraw(Kit.of("hacienda"))
    monkeypatch.undo()
    assert "unseen elements re-dealt" in redraw.check_redraw(Kit.of("hacienda"))


def test_a_redeal_whose_order_depends_on_the_cards_order_is_named_as_such(hacienda, monkeypatch):
    """A determinise that re-deals the right cards but lets their old order show through (here: the land deck's
    unseen part reversed when its first unseen card is even) is named for what it is, not "forgets to re-deal"."""
    from meeplab.testing.hidden import unseen_indices

    real = face.determinise
    deck = next(h for h in hacienda.game.hidden if h.field == "ldeck")

    def determinise(st, cx, seat, r):
        rec = st.rec[0]
        idx = unseen_indices(deck, rec, seat, cx)  # the land cards seat has not seen
        first = int(rec["ldeck"][idx[0]]) if idx is not None and len(idx) else 1
        real(st, cx, seat, r)
        if first % 2 == 0:  # the old order shows through: the re-dealt unseen cards reversed
            rec["ldeck"][idx] = rec["ldeck"][idx][::-1].copy()

    monkeypatch.setattr(face, "determinise", determinise)
    with pytest.raises(AssertionError, match=r"re-deals the same cards in field 'ldeck' in an order that depends"):
        check_hidden(hacienda)

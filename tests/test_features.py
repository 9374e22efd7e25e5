"""The feature columns each built-in game declares (``Face.features``), found generically from its id, agree with
the ``IntEnum`` names its engine writes and its bots read."""

import importlib
from enum import IntEnum

import pytest

from meeplab.sim.core.face import Face, column_names
from meeplab.sim.core.registry import get_game

# game -> (its module holding Kind and the feats width, the width's name)
GAMES = {
    "schweinebande": ("layout", "NF"),
    "hacienda": ("layout", "NF"),
    "acbas": ("layout", "NF"),
    "goldrush": ("const", "NFEAT"),
}


def test_column_names_fills_gaps_and_refuses_columns_out_of_range():
    class Cols(IntEnum):
        GAIN = 0
        BIAS = 3

    assert column_names(Cols, 4) == ("gain", "unused_1", "unused_2", "bias")
    with pytest.raises(ValueError, match="BIAS = 3"):
        column_names(Cols, 3)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_game_declares_its_feature_columns(game):
    where, width_name = GAMES[game]
    spec = get_game(game)
    face = Face.of(spec)
    assert face is not None
    table = face.features
    assert spec.features == table  # the spec holds what its face declares
    layout = importlib.import_module(f"meeplab.sim.{game}.{where}")
    kinds = layout.Kind
    width = getattr(layout, width_name)
    # one entry per decision kind, in ctl[C_KIND] order, each as wide as the engine's feats
    assert list(table) == [k.name.lower() for k in kinds]
    assert all(isinstance(cols, tuple) and len(cols) == width for cols in table.values())
    # the table is what the engine writes through: every named column sits where its IntEnum says
    features = importlib.import_module(f"meeplab.sim.{game}.features")
    columns = getattr(features, "COLUMNS", None)
    per_kind = columns if isinstance(columns, dict) else dict.fromkeys(kinds, layout.Feature)
    for kind, enum in per_kind.items():
        for member in enum:
            assert table[kind.name.lower()][member] == member.name.lower()


def test_a_game_without_a_face_has_none():
    class Spec:
        def play(self):
            pass

    assert Face.of(Spec()) is None

"""The ACBAS feature columns the game declares: every decision kind has the same ``NF`` columns, named by
``layout.Feature`` (the engine writes ``feats[i, F_SCORE]``, the aliases of its members; the bots read
``Feature.SCORE``). :data:`FEATURES` maps each kind name (``layout.Kind``) to the column names in order
(``Face.features``); what each column holds for each kind: ``bots.md``.
"""

from meeplab.sim.core.face import column_names

from .layout import NF, Feature, Kind

COLUMNS = column_names(Feature, NF)
FEATURES = {k.name.lower(): COLUMNS for k in Kind}

__all__ = ["COLUMNS", "FEATURES", "NF", "Feature", "Kind"]

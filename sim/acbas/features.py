"""The ACBAS feature columns the game declares: every decision kind has the same ``NF`` columns, named by
``layout.Feature`` (the engine writes ``feats[i, F_SCORE]``, the aliases of its members; the bots read
``Feature.SCORE``). :data:`FEATURES` maps each kind name (``layout.Kind``) to the column names in order
(``Face.features``); what each column holds for each kind: ``bots.md``.
"""

from meeplab.sim.core.face import column_names

from .layout import NF, NSLOT, V_ROUND, V_ROUNDS, Feature, Kind

COLUMNS = column_names(Feature, NF)
FEATURES = {k.name.lower(): COLUMNS for k in Kind}
# what shapes the learned policy's weights (sim.core.policy): the action's moves[i, 0] is the action space's slot,
# and the progress the seat sees is the round of the rounds
CODES = {"action": NSLOT}
PROGRESS = (V_ROUND, V_ROUNDS)

__all__ = ["CODES", "COLUMNS", "FEATURES", "NF", "PROGRESS", "Feature", "Kind"]

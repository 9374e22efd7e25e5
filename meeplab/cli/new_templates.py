"""The files ``meeplab new GAME_ID`` writes: a pip-installable plugin package holding a tiny complete game (Pig, the
dice game: roll to add to your turn total or hold to bank it; a 1 loses the turn total; the first to bank the
target wins), a random and a greedy bot, tests that call the conformance kit, and a README.

Each template is ``string.Template`` text: ``$id`` (the game id), ``$pkg`` (the import name), ``$title``."""

FILES: dict[str, str] = {}

FILES["pyproject.toml"] = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "meeplab-$id"
version = "0.1.0"
description = "$title: a meeplab plugin game"
requires-python = ">=3.11"
dependencies = ["meeplab"]

# meeplab finds the game and its bots through these entry points once the package is installed
[project.entry-points."meeplab.games"]
$id = "$pkg:GAME"

[project.entry-points."meeplab.bots"]
$id = "$pkg.bots"

[tool.setuptools.packages.find]
include = ["$pkg*"]

# the bots' TOML variants (tuned weights, a learned bot) travel in the wheel with the bot modules
[tool.setuptools.package-data]
"$pkg.bots" = ["*.toml"]

[tool.pytest.ini_options]
testpaths = ["tests"]
filterwarnings = ["ignore::numba.NumbaExperimentalFeatureWarning"]
"""

FILES["README.md"] = """\
# $title: a meeplab plugin game

Made by `meeplab new $id`. The game in here is Pig, the dice game, as a worked starting point: replace its rules
with yours (docs/adding-a-game.md in meeplab is the tutorial).

```bash
pip install -e .                       # registers the game and its bots with meeplab (entry points)
meeplab games                          # lists $id, "plugin meeplab-$id 0.1.0"
meeplab run $id --games 10000 --players 2-4 --bots greedy,random --out runs/$id
meeplab report runs/$id --out runs/$id/report.html
meeplab replay $id --players 3 --bots greedy,random
pytest tests                           # your rules and meeplab's conformance kit
```

| file | what |
|---|---|
| `$pkg/__init__.py` | `GAME = GameSpec(...)`: what meeplab sees of the game |
| `$pkg/params.py` | the rule parameters (`meeplab params $id`) |
| `$pkg/engine.py` | the numba engine: `reset`, `advance`, `apply`, `determinise`, `redraw`, `result` |
| `$pkg/replay.py` | the event log as text (`meeplab replay`) |
| `$pkg/draw.py` | the board as SVG for `meeplab view` and the play page (contract: meeplab's `sim/core/draw.py`) |
| `$pkg/bots/` | the bots: `random`, `greedy`, `heuristic` (named weights), `tuned.toml`, `rollout`, `ismcts` |
| `tests/test_$id.py` | rule tests and the conformance kit (`meeplab.testing`) |

`tuned.toml` is the heuristic's variant that `meeplab play` seats; the search bots are three lines each (`SEARCH`,
`POLICY`, `WEIGHTS`). Tune the heuristic for your rules and ship the result as the `tuned` bot:

```bash
meeplab tune $id --bot heuristic --players 3 --vs greedy --out $pkg/bots/tuned.toml --force
```

A learned bot: `$pkg/__init__.py` declares the feature columns the engine writes (`features=` in `Face`; keep it in
step with the engine), so `meeplab learn` fits the kernel's `policy` bot to a search bot's choices:

```bash
meeplab learn $id --players 3 --teacher rollout --games 400 --out runs/learn-$id
meeplab run $id --players 3 --bots learned,tuned --bot-config runs/learn-$id/learned.toml --out runs/$id-learned
```

Hidden cards and face-down (simultaneous) choices are declared in `GameSpec` (`hidden=`, `secret=`: see the comment
in `$pkg/__init__.py` and docs/adding-a-game.md in meeplab); the conformance kit then checks them.
"""

FILES["$pkg/__init__.py"] = '''\
"""$title: a meeplab plugin game (made by `meeplab new $id`; the rules in here are Pig, the dice game)."""

from meeplab.sim.core.face import Face
from meeplab.sim.core.game import GameSpec  # and Hidden, Secret for hidden cards and face-down choices

from . import draw, engine
from .params import PARAMS
from .replay import format_game

FACE = Face(
    forward_context=lambda ctx, lineup: ctx,  # the engine context: here the prepared parameters themselves
    n_categories=1,
    log_width=engine.LOGW,
    format_game=format_game,
    # the feature columns the engine writes, per decision kind (kind 0 first): `meeplab learn` fits a policy over them
    features={"turn": ("expected_gain", "turn_total")},
)

GAME = GameSpec(
    id="$id",
    title="$title",
    min_players=2,
    max_players=engine.MAXP,
    default_players=3,
    params=PARAMS,
    categories=["banked"],
    length_unit="turns",
    prepare=engine.make_ctx,
    **FACE.spec_fields(),
    end_codes=("rules", "cap"),
    description="Roll to add to your turn total or hold to bank it; a 1 loses the turn total.",
    bot_doc="One decision kind: 0 = roll (move 0) or hold (move 1). feats: 0 expected gain, 1 turn total.",
    options=(("roll", "roll the die again"), ("hold", "bank the turn total")),
    chance=True,
    draw=draw,  # the board as SVG: meeplab view and the play page
    # Pig has no hidden information. A game with hidden cards declares them (hidden=(Hidden(field="hand", ...),));
    # one with face-down or simultaneous choices (sealed bids, orders revealed together) declares them as secret:
    # the kit's "secret" check then makes sure no other seat sees a choice before its reveal. The worked example
    # is "Secret decisions" in docs/adding-a-game.md (examples/goofspiel in meeplab):
    # secret=Secret(kinds=(KIND_BID,), reveals=lambda rec, cx: int(rec["ctl"][C_REVEALS])),
)
'''

FILES["$pkg/params.py"] = '''\
"""Rule parameters of $title (defaults: the usual Pig rules, a shorter race)."""

from meeplab.sim.core.params import Param, ParamSet

PARAMS = ParamSet(
    [
        Param("target", 50, "int", "Points to bank to win", lo=1, hi=10000),
        Param("sides", 6, "int", "Sides of the die (a 1 loses the turn total)", lo=2, hi=100),
        Param("max_turns", 400, "int", "Safety net: the game ends after this many turns", lo=1, hi=100000),
    ]
)
'''

FILES["$pkg/engine.py"] = '''\
"""$title's numba engine on meeplab's forward model (docs/adding-a-game.md in meeplab).

The whole state is one numpy record (``STATE_DTYPE``): the shared fields ``pub`` (what bots see), ``ctl`` (control
words), ``moves``/``feats`` (the pending decision) and ``rng`` (the game's random stream), then the game's own.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from meeplab.sim.core import forward
from meeplab.sim.core.events import LOG_WIDTH, log_event
from meeplab.sim.core.forward import C_COMMON, C_END, C_KIND, C_LENGTH, C_N, C_NP, C_OVER, C_SEAT
from meeplab.sim.core.rng import rng_below, rng_init

MAXP = 8  # most seats
ROLL, HOLD = 0, 1  # the moves
C_TURN = C_COMMON + 0  # seat to act
C_TT = C_COMMON + 1  # its turn total
C_LEN = C_COMMON + 2
V_TT, V_SEAT, V_NP, V_TARGET, V_BANK = 0, 1, 2, 3, 4  # the view; V_BANK.. = every seat's banked points
V_LEN = V_BANK + MAXP
P_TARGET, P_SIDES, P_MAXT, P_LEN = 0, 1, 2, 3  # packed parameters
E_ROLL, E_HOLD = 1, 2  # events: seat, die (E_ROLL) or points banked (E_HOLD)
LOGW = LOG_WIDTH

STATE_DTYPE = np.dtype(
    [
        ("pub", np.int64, V_LEN),
        ("ctl", np.int64, C_LEN),
        ("moves", np.int64, (2, 1)),
        ("feats", np.float64, (2, 2)),
        ("rng", np.uint64, 4),
        ("bank", np.int64, MAXP),
    ]
)
State = namedtuple("State", ["rec", "log", "nlog"])
Ctx = namedtuple("Ctx", ["prm"])


def make_ctx(values) -> Ctx:
    """The engine context of a run: the rule parameters packed in an array."""
    return Ctx(np.array([values["target"], values["sides"], values["max_turns"]], dtype=np.int64))


@njit(cache=True)
def new_state(cx, np_, log):
    st = State(np.zeros(1, dtype=STATE_DTYPE), log, np.zeros(2, dtype=np.int64))
    st.rec[0].ctl[C_NP] = np_
    return st


@njit(cache=True, _nrt=False)
def reset(st, cx, seed, g):
    r = st.rec[0]
    np_ = r.ctl[C_NP]
    rng_init(r.rng, seed, g)
    r.ctl[:] = 0
    r.ctl[C_NP] = np_
    r.bank[:] = 0


@njit(cache=True, _nrt=False)
def advance(st, cx):
    """Post the next decision (roll or hold) and return its seat, or -1 once the game is over."""
    r = st.rec[0]
    seat = r.ctl[C_TURN]
    if r.bank[seat] >= cx.prm[P_TARGET] or r.ctl[C_LENGTH] >= cx.prm[P_MAXT]:
        r.ctl[C_OVER] = 1
        r.ctl[C_SEAT] = -1
        r.ctl[C_END] = 0 if r.bank[seat] >= cx.prm[P_TARGET] else 1
        return -1
    tt = r.ctl[C_TT]
    sides = cx.prm[P_SIDES]
    r.ctl[C_SEAT] = seat
    r.ctl[C_KIND] = 0
    r.ctl[C_N] = 2
    r.moves[ROLL, 0] = ROLL
    r.moves[HOLD, 0] = HOLD
    # feature 0: the expected change of this turn's points (a roll: the mean face above 1, less the risk to lose tt)
    r.feats[ROLL, 0] = ((sides * (sides + 1)) / 2 - 1 - tt) / sides
    r.feats[HOLD, 0] = 0.0
    r.feats[ROLL, 1] = tt
    r.feats[HOLD, 1] = tt
    r.pub[V_TT] = tt
    r.pub[V_SEAT] = seat
    r.pub[V_NP] = r.ctl[C_NP]
    r.pub[V_TARGET] = cx.prm[P_TARGET]
    for p in range(MAXP):
        r.pub[V_BANK + p] = r.bank[p]
    return seat


@njit(cache=True, _nrt=False)
def apply(st, cx, i):
    r = st.rec[0]
    seat = r.ctl[C_TURN]
    on = st.nlog[1] != 0
    if i == ROLL:
        die = 1 + rng_below(r.rng, cx.prm[P_SIDES])
        log_event(st.log, st.nlog, on, E_ROLL, seat, die, 0, 0, 0)
        if die != 1:
            r.ctl[C_TT] += die
            return
        r.ctl[C_TT] = 0
    else:
        r.bank[seat] += r.ctl[C_TT]
        log_event(st.log, st.nlog, on, E_HOLD, seat, r.ctl[C_TT], r.bank[seat], 0, 0)
        r.ctl[C_TT] = 0
        if r.bank[seat] >= cx.prm[P_TARGET]:
            return  # advance ends the game
    r.ctl[C_LENGTH] += 1
    r.ctl[C_TURN] = (seat + 1) % r.ctl[C_NP]


@njit(cache=True, _nrt=False)
def determinise(st, cx, seat, rnd):
    """Nothing is hidden (the dice are rolled when they are rolled): the identity."""
    return


@njit(cache=True, _nrt=False)
def redraw(st, cx, rnd):
    """Fresh future chance from the true state (``meeplab quality``): the dice are rolled when they are rolled, so
    there is nothing dealt in advance to shuffle again; a game with a deck shuffles its undrawn cards here."""
    return


@njit(cache=True, _nrt=False)
def result(st, cx, score, tiebreak, brk):
    r = st.rec[0]
    for p in range(r.ctl[C_NP]):
        score[p] = r.bank[p]
        tiebreak[p] = 0.0
        brk[p, 0] = r.bank[p]


@njit(cache=True, _nrt=False)
def option_mask(st, cx, i):
    """Option classes for restricted play (``meeplab options``): bit 0 roll, bit 1 hold."""
    return np.int64(1) << st.rec[0].moves[i, 0]


forward.register(State, Ctx, new=new_state, reset=reset, advance=advance, apply=apply, determinise=determinise,
                 result=result, redraw=redraw)
forward.register_options(State, Ctx, option_mask)
'''

FILES["$pkg/replay.py"] = '''\
"""$title's event log as text (``meeplab replay $id``; with ``--explain`` each search bot's candidates, by visits)."""

from meeplab.sim.core.explain import search_lines
from meeplab.sim.core.search import E_SEARCH, E_SEARCH_CAND

from .engine import E_HOLD, E_ROLL, ROLL


def format_game(ctx, lineup, seed, index, n_players, log, length, score, brk, explain=False) -> str:
    lines = [f"$title game {index} (seed {seed}), {n_players} players: {', '.join(lineup.names)}"]
    search = []  # a search bot's rows come before the move it chose
    for row in log:
        code, seat, a, b = (int(x) for x in row[:4])
        if code in (E_SEARCH, E_SEARCH_CAND):
            search.append(tuple(int(x) for x in row))
            continue
        if search and explain:
            lines += search_lines(search, lambda kind, m0, m1: "roll" if m0 == ROLL else "hold")
        search = []
        if code == E_ROLL:
            lines.append(f"  seat {seat + 1} rolls {a}" + (": turn total lost" if a == 1 else ""))
        elif code == E_HOLD:
            lines.append(f"  seat {seat + 1} holds {a}: {b} banked")
    lines.append(f"{length} turns")
    lines += [f"  seat {s + 1}: {score[s]:g}" for s in range(n_players)]
    return "\\n".join(lines)
'''

FILES["$pkg/draw.py"] = '''\
"""$title drawn as SVG (the contract: ``sim/core/draw.py`` in meeplab): one lane per seat with its banked points
towards the target, the die and the turn total. Nothing is hidden in Pig, so every seat's view is the whole table;
a game with hidden parts draws them as a back (``class="back"``) in the views of the seats that cannot see them."""

from meeplab.sim.core.draw import SEAT_COLOURS, SEAT_INK
from meeplab.sim.core.forward import C_KIND, C_LENGTH, C_N, C_NP, C_OVER, C_SEAT

from .engine import C_TT, C_TURN, E_HOLD, E_ROLL, HOLD, LOGW, ROLL, V_BANK, V_TARGET

LOG_WIDTH = LOGW
PRIVATE_MOVES = False  # the candidates (roll, hold) show nothing only the deciding seat knows
W, LANE_X, LANE_W, TOP = 560, 90, 420, 70


def _lane_y(p):
    return TOP + 10 + p * 40


def size(ctx, n_players):
    return W, _lane_y(n_players) + 10


def base(ctx, n_players):
    out = [
        '<text x="20" y="24" class="title">$title: roll or hold</text>',
        '<rect id="die" x="20" y="36" width="28" height="28" rx="5" fill="#fff" stroke="#333"/>',
        f'<line x1="{LANE_X + LANE_W}" y1="{TOP}" x2="{LANE_X + LANE_W}" y2="{_lane_y(n_players)}" '
        'stroke="#8a7a55" stroke-dasharray="4 3"/>',
    ]
    for p in range(n_players):
        y = _lane_y(p)
        out.append(
            f'<g><rect id="seat-{p}" x="{LANE_X}" y="{y}" width="{LANE_W}" height="28" rx="6" fill="#fbf7ee" '
            f'stroke="{SEAT_COLOURS[p]}" stroke-width="2"/><circle cx="40" cy="{y + 14}" r="11" '
            f'fill="{SEAT_COLOURS[p]}"/><text x="40" y="{y + 18}" text-anchor="middle" font-weight="bold" '
            f'fill="{SEAT_INK[p]}">{p + 1}</text></g>'
        )
    return "\\n".join(out)


def pieces(ctx, rec, seat=None):
    pub, ctl = rec["pub"], rec["ctl"]
    target = max(1, int(pub[V_TARGET]) or int(ctx.prm[0]))
    out = []
    for p in range(int(ctl[C_NP])):
        banked = int(pub[V_BANK + p])
        w = LANE_W * min(banked, target) / target
        y = _lane_y(p)
        out.append(
            f'<g><rect x="{LANE_X}" y="{y + 4}" width="{w:.1f}" height="20" rx="4" fill="{SEAT_COLOURS[p]}" '
            f'opacity="0.6"/><text x="{LANE_X + 6}" y="{y + 19}" class="small">{banked} banked</text></g>'
        )
    if not int(ctl[C_OVER]):
        out.append(f'<text x="60" y="55" class="label">P{int(ctl[C_TURN]) + 1}: turn total {int(ctl[C_TT])}</text>')
    return out


def info(ctx, rec, seat=None):
    pub, ctl = rec["pub"], rec["ctl"]
    np_ = int(ctl[C_NP])
    turn = int(ctl[C_TURN])
    return {
        "columns": [f"P{p + 1}" for p in range(np_)],
        "rows": [
            ["banked", *[str(int(pub[V_BANK + p])) for p in range(np_)]],
            ["turn total", *[str(int(ctl[C_TT])) if p == turn else "-" for p in range(np_)]],
        ],
    }


def score(ctx, rec):
    return [float(rec["pub"][V_BANK + p]) for p in range(int(rec["ctl"][C_NP]))]


def round_of(ctx, rec):
    return int(rec["ctl"][C_LENGTH]) // max(1, int(rec["ctl"][C_NP])) + 1


def status(ctx, rec):
    ctl = rec["ctl"]
    if int(ctl[C_OVER]):
        return f"Game over after {int(ctl[C_LENGTH])} turns"
    return f"Turn {int(ctl[C_LENGTH]) + 1} · P{int(ctl[C_TURN]) + 1} to act · turn total {int(ctl[C_TT])}"


def kind_name(kind):
    return "turn" if kind == 0 else f"kind {kind}"


def moves(ctx, rec):
    ctl = rec["ctl"]
    if int(ctl[C_KIND]) != 0 or int(ctl[C_SEAT]) < 0:
        return []
    labels = {ROLL: ("roll the die", "die"), HOLD: (f"hold: bank {int(ctl[C_TT])}", f"seat-{int(ctl[C_SEAT])}")}
    return [labels[int(rec["moves"][i, 0])] for i in range(int(ctl[C_N]))]


def events(ctx, log, lo, hi, names, seat=None):
    out = []
    for row in log[lo:hi]:
        code, who, a, b = (int(x) for x in row[:4])
        if code == E_ROLL:
            out.append(f"P{who + 1} rolls {a}" + (": turn total lost" if a == 1 else ""))
        elif code == E_HOLD:
            out.append(f"P{who + 1} holds {a}: {b} banked")
    return out
'''

FILES["$pkg/bots/__init__.py"] = '''\
"""$title's bots: every module here with a ``choose`` (or ``SEARCH``) is a bot (entry point meeplab.bots)."""
'''

FILES["$pkg/bots/random.py"] = '''\
"""Uniformly random: roll or hold at random."""

from meeplab.sim.core.bots import bot_jit
from meeplab.strategies.common import pick_uniform

DESCRIPTION = "uniformly random legal moves (baseline)"


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return pick_uniform(n, rng)
'''

FILES["$pkg/bots/greedy.py"] = '''\
"""Best expected gain (feature 0): rolls while a roll is worth more than holding (with a d6: hold at 20)."""

from meeplab.sim.core.bots import bot_jit
from meeplab.strategies.common import argmax_column

DESCRIPTION = "best expected gain of the turn (feature 0)"
READS = "max0"


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    return argmax_column(feats, n, 0, rng)
'''

FILES["$pkg/bots/heuristic.py"] = '''\
"""Hold at a turn total (weight ``hold_at``), sooner when banking wins, later the further behind the leader
(``chase`` points of turn total more per point behind): the bot ``meeplab tune`` tunes (its weights are named)."""

from meeplab.sim.core.bots import bot_jit

from ..engine import HOLD, MAXP, ROLL, V_BANK, V_NP, V_SEAT, V_TARGET

DESCRIPTION = "holds at a turn total (hold_at), at once when banking wins, later when behind (chase)"
WEIGHTS = {"hold_at": 20.0, "chase": 0.0}


@bot_jit
def choose(kind, view, moves, n, feats, weights, rng):
    if n < 2:
        return 0
    tt = feats[0, 1]  # the turn total (feature 1)
    seat = view[V_SEAT]
    mine = view[V_BANK + seat]
    if mine + tt >= view[V_TARGET]:
        return HOLD  # banking wins the game
    best = 0
    for p in range(min(view[V_NP], MAXP)):
        if p != seat and view[V_BANK + p] > best:
            best = view[V_BANK + p]
    behind = max(0.0, best - mine)
    return HOLD if tt >= weights[0] + weights[1] * behind else ROLL
'''

FILES["$pkg/bots/tuned.toml"] = """\
# The bot `meeplab play` starts its seats with: the heuristic at weights you choose. Replace this file with the one
# `meeplab tune $id --bot heuristic --out $pkg/bots/tuned.toml --force` writes (a variant named tuned).
[bots.tuned]
base = "heuristic"
description = "the heuristic at its shipped weights (meeplab tune writes a tuned one)"

[bots.tuned.weights]
hold_at = 20.0
chase = 0.0
"""

FILES["$pkg/bots/rollout.py"] = '''\
"""Flat Monte-Carlo search on the forward model (meeplab's kernel): every candidate played out by the heuristic."""

SEARCH = "rollout"
POLICY = "heuristic"
DESCRIPTION = "search: 16 heuristic playouts per candidate"
WEIGHTS = {"playouts": 16.0}
'''

FILES["$pkg/bots/ismcts.py"] = '''\
"""Information-set MCTS (meeplab's kernel, sim/core/ismcts.py): one tree per decision, heuristic playouts."""

from meeplab.sim.core.ismcts import ISMCTS_WEIGHTS

SEARCH = "ismcts"
POLICY = "heuristic"
DESCRIPTION = "search: information-set MCTS, 256 iterations, heuristic playouts"
WEIGHTS = dict(ISMCTS_WEIGHTS)
'''

FILES["tests/test_$id.py"] = '''\
"""$title: a rule test of your own and meeplab's conformance kit (one test per check)."""

import numpy as np

from meeplab.sim.core import face
from meeplab.sim.core.bots import make_lineup
from meeplab.testing import conformance_cases, run_case
from $pkg import GAME, engine


def test_a_one_loses_the_turn_total_and_passes_the_die():
    ctx = GAME.prepare(GAME.params.resolve({"sides": 2}))  # a coin: 1 or 2
    cx = GAME.engine_context(ctx, make_lineup("$id", ["greedy"], 2, False))
    st = face.new_state(cx, 2, np.zeros((0, engine.LOGW), dtype=np.int64))
    face.reset(st, cx, 1, 0)
    r = st.rec[0]
    for _ in range(50):
        seat = face.advance(st, cx)
        before = int(r["ctl"][engine.C_TT])
        face.apply(st, cx, engine.ROLL)
        if r["ctl"][engine.C_TURN] != seat:  # a 1: the turn total is gone, nothing banked
            assert r["ctl"][engine.C_TT] == 0 and r["bank"][seat] == 0
            return
        assert r["ctl"][engine.C_TT] == before + 2
    raise AssertionError("fifty coin flips without a 1")


@conformance_cases(["$id"])
def test_conformance(case):
    run_case(case)
'''

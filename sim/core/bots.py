"""The bot plug-in contract shared by every game.

A bot is a module ``strategies/<game>/<name>.py`` (or a ``meeplab.bots`` entry point) defining

* ``choose``: a numba function compiled with the shared signature :data:`BOT_SIG`::

      choose(kind, view, moves, n_moves, feats, weights, rng) -> index in [0, n_moves)

  - ``kind``    int64, the decision being asked (each game documents its kinds in ``sim/<game>/bots.md``)
  - ``view``    int64[:], the game state as the engine exposes it (layout documented per game)
  - ``moves``   int64[:, :], candidate moves, one row each (first ``n_moves`` rows valid)
  - ``feats``   float64[:, :], engine-computed features per candidate (column names per game)
  - ``weights`` float64[:], this bot's weights, in the order of its ``WEIGHTS``
  - ``rng``     uint64[4], the game's own random stream (draws stay reproducible)

* ``WEIGHTS`` (optional): an ordered mapping name -> default value; tuned variants override it
  from TOML (``[bots.NAME] base = "heuristic"`` + ``[bots.NAME.weights]``) without code.
* ``DESCRIPTION`` (optional): one line shown by ``meeplab bots GAME``.
* ``SEARCH`` (instead of ``choose``): a search bot on the game's forward model (``sim.core.search``), e.g.
  ``SEARCH = "rollout"`` with ``POLICY = "heuristic"`` (the registered bot that plays the playouts) and
  ``WEIGHTS`` holding the search budget (``playouts``, ``margin``, ``max_candidates``, ``switch``, ``value``,
  ``kinds``: a bit mask of the decision kinds searched, 0 = all; the policy decides the others). A TOML variant
  may set ``policy = "NAME"`` next to ``base``.
* ``READS`` (optional): which features ``choose`` reads, so that an engine may skip computing the rest
  (the choices stay exactly the same):

  - ``"all"`` (default): any of them;
  - ``"max0"``: ``choose`` returns one of the rows whose feature 0 is within 1e-9 of the largest feature 0
    (``strategies.common.argmax_column(feats, n, 0, rng)``), reads no other feature, and its random draws
    depend only on how many such rows there are. An engine may then leave out the work for a row whose
    feature 0 it can prove is more than 1e-6 below another row's: that row holds the bound in feature 0 and 0
    elsewhere (which games do this: their ``bots.md``);
  - ``"none"``: ``choose`` reads no feature at all.

The engines receive every seat's bot as a first-class numba function (``FunctionType``) in a
fixed-length tuple, so one cached engine serves any line-up and adding a bot touches no engine.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import importlib.util
import math
import pkgutil
import tomllib
from dataclasses import dataclass, field, replace
from enum import IntEnum
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from . import schema
from .errors import MeeplabError
from .forward import (
    S_ALGO,
    S_KINDS,
    S_LOWER,
    S_MARGIN,
    S_MAXCAND,
    S_PLAYOUTS,
    S_RACE,
    S_RACE_FROM,
    S_SWITCH,
    S_VALUE,
    S_WIDTH,
    Algo,
    Value,
)
from .params import load_toml
from .policy import is_shape


class Reads(IntEnum):
    """What a bot's ``choose`` reads of the features (``Lineup.reads`` per entry; a bot module's ``READS``, see the
    module doc)."""

    ALL = 0  # any of them
    MAX0 = 1  # only which rows hold the largest feature 0
    NONE = 2  # none


# a bot module's READS -> its code
READS = {"all": Reads.ALL, "max0": Reads.MAX0, "none": Reads.NONE}
READS_ALL, READS_NONE = Reads.ALL, Reads.NONE  # the names sim.acbas and lab.studies.options import
# search algorithms a bot module may name with SEARCH (value = sim.core.forward.Algo)
SEARCH_ALGOS = {"rollout": Algo.ROLLOUT}
# a search bot's budget (sim.core.forward S_*): name -> default
SEARCH_WEIGHTS = {
    "playouts": 16.0,
    "margin": 0.0,
    "max_candidates": 0.0,
    "switch": 0.0,
    "value": 0.0,
    "kinds": 0.0,
    "grow": 0.0,
    "race": 0.0,
    "race_from": 0.0,
}
# Other search algorithms register themselves (sim.core.ismcts, when a bot of it is imported): name -> (their weights
# with defaults, the function making the engine's search row from a BotSpec and the player count)
SEARCH_PLUGINS: dict[str, tuple[dict[str, float], Any]] = {}


@dataclass(frozen=True)
class Tunable:
    """A search option ``meeplab tune`` may search: its valid range and its step (the size of a CMA-ES step of 1
    when the default is smaller, e.g. 0)."""

    lo: float
    hi: float
    step: float


# The search options a tune may search, per search algorithm; a budget (playouts, iterations) is not one (more is
# always better, only slower), nor is a mode switch or a whole-number cap (value, kinds, root, cutoff, depth, grow).
SEARCH_TUNABLE: dict[str, dict[str, Tunable]] = {
    "rollout": {"margin": Tunable(0.0, 1.0, 0.01), "switch": Tunable(0.0, 1.0, 0.05)},
}


def register_search_bot(name: str, algo: Algo, weights: dict[str, float], row, tunable=None) -> None:
    """Let bot modules name search algorithm ``name`` with ``SEARCH`` (``algo``: its ``sim.core.forward.Algo``;
    ``weights``: its weights and defaults; ``row(spec, n_players)``: its engine search row; ``tunable``: the
    options ``tune`` may search, name -> :class:`Tunable`)."""
    SEARCH_ALGOS[name] = algo
    SEARCH_PLUGINS[name] = (dict(weights), row)
    SEARCH_TUNABLE[name] = dict(tunable or {})


def tunable_weights(spec: BotSpec) -> dict[str, Tunable]:
    """The weights of ``spec`` that ``tune`` may search, with their ranges: every weight of a plain bot (no bound,
    step 0 = its own size), the registered options of a search bot (:data:`SEARCH_TUNABLE`). A policy bot's
    ``shape.*`` header is the game's declaration, not a weight: never tuned."""
    if spec.search:
        return {n: t for n, t in SEARCH_TUNABLE.get(spec.search, {}).items() if n in spec.weight_names}
    fixed = spec.base == "policy"
    return {n: Tunable(-math.inf, math.inf, 0.0) for n in spec.weight_names if not (fixed and is_shape(n))}


BOT_SIG = "int64(int64, int64[:], int64[:, :], int64, float64[:, :], float64[:], uint64[:])"


def bot_jit(func=None, **options):
    """Decorator for a bot's ``choose``: compiled with :data:`BOT_SIG` when a line-up first hands the bot to an
    engine (:func:`ready_bot`: a command compiles, or loads from the cache, only the bots it plays; on a cold cache a
    helper process may compile it while the engine compiles, :class:`BotFunctions`), cached, and without
    numba's reference counting (``_nrt=False``). A bot that only reads its arguments needs none, and
    skipping the atomic counter updates on its array arguments makes each call about half as
    expensive. Other ``njit`` options pass through (``@bot_jit(error_model="numpy")``). A bot that
    allocates arrays (``np.empty``, ``np.zeros``, ...) does not compile this way: decorate it with
    ``njit(BOT_SIG, cache=True)`` instead (compiled when its module loads)."""
    opts = {"cache": True, "_nrt": False}
    opts.update(options)
    decorate = njit(**opts)
    return decorate(func) if func is not None else decorate


def ready_bot(fn):
    """A bot's ``choose`` as the engines take it: compiled (or loaded from the cache) for :data:`BOT_SIG` alone and
    closed to other signatures, which makes numba type it as a function pointer (every bot of a line-up then has
    one type, and an engine compiles once for all line-ups). Done once, when a line-up first hands the bot out."""
    if getattr(fn, "_can_compile", False):
        fn.compile(BOT_SIG)
        fn.disable_compile()
    return fn


def bot_type():
    """The numba type of a ready bot (:func:`ready_bot`): a function pointer of signature :data:`BOT_SIG`."""
    from numba import types
    from numba.core import sigutils

    args, ret = sigutils.normalize_signature(BOT_SIG)
    return types.FunctionType(ret(*args))


def _cold(fn) -> bool:
    """Whether ``fn`` still has to compile for :data:`BOT_SIG` here and numba's cache does not hold it."""
    from .parcompile import is_cached

    return bool(getattr(fn, "_can_compile", False)) and not is_cached(fn, BOT_SIG)


class BotFunctions:
    """``Lineup.fns`` (a data descriptor): the entries' bot functions, each ready (:func:`ready_bot`) when handed
    out. :func:`make_lineup` leaves a bot that numba's cache does not hold yet uncompiled (``Lineup.pending``), so
    that a cold compile of the engine can give it to a helper process on another core
    (``sim.core.play.search_function``) instead of this process compiling it first; the first read of ``fns``
    compiles (or loads) what is still pending, here."""

    def __set_name__(self, owner, name):
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            raise AttributeError(self.slot[1:])  # no default value (dataclass)
        if obj.pending:
            _ready_pending(obj)
        return obj.__dict__[self.slot]

    def __set__(self, obj, value):
        obj.__dict__[self.slot] = tuple(value)


def _ready_pending(lineup) -> None:
    """Make ``lineup``'s pending bots ready (a load where a helper compiled them)."""
    _ready_each(lineup.pending)
    lineup.pending = ()


def _ready_each(bots) -> None:
    """:func:`ready_bot` for each ``(function, "game.bot")``; a bot that does not compile for the bots' signature is
    one line."""
    for fn, label in bots:
        try:
            ready_bot(fn)
        except Exception as e:  # a plugin bot that does not compile: one line, as at its import
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise MeeplabError(f"bot {label}: its choose does not compile for the bots' signature: {first}") from None


# The engines get the bots as a fixed-length tuple of function pointers: its length is part of the compiled type,
# so every line-up of a game has the same length: MIN_ENTRIES, or the game's most seats when it has more
# (declare_seats, called by every GameSpec). The four built-in games (at most 5 seats) keep one compiled engine;
# a plugin game of 7 seats compiles its own engine for 7 entries and recompiles no other.
MIN_ENTRIES = 5
MAX_ENTRIES = MIN_ENTRIES  # the entries of a game of at most 5 seats (ACBAS sizes its tables by it)
_SEATS: dict[str, int] = {}  # game id -> its most seats (GameSpec.max_players)
_LOWER: set[str] = set()  # games whose lowest score wins (GameSpec.lower_wins): their search rows say so
_SHAPES: dict[str, Any] = {}  # game id -> its policy's Shape (Face.features, codes, progress); none declared: absent
_GAME_LOOKUP = None  # the registry's get_game, handed over when the registry loads (this layer does not import it)


def set_game_lookup(lookup) -> None:
    """Let :func:`discover` make a game it is asked about before anything made it (``lookup``: the registry's
    ``get_game``; called once by ``sim.core.registry``)."""
    global _GAME_LOOKUP
    _GAME_LOOKUP = lookup


def declare_game(
    game: str,
    max_players: int,
    lower_wins: bool = False,
    features: dict[str, tuple[str, ...]] | None = None,
    codes: dict[str, int] | None = None,
    progress: tuple[int, int] | None = None,
) -> None:
    """Record what line-ups of game ``game`` need to know of it: its most seats, whether the lowest score wins and
    the shape of its policy (the feature columns it declares, its move codes and progress: ``Face.features``,
    ``codes``, ``progress``; the policy bot's weights are named after them). Called by ``GameSpec`` when a game is
    made; the core's bot layer does not import the games."""
    from .policy import Shape

    _SEATS[game] = int(max_players)
    feats = {str(k): tuple(v) for k, v in (features or {}).items()}
    if feats:
        _SHAPES[game] = Shape(feats, dict(codes or {}), progress)
    else:
        _SHAPES.pop(game, None)
    if lower_wins:
        _LOWER.add(game)
    else:
        _LOWER.discard(game)


def lineup_entries(game: str, n_players: int) -> int:
    """How many entries a line-up of ``game`` at ``n_players`` seats hands to the engine: the same for every
    player count of a game (one compiled engine), at least :data:`MIN_ENTRIES`."""
    return max(MIN_ENTRIES, _SEATS.get(game, 0), n_players)


STRATEGIES_DIR = Path(__file__).resolve().parents[2] / "strategies"


@dataclass(frozen=True)
class BotSpec:
    name: str
    base: str
    description: str
    choose: Any
    weight_names: tuple[str, ...]
    weights: tuple[float, ...]
    source: str
    reads: Reads = Reads.ALL  # which features choose reads
    search: str = ""  # "" = a plain bot; else the search algorithm (SEARCH_ALGOS) playing with `policy`
    policy: str = ""  # search bots: the registered plain bot that plays the playouts
    origin: str = "built-in"  # where it comes from: "built-in", "plugin <distribution> <version>", a --bot-config
    # the rule parameters its weights were fitted at, as (name, value) pairs changed from the defaults (() = the
    # default rules); None = not fitted to any rules (a hand-written bot, or one whose file does not say)
    fitted_at: tuple | None = None
    # weights at particular player counts, as (count, weights) pairs in weight_names' order: a bot config's
    # ``[bots.NAME.players.P]`` (a bot tuned or learned for one count keeps its others); () = the same at every count
    by_players: tuple = ()

    def weights_at(self, n_players: int | None) -> tuple[float, ...]:
        """The weights it plays with at ``n_players`` seats (``weights`` where no count of its own is given)."""
        for p, w in self.by_players:
            if p == n_players:
                return w
        return self.weights

    def own_weights_at(self, n_players: int) -> bool:
        """Whether it has weights of its own at ``n_players`` seats (``[bots.NAME.players.P]``)."""
        return any(p == n_players for p, _ in self.by_players)

    def weights_dict(self, n_players: int | None = None) -> dict[str, float]:
        """Its weights by name, at ``n_players`` seats (None: those of every count without its own)."""
        return dict(zip(self.weight_names, self.weights_at(n_players)))


@dataclass
class Lineup:
    """What the engines get: one function and weight row per entry, and how entries map to seats."""

    names: list[str]  # one per entry (entries = seats after cyclic padding)
    fns: tuple = BotFunctions()  # length E = lineup_entries(game, seats), padded with the first function
    weights: np.ndarray  # float64[E, W]
    rotate: bool
    reads: np.ndarray = None  # int64[E]: Reads per entry (engines may use it or not)
    # float64[E, S_WIDTH]: search configuration per entry (sim.core.forward S_*); row 0s = plain bot.
    # A search entry's fns/weights slot holds its playout policy.
    search: np.ndarray = None
    # (function, "game.bot") of bots not compiled yet (BotFunctions); empty once fns was read
    pending: tuple = field(default=(), repr=False, compare=False)

    def __post_init__(self):
        n = len(self.__dict__["_fns"])
        if self.reads is None:
            self.reads = np.zeros(n, dtype=np.int64)
        if self.search is None:
            self.search = np.zeros((n, S_WIDTH), dtype=np.float64)

    def fns_type(self):
        """The numba type of ``fns``, without compiling a pending bot (each ready bot's type is :func:`bot_type`)."""
        import numba
        from numba import types

        waiting = {id(fn) for fn, _ in self.pending}
        tys = [bot_type() if id(fn) in waiting else numba.typeof(fn) for fn in self.__dict__["_fns"]]
        return types.BaseTuple.from_types(tys)

    def pending_jobs(self) -> list:
        """``(function, signature)`` of the bots still to compile: what a cold engine compile may hand a helper."""
        return [(fn, BOT_SIG) for fn in dict.fromkeys(fn for fn, _ in self.pending) if _cold(fn)]


@njit(cache=True)
def entry_of_seat(seat, game_index, n_players, rotate):
    """Which lineup entry plays ``seat`` in game ``game_index`` (cyclic shift when rotating)."""
    if rotate:
        return (seat + game_index) % n_players
    return seat


# -- discovery ---------------------------------------------------------------------------------


def load_weights_toml(module_file: str, filename: str) -> dict[str, float]:
    """Read ``[weights]`` from a TOML next to a bot module (the heuristic bots keep theirs there)."""
    path = Path(module_file).with_name(filename)
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    w = data.get("weights", {})
    return {str(k): float(v) for k, v in w.items()}


def _module_bot(game: str, modname: str, module) -> BotSpec | None:
    fn = getattr(module, "choose", None)
    search = getattr(module, "SEARCH", "")
    if fn is None and not search:
        return None
    name = getattr(module, "NAME", modname)
    if search and search not in SEARCH_ALGOS:
        raise MeeplabError(f"bot {game}.{name}: SEARCH must be one of {', '.join(SEARCH_ALGOS)}, got {search!r}")
    weights = dict(getattr(module, "WEIGHTS", {}) or {})
    if search:  # every search weight exists (its default unless the module sets it), so any variant may set it
        weights = {**SEARCH_PLUGINS.get(search, (SEARCH_WEIGHTS,))[0], **weights}
    doc = getattr(module, "DESCRIPTION", None) or (module.__doc__ or "").strip().split("\n")[0]
    reads = getattr(module, "READS", "all")
    if reads not in READS:
        raise MeeplabError(f"bot {game}.{name}: READS must be one of {', '.join(READS)}, got {reads!r}")
    return BotSpec(
        name=name,
        base=name,
        description=doc,
        choose=fn,
        weight_names=tuple(weights),
        weights=tuple(float(v) for v in weights.values()),
        source=getattr(module, "__file__", modname) or modname,
        reads=READS[reads],
        search=search,
        policy=str(getattr(module, "POLICY", "heuristic")) if search else "",
    )


_CACHE: dict[str, dict[str, BotSpec]] = {}
_DEFAULT_LINEUPS: dict[str, str] = {}  # game id -> the DEFAULT_LINEUP its strategies package declares
# plugins that failed to load, one line each ("<origin>: <what went wrong>"): shown by `meeplab games`/`bots`,
# never raised, so a broken plugin leaves every other game and bot working
PLUGIN_PROBLEMS: list[str] = []


def entry_point_origin(ep) -> str:
    """Where an entry point comes from, for people: ``plugin <distribution> <version>``."""
    dist = getattr(ep, "dist", None)
    if dist is None:
        return f"plugin {ep.value}"
    return f"plugin {dist.metadata['Name']} {dist.version}"


def plugin_problem(line: str) -> None:
    """Record a plugin that failed to load (once)."""
    if line not in PLUGIN_PROBLEMS:
        PLUGIN_PROBLEMS.append(line)


def _package_bots(game: str, pkg, origin: str, bots: dict[str, BotSpec]) -> None:
    """The bot modules of package ``pkg`` (files not starting with ``_``) into ``bots``."""
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.ispkg:
            continue
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        spec = _module_bot(game, info.name, module)
        if spec is not None:
            bots[spec.name] = replace(spec, origin=origin)


def discover(game: str) -> dict[str, BotSpec]:
    """All bots of a game: the modules of ``meeplab.strategies.<game>``, then the entry points of group
    ``meeplab.bots`` (``<game>.<bot>`` = a bot module, ``<game>`` = a package of bot modules and TOML variants), then
    the TOML variants of these packages. A plugin that fails to load is recorded in :data:`PLUGIN_PROBLEMS`."""
    if game in _CACHE:
        return dict(_CACHE[game])
    bots: dict[str, BotSpec] = {}
    packages = []
    pkg_name = f"meeplab.strategies.{game}"
    try:
        pkg = importlib.import_module(pkg_name)
    except ModuleNotFoundError:
        pkg = None
    if pkg is not None:
        _package_bots(game, pkg, "built-in", bots)
        packages.append((pkg, "built-in"))
    for ep in metadata.entry_points(group="meeplab.bots"):
        g, dot, bname = ep.name.partition(".")
        if g != game:
            continue
        origin = entry_point_origin(ep)
        try:
            module = ep.load()
            if not dot:  # "<game>" = a strategies package
                _package_bots(game, module, origin, bots)
                packages.append((module, origin))
                continue
            spec = _module_bot(game, bname, module)
        except MeeplabError:
            raise
        except Exception as e:  # a broken plugin: one line, the other bots still load
            plugin_problem(f"{origin}: bots entry point {ep.name} = {ep.value}: {type(e).__name__}: {e}")
            continue
        if spec is not None:
            bots[spec.name] = replace(spec, origin=origin)
    if game not in _SEATS and _GAME_LOOKUP is not None:  # not made yet: the registry makes it (declare_game)
        with contextlib.suppress(MeeplabError):
            _GAME_LOOKUP(game)
    policy = policy_bot(game)  # the kernel's learned-policy base, for every game that declares its features
    if policy is not None and policy.name not in bots:
        bots[policy.name] = policy
    for pkg, origin in packages:
        for d in pkg.__path__:
            for toml in sorted(Path(d).glob("*.toml")):
                for name in _add_variants(bots, toml, game):
                    bots[name] = replace(bots[name], origin=origin)
    for pkg, _ in packages:  # the first package that declares a default lineup (the built-in one first)
        declared = getattr(pkg, "DEFAULT_LINEUP", None)
        if isinstance(declared, str) and declared.strip():
            _DEFAULT_LINEUPS[game] = declared.strip()
            break
    _CACHE[game] = dict(bots)
    return bots


def default_lineup(game: str) -> str:
    """The lineup a command plays where none is given: the ``DEFAULT_LINEUP`` (bot names, comma-separated) that the
    game's strategies package declares in its ``__init__.py`` (the built-in package's, else a plugin package's),
    where every bot of it exists; else ``tuned`` where the game ships it; else ``greedy``. A game declares
    ``learned`` once its learned bot meets issue 56's bar (stronger than ``tuned`` at every player count and near
    the search; docs/bots-and-search.md): Hacienda and ACBAS do."""
    bots = discover(game)
    declared = _DEFAULT_LINEUPS.get(game, "")
    if declared and all(b.strip() in bots for b in declared.split(",")):
        return declared
    return "tuned" if "tuned" in bots else "greedy"


def policy_bot(game: str) -> BotSpec | None:
    """The ``policy`` bot of ``game``: :func:`~meeplab.sim.core.policy.policy_choose` with the header of the game's
    :class:`~meeplab.sim.core.policy.Shape` and one weight per term of each kind's (and code's) block, all 0 (a
    uniform pick) until a bot config sets them (``meeplab learn`` writes one); None for a game that declares no
    feature columns. :func:`discover` offers it to every game that declares them, plugins included."""
    from .policy import policy_bot_choose

    shape = _SHAPES.get(game)
    if shape is None:
        return None
    names = tuple(shape.names())
    defaults = tuple(float(v) for v in shape.vector({}))
    return BotSpec(
        name="policy",
        base="policy",
        description="a conditional logit over the game's candidate features (meeplab learn fits its weights)",
        choose=policy_bot_choose,
        weight_names=names,
        weights=defaults,
        source="meeplab.sim.core.policy",
    )


def _add_variants(bots: dict[str, BotSpec], path: Path, game: str) -> list[str]:
    """The ``[bots.NAME]`` variants of bot-config file ``path`` into ``bots``, the file checked whole first
    (:class:`~meeplab.sim.core.schema.BotConfigFile`: no unknown key, strict types, finite weights)."""
    data = load_toml(path, "bot config")
    config = schema.validate(schema.BotConfigFile, data, f"bot config {path}")
    added = []
    for name, entry in config.bots.items():
        if entry.base not in bots:
            raise MeeplabError(f"bot config {path}: [bots.{name}] has unknown base bot '{entry.base}' for {game}")
        base = bots[entry.base]
        w = _set_weights(base.weights_dict(), entry.weights, base, name, entry.base, path)
        counts = sorted({p for p, _ in base.by_players} | {_player_count(k, game, name, path) for k in entry.players})
        by_players = []
        for p in counts:  # a count's own weights: the base's at that count, then the variant's, then its own there
            at = _set_weights(base.weights_dict(p), entry.weights, base, name, entry.base, path)
            at = _set_weights(at, entry.players.get(str(p), {}), base, name, entry.base, path)
            by_players.append((p, tuple(at.values())))
        bots[name] = BotSpec(
            name=name,
            base=base.base,
            description=entry.description if entry.description is not None else f"{entry.base} with tuned weights",
            choose=base.choose,
            weight_names=tuple(w),
            weights=tuple(w.values()),
            source=str(path),
            origin=f"bot config {path}",
            reads=base.reads,  # the same choose with other weights
            search=base.search,
            policy=_variant_policy(entry.policy, base, name, path),
            fitted_at=None if entry.fitted_at is None else tuple(sorted(entry.fitted_at.items())),
            by_players=tuple(by_players),
        )
        added.append(name)
    return added


def _set_weights(w: dict[str, float], values, base: BotSpec, name: str, base_name: str, path: Path) -> dict:
    """``w`` with bot config ``path``'s ``values`` for variant ``name`` of ``base``: each a weight ``base`` has and
    not the policy's shape (one line naming the weight, and the closest name, otherwise)."""
    w = dict(w)
    for k, v in values.items():
        if is_shape(k) and base.base == "policy":
            raise MeeplabError(
                f"bot config {path}: bot '{name}' sets '{k}', part of the policy's shape, which the game declares"
            )
        if k not in w:
            names = [n for n in w if not is_shape(n)]
            known = ", ".join(names[:12]) + (f", ... ({len(names)} in all)" if len(names) > 12 else "") or "none"
            close = difflib.get_close_matches(k, list(w), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise MeeplabError(
                f"bot config {path}: bot '{name}' sets unknown weight '{k}'{hint} (weights of {base_name}: {known})"
            )
        w[k] = float(v)
    return w


def _player_count(key: str, game: str, name: str, path: Path) -> int:
    """The player count of a ``[bots.NAME.players.KEY]`` table (the schema let only 1-99 through): one the game
    seats."""
    p = int(key)
    most = _SEATS.get(game)
    if most is not None and p > most:
        raise MeeplabError(f"bot config {path}: bot '{name}' sets weights at {p} players; {game} seats at most {most}")
    return p


def _variant_policy(policy: str | None, base: BotSpec, name: str, path: Path) -> str:
    """A search variant's playout policy: ``policy = "NAME"`` in its table, else its base's."""
    if policy is None:
        return base.policy
    if not base.search:
        raise MeeplabError(
            f"bot config {path}: bot '{name}' sets a policy, but its base '{base.name}' is no search bot"
        )
    return policy


def search_playouts(playouts: float, grow: float, n_players: int) -> int:
    """Playouts per candidate at ``n_players`` seats: ``playouts x (1 + grow x (P - 2))``, rounded (``grow = 1``:
    ``playouts`` per opponent). A seat's win share near 1/P needs about P - 1 times the playouts of a 2-player
    game to tell candidates apart with the same relative precision (binomial variance p(1 - p) against
    differences that shrink like p)."""
    return int(round(playouts * (1.0 + grow * (n_players - 2))))


def search_row(spec: BotSpec, n_players: int) -> np.ndarray:
    """The engine's search configuration (sim.core.forward S_*) for a search bot's weights at ``n_players``."""
    if spec.search in SEARCH_PLUGINS:
        return SEARCH_PLUGINS[spec.search][1](spec, n_players)
    w = spec.weights_dict(n_players)  # every search weight is there (_module_bot fills the defaults, variants inherit)
    row = np.zeros(S_WIDTH, dtype=np.float64)
    row[S_ALGO] = SEARCH_ALGOS[spec.search]
    if w["grow"] < 0:
        raise MeeplabError(f"bot '{spec.name}': grow must be at least 0, got {w['grow']:g}")
    row[S_PLAYOUTS] = search_playouts(w["playouts"], w["grow"], n_players)
    row[S_MARGIN] = w["margin"]
    row[S_MAXCAND] = w["max_candidates"]
    row[S_SWITCH] = w["switch"]
    row[S_VALUE] = w["value"]
    if w["race"] < 0:
        raise MeeplabError(f"bot '{spec.name}': race must be at least 0 (0 = off), got {w['race']:g}")
    row[S_RACE] = w["race"]
    if w["race_from"] < 0 or w["race_from"] != int(w["race_from"]):
        raise MeeplabError(
            f"bot '{spec.name}': race_from must be a whole number of playouts (0 = a quarter), got {w['race_from']:g}"
        )
    row[S_RACE_FROM] = w["race_from"]
    kinds = w["kinds"]
    if kinds < 0 or kinds != int(kinds) or kinds >= 2**52:
        raise MeeplabError(f"bot '{spec.name}': kinds must be a bit mask of decision kinds (0 = all), got {kinds:g}")
    row[S_KINDS] = kinds
    if row[S_PLAYOUTS] < 1:
        raise MeeplabError(f"bot '{spec.name}': playouts must be at least 1, got {row[S_PLAYOUTS]:g}")
    if row[S_VALUE] not in list(Value):
        raise MeeplabError(
            f"bot '{spec.name}': value must be {Value.WIN:d} = {Value.WIN.name} (win share) or {Value.RANK:d} = "
            f"{Value.RANK.name} (rank share), got {row[S_VALUE]:g}"
        )
    return row


def available(game: str, bot_configs: list[str] | tuple[str, ...] = ()) -> dict[str, BotSpec]:
    bots = discover(game)
    for cfg in bot_configs:
        _add_variants(bots, Path(cfg), game)
    return bots


def make_lineup(game: str, names: list[str], n_players: int, rotate: bool, bot_configs=()) -> Lineup:
    """Resolve bot names (cycled to ``n_players`` entries) into the arrays an engine takes."""
    bots = available(game, bot_configs)
    if not names:
        raise MeeplabError("--bots needs at least one bot name")
    if len(names) > n_players:
        raise MeeplabError(
            f"{len(names)} bots given for {n_players} seats: list at most {n_players} bots for a {n_players}-player run"
        )
    for n in names:
        if n not in bots:
            raise MeeplabError(f"unknown bot '{n}' for {game}; available: {', '.join(sorted(bots))}")
    entries = [names[i % len(names)] for i in range(n_players)]
    specs = [bots[n] for n in entries]
    n_entries = lineup_entries(game, n_players)
    search = np.zeros((n_entries, S_WIDTH), dtype=np.float64)
    players = []  # the plain bot behind each entry: itself, or a search bot's playout policy
    for i, s in enumerate(specs):
        if s.search:
            search[i] = search_row(s, n_players)
            pol = bots.get(s.policy)
            if pol is None or pol.search:
                raise MeeplabError(
                    f"bot '{s.name}': its playout policy '{s.policy}' must be a plain bot of {game}; "
                    f"available: {', '.join(sorted(n for n, b in bots.items() if not b.search))}"
                )
            players.append(pol)
        else:
            players.append(s)
    if game in _LOWER:
        search[: len(specs), S_LOWER] = 1.0
    for i in range(len(specs), n_entries):
        search[i] = search[0]
        players.append(players[0])
    width = max(1, max(len(s.weights) for s in players))
    weights = np.zeros((n_entries, width), dtype=np.float64)
    reads = np.zeros(n_entries, dtype=np.int64)
    fns = []
    for i, s in enumerate(players):
        weights[i, : len(s.weights)] = s.weights_at(n_players)
        reads[i] = s.reads
        fns.append(s.choose)
    bots = dict.fromkeys((s.choose, f"{game}.{s.name}") for s in players)
    pending = tuple(b for b in bots if _cold(b[0]))
    _ready_each(b for b in bots if b not in pending)  # the bots numba's cache holds: loaded now, as before
    return Lineup(names=entries, fns=fns, weights=weights, rotate=rotate, reads=reads, search=search, pending=pending)


@njit(cache=True, _nrt=False)
def ask_bot(fns, weights, entry, kind, view, moves, n, feats, rng):
    """Ask lineup entry ``entry`` to choose among ``n`` candidates; a lone candidate needs no bot,
    and an out-of-range answer falls back to the first candidate. Compiled without reference counting (it
    allocates nothing): otherwise each decision pays an atomic increment and decrement per array argument."""
    if n <= 1:
        return 0
    i = fns[entry](kind, view, moves, n, feats, weights[entry], rng)
    if i < 0 or i >= n:
        return 0
    return i

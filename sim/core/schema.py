"""The files people write or send, read through one typed schema (pydantic v2, strict): saved games of the play page,
experiment TOML files, bot-config TOML files and a run folder's ``run.json``.

Every file is checked whole before anything of it is used: JSON is read with a size cap (:data:`MAX_FILE_BYTES`),
a nesting cap (:data:`MAX_DEPTH`, checked before parsing) and a cap on the digits of a number
(:data:`MAX_DIGITS`); types are strict (``true`` is no number, ``"3"`` is no 3, ``"false"`` is no ``false``);
every whole number has its range (seeds and game indices as the RNG takes them: 0..2**63-1). One adapter,
:func:`validate`, turns a validation error into one :class:`~meeplab.sim.core.errors.MeeplabError` line that names
the file, the field's path and what is wrong, e.g.
``saves/x.json: players: 99 is outside hacienda's 2..5 players``.

The models say what a file may hold; what depends on a game (its player range, its bots, its parameters) is
checked where games are known: ``meeplab.play.saved.check_saved`` and ``meeplab.lab.runs.rundir.read_meta``.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from .errors import MeeplabError

#: the largest JSON file read (a saved game of a long game is well under 1 MB)
MAX_FILE_BYTES = 5 * 1024 * 1024
#: the deepest nesting of arrays and objects in a JSON file (meeplab writes at most 4)
MAX_DEPTH = 64
#: the most digits of a number in a JSON file (2**64 has 20)
MAX_DIGITS = 40
#: seeds and game indices: what ``--seed``/``--index`` accept and the engines' streams take (int64, not negative)
INT63 = 2**63 - 1
#: the most seats a file may name (no game has more; a game's own range is checked against its GameSpec)
MAX_SEATS = 64
#: the most decisions in a saved game, and the largest candidate id of one
MAX_DECISIONS = 100_000
MAX_CANDIDATE = 1_000_000
#: the longest name (game, bot, parameter, variant) and the longest text or file name
MAX_NAME = 200
MAX_TEXT = 4096
#: the most entries of a list or table in a file (bot configs, parameters, variants)
MAX_ENTRIES = 10_000

SAVED_FORMAT = "meeplab-play"
SAVED_VERSION = 1


# -- JSON with caps ---------------------------------------------------------------------------------------------


class _TooLong(Exception):
    pass


_SPECIAL = re.compile(r'["\\\[\]{}]')


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON ``text`` outside strings (stops counting above ``limit``)."""
    if text.count("[") + text.count("{") <= limit:
        return 0  # cannot be deeper than the brackets it holds
    depth = top = 0
    in_string = False
    skip = -1
    for m in _SPECIAL.finditer(text):
        i, c = m.start(), m.group()
        if i == skip:
            continue
        if in_string:
            if c == "\\":
                skip = i + 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > top:
                top = depth
                if top > limit:
                    return top
        elif c in "]}":
            depth -= 1
    return top


def _int_parser(max_digits: int):
    def parse_int(s: str) -> int:
        if len(s.lstrip("-")) > max_digits:
            raise _TooLong(f"a number of {len(s.lstrip('-'))} digits (at most {max_digits})")
        return int(s)

    return parse_int


def _float_parser(max_digits: int):
    def parse_float(s: str) -> float:
        if len(s) > 4 * max_digits:
            raise _TooLong(f"a number written with {len(s)} characters")
        v = float(s)
        if not math.isfinite(v):
            raise _TooLong(f"the number {s} is too large")
        return v

    return parse_float


def _no_constant(s: str):
    raise _TooLong(f"{s} is not a number JSON allows")


def parse_json(text: str | bytes, source: str, max_depth: int = MAX_DEPTH, max_digits: int = MAX_DIGITS) -> Any:
    """``text`` as JSON, nested at most ``max_depth`` levels, integers of at most ``max_digits`` digits (numbers
    written with at most four times as many characters); any problem is one MeeplabError line about ``source``."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MeeplabError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    depth = nesting_depth(text, max_depth)
    if depth > max_depth:
        raise MeeplabError(f"{source}: nested more than {max_depth} levels deep; not read")
    try:
        return json.loads(
            text,
            parse_int=_int_parser(max_digits),
            parse_float=_float_parser(max_digits),
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as exc:
        raise MeeplabError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except _TooLong as exc:
        raise MeeplabError(f"{source}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise MeeplabError(f"{source}: not valid JSON ({str(exc)[:100]})") from None


def read_json(path, what: str, max_bytes: int = MAX_FILE_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON file at ``path`` (a ``what``, for messages), read at most ``max_bytes`` and checked as
    :func:`parse_json` does."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise MeeplabError(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise MeeplabError(f"{path}: a folder, not a {what}") from None
    except OSError as exc:
        raise MeeplabError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    if len(raw) > max_bytes:
        raise MeeplabError(f"{path}: larger than {max_bytes / 2**20:g} MB, too large for a {what}; not read")
    return parse_json(raw, str(path), max_depth)


# -- the one adapter: a validation error as one line ------------------------------------------------------------


def field_path(loc: tuple) -> str:
    """A pydantic location as people read it: ``decisions[3][0]``, ``bots.tuned.weights``; a key that is not a
    plain name is quoted (``bots.w.weights.'reveal.gain'``)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            key = str(part) if _PLAIN_KEY.fullmatch(str(part)) else short(str(part), 80)
            out += ("." if out else "") + key
    return out


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]{1,80}")


def short(value: Any, width: int = 60) -> str:
    """``repr(value)`` cut to ``width`` characters, for messages (a stranger's value may be megabytes long)."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


_KINDS = {
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "bool_type": "must be true or false",
    "string_type": "must be a text",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "dict_type": "must be a table",
    "model_type": "must be a table",
    "model_attributes_type": "must be a table",
}


def _problem(err: dict[str, Any], known: list[str]) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    got = f", got {short(err['input'])}" if "input" in err else ""
    if kind == "missing":
        return f"missing '{err['loc'][-1] if err['loc'] else '?'}'"
    if kind == "extra_forbidden":
        name = str(err["loc"][-1]) if err["loc"] else "?"
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(known)}"
        return f"unknown key '{name}' ({hint})"
    if kind in _KINDS:
        return _KINDS[kind] + got
    if kind == "greater_than" and ctx.get("gt") == 0:
        return f"must be positive{got}"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        lo, hi = ctx.get("ge", ctx.get("gt")), ctx.get("le", ctx.get("lt"))
        return f"{short(err['input'])} is out of range ({_bound_text(kind, lo, hi)})"
    if kind in ("too_long", "too_short"):
        n = ctx.get("max_length", ctx.get("min_length"))
        what = "at most" if kind == "too_long" else "at least"
        return f"must have {what} {n} entries (it has {ctx.get('actual_length', '?')})"
    if kind == "string_too_long":
        return f"is longer than {ctx.get('max_length')} characters"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    msg = str(err["msg"]).replace("Input should be", "must be")
    return f"{msg}{got}"


def _bound_text(kind: str, lo: Any, hi: Any) -> str:
    if kind.startswith("greater"):
        return f"{'at least' if kind == 'greater_than_equal' else 'more than'} {lo}"
    if hi == INT63:
        return "at most 2**63-1"
    return f"{'at most' if kind == 'less_than_equal' else 'less than'} {hi}"


def _known_keys(model: type[BaseModel], loc: tuple) -> list[str]:
    """The field names of the (sub)model at ``loc``'s parent, for an unknown key's hint."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int) or current is None:
            continue
        fields = getattr(current, "model_fields", None)
        if fields is None:
            current = None
            continue
        f = fields.get(str(part))
        if f is None:  # a key of a dict of models (a bot's name)
            continue
        current = _model_in(f.annotation)
    fields = getattr(current, "model_fields", None) or {}
    return [f.alias or n for n, f in fields.items()]


def _model_in(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        m = _model_in(arg)
        if m is not None:
            return m
    return None


def one_line(exc: ValidationError, model: type[BaseModel], source: str) -> MeeplabError:
    """The first problem of ``exc`` as one MeeplabError line: ``SOURCE: FIELD: what is wrong``."""
    errs = exc.errors(include_url=False)
    err = errs[0]
    where = field_path(err["loc"])
    problem = _problem(err, _known_keys(model, err["loc"]))
    if err["type"] in ("extra_forbidden", "missing"):
        where = field_path(err["loc"][:-1])
    more = f" (and {len(errs) - 1} more problem{'s' if len(errs) > 2 else ''})" if len(errs) > 1 else ""
    return MeeplabError(f"{source}: {where + ': ' if where else ''}{problem}{more}")


M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], data: Any, source: str) -> M:
    """``data`` as ``model`` (strict), or one MeeplabError line naming ``source``, the field and the problem."""
    if not isinstance(data, dict):
        raise MeeplabError(f"{source}: must be a table of named fields, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise one_line(exc, model, source) from None


# -- shared field types -----------------------------------------------------------------------------------------


class Strict(BaseModel):
    """Strict types, no unknown keys, no NaN or infinity."""

    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, populate_by_name=True)


Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME)]
Text = Annotated[str, Field(max_length=MAX_TEXT)]
Int63 = Annotated[int, Field(ge=0, le=INT63)]
Count = Annotated[int, Field(ge=0, le=INT63)]
Players = Annotated[int, Field(ge=1, le=MAX_SEATS)]
Finite = Annotated[float, Field(allow_inf_nan=False)]


def _player_count_key(v: str) -> str:
    if not re.fullmatch(r"[1-9][0-9]?", v):
        raise ValueError(f"must be a player count (a whole number from 1), got {v!r}")
    return v


# a player count as a TOML key (``[bots.NAME.players.2]``)
PlayerCountKey = Annotated[str, AfterValidator(_player_count_key)]


def _as_tuple(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


# -- saved games of the play page --------------------------------------------------------------------------------

Seat = Annotated[int, Field(ge=1, le=MAX_SEATS)]
Candidate = Annotated[int, Field(ge=0, le=MAX_CANDIDATE)]
Decision = Annotated[tuple[Seat, Candidate, Literal["human", "bot", "forced"]], BeforeValidator(_as_tuple)]


class SavedGame(Strict):
    """A saved game (``meeplab/play/saved.py``): what deals and replays the table."""

    format: str
    version: int
    game: Name
    players: int  # the game's own range: meeplab.play.saved.check_saved
    seats: Annotated[list[Name | None], Field(max_length=MAX_SEATS)]
    params: Annotated[dict[Name, Any], Field(max_length=MAX_ENTRIES)]
    seed: Int63
    index: Int63
    bot_configs: Annotated[list[Text], Field(max_length=64)] = []
    decisions: Annotated[list[Decision], Field(max_length=MAX_DECISIONS)]
    over: bool = False
    score: Annotated[list[Finite], Field(max_length=MAX_SEATS)] | None = None
    saved: Text | None = None


def saved_game(data: Any, source: str) -> dict[str, Any]:
    """A saved game's contents checked for shape and range (:class:`SavedGame`), as a plain dict; every problem is
    one MeeplabError line naming ``source``. What it must be for its game (player range, bots, parameters) is
    checked where games are known: ``meeplab.play.saved.check_saved``."""
    if not isinstance(data, dict) or data.get("format") != SAVED_FORMAT:
        raise MeeplabError(f'{source}: not a saved game of meeplab play (no "format": "{SAVED_FORMAT}")')
    v = data.get("version")
    if type(v) is not int or v != SAVED_VERSION:
        raise MeeplabError(f"{source}: saved game version {short(v)}; this meeplab reads {SAVED_VERSION}")
    model = validate(SavedGame, data, source)
    out = model.model_dump()
    out["decisions"] = [list(d) for d in model.decisions]
    return out


def outside_players(spec: Any, p: int) -> str:
    """``p`` players against ``spec``'s range, for messages."""
    return f"{p} is outside {spec.id}'s {spec.min_players}..{spec.max_players} players"


# -- experiment files --------------------------------------------------------------------------------------------


class SprtTable(Strict):
    """``[sprt]`` of an experiment file: the options of ``compare --until-significant``."""

    delta: Finite | None = None
    elo: Finite | None = None
    alpha: Finite | None = None
    beta: Finite | None = None
    alternative: Name | None = None
    batch: Count | None = None
    max_games: Count | None = None
    metric: Name | None = None


def _players_value(v: Any) -> Any:
    """``players``: a count, a list of counts or a text such as ``"2-5"`` (kept as given; read by the loader)."""
    if isinstance(v, bool) or not isinstance(v, (int, str, list)):
        raise ValueError(f"must be a count, a list of counts or a text like '2-5', got {short(v)}")
    if isinstance(v, int) and not 1 <= v <= MAX_SEATS:
        raise ValueError(f"{v} is not a player count (1..{MAX_SEATS})")
    if isinstance(v, list) and (not v or not all(type(x) is int and 1 <= x <= MAX_SEATS for x in v)):
        raise ValueError(f"must be a non-empty list of player counts (1..{MAX_SEATS}), got {short(v)}")
    if isinstance(v, str) and len(v) > MAX_NAME:
        raise ValueError("is longer than a list of player counts")
    return v


def _bots_value(v: Any) -> Any:
    """``bots``: ``"a,b"`` or a list of names, as a list of names."""
    if isinstance(v, str):
        v = [b.strip() for b in v.split(",") if b.strip()]
    if not isinstance(v, list) or not v or not all(isinstance(b, str) and 0 < len(b) <= MAX_NAME for b in v):
        raise ValueError(f"must be bot names ('a,b' or a list), got {short(v)}")
    if len(v) > MAX_SEATS:
        raise ValueError(f"lists {len(v)} bots; at most {MAX_SEATS}")
    return v


class ExperimentFile(Strict):
    """An experiment TOML file (``lab/studies/experiment.py``; docs/user-guide.md, "experiment files")."""

    game: Name
    players: Annotated[Any, BeforeValidator(_players_value)] = None
    bots: Annotated[Any, BeforeValidator(_bots_value)]
    games: Annotated[int, Field(gt=0, le=INT63)]
    seed: Int63 = 1
    bot_configs: Annotated[list[Text], Field(max_length=64)] = []
    rotate: bool = True
    out: Text | None = None
    title: Text = ""
    description: Text = ""
    baseline: Annotated[dict[Name, Any], Field(max_length=MAX_ENTRIES)] = {}
    variants: Annotated[dict[Name, dict[Name, Any]], Field(max_length=MAX_ENTRIES)] = {}
    sprt: SprtTable | None = None


# -- bot-config files ---------------------------------------------------------------------------------------------


WeightTable = Annotated[dict[Name, Finite], Field(max_length=MAX_ENTRIES)]


class BotVariant(Strict):
    """``[bots.NAME]`` of a bot-config file: a registered bot with other weights (and a search bot's policy)."""

    base: Name = "heuristic"
    description: Text | None = None
    policy: Name | None = None
    # the rule parameters the weights were fitted at (meeplab tune / learn write it): those changed from the
    # defaults, {} = the default rules; absent = not fitted to any rules
    fitted_at: Annotated[dict[Name, Any], Field(max_length=MAX_ENTRIES)] | None = None
    weights: WeightTable = {}
    # weights at one player count (``[bots.NAME.players.2]``): over ``weights``, at that count only
    players: Annotated[dict[PlayerCountKey, WeightTable], Field(max_length=MAX_SEATS)] = {}


class BotConfigFile(Strict):
    """A bot-config TOML file: ``[bots.NAME]`` tables; ``[weights]`` is a bot module's own weight file."""

    bots: Annotated[dict[Name, BotVariant], Field(max_length=MAX_ENTRIES)] = {}
    weights: dict[str, Any] = {}


# -- run.json of a run folder ----------------------------------------------------------------------------------


class ResultsRecord(BaseModel):
    """``results`` of a complete run's run.json: what results.parquet must be."""

    model_config = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)

    rows: Count | None = None
    sha256: Annotated[str, Field(max_length=128)] | None = None


class RunMeta(BaseModel):
    """A run folder's ``run.json`` (``lab/runs/SCHEMA.md``): the fields readers use, strictly typed and bounded;
    other fields (timings, the command) are kept as they are."""

    model_config = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)

    game: Name
    title: Text | None = None
    status: Name = "unknown"
    label: Text | None = None
    params: Annotated[dict[Name, Any], Field(max_length=MAX_ENTRIES)] = {}
    params_changed: Annotated[dict[Name, Any], Field(max_length=MAX_ENTRIES)] = {}
    bots: Annotated[list[Name], Field(max_length=MAX_SEATS)] = []
    bot_weights: dict[Name, dict[Name, Finite]] = {}
    bot_weights_by_players: dict[Name, dict[Name, dict[Name, Finite]]] = {}
    lineups: dict[Name, Annotated[list[Name], Field(max_length=MAX_SEATS)]] = {}
    players: Annotated[list[Players], Field(max_length=MAX_SEATS)] = []
    rotate: bool = False
    seed: Int63 = 1
    games: Count = 0
    games_completed: dict[Name, Count] = {}
    categories: Annotated[list[Name], Field(max_length=MAX_ENTRIES)] = []
    length_unit: Name | None = None
    chance: bool = True
    lower_wins: bool = False
    results: ResultsRecord | None = None
    resumed: Count = 0


def run_meta(data: Any, source: str) -> dict[str, Any]:
    """A run.json's contents checked for shape and range (:class:`RunMeta`), returned as read (no field added); one
    MeeplabError line naming ``source`` otherwise. Its player counts against its game:
    ``meeplab.lab.runs.rundir.read_meta``."""
    if not isinstance(data, dict):
        raise MeeplabError(f"{source}: corrupt run.json (expected a JSON object)")
    validate(RunMeta, data, source)
    return data

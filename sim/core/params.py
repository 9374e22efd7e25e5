"""Named, typed, documented rule parameters and what-if overrides.

A game declares its parameters as a :class:`ParamSet` of :class:`Param`. Users override them with
``--set name=value`` (strings parsed by type) or a TOML file (native TOML values, checked by type).
Every failure raises :class:`~sim.core.errors.MeeplabError` with one clear line; NaN and +-inf are refused
with the parameter's name.

A parameter marked ``per_seat`` (a player's starting resource, e.g. Hacienda's ``start_money``) takes one value
for every seat or one value per seat in seat order (seat 1 = the start player): ``start_money=20`` or
``start_money=20,21,22,23`` (a table parameter per seat separates the seats with ``/``:
``start_goods=0,0,0/1,0,0``). A per-seat value must have exactly one entry per player
(:meth:`ParamSet.check_seats`); :func:`seat_values` spreads a value over the seats for the engine.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import MeeplabError

TYPES = ("int", "float", "bool", "str", "ints", "floats")


@dataclass(frozen=True)
class Param:
    """One rule parameter.

    kind: ``int``, ``float``, ``bool``, ``str`` (e.g. a map name or a file path), ``ints`` or
    ``floats`` (fixed- or variable-length tables written ``1,3,6,10`` on the command line).
    ``length``: required length for a table (None = any length >= ``min_length``).
    ``lo``/``hi``: inclusive bounds for numbers and for every entry of a table.
    ``choices``: allowed values for ``str`` (None = free text, validated by the game).
    """

    name: str
    default: Any
    kind: str
    doc: str
    lo: float | None = None
    hi: float | None = None
    length: int | None = None
    min_length: int = 1
    choices: tuple[str, ...] | None = None
    group: str = "rules"
    per_seat: bool = False  # a player's starting resource: one value, or one per seat in seat order

    def __post_init__(self):
        if self.kind not in TYPES:
            raise ValueError(f"param {self.name}: unknown kind {self.kind}")

    def is_default(self, value: Any) -> bool:
        """Whether ``value`` plays as the default: equal to it, or for a per-seat parameter one value per seat,
        each the default."""
        if value == self.default:
            return True
        return bool(self.per_seat and isinstance(value, tuple) and value and all(v == self.default for v in value))

    # -- parsing -------------------------------------------------------------------------
    def parse(self, raw: Any) -> Any:
        """Convert a command-line string or a TOML value to this parameter's type and check it.

        A ``per_seat`` parameter returns its plain type (every seat the same) or a tuple with one such value
        per seat."""
        if self.per_seat:
            seats = self._split_seats(raw)
            if seats is not None:
                if len(seats) < 2:
                    raise MeeplabError(f"parameter '{self.name}' per seat needs one value per seat, got {raw!r}")
                out = tuple(self._coerce(x) for x in seats)
                for v in out:
                    self.check(v)
                return out
        value = self._coerce(raw)
        self.check(value)
        return value

    def _split_seats(self, raw: Any) -> list | None:
        """The per-seat entries of ``raw``, or None when it is one value for every seat."""
        table = self.kind in ("ints", "floats")
        if isinstance(raw, str):
            sep = "/" if table else ","
            parts = raw.split(sep)
            return parts if len(parts) > 1 else None
        if isinstance(raw, (list, tuple)):
            if table:
                return list(raw) if raw and all(isinstance(x, (list, tuple)) for x in raw) else None
            return list(raw)
        return None

    def _coerce(self, raw: Any) -> Any:
        value = self._coerce_plain(raw)
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, float) and not math.isfinite(v):
                raise MeeplabError(f"parameter '{self.name}' must be a finite number, got {v}")
        return value

    def _coerce_plain(self, raw: Any) -> Any:
        k = self.kind
        bad = MeeplabError(f"parameter '{self.name}' expects {self._kind_text()}, got {raw!r}")
        if k == "bool":
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.strip().lower() in ("1", "true", "yes", "on"):
                return True
            if isinstance(raw, str) and raw.strip().lower() in ("0", "false", "no", "off"):
                return False
            raise bad
        if k == "int":
            if isinstance(raw, bool):
                raise bad
            if isinstance(raw, int):
                return raw
            if isinstance(raw, float) and math.isfinite(raw) and raw.is_integer():
                return int(raw)
            if isinstance(raw, str):
                try:
                    return int(raw.strip())
                except ValueError:
                    raise bad from None
            raise bad
        if k == "float":
            if isinstance(raw, bool):
                raise bad
            if isinstance(raw, (int, float)):
                return float(raw)
            if isinstance(raw, str):
                try:
                    return float(raw.strip())
                except ValueError:
                    raise bad from None
            raise bad
        if k == "str":
            if isinstance(raw, str):
                return raw
            raise bad
        # tables
        if isinstance(raw, str):
            items = [x for x in raw.replace(";", ",").split(",") if x.strip() != ""]
        elif isinstance(raw, (list, tuple)):
            items = list(raw)
        else:
            raise bad
        out = []
        for x in items:
            try:
                if k == "ints":
                    if isinstance(x, bool) or (isinstance(x, float) and not (math.isfinite(x) and x.is_integer())):
                        raise ValueError
                    out.append(int(x.strip()) if isinstance(x, str) else int(x))
                else:
                    if isinstance(x, bool):
                        raise ValueError
                    out.append(float(x.strip()) if isinstance(x, str) else float(x))
            except (ValueError, TypeError):
                raise bad from None
        return tuple(out)

    def _kind_text(self) -> str:
        return {
            "int": "an integer",
            "float": "a number",
            "bool": "true or false",
            "str": "a text value",
            "ints": "a comma-separated list of integers",
            "floats": "a comma-separated list of numbers",
        }[self.kind]

    def check(self, value: Any) -> None:
        for v in value if self.is_seat_list(value) else (value,):
            self._check_one(v)

    def _check_one(self, value: Any) -> None:
        rng = self._range_text()
        if self.kind in ("int", "float"):
            if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
                raise MeeplabError(f"parameter '{self.name}' = {value} is out of range ({rng})")
        elif self.kind in ("ints", "floats"):
            if self.length is not None and len(value) != self.length:
                raise MeeplabError(f"parameter '{self.name}' needs exactly {self.length} values, got {len(value)}")
            if len(value) < self.min_length:
                raise MeeplabError(f"parameter '{self.name}' needs at least {self.min_length} values, got {len(value)}")
            for v in value:
                if (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
                    raise MeeplabError(f"parameter '{self.name}' has value {v} out of range ({rng})")
        elif self.kind == "str" and self.choices is not None and value not in self.choices:
            raise MeeplabError(f"parameter '{self.name}' = {value!r} is not one of {', '.join(self.choices)}")

    def _range_text(self) -> str:
        if self.lo is not None and self.hi is not None:
            return f"{self.lo:g}..{self.hi:g}"
        if self.lo is not None:
            return f">= {self.lo:g}"
        if self.hi is not None:
            return f"<= {self.hi:g}"
        return "any"

    def describe_type(self) -> str:
        t = self.kind
        if self.kind in ("ints", "floats") and self.length:
            t += f"[{self.length}]"
        if self.lo is not None or self.hi is not None:
            t += f" {self._range_text()}"
        if self.choices:
            t += " {" + "|".join(self.choices) + "}"
        if self.per_seat:
            t += ", per seat" + (" (seats split by /)" if self.kind in ("ints", "floats") else "")
        return t

    def is_seat_list(self, value: Any) -> bool:
        """Whether ``value`` (parsed) gives one value per seat rather than one for every seat."""
        if not self.per_seat or not isinstance(value, tuple):
            return False
        return self.kind not in ("ints", "floats") or bool(value and isinstance(value[0], tuple))

    def format(self, value: Any) -> str:
        if self.is_seat_list(value):
            sep = "/" if self.kind in ("ints", "floats") else ","
            return sep.join(self.format(v) for v in value)
        if isinstance(value, tuple):
            return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return f"{value:g}"
        return str(value)


@dataclass
class ParamSet:
    """The ordered parameters of one game plus an optional cross-parameter validator."""

    params: list[Param]
    validate: Callable[[dict[str, Any]], None] | None = None
    _index: dict[str, Param] = field(init=False, repr=False)

    def __post_init__(self):
        self._index = {p.name: p for p in self.params}
        if len(self._index) != len(self.params):
            raise ValueError("duplicate parameter names")

    def __iter__(self):
        return iter(self.params)

    def __contains__(self, name: str) -> bool:
        return name in self._index

    def __getitem__(self, name: str) -> Param:
        return self._index[name]

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def get(self, name: str, game: str = "") -> Param:
        if name not in self._index:
            close = _close_names(name, list(self._index))
            hint = f" (did you mean {close}?)" if close else ""
            where = f" for {game}" if game else ""
            raise MeeplabError(f"unknown parameter '{name}'{where}{hint}; see 'meeplab params {game}'")
        return self._index[name]

    def resolve(self, overrides: dict[str, Any] | None = None, game: str = "") -> dict[str, Any]:
        """Defaults updated with parsed, checked overrides; then the game's own cross-checks."""
        values = self.defaults()
        for name, raw in (overrides or {}).items():
            values[name] = self.get(name, game).parse(raw)
        if self.validate is not None:
            self.validate(values)
        return values

    def check_seats(self, values: dict[str, Any], n_players: int) -> None:
        """Every per-seat value in ``values`` has exactly one entry per seat at ``n_players`` players."""
        for p in self.params:
            v = values.get(p.name)
            if p.is_seat_list(v) and len(v) != n_players:
                raise MeeplabError(
                    f"parameter '{p.name}' has {len(v)} values (one per seat) but the game has {n_players} players; "
                    f"give {n_players} values in seat order (seat 1 = start player) or one for every seat"
                )

    def changed(self, values: dict[str, Any]) -> dict[str, Any]:
        """The entries of ``values`` that differ from the defaults (a per-seat value that gives every seat the
        default, such as ``start_feed=0,0,0``, is the default)."""
        return {k: v for k, v in values.items() if k in self._index and not self._index[k].is_default(v)}


def seat_values(value: Any, n_seats: int, table: bool = False) -> list[Any]:
    """``value`` of a per-seat parameter spread over ``n_seats`` seats: one value repeated, or the seats' own
    values (padded with the last one, for the engine's unused seat slots). ``table``: the parameter is a table
    (``ints``/``floats``), so a tuple of numbers is one value for every seat."""
    if isinstance(value, tuple) and (not table or (value and isinstance(value[0], tuple))):
        vals = list(value)
        return (vals + [vals[-1]] * n_seats)[:n_seats]
    return [value] * n_seats


def _close_names(name: str, names: list[str]) -> str:
    import difflib

    m = difflib.get_close_matches(name, names, n=1)
    return m[0] if m else ""


def set_text(value: Any) -> str:
    """A parameter's value as ``--set NAME=VALUE`` writes it (a sequence comma-separated), which ``resolve`` reads
    back: how files record the rules something was made at (a bot's ``fitted_at``)."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(x) for x in value)
    return str(value)


def parse_set_options(items: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``["a=1", "b=x,y"]`` -> ``{"a": "1", "b": "x,y"}``; a malformed item is a MeeplabError."""
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise MeeplabError(f"--set expects name=value, got {item!r}")
        k, v = item.split("=", 1)
        k = k.strip()
        if not k:
            raise MeeplabError(f"--set expects name=value, got {item!r}")
        out[k] = v
    return out


def load_toml(path: str | Path, what: str = "file") -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        raise MeeplabError(f"{what} not found: {p}")
    try:
        with p.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as e:
        raise MeeplabError(f"{what} {p} is not valid TOML: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise MeeplabError(f"cannot read {what} {p}: {e}") from None


def load_params_file(path: str | Path) -> dict[str, Any]:
    """A what-if TOML file: either top-level ``name = value`` pairs or a ``[params]`` table."""
    data = load_toml(path, "parameter file")
    if "params" in data and isinstance(data["params"], dict):
        data = data["params"]
    bad = [k for k, v in data.items() if isinstance(v, dict)]
    if bad:
        raise MeeplabError(f"parameter file {path}: unexpected table [{bad[0]}] (use name = value or [params])")
    return dict(data)

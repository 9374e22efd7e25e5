"""Fuzzing saved games: thousands of mutated saved games of the four games, each loaded as ``meeplab play --resume``
and ``meeplab view`` load them. Every load either gives a game inside the rules (players in the game's range, one
seat each, over or with a decision pending) or raises one MeeplabError line; never another exception, never a
signal.

The in-suite run is a seeded mutation loop of :data:`CASES` mutants (all four games, about 15 s once the engines are
compiled), a Hypothesis property test of :data:`EXAMPLES` examples (any JSON value in any field) and one subprocess
that runs ``meeplab view`` on :data:`SUBPROCESS` mutants plus two separate ``meeplab view`` processes. A larger run
by hand::

    MEEPLAB_FUZZ_CASES=50000 MEEPLAB_FUZZ_EXAMPLES=5000 MEEPLAB_FUZZ_SUBPROCESS=500 \\
        python -m pytest -p no:cacheprovider -n 0 tests/test_saved_fuzz.py
"""

import copy
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meeplab.play import saved
from meeplab.play.table import Table
from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.registry import get_game

#: mutants of the seeded loop (spread over the four games)
CASES = int(os.environ.get("MEEPLAB_FUZZ_CASES", "5000"))
#: examples of the Hypothesis test
EXAMPLES = int(os.environ.get("MEEPLAB_FUZZ_EXAMPLES", "400"))
#: mutants given to ``meeplab view`` in one subprocess
SUBPROCESS = int(os.environ.get("MEEPLAB_FUZZ_SUBPROCESS", "40"))
SEED = 54

GAMES = {"acbas": 2, "goldrush": 3, "hacienda": 3, "schweinebande": 3}
BOTS = ["greedy", "random", "heuristic", "rollout", "tuned", "nope", "", "x" * 300]
FIELDS = ["format", "version", "game", "players", "seats", "params", "seed", "index", "bot_configs", "decisions"]


def deep(n: int):
    v: list = []
    for _ in range(n):
        v = [v]
    return v


NASTY = [
    0,
    1,
    -1,
    2,
    3,
    5,
    6,
    99,
    2**31,
    2**63 - 1,
    2**63,
    2**64,
    -(2**63),
    10**30,
    True,
    False,
    None,
    0.5,
    -0.0,
    1e308,
    3.0,
    "",
    "3",
    "x" * 10_000,
    "ü☃\u202e\x00",
    "<script>alert(1)</script>",
    [],
    [1, 2, 3],
    [None, None, None],
    {},
    {"a": 1},
    deep(10),
    deep(70),
]


@pytest.fixture(scope="module")
def bases():
    """One real saved game per game: a person at P1, greedy bots at the other seats, a dozen decisions in."""
    out = {}
    for game, p in GAMES.items():
        g = get_game(game)
        table = Table(g, g.params.resolve({}, g.id), [None] + ["greedy"] * (p - 1), 7, 3, ())
        for _ in range(12):
            if table.over:
                break
            table.play(0) if table.human_turn() else table.play_bot()
        out[game] = saved.to_dict(table)
    return out


def _containers(doc, path=()):
    """Every (container, key) in ``doc`` (a key of a dict or an index of a list)."""
    found = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            found.append((doc, k))
            found += _containers(v)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            found.append((doc, i))
            found += _containers(v)
    return found


def _value(rng: random.Random):
    return rng.choice(NASTY) if rng.random() < 0.7 else rng.randint(-3, 120)


def mutate(doc: dict, rng: random.Random) -> dict:
    """``doc`` with one to three random changes."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(9)
        if op == 0:  # any value anywhere
            where, key = rng.choice(_containers(doc))
            where[key] = _value(rng)
        elif op == 1:  # a key dropped
            where = rng.choice([doc] + [c for c, _ in _containers(doc) if isinstance(c, dict)])
            if where:
                del where[rng.choice(list(where))]
        elif op == 2:  # a key added
            where = rng.choice([doc] + [c for c, _ in _containers(doc) if isinstance(c, dict)])
            where[rng.choice(["extra", "sede", "Players", "ü", "x" * 300, *FIELDS])] = _value(rng)
        elif op == 3:  # another player count, the seats following it or not
            p = rng.randint(0, 99)
            doc["players"] = p
            if rng.random() < 0.6:
                doc["seats"] = [None] + [rng.choice(BOTS[:3]) for _ in range(max(p - 1, 0))]
        elif op == 4 and isinstance(doc.get("decisions"), list) and doc["decisions"]:
            d = doc["decisions"]
            k = rng.randrange(len(d))
            how = rng.randrange(5)
            if how == 0 and isinstance(d[k], list) and d[k]:
                d[k][rng.randrange(len(d[k]))] = rng.choice([-1, 0, 1, 2, 3, 6, 99, 2**63, "bot", "human", "forced"])
            elif how == 1:
                del d[k:]
            elif how == 2:
                d.append([rng.randint(0, 6), rng.randint(-1, 40), rng.choice(["human", "bot", "forced", "x"])])
            elif how == 3:
                rng.shuffle(d)
            else:
                d[k] = _value(rng)
        elif op == 5 and isinstance(doc.get("seats"), list) and doc["seats"]:
            doc["seats"][rng.randrange(len(doc["seats"]))] = rng.choice([None, 5, *BOTS])
        elif op == 6 and isinstance(doc.get("params"), dict) and doc["params"]:
            doc["params"][rng.choice(list(doc["params"]))] = _value(rng)
        elif op == 7:
            doc[rng.choice(["seed", "index"])] = rng.choice([0, 1, 12345, 2**63 - 1, 2**63, 2**64, -1, "7", 7.0])
        else:
            doc["bot_configs"] = rng.choice([5, "abc", [1], ["nope.toml"], [], None, {"a": "b"}])
    return doc


def text_of(doc: dict, rng: random.Random) -> str:
    """The file's text: mostly plain JSON, sometimes cut short or wrapped deep."""
    text = json.dumps(doc)
    r = rng.random()
    if r < 0.03:
        return text[: rng.randrange(len(text))]
    if r < 0.05:
        return "[" * 5000 + text + "]" * 5000
    if r < 0.06:
        return text.replace('"seed": ', '"seed": ' + "9" * 5000, 1)
    return text


def check_load(path: Path) -> str:
    """Load ``path`` as ``--resume`` does: 'ok' for a game inside the rules, 'refused' for one MeeplabError line."""
    try:
        table = saved.load(path)
    except MeeplabError as exc:
        assert "\n" not in str(exc), str(exc)
        return "refused"
    spec = table.spec
    assert spec.min_players <= table.n_players <= spec.max_players, (path, table.n_players)
    assert len(table.seats) == table.n_players
    assert table.over or 0 <= table.turn < table.n_players
    return "ok"


def test_mutated_saved_games_load_inside_the_rules_or_are_refused(bases, tmp_path):
    rng = random.Random(SEED)
    seen = {"ok": 0, "refused": 0}
    path = tmp_path / "mutant.json"
    games = sorted(bases)
    for n in range(CASES):
        doc = mutate(bases[games[n % len(games)]], rng)
        path.write_text(text_of(doc, rng))
        try:
            seen[check_load(path)] += 1
        except AssertionError:
            raise
        except Exception as exc:  # anything else is a finding: keep the file that gave it
            keep = tmp_path / f"finding-{n}.json"
            keep.write_text(path.read_text())
            raise AssertionError(f"mutant {n} ({keep}): {type(exc).__name__}: {str(exc)[:300]}") from exc
    assert seen["refused"] > CASES // 4 and seen["ok"] > CASES // 100, seen


def test_the_bases_load_again(bases, tmp_path):
    for game, doc in bases.items():
        p = tmp_path / f"{game}.json"
        p.write_text(json.dumps(doc))
        assert check_load(p) == "ok"


@pytest.mark.parametrize(
    "game, change",
    [
        ("goldrush", {"params": {"deck": "x" * 10_000}}),  # a file name too long for the file system
        ("goldrush", {"params": {"deck": "/nonexistent/deck.csv"}}),
        ("hacienda", {"players": 99, "seats": [None] * 99}),
        ("hacienda", {"seed": 2**64, "index": 2**63}),
        ("schweinebande", {"players": 1, "seats": [None]}),
        ("acbas", {"bot_configs": 5}),
    ],
)
def test_findings_stay_refused(bases, tmp_path, game, change):
    p = tmp_path / "f.json"
    p.write_text(json.dumps({**bases[game], **change}))
    assert check_load(p) == "refused"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(game=st.sampled_from(sorted(GAMES)), key=st.sampled_from([*FIELDS, "extra"]), value=JSON)
def test_any_json_in_any_field(bases, tmp_path, game, key, value):
    p = tmp_path / "h.json"
    p.write_text(json.dumps({**bases[game], key: value}))  # NaN and infinities written as NaN, Infinity
    check_load(p)


DRIVER = """
import sys
from meeplab.cli import main
for f in sys.argv[1:]:
    code = main(["view", f, "--out", f + ".html"])
    print(f, code, flush=True)
"""


def test_meeplab_view_of_mutants_exits_0_or_2(bases, tmp_path):
    rng = random.Random(SEED + 1)
    games = sorted(bases)
    files = []
    for n in range(SUBPROCESS):
        doc = mutate(bases[games[n % len(games)]], rng)
        f = tmp_path / f"m{n}.json"
        f.write_text(text_of(doc, rng))
        files.append(f)
    # the known holes, each as its own meeplab process: a signal or a traceback shows in its exit code and stderr
    worst = tmp_path / "players99.json"
    worst.write_text(json.dumps({**bases["hacienda"], "players": 99, "seats": [None] * 99}))
    deep_file = tmp_path / "deep.json"
    deep_file.write_text(json.dumps(bases["goldrush"])[:-1] + ', "seats": ' + "[" * 100_000 + "]" * 100_000 + "}")
    env = dict(os.environ)
    script = Path(sys.executable).with_name("meeplab")
    exe = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "import sys; from meeplab.cli import main; sys.exit(main())"]
    )
    procs = [
        subprocess.Popen(
            [*exe, "view", str(f), "--out", str(f) + ".html"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for f in (worst, deep_file)
    ]
    driver = subprocess.run(
        [sys.executable, "-c", DRIVER, *map(str, files)], capture_output=True, text=True, env=env, timeout=600
    )
    assert driver.returncode == 0 and "Traceback" not in driver.stderr, driver.stderr[-3000:]
    codes = [int(line.rsplit(" ", 1)[1]) for line in driver.stdout.splitlines() if line.startswith(str(tmp_path))]
    assert len(codes) == len(files) and set(codes) <= {0, 2}, driver.stdout
    for p in procs:
        _out, err = p.communicate(timeout=600)
        assert p.returncode == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, (p.args, err)

"""Stop when significant: a sequential probability ratio test on the paired what-if difference.

``meeplab compare ... --until-significant`` plays the baseline and the variant in batches of games on the
same ``(seed, game index)`` streams (common random numbers) and, after each batch, updates one
log-likelihood ratio per hypothesis pair from the per-game differences ``d = m(variant) - m(baseline)``,
where ``m`` is a bot's win share in that game (its seats averaged) or one seat's win.

The test is Fishtest's (the Stockfish testing framework) generalised SPRT with a normal approximation
(M. Van den Bergh, "A practical introduction to the GSPRT", 2016): for H0 ``mean d = d0`` against H1
``mean d = d1`` after ``n`` games with sum ``S`` and sample variance ``v``::

    LLR = (d1 - d0) * (S - n * (d0 + d1) / 2) / v

It stops the moment LLR leaves ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))`` (Wald 1945): above the
upper bound H1 is accepted, below the lower H0. Checking only after each batch overshoots the bounds a
little, which makes the test slightly conservative. ``two-sided`` runs the Sobel-Wald pair of tests
(0 against +delta and 0 against -delta, alpha/2 each) and decides "rises", "falls" or "no change of
delta or more" once both have stopped. Each player count is a test of its own.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from meeplab.lab.runs import rundir
from meeplab.sim.core.errors import MeeplabError

ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class SprtSettings:
    alpha: float = 0.05  # false alarm: accept "changed" when it did not change
    beta: float = 0.05  # miss: accept "no change" when it changed by delta
    delta: float | None = None  # smallest difference worth detecting, in win-share points (0.02 = 2 points)
    elo: float | None = None  # or: that difference as Elo at the fair share 1/P (delta per player count)
    alternative: str = "two-sided"
    batch: int = 1000  # games per player count between two looks
    max_games: int = 100_000  # per player count: stop undecided here

    def check(self) -> None:
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not 0.0 < v < 0.5:
                raise MeeplabError(f"--{name} must be between 0 and 0.5, got {v}")
        if (self.delta is None) == (self.elo is None):
            raise MeeplabError(
                "--until-significant needs the smallest difference worth detecting: "
                "--delta D (win-share points, e.g. 0.02) or --elo E, not both"
            )
        if self.delta is not None and not 0.0 < self.delta < 1.0:
            raise MeeplabError(f"--delta must be between 0 and 1 (win-share points), got {self.delta}")
        if self.elo is not None and not 0.0 < self.elo <= 800.0:
            raise MeeplabError(f"--elo must be between 0 and 800, got {self.elo}")
        if self.alternative not in ALTERNATIVES:
            raise MeeplabError(f"--alternative must be one of {', '.join(ALTERNATIVES)}, got {self.alternative!r}")
        if self.batch <= 0:
            raise MeeplabError(f"--batch must be a positive number of games, got {self.batch}")
        if self.max_games < self.batch:
            raise MeeplabError(f"--max-games ({self.max_games}) must be at least --batch ({self.batch})")

    def delta_for(self, n_players: int) -> float:
        """The smallest difference worth detecting at ``n_players``: --delta, or --elo converted at the
        fair share: a field of P - 1 equal opponents, odds 1/(P-1) times 10^(E/400)."""
        if self.delta is not None:
            return float(self.delta)
        q = 10.0 ** (float(self.elo) / 400.0)
        return q / (n_players - 1 + q) - 1.0 / n_players


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds on the log-likelihood ratio: (accept H0 below, accept H1 above)."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def llr(n: int, s: float, s2: float, d0: float, d1: float) -> float:
    """Normal-approximation log-likelihood ratio of H1 (mean ``d1``) against H0 (mean ``d0``) after ``n``
    observations with sum ``s`` and sum of squares ``s2``; 0 while the variance is unknown.

    When no game changed at all (every difference 0, so no variance), the normal model says nothing; but a
    per-game difference lies in [-1, 1], so a mean of ``d1`` needs at least a share ``|d1|`` of the games to
    change, and ``n`` unchanged games have probability at most ``(1 - |d1|)^n`` under H1: the LLR used is
    ``n log(1 - |d1 - d0|)``, a bound in H0's favour (the rule change touches no game)."""
    if n < 2:
        return 0.0
    var = (s2 - s * s / n) / (n - 1)
    if not var > 1e-12:
        if s == 0.0 and s2 == 0.0 and d0 == 0.0:
            return n * math.log1p(-min(abs(d1 - d0), 0.999))
        return 0.0
    return (d1 - d0) * (s - n * (d0 + d1) / 2.0) / var


@dataclass
class OneTest:
    """One Wald test of H0 ``mean = 0`` against H1 ``mean = d1``."""

    d1: float
    lower: float
    upper: float
    decision: str | None = None  # "H0" | "H1" | None (still running)

    def look(self, n: int, s: float, s2: float) -> float:
        value = llr(n, s, s2, 0.0, self.d1)
        if self.decision is None:
            if value >= self.upper:
                self.decision = "H1"
            elif value <= self.lower:
                self.decision = "H0"
        return value


@dataclass
class Sequential:
    """The running test of one player count: feed it each batch's per-game differences."""

    settings: SprtSettings
    n_players: int
    tests: dict[str, OneTest] = field(default_factory=dict)
    n: int = 0
    s: float = 0.0
    s2: float = 0.0
    changed: int = 0
    path: list[dict[str, float]] = field(default_factory=list)

    def __post_init__(self):
        st = self.settings
        d = st.delta_for(self.n_players)
        if st.alternative == "two-sided":
            lo, hi = bounds(st.alpha / 2.0, st.beta)
            self.tests = {"rise": OneTest(d, lo, hi), "fall": OneTest(-d, lo, hi)}
        else:
            lo, hi = bounds(st.alpha, st.beta)
            self.tests = {"rise": OneTest(d, lo, hi)} if st.alternative == "greater" else {"fall": OneTest(-d, lo, hi)}

    @property
    def delta(self) -> float:
        return self.settings.delta_for(self.n_players)

    @property
    def done(self) -> bool:
        if any(t.decision == "H1" for t in self.tests.values()):
            return True
        return all(t.decision is not None for t in self.tests.values())

    def update(self, d: np.ndarray) -> None:
        d = np.asarray(d, dtype=np.float64)
        self.n += int(d.size)
        self.s += float(d.sum())
        self.s2 += float((d * d).sum())
        self.changed += int(np.count_nonzero(d))
        point = {"games": self.n, "mean": self.s / self.n if self.n else math.nan}
        for name, t in self.tests.items():
            point[f"llr_{name}"] = t.look(self.n, self.s, self.s2)
        self.path.append(point)

    def verdict(self) -> str:
        t = self.tests
        if any(x.decision == "H1" for x in t.values()):
            return "rises" if t.get("rise") and t["rise"].decision == "H1" else "falls"
        if all(x.decision == "H0" for x in t.values()):
            return "no change"
        return "undecided"

    def summary(self) -> dict[str, Any]:
        n = self.n
        sd = math.sqrt(max(0.0, (self.s2 - self.s * self.s / n) / (n - 1))) if n > 1 else math.nan
        lo, hi = next(iter(self.tests.values())).lower, next(iter(self.tests.values())).upper
        return {
            "n_players": self.n_players,
            "games": n,
            "delta": self.delta,
            "mean": self.s / n if n else math.nan,
            "sd": sd,
            "changed": self.changed / n if n else math.nan,
            "verdict": self.verdict(),
            "lower": lo,
            "upper": hi,
            "path": self.path,
            "decisions": {k: v.decision for k, v in self.tests.items()},
        }


def verdict_text(v: str, target: str, delta: float) -> str:
    """The hypotheses a verdict decided between, in words (``target`` names what was measured)."""
    d = f"{100 * delta:.1f} points"
    return {
        "rises": f"{target} rises: a rise of at least {d} is more likely than no change (H1 accepted)",
        "falls": f"{target} falls: a fall of at least {d} is more likely than no change (H1 accepted)",
        "no change": f"no change of {d} or more in {target}: no change is more likely than a change of {d} "
        "(H0 accepted)",
        "undecided": f"undecided at the game limit: neither no change nor a change of {d} in {target} is established",
    }[v]


def estimate(test: dict[str, Any]) -> tuple[float, float, float]:
    """(mean difference, 95% interval) of one player count's test record (normal interval at the stopping point)."""
    n, sd, mean = test.get("games", 0), test.get("sd"), test.get("mean", math.nan)
    if sd is None or n < 2 or not math.isfinite(sd):
        return mean, math.nan, math.nan
    half = 1.96 * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def verdict_sentence(test: dict[str, Any], target: str) -> str:
    """The verdict of one player count's test with its estimate and interval: the one sentence both the
    sequential section and the key changes of a report print (one source of truth)."""
    mean, lo, hi = estimate(test)

    def pts(x: float) -> str:
        return f"{100 * x:+.2f}" if math.isfinite(x) else "–"

    return (
        f"{verdict_text(test['verdict'], target, test['delta'])}; measured change {pts(mean)} points "
        f"(95% CI {pts(lo)} to {pts(hi)}) after {test['games']:,} games"
    )


# -- what is measured per game --------------------------------------------------------------------


def parse_metric(text: str | None, bots: list[str]) -> tuple[str, Any]:
    """``bot:NAME`` (that bot's win share per game) or ``seat:K`` (seat K's win, seats numbered from 1 = the
    start player); default: the first listed bot when the lineup has two or more bots, else seat 1.

    Returns ``("bot", NAME)`` or ``("seat", index)`` with the 0-based seat index of the results files."""
    if not text:
        distinct = list(dict.fromkeys(bots))
        return ("bot", distinct[0]) if len(distinct) > 1 else ("seat", 0)
    kind, _, arg = str(text).partition(":")
    if kind == "bot" and arg:
        if arg not in bots:
            raise MeeplabError(f"--metric bot:{arg}: '{arg}' is not in --bots ({','.join(bots)})")
        return "bot", arg
    if kind == "seat" and arg:
        try:
            k = int(arg)
        except ValueError:
            raise MeeplabError(f"--metric seat:K needs a seat number, got {text!r}") from None
        if k < 1:
            raise MeeplabError(f"--metric seat:K needs a seat number >= 1 (seat 1 = start player), got {text!r}")
        return "seat", k - 1
    raise MeeplabError(f"--metric must be bot:NAME or seat:K, got {text!r}")


def metric_label(metric: tuple[str, Any]) -> str:
    kind, arg = metric
    return f"{arg}'s win share" if kind == "bot" else f"seat {arg + 1}'s win rate"


def metric_record(metric: tuple[str, Any]) -> list[Any]:
    """The metric as a person reads it (seat numbered from 1), for sprt.json."""
    kind, arg = metric
    return [kind, arg + 1 if kind == "seat" else arg]


def per_game(table, n_players: int, metric: tuple[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(game indices, metric per game) from one shard's rows (pyarrow table, rows by game then seat)."""
    gi = table.column("game_index").to_numpy()
    seat = table.column("seat").to_numpy().astype(np.int64)
    win = table.column("win").to_numpy().astype(np.float64)
    order = np.lexsort((seat, gi))
    gi, seat, win = gi[order], seat[order], win[order]
    g = gi.reshape(-1, n_players)[:, 0]
    w = win.reshape(-1, n_players)
    kind, arg = metric
    if kind == "seat":
        return g, w[:, arg]
    bots = np.asarray(table.column("bot").to_pylist(), dtype=object)[order].reshape(-1, n_players)
    mask = bots == arg
    cnt = mask.sum(axis=1)
    return g, np.where(cnt > 0, (w * mask).sum(axis=1) / np.maximum(cnt, 1), np.nan)


# -- the sequential run -----------------------------------------------------------------------------


class ReplayExecutor:
    """Serves shards already played (the SPRT's batches) and passes the rest to the real executor, so the
    run directories are written by the ordinary runner without playing a game twice."""

    def __init__(self, inner, played: dict[tuple, bytes]):
        self.inner = inner
        self.played = played
        self.workers = inner.workers
        self.scheduler = inner.scheduler
        if getattr(inner, "start_s", None) is not None:
            self.start_s = inner.start_s

    def results(self, job, shards) -> Iterator[tuple[tuple, bytes]]:
        rest = []
        for s in shards:
            if s in self.played:
                yield s, self.played.pop(s)
            else:
                rest.append(s)
        if rest:
            yield from self.inner.results(job, rest)

    def close(self) -> None:
        pass


def run_sequential(
    base, variant, settings: SprtSettings, metric_text: str | None = None, executor=None, echo=None
) -> dict[str, Any]:
    """Play baseline and variant (two :class:`~meeplab.lab.runs.plan.RunPlan`) batch by batch until every player
    count's test stops (or ``settings.max_games``), then write both run directories with the ordinary runner.
    Returns the SPRT record (also stored as ``sprt`` in the variant's run.json and as OUT/sprt.json by the CLI)."""
    from meeplab.lab.runs import shards as shards_mod
    from meeplab.lab.runs.runner import run

    settings.check()
    if base.players != variant.players:
        raise MeeplabError("--until-significant: baseline and variant must have the same player counts")
    metric = parse_metric(metric_text, list(base.bots))
    if metric[0] == "seat":
        for p in base.players:
            if metric[1] >= p:
                raise MeeplabError(f"--metric seat:{metric[1] + 1}: there are only {p} seats at {p} players")
    if base.resume or variant.resume:
        raise MeeplabError("--until-significant cannot --resume (the test starts again); use --force")
    jobs = [base.job, variant.job]
    if executor is None:
        base.adopt()
        variant.adopt()
    inner = executor or shards_mod.LocalExecutor(base.threads)
    if base.threads:
        import numba

        numba.set_num_threads(min(base.threads, numba.config.NUMBA_NUM_THREADS))
    played: list[dict[tuple, bytes]] = [{}, {}]
    tests: list[Sequential] = []
    for p in base.players:
        test = Sequential(settings, p)
        start = 0
        while start < settings.max_games and not test.done:
            shard = (p, start, min(settings.batch, settings.max_games - start))
            vals = []
            for side, job in enumerate(jobs):
                for s, data in inner.results(job, [shard]):
                    played[side][s] = data
                    g, m = per_game(shards_mod.bytes_table(data), p, metric)
                    vals.append((g, m))
            (g0, m0), (g1, m1) = vals
            if not np.array_equal(g0, g1):
                raise RuntimeError("baseline and variant shards hold different games")
            test.update(m1 - m0)
            start += shard[2]
            if echo is not None:
                pt = test.path[-1]
                llrs = " ".join(f"LLR({k}) {v:+.2f}" for k, v in pt.items() if k.startswith("llr_"))
                echo(f"{p} players: {test.n:,} games, mean difference {pt['mean']:+.4f}, {llrs}".replace("llr_", ""))
        tests.append(test)
    n_max = max(t.n for t in tests)
    for plan, store in zip((base, variant), played):
        got = run(plan.sized(n_max, settings.batch).on(ReplayExecutor(inner, store)))
        if got.status != "complete":
            return {"status": got.status}
    record = {
        "test": "SPRT (Wald; normal approximation, as Fishtest's GSPRT) on paired per-game differences",
        "metric": metric_record(metric),
        "metric_label": metric_label(metric),
        "settings": asdict(settings),
        "tests": [t.summary() for t in tests],
        "status": "complete",
    }
    for t in record["tests"]:
        t["text"] = verdict_sentence(t, metric_label(metric))
    return record


def store(out, variant_out, record: dict[str, Any]) -> None:
    """Keep the SPRT record as ``OUT/sprt.json`` and as ``sprt`` in the variant's run.json (reports read it)."""
    import json
    from pathlib import Path

    from meeplab.sim.core.files import atomic_write

    atomic_write(Path(out, "sprt.json"), json.dumps(record, indent=2))
    meta = rundir.read_meta(variant_out)
    meta["sprt"] = record
    rundir.write_meta(variant_out, meta)

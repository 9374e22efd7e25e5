"""Learn a fast policy from a search bot: record its decisions, fit a conditional logit, write a bot.

This is expert iteration's imitation step (Anthony et al. 2017; AlphaZero's policy target): the teacher (a search
bot such as ``rollout`` or ``ismcts``) plays games against itself, and at each of its decisions with more than one
candidate :func:`record` keeps what the deciding seat saw, the candidates' engine features (``feats``, which the
engine fills with the deciding seat's view only), the decision kind and the candidate the teacher played. The
policy (:mod:`meeplab.sim.core.policy`) scores a candidate ``w . phi(features, progress)`` with the block of weights
of its kind and move code; :func:`fit` finds the weights of each kind by maximum likelihood of the teacher's
choices under the softmax of those scores (L2 regularised, towards 0 or a prior policy; L-BFGS from scipy) on the
games of a training split, and measures agreement with the teacher on the
held-out games. :func:`write_bot` writes the weights as a bot-config TOML (``[bots.NAME] base = "policy"``) that
``--bot-config`` or a game's strategies folder takes.

Game ``g`` of the teacher's games is played from ``(seed, g)`` alone, so a run reproduces exactly. A decision with
many candidates keeps the teacher's choice and at most ``max_candidates - 1`` others drawn from a stream of
``(seed, g)`` (sampling of alternatives: the logit's likelihood stays consistent, McFadden 1978).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from meeplab.sim.core.errors import MeeplabError
from meeplab.sim.core.policy import is_shape

__all__ = [
    "Decisions",
    "Fit",
    "agreement_of",
    "features_of",
    "fit",
    "held_out",
    "reading_all",
    "record",
    "summary",
    "targets_of",
    "write_bot",
]

#: candidates kept per recorded decision (the teacher's and others drawn at random)
MAX_CANDIDATES = 32
#: share of the teacher's games kept apart to measure agreement
HOLDOUT = 0.2
#: what the policy is fitted to: the candidate the teacher played, or the search's values or visits (targets_of)
TARGETS = ("pick", "values", "visits")
#: the temperature of the value targets' softmax, in value units (win share: 0.1 weighs a candidate that wins
#: 10 points more often e times as much)
TEMPERATURE = 0.1


@dataclass
class Decisions:
    """The teacher's decisions: decision ``d`` is of kind ``kind[d]`` by seat ``seat[d]`` in game ``game[d]``; its
    kept candidates' features are ``feats[start[d]:start[d + 1]]`` (their move codes ``code[...]``, the same rows)
    and the teacher played row ``pick[d]`` of them; ``n[d]`` is how many candidates the decision had before sampling
    and ``progress[d]`` the game's progress the seat saw (:func:`~meeplab.sim.core.policy.progress_of`). Recorded
    with values (a search teacher, ``--target values`` or ``visits``), ``value`` and ``visits`` give each kept row
    the search's mean playout value and its playouts or root visits (0 where the search left the candidate out, and
    everywhere in a record without values)."""

    kind: np.ndarray
    seat: np.ndarray
    game: np.ndarray
    n: np.ndarray
    pick: np.ndarray
    start: np.ndarray
    feats: np.ndarray
    code: np.ndarray
    progress: np.ndarray
    value: np.ndarray | None = None
    visits: np.ndarray | None = None

    def __post_init__(self) -> None:
        r = self.feats.shape[0]
        if self.value is None:
            self.value = np.zeros(r)
        if self.visits is None:
            self.visits = np.zeros(r)

    def has_values(self) -> bool:
        """Whether any decision carries the search's values (a record made with them, of a search teacher)."""
        return bool(np.any(self.visits > 0))

    def __len__(self) -> int:
        return int(self.kind.shape[0])

    def save(self, path) -> None:
        """Write the decisions to ``path`` (compressed ``.npz``, atomically)."""
        import io

        from meeplab.sim.core.files import atomic_write

        buf = io.BytesIO()
        np.savez_compressed(buf, **{k: getattr(self, k) for k in self.__dataclass_fields__})
        atomic_write(path, buf.getvalue())

    @staticmethod
    def load(path) -> Decisions:
        """The decisions :meth:`save` wrote to ``path``; a file that is not such a record (damaged, edited, another
        program's) is refused in one line."""
        try:
            with np.load(path, allow_pickle=False) as z:
                keys = [k for k in Decisions.__dataclass_fields__ if k in z.files or k not in ("value", "visits")]
                got = Decisions(**{k: np.asarray(z[k]) for k in keys})
        except Exception as exc:  # a stranger's file: zip, npy or key errors of any kind
            raise MeeplabError(f"{path}: not a record of teacher decisions ({type(exc).__name__})") from None
        got.check(str(path))
        return got

    def check(self, where: str) -> None:
        """Refuse arrays that do not fit together (what :meth:`load` reads from a file)."""
        d = len(self)
        ok = (
            all(getattr(self, k).shape == (d,) for k in ("seat", "game", "n", "pick", "progress"))
            and self.start.shape == (d + 1,)
            and self.feats.ndim == 2
            and self.code.shape == (self.feats.shape[0],)
            and np.issubdtype(self.code.dtype, np.integer)
            and np.all(np.isfinite(self.progress))
            and all(np.issubdtype(getattr(self, k).dtype, np.integer) for k in ("kind", "seat", "game", "n", "pick"))
            and np.issubdtype(self.start.dtype, np.integer)
            and (d == 0 or (self.start[0] == 0 and np.all(np.diff(self.start) >= 2)))
            and self.start[-1] == self.feats.shape[0]
            and np.all((self.pick >= 0) & (self.pick < np.diff(self.start)))
            and np.all(np.isfinite(self.feats))
            and self.value.shape == self.visits.shape == (self.feats.shape[0],)
            and np.all(np.isfinite(self.value))
            and np.all(np.isfinite(self.visits))
            and np.all(self.visits >= 0)
        )
        if not ok:
            raise MeeplabError(f"{where}: its arrays do not fit together; not a record of teacher decisions")

    @staticmethod
    def concat(parts: list[Decisions]) -> Decisions:
        """Several records as one (rows renumbered)."""
        if not parts:
            raise MeeplabError("no teacher decisions to learn from")
        offs = np.cumsum([0] + [p.feats.shape[0] for p in parts])
        return Decisions(
            kind=np.concatenate([p.kind for p in parts]),
            seat=np.concatenate([p.seat for p in parts]),
            game=np.concatenate([p.game for p in parts]),
            n=np.concatenate([p.n for p in parts]),
            pick=np.concatenate([p.pick for p in parts]),
            start=np.concatenate([p.start[:-1] + o for p, o in zip(parts, offs)] + [offs[-1:]]).astype(np.int64),
            feats=np.concatenate([p.feats for p in parts]),
            code=np.concatenate([p.code for p in parts]),
            progress=np.concatenate([p.progress for p in parts]),
            value=np.concatenate([p.value for p in parts]),
            visits=np.concatenate([p.visits for p in parts]),
        )


def reading_all(lineup):
    """``lineup`` with every entry reading all features: the engine then fills every candidate's row (a bot that
    reads only column 0 lets the engine leave the others out, and the policy is fitted on full rows)."""
    from dataclasses import replace

    return replace(lineup, reads=np.zeros_like(lineup.reads))


def features_of(spec):
    """The shape of the game's policy (:class:`~meeplab.sim.core.policy.Shape`: the feature columns it declares,
    ``GameSpec.features`` from its Face, its move codes and progress), or a one-line refusal for a game that declares
    no feature columns (the policy's weights are named after them)."""
    from meeplab.sim.core.policy import Shape

    if not spec.forward_model:
        raise MeeplabError(f"{spec.id} does not run on the forward model: learn needs to step its games")
    if not spec.features:
        raise MeeplabError(
            f"{spec.id} declares no feature columns: give its Face features={{kind: (column, ...)}} "
            "(docs/adding-a-game.md) to learn a policy over them"
        )
    return Shape(dict(spec.features), dict(spec.feature_codes), spec.feature_progress)


def record(
    spec,
    ctx,
    lineup,
    n_players: int,
    seed: int,
    games: range,
    max_candidates: int = MAX_CANDIDATES,
    threads: int = 1,
    progress: Callable[[int], None] | None = None,
    shape=None,
    values: bool = False,
) -> Decisions:
    """Play games ``games`` of ``lineup`` (the teacher in every seat) and keep every decision with more than one
    candidate (see the module doc), ``threads`` games at a time (the compiled recorder releases the interpreter
    lock); the decisions come out in game order whatever the thread count. ``shape``: the policy's
    (:func:`features_of`), whose progress each decision records; ``values``: keep the search's per-candidate values
    and visits too (:class:`Decisions`)."""
    from concurrent.futures import ThreadPoolExecutor

    from meeplab.sim.core.record import record_games

    cx = spec.forward_context(ctx, lineup) if spec.forward_context is not None else ctx.cx

    def one(g: int):
        got = record_games(
            cx, lineup, n_players, seed, g, g + 1, len(spec.categories), keep=max_candidates,
            progress=shape.progress if shape is not None else None, values=values,
        )  # fmt: skip
        if progress is not None:
            progress(1)
        return got

    if threads > 1 and len(games) > 1:
        with ThreadPoolExecutor(threads) as pool:
            parts = list(pool.map(one, games))
    else:
        parts = [one(g) for g in games]
    dec = np.concatenate([p.decisions for p in parts]) if parts else np.zeros((0, 6), dtype=np.int64)
    nf = parts[0].rows.shape[1] if parts else 0
    rows = [p.rows for p in parts]
    offsets = np.cumsum([0] + [r.shape[0] for r in rows])
    first = np.concatenate([p.decisions[:, 5] + off for p, off in zip(parts, offsets)]) if parts else np.zeros(0)
    sizes = np.minimum(dec[:, 3], max_candidates)
    return Decisions(
        kind=dec[:, 1].copy(),
        seat=dec[:, 2].copy(),
        game=dec[:, 0].copy(),
        n=dec[:, 3].copy(),
        pick=dec[:, 4].copy(),
        start=np.append(first, first[-1] + sizes[-1] if len(first) else 0).astype(np.int64),
        feats=np.concatenate(rows) if rows else np.zeros((0, nf)),
        code=np.concatenate([p.codes for p in parts]) if parts else np.zeros(0, np.int64),
        progress=np.concatenate([p.progress for p in parts]) if parts else np.zeros(0),
        value=np.concatenate([p.value for p in parts]) if parts else np.zeros(0),
        visits=np.concatenate([p.visits for p in parts]) if parts else np.zeros(0),
    )


@dataclass
class KindFit:
    """One decision kind's fit: ``weights`` on the raw features' ``phi`` (what the bot plays), the decisions it was
    fitted on and held out, and the agreement with the teacher on each (the expected share of decisions where the
    policy plays the teacher's candidate, ties drawn at random), beside that of playing the best column 0."""

    kind: str
    weights: np.ndarray
    train: int
    held_out: int
    train_agreement: float
    agreement: float
    greedy_agreement: float
    log_loss: float  # held out, per decision (nats)
    converged: bool


@dataclass
class Fit:
    """The fitted policy: the weights of every kind in order (``weights``, named ``names``) and each kind's fit."""

    weights: np.ndarray
    names: list[str]
    kinds: list[KindFit] = field(default_factory=list)

    def agreement(self) -> tuple[float, int]:
        """The held-out agreement over all kinds (weighted by decisions) and the held-out decisions."""
        n = sum(k.held_out for k in self.kinds)
        if n == 0:
            return float("nan"), 0
        return sum(k.agreement * k.held_out for k in self.kinds) / n, n

    def greedy_agreement(self) -> float:
        n = sum(k.held_out for k in self.kinds)
        return sum(k.greedy_agreement * k.held_out for k in self.kinds) / n if n else float("nan")


def _segments(data: Decisions, which: np.ndarray):
    """Rows and decision segments of the decisions ``which`` (indices): (X rows, starts, picks as row indices)."""
    starts, ends = data.start[which], data.start[which + 1]
    sizes = ends - starts
    rows = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)]) if len(which) else np.zeros(0, np.int64)
    seg = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return rows, seg, seg[:-1] + data.pick[which]


def _expected_agreement(z: np.ndarray, seg: np.ndarray, pick_rows: np.ndarray) -> float:
    """The expected share of decisions whose best score (ties drawn uniformly) is the teacher's candidate."""
    if len(seg) <= 1:
        return float("nan")
    best = np.maximum.reduceat(z, seg[:-1])
    owner = np.repeat(np.arange(len(seg) - 1), np.diff(seg))
    is_top = z >= best[owner] - 1e-9
    ties = np.add.reduceat(is_top.astype(np.float64), seg[:-1])
    return float(np.mean(is_top[pick_rows] / ties))


def targets_of(data: Decisions, which: np.ndarray, target: str = "pick", temperature: float = TEMPERATURE):
    """The teacher's target distribution over the kept rows of the decisions ``which`` (rows in
    :func:`_segments`'s order), or None for ``target="pick"`` (the candidate played; the fit's likelihood). ``values``:
    the softmax of the searched candidates' mean playout values at ``temperature`` (in value units: win share), 0
    for the candidates the search left out; ``visits``: the searched candidates' shares of the playouts (root visits
    for ``ismcts``). A decision without the search's values (a plain bot's, or one candidate searched) keeps its
    candidate played."""
    if target == "pick":
        return None
    if target not in TARGETS:
        raise MeeplabError(f"target {target!r}: one of {', '.join(TARGETS)}")
    rows, seg, picks = _segments(data, which)
    heads = seg[:-1]
    owner = np.repeat(np.arange(len(heads)), np.diff(seg))
    vis = data.visits[rows]
    on = vis > 0
    if target == "visits":
        t = vis.copy()
    else:
        v = np.where(on, data.value[rows], -np.inf)
        top = np.maximum.reduceat(v, heads) if len(heads) else np.zeros(0)
        t = np.where(on, np.exp((v - np.where(np.isfinite(top), top, 0.0)[owner]) / temperature), 0.0)
    tot = np.add.reduceat(t, heads) if len(heads) else np.zeros(0)
    searched = np.add.reduceat(on.astype(np.int64), heads) if len(heads) else np.zeros(0, np.int64)
    ok = (tot > 0) & (searched >= 2)
    t = np.where(ok[owner], t / np.where(tot > 0, tot, 1.0)[owner], 0.0)
    t[picks[~ok]] = 1.0
    return t


def _fit_kind(
    X: np.ndarray,
    seg: np.ndarray,
    pick_rows: np.ndarray,
    l2: float,
    prior: np.ndarray | None = None,
    target: np.ndarray | None = None,
):
    """Maximum-likelihood weights of a conditional logit on ``X`` (rows of decisions ``seg``; the chosen rows
    ``pick_rows``) with an L2 penalty ``l2`` on their distance from ``prior`` (None: from 0), starting there:
    (weights, converged). With ``target`` (a distribution over each decision's rows, :func:`targets_of`) the fit
    minimises the cross-entropy to it instead (the chosen row is the target's one-hot case)."""
    from scipy.optimize import minimize

    owner = np.repeat(np.arange(len(seg) - 1), np.diff(seg))
    heads = seg[:-1]
    nd = len(heads)
    if target is None:
        chosen = np.asarray(X[pick_rows].sum(axis=0)).ravel()  # X dense or sparse
    else:
        chosen = np.asarray(X.T @ target).ravel()

    def loss(w):
        z = X @ w
        top = np.maximum.reduceat(z, heads)
        e = np.exp(z - top[owner])
        tot = np.add.reduceat(e, heads)
        p = e / tot[owner]
        dw = w - w0
        if target is None:
            value = float(np.sum(np.log(tot) + top - z[pick_rows])) / nd
        else:
            value = float(np.sum(np.log(tot) + top) - target @ z) / nd
        value += 0.5 * l2 * float(dw @ dw)
        grad = np.asarray(X.T @ p).ravel() - chosen
        return value, grad / nd + l2 * dw

    w0 = np.zeros(X.shape[1]) if prior is None else np.asarray(prior, dtype=np.float64)
    res = minimize(loss, w0.copy(), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return res.x, bool(res.success)


def phi_rows(data: Decisions, which: np.ndarray | None = None) -> np.ndarray:
    """:func:`~meeplab.sim.core.policy.phi` of every kept candidate of the decisions ``which`` (indices; None: all),
    rows in decision order."""
    from meeplab.sim.core.policy import phi

    if which is None:
        return phi(data.feats, data.start, data.progress)
    rows, seg, _ = _segments(data, which)
    return phi(data.feats[rows], seg, data.progress[which])


def _codes(shape, kind: str, data: Decisions, rows: np.ndarray) -> np.ndarray:
    """The block (move code, clamped) of each of ``rows``: 0 for a kind without codes."""
    n = shape.n_codes(kind)
    return np.zeros(len(rows), np.int64) if n == 1 else np.clip(data.code[rows], 0, n - 1)


def _blocks(P: np.ndarray, codes: np.ndarray, n: int):
    """The design matrix of a kind: each row's ``phi`` in its code's block of ``n`` (dense for one code, else
    sparse: a row has one block's terms)."""
    if n == 1:
        return P
    from scipy.sparse import csr_matrix

    r, w = P.shape
    cols = (codes[:, None] * w + np.arange(w)[None, :]).ravel()
    return csr_matrix((P.ravel(), cols, np.arange(0, r * w + 1, w)), shape=(r, n * w))


def _standardise(P: np.ndarray, codes: np.ndarray, n: int):
    """``P`` centred and scaled per code and term (what the fit works on, so one L2 penalty suits every term), and
    the (mean, scale) per code that map the weights back. A term constant within a code is left out (scale 0),
    except the constant itself where the kind has codes: each code's own preference."""
    Z = np.zeros_like(P)
    mu, sd = np.zeros((n, P.shape[1])), np.zeros((n, P.shape[1]))
    for c in range(n):
        at = codes == c
        if not at.any():
            continue
        m, v = P[at].mean(axis=0), P[at].std(axis=0)
        live = v > 1e-12
        mu[c, live], sd[c, live] = m[live], v[live]
        if n > 1:
            mu[c, 0], sd[c, 0] = 0.0, 1.0
        ok = sd[c] > 0
        Z[np.ix_(at, ok)] = (P[np.ix_(at, ok)] - mu[c, ok]) / sd[c, ok]
    return Z, mu, sd


def _unstandardise(w_std: np.ndarray, mu: np.ndarray, sd: np.ndarray, prior: np.ndarray | None = None) -> np.ndarray:
    """Weights on the raw terms from weights on the standardised ones (per code block; a code's shift of the mean
    goes into its constant, which a kind of one code leaves at 0: the shift is the same for every candidate). A term
    the data leave out (constant within its code) keeps the ``prior``'s raw weight (None: 0)."""
    n, w = mu.shape
    W = w_std.reshape(n, w)
    out = np.zeros_like(W) if prior is None else np.asarray(prior, dtype=np.float64).reshape(n, w).copy()
    live = sd > 0
    out[live] = W[live] / sd[live]
    if n > 1:
        shift = np.where(live & (np.arange(w) > 0), W * mu / np.where(live, sd, 1.0), 0.0).sum(axis=1)
        out[:, 0] -= shift
    return out.ravel()


def _standardise_weights(raw: np.ndarray, mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """The inverse of :func:`_unstandardise` on the terms the data keep: raw weights (a prior policy's) as weights on
    the standardised terms (0 on the terms left out)."""
    n, w = mu.shape
    R = np.asarray(raw, dtype=np.float64).reshape(n, w)
    live = sd > 0
    out = np.where(live, R * sd, 0.0)
    if n > 1:
        out[:, 0] = np.where(live[:, 0], R[:, 0] + np.where(live & (np.arange(w) > 0), R * mu, 0.0).sum(axis=1), 0.0)
    return out.ravel()


def fit(
    data: Decisions,
    shape,
    holdout: float = HOLDOUT,
    l2: float = 1e-3,
    prior: np.ndarray | None = None,
    target: str = "pick",
    temperature: float = TEMPERATURE,
) -> Fit:
    """Fit the policy's weights kind by kind on the teacher's decisions of the first ``1 - holdout`` of the games
    (by game index) and measure agreement on the rest (see :class:`KindFit`); ``shape``: the game's
    (:func:`features_of`). ``prior``: a policy's whole weight vector (``shape.vector``) the fit starts from and is
    pulled towards (the L2 penalty on the distance from it), where the teacher's choices say little; None: 0.
    ``target``: fit the candidate played (``pick``, maximum likelihood) or the search's value or visit distribution
    (:func:`targets_of`, cross-entropy; the decisions must carry the search's values)."""
    from meeplab.sim.core.policy import width

    nf = data.feats.shape[1]
    d = width(nf)
    if shape.nf != nf:
        raise MeeplabError(f"the game declares feature columns of other widths than the engine's {nf}")
    if target != "pick" and not data.has_values():
        raise MeeplabError(
            f"target {target!r}: the teacher's decisions carry no search values (a plain teacher, or recorded for "
            "target pick); record a search teacher's games with this target"
        )
    test = held_out(data, holdout)
    weights = shape.vector({})
    if prior is not None:
        if len(prior) != len(weights):
            raise MeeplabError(f"the prior policy has {len(prior)} weights, the game's policy {len(weights)}")
        weights[len(shape.header()) :] = prior[len(shape.header()) :]  # a kind without decisions keeps the prior's
    out = Fit(weights=weights, names=shape.names())
    for k, name in enumerate(shape.kinds):
        tr = np.flatnonzero((data.kind == k) & ~test)
        te = np.flatnonzero((data.kind == k) & test)
        if len(tr) == 0:
            continue
        n = shape.n_codes(name)
        rows, seg, picks = _segments(data, tr)
        codes = _codes(shape, name, data, rows)
        P = phi_rows(data, tr)
        Z, mu, sd = _standardise(P, codes, n)
        at = shape.at(name)
        p_raw = None if prior is None else prior[at : at + n * d]
        p_std = None if p_raw is None else _standardise_weights(p_raw, mu, sd)
        t = targets_of(data, tr, target, temperature)
        w_std, ok = _fit_kind(_blocks(Z, codes, n), seg, picks, l2, p_std, t)
        del Z
        w = _unstandardise(w_std, mu, sd, p_raw)
        weights[at : at + n * d] = w
        train_agree = _expected_agreement(_blocks(P, codes, n) @ w, seg, picks)
        agree = greedy = loss = float("nan")
        if len(te):
            rows_t, seg_t, picks_t = _segments(data, te)
            z = _blocks(phi_rows(data, te), _codes(shape, name, data, rows_t), n) @ w
            agree = _expected_agreement(z, seg_t, picks_t)
            greedy = _expected_agreement(data.feats[rows_t, 0], seg_t, picks_t)
            heads = seg_t[:-1]
            owner = np.repeat(np.arange(len(heads)), np.diff(seg_t))
            top = np.maximum.reduceat(z, heads)
            lse = np.log(np.add.reduceat(np.exp(z - top[owner]), heads)) + top
            loss = float(np.mean(lse - z[picks_t]))
        out.kinds.append(KindFit(name, w, len(tr), len(te), train_agree, agree, greedy, loss, ok))
    return out


def held_out(data: Decisions, holdout: float = HOLDOUT) -> np.ndarray:
    """Which decisions :func:`fit` holds out: those of the last ``holdout`` of the games (by game index)."""
    games = np.unique(data.game)
    if len(games) <= 1 or holdout <= 0:
        return np.zeros(len(data), dtype=bool)
    return data.game >= games[int(math.floor(len(games) * (1 - holdout)))]


def agreement_of(data: Decisions, shape, weights: dict[str, float], holdout: float = HOLDOUT) -> float:
    """The held-out agreement with the teacher of a policy given by named weights (``"kind.term"``, as
    :meth:`~meeplab.sim.core.policy.Shape.vector` reads them; missing ones 0): a linear bot whose weights are
    ``kind.column`` plays exactly this policy, so its agreement is measured on the same decisions as the fit's."""
    from meeplab.sim.core.policy import width

    w = shape.vector(weights)
    d = width(data.feats.shape[1])
    test = held_out(data, holdout)
    total, n = 0.0, 0
    for k, name in enumerate(shape.kinds):
        which = np.flatnonzero((data.kind == k) & test)
        if len(which) == 0:
            continue
        rows, seg, picks = _segments(data, which)
        nc, at = shape.n_codes(name), shape.at(name)
        z = _blocks(phi_rows(data, which), _codes(shape, name, data, rows), nc) @ w[at : at + nc * d]
        total += _expected_agreement(z, seg, picks) * len(which)
        n += len(which)
    return total / n if n else float("nan")


def linear_names(shape) -> list[str]:
    """The policy's weights that are no product of two terms: per kind (and code) its constant, each feature
    column, the best-column-0 flag and the progress's constant (``kind.x``); what ``learn --refine`` searches
    (the pairwise and progress products keep the fit's values)."""
    return [n for n in shape.weight_names() if "*" not in n.partition(".")[2]]


def write_bot(path, name: str, fit_: Fit, header: list[str], description: str, fitted_at=None) -> None:
    """The policy as a bot-config TOML at ``path``: comment lines ``header`` (the command and the fit's numbers),
    then ``[bots.NAME] base = "policy"`` with its weights by name (zeros left out: the base's default)."""
    import tomli_w

    from meeplab.sim.core.files import atomic_write

    weights = {n: float(v) for n, v in zip(fit_.names, fit_.weights) if v != 0.0 and not is_shape(n)}
    from meeplab.sim.core.params import set_text

    at = {str(k): set_text(v) for k, v in (fitted_at or {}).items()}  # the teacher's rules (changed ones; {}: defaults)
    entry = {"base": "policy", "description": description, "fitted_at": at, "weights": weights}
    body = tomli_w.dumps({"bots": {name: entry}})
    lines = [f"# {line}" for text in header for line in str(text).splitlines() or [""]]
    atomic_write(path, "\n".join(lines) + "\n" + body)


def summary(fit_: Fit) -> list[dict[str, Any]]:
    """One row per decision kind: decisions, agreement with the teacher (held out and in training), beside the
    agreement of playing the best column 0, and the held-out log loss."""
    return [
        {
            "kind": k.kind,
            "train decisions": k.train,
            "held-out decisions": k.held_out,
            "agreement": k.agreement,
            "train agreement": k.train_agreement,
            "best column 0": k.greedy_agreement,
            "log loss": k.log_loss,
        }
        for k in fit_.kinds
    ]

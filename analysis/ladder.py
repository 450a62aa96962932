"""The skill ladder: ratings of a game's policies from mixed tables, and findings per rung.

Ratings. Every game of every ladder table gives one finishing order of the rungs at that
table (`players.rank`; seats of one rung at one table count once, by their best seat). A
Plackett-Luce model (choix.ilsr_rankings, the maximum-likelihood fit) turns the finishing
orders into one strength per rung, on a log scale centred on the rungs' mean (0): a rung
`d` above another finishes ahead of it in a head-to-head with probability 1 / (1 + e^-d).
Only differences are identified, so the zero is a convention. The mean (choix's own) takes no
rung as the fixed point: anchored on the weakest rung instead, that rung's spread (random is
almost never ahead of anything, so its strength is pinned only loosely) entered every other
rung's interval, and adjacent intervals overlapped where the differences were clear
(Skyline 3000: every adjacent difference's interval above 0, three pairs "overlapping").
Shared places (a shared win, equal scores) are ordered at random, seeded, so a tie counts
half each way on average.

Intervals. The game is the unit, and every table plays game g on the same deal (common random
numbers), so game g's outcomes at the different tables are correlated: the percentile bootstrap
resamples game indices, jointly across tables (seeded), and refits. Adjacent rungs are also
compared head to head: the share of the games in which both sat where the higher rung finished
ahead (a tie counts half), with a cluster-robust interval clustered by game index.

Ordered means: for every pair of adjacent rungs the higher one's rating is larger and the
bootstrap interval of the difference excludes 0; "separated" additionally asks that the two
rating intervals do not overlap (the issue's criterion).

Findings per rung (the ladder command's self-play runs and an experiment's [ladder]): one
balance figure (a metric and key) at every rung, and a plain verdict (`rung_verdict`): holds
at every rung / appears only for weak play (search rungs count as strong, and the policies a game
declares strong: GameSpec.strong_policies) / changes sign /
no rung shows an effect beyond noise (not evidence of balance) / undetermined (a NaN, or a
figure with no fair value to be compared with). What counts as an effect is `key_effects`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import numpy as np
import polars as pl


BOOTSTRAP_REPLICATES = 200
CONFIDENCE = 0.95
RIDGE = 1e-3  # choix's ridge on the log-strengths: keeps a rung that always wins (or loses) finite


@dataclass(frozen=True)
class TableGames:
    """One ladder table: its rungs by line-up slot and its players table (game, lineup_slot, rank)."""

    rungs: tuple[str, ...]
    players: pl.DataFrame


def finishing_orders(table: TableGames, rung_index: dict[str, int], rng: np.random.Generator) -> list[list[int]]:
    """One ranking per game (best first) of the rungs at the table; ties in random order."""
    return list(finishing_orders_by_game(table, rung_index, rng).values())


def finishing_orders_by_game(table: TableGames, rung_index: dict[str, int],
                             rng: np.random.Generator) -> dict[int, list[int]]:
    """game -> its ranking (best first) of the rungs at the table; ties in random order."""
    frame = (table.players.select("game", "lineup_slot", "rank")
             .with_columns(pl.col("lineup_slot").map_elements(lambda s: rung_index[table.rungs[s]],
                                                              return_dtype=pl.Int64).alias("rung"))
             .group_by("game", "rung").agg(pl.col("rank").min())
             .sort("game", "rung"))  # a fixed row order: the seeded tie draws land on the same rows
    games = frame["game"].to_numpy()
    rung = frame["rung"].to_numpy()
    rank = frame["rank"].to_numpy().astype(float)
    tie = rng.random(len(rank))
    order = np.lexsort((tie, rank, games))
    out: dict[int, list[int]] = {}
    for i in order:
        out.setdefault(int(games[i]), []).append(int(rung[i]))
    return {g: r for g, r in out.items() if len(r) >= 2}


def fit_strengths(n_rungs: int, rankings: list[list[int]]) -> np.ndarray:
    """Plackett-Luce log-strengths (choix), centred on their mean (above)."""
    import choix

    params = choix.ilsr_rankings(n_rungs, rankings, alpha=RIDGE, max_iter=1000, tol=1e-10)
    return params - params.mean()


def head_to_head_by_game(tables: list[TableGames], low: str, high: str) -> pl.DataFrame:
    """Per game index: n (tables where both rungs sat) and w (score of `high`: 1 per table where it
    finished ahead, 1/2 per tie). Every table plays game g on the same deal, so a game index is one
    cluster: its tables' outcomes are correlated (common random numbers)."""
    frames = []
    for t in tables:
        if low not in t.rungs or high not in t.rungs:
            continue
        best = (t.players.with_columns(pl.col("lineup_slot").map_elements(lambda s: t.rungs[s], return_dtype=pl.Utf8)
                                       .alias("rung"))
                .group_by("game", "rung").agg(pl.col("rank").min())
                .pivot(on="rung", index="game", values="rank"))
        frames.append(best.select(pl.col("game").cast(pl.Int64), ((pl.col(high) < pl.col(low)).cast(pl.Float64)
                                                                   + 0.5 * (pl.col(high) == pl.col(low)).cast(
                                                                       pl.Float64)).alias("w")))
    if not frames:
        return pl.DataFrame(schema={"game": pl.Int64, "n": pl.Float64, "w": pl.Float64})
    return (pl.concat(frames).group_by("game").agg(pl.len().cast(pl.Float64).alias("n"), pl.col("w").sum())
            .sort("game"))


def head_to_head(tables: list[TableGames], low: str, high: str) -> tuple[int, float]:
    """(games where both rungs sat, score of `high`: 1 per game it finished ahead, 1/2 per tie)."""
    per = head_to_head_by_game(tables, low, high)
    return int(per["n"].sum()), float(per["w"].sum())


def head_to_head_interval(tables: list[TableGames], low: str, high: str,
                          confidence: float = CONFIDENCE) -> tuple[int, float, float, float]:
    """(games, share, low, high): the share of `high` with a cluster-robust interval clustered by game
    index (analysis.stats.cluster_rate_interval), clipped to [0, 1]. A Wilson interval over the games of
    all tables treated them as independent and was 1.16-1.31x too narrow."""
    from analysis.stats import cluster_share

    per = head_to_head_by_game(tables, low, high)
    n, w = per["n"].to_numpy(), per["w"].to_numpy()
    return (int(n.sum()), *cluster_share(w, n, confidence))


@dataclass
class Ladder:
    ratings: pl.DataFrame       # rung, rating, low, high, games
    steps: pl.DataFrame         # lower, higher, difference, low, high, h2h_games, h2h_share, h2h_low, h2h_high, verdict
    ordered: bool               # every adjacent difference > 0 with its interval above 0
    separated: bool             # ... and adjacent rating intervals do not overlap
    games: int                  # games played in all


def fit_ladder(rungs: list[str], tables: list[TableGames], seed: int = 0,
               replicates: int = BOOTSTRAP_REPLICATES, confidence: float = CONFIDENCE) -> Ladder:
    """Ratings with bootstrap intervals over games, and the adjacent-rung checks."""
    index = {r: i for i, r in enumerate(rungs)}
    rng = np.random.default_rng(seed)
    per_table = [finishing_orders_by_game(t, index, rng) for t in tables]
    everything = [r for orders in per_table for r in orders.values()]
    if not everything:
        raise ValueError("the ladder tables hold no finished game with two rungs")
    point = fit_strengths(len(rungs), everything)
    # the bootstrap resamples game indices jointly across tables: every table plays game g on the same deal,
    # so game g's orders at all tables move together (resampled per table, the intervals were 1.22-1.39x
    # too narrow)
    game_ids = np.array(sorted({g for orders in per_table for g in orders}))
    boots = np.empty((replicates, len(rungs)))
    for b in range(replicates):
        pick = game_ids[rng.integers(0, len(game_ids), len(game_ids))]
        sample = [orders[g] for orders in per_table for g in pick if g in orders]
        boots[b] = fit_strengths(len(rungs), sample)
    tail = (1 - confidence) / 2
    low = np.quantile(boots, tail, axis=0)
    high = np.quantile(boots, 1 - tail, axis=0)
    played = [sum(1 for r in everything if i in r) for i in range(len(rungs))]
    ratings = pl.DataFrame({"rung": rungs, "rating": point, "low": low, "high": high, "games": played})
    rows = []
    ordered = separated = True
    for i in range(len(rungs) - 1):
        diff = boots[:, i + 1] - boots[:, i]
        d_low, d_high = np.quantile(diff, tail), np.quantile(diff, 1 - tail)
        n, h_share, h_low, h_high = head_to_head_interval(tables, rungs[i], rungs[i + 1], confidence)
        score = h_share * n if n else 0.0
        apart = low[i + 1] > high[i]
        if point[i + 1] > point[i] and d_low > 0:
            verdict = "ordered, intervals apart" if apart else "ordered (difference > 0), intervals overlap"
        elif point[i + 1] > point[i]:
            verdict = "not separated: the difference's interval includes 0"
        else:
            verdict = "NOT ordered: the lower rung rates higher"
        ordered &= bool(point[i + 1] > point[i] and d_low > 0)
        separated &= bool(point[i + 1] > point[i] and d_low > 0 and apart)
        rows.append({"lower": rungs[i], "higher": rungs[i + 1], "difference": float(point[i + 1] - point[i]),
                     "low": float(d_low), "high": float(d_high), "h2h_games": n,
                     "h2h_share": score / n if n else math.nan, "h2h_low": float(h_low), "h2h_high": float(h_high),
                     "verdict": verdict})
    return Ladder(ratings, pl.DataFrame(rows), ordered, separated, len(everything))


# ---------------------------------------------------------------- findings per rung

STRONG_PREFIX = "search"   # search rungs count as strong play ("appears only for weak play"), and a game's strong_policies
FAIR_VALUE = "its fair value"
KEY_MEAN = "the mean of the keys in the same games"
NO_FAIR_VALUE = "no fair value"
UNDETERMINED_NAN = "undetermined: a rung has no estimate (NaN)"
UNDETERMINED_NO_REFERENCE = "undetermined: the metric has no fair value to compare with"
UNDETERMINED_FEW = "undetermined: fewer than {n} games at a rung"
ALPHA = 0.05          # family-wise: every effect claim of one ladder together; every "no effect" claim together
MIN_GAMES = 10        # fewer games at a rung: no claim either way
POWER = 0.8


def is_strong(rung: str, strong: tuple[str, ...] = ()) -> bool:
    """A search rung, or one of `strong` (a game's strong_policies: its expert where measured at or
    above search(20)), with or without weights: "expert" and "expert(samples=4)" alike."""
    return rung.startswith(STRONG_PREFIX) or rung.split("(", 1)[0].strip() in strong


def strong_policies(game: str | None) -> tuple[str, ...]:
    """The policies `game` declares strong play besides the search (engines.core.spec.GameSpec)."""
    if not game:
        return ()
    from engines.registry import get_game
    return tuple(get_game(game).strong_policies)


def weak_rungs(rungs, strong: tuple[str, ...] = ()) -> set[str]:
    """The weak rungs (random, greedy, heuristic ...): every rung that is not strong (is_strong)."""
    return {r for r in rungs if not is_strong(r, strong)}


@dataclass(frozen=True)
class RowVerdict:
    """One finding's verdict and exactly what it claims (the null-simulation tests check each claim):
    `signs` the rungs where an effect of that sign is claimed, `contrast` the claimed sign of (mean effect at
    the weak rungs) - (mean effect at the strong rungs), `pooled` the claimed sign of the mean effect over the
    rungs, `within` the rungs claimed within +-`margin` of the reference. 0 / empty: no claim."""

    kind: str
    text: str
    signs: tuple[tuple[str, int], ...] = ()
    contrast: int = 0
    pooled: int = 0
    within: tuple[str, ...] = ()
    margin: float = math.nan


def _sign(x: float) -> str:
    return "+" if x > 0 else "-"


def _p(values: np.ndarray) -> float:
    """Two-sided test of mean 0 of per-game values (analysis.stats.zero_mean_p: exact binomial for a win
    and a loss, the sign test for a constant sample, else t)."""
    from analysis.stats import zero_mean_p

    return zero_mean_p(values)


def row_verdict(effects: dict[str, np.ndarray], rungs: list[str], weak: set[str], *, tests: int, rows: int,
                margin: float | None = None, alpha: float = ALPHA) -> RowVerdict:
    """The verdict of one finding (a metric and key) across the rungs, from its per-game effects: for every
    rung an array over the games 0..n-1 (the value minus what it is judged against; NaN where the rung has
    no such game). Every rung plays game g on the same seed, so rungs are compared game by game (paired).

    Effect claims, each a two-sided test (a one-sample t on the game values, the sign test for a constant
    sample) at level alpha / `tests` (Bonferroni over every effect test of the ladder: each rung of each
    finding, plus per finding the pooled mean over the rungs and the paired weak - strong contrast):

      * changes sign: one rung shows + and another - (always reported first);
      * holds at every rung: every rung shows the same sign;
      * appears only for weak play: the paired contrast (weak rungs' mean effect - the search rungs')
        shows a difference, a weak rung shows the effect, and every search rung is shown within the
        margin (TOST); without that equivalence the verdict says the effect is larger for weak play and
        leaves strong play undetermined (likewise the other way round);
      * shows at some rungs: those rungs show it, the others are undetermined;
      * present on average over the rungs: only the pooled mean (per game, over the rungs) shows it.

    "No effect at any rung" needs the declared equivalence `margin`: two one-sided tests at every rung
    (analysis.stats.equivalence_p) at level alpha / `rows` (Bonferroni over the findings). Otherwise
    the verdict is "undetermined at n games per rung", with the games per rung that would settle it (the
    power module: the games for the TOST to succeed with probability 0.8 when there is no effect; without
    a margin, the smallest effect these games find)."""
    from analysis.stats import equivalence_p

    level = alpha / max(tests, 1)
    cols = [np.asarray(effects[r], dtype=float) for r in rungs]
    n_games = min(int(np.isfinite(c).sum()) for c in cols)
    if n_games < MIN_GAMES:
        return RowVerdict("undetermined", UNDETERMINED_FEW.format(n=MIN_GAMES))
    clean = {r: c[np.isfinite(c)] for r, c in zip(rungs, cols)}
    signs = {}
    for r in rungs:
        v = clean[r]
        p = _p(v)
        signs[r] = int(np.sign(v.mean())) if (not math.isnan(p) and p < level) else 0
    matrix = np.column_stack(cols)
    both = matrix[np.all(np.isfinite(matrix), axis=1)]          # the games every rung played: paired
    pooled = 0
    if len(rungs) > 1 and both.shape[0] >= MIN_GAMES:
        per_game = both.mean(axis=1)
        p = _p(per_game)
        pooled = int(np.sign(per_game.mean())) if (not math.isnan(p) and p < level) else 0
    w_idx = [i for i, r in enumerate(rungs) if r in weak]
    s_idx = [i for i, r in enumerate(rungs) if r not in weak]
    contrast, contrast_est = 0, math.nan
    if w_idx and s_idx and both.shape[0] >= MIN_GAMES:
        d = both[:, w_idx].mean(axis=1) - both[:, s_idx].mean(axis=1)
        contrast_est = float(d.mean())
        p = _p(d)
        contrast = int(np.sign(contrast_est)) if (not math.isnan(p) and p < level) else 0
    shown = {r: s for r, s in signs.items() if s}
    listed = lambda s: ", ".join(r for r in rungs if signs[r] == s)  # noqa: E731
    claim = tuple(shown.items())
    has_margin = margin is not None and not math.isnan(margin) and margin > 0
    within = {r: has_margin and equivalence_p(clean[r], margin) < alpha / max(rows, 1) for r in rungs}
    n_text = f"{n_games:,} games per rung"
    if 1 in shown.values() and -1 in shown.values():
        return RowVerdict("changes_sign", f"changes sign between rungs: + at {listed(1)}, - at {listed(-1)} "
                          "(it describes the players, not the game)", claim)
    if len(shown) == len(rungs):
        s = next(iter(shown.values()))
        return RowVerdict("holds", f"holds at every rung ({_sign(s)})", claim)
    for c, side, other in ((contrast, w_idx, s_idx), (-contrast, s_idx, w_idx)):
        # c: the sign of the effect at `side`, larger there than at `other` (the paired contrast)
        if not c or not any(signs[rungs[i]] == c for i in side) or any(signs[rungs[i]] == c for i in other):
            continue
        where = "weak" if side is w_idx else "strong"
        there = "strong" if where == "weak" else "weak"
        shown_at = ", ".join(rungs[i] for i in side if signs[rungs[i]] == c)
        gap = f"{where} minus {there} {contrast_est * (1 if where == 'weak' else -1):+.3g}, paired"
        if all(within[rungs[i]] for i in other):
            return RowVerdict(f"only_{where}", f"appears only for {where} play ({_sign(c)} at {shown_at}; the "
                              f"{there} rungs within ±{margin:g}; {gap})", claim, contrast=contrast,
                              within=tuple(rungs[i] for i in other), margin=margin)
        return RowVerdict(f"larger_{where}", f"larger for {where} play ({_sign(c)} at {shown_at}; {gap}); "
                          f"whether {there} play shows it at all is undetermined at {n_text}", claim,
                          contrast=contrast)
    sd = float(np.nanmean([clean[r].std(ddof=1) for r in rungs]))
    if shown:
        s = next(iter(shown.values()))
        # an opposite sign seen only before the correction is named as not shown: a flip is never hidden
        hint = [r for r in rungs if not signs[r] and np.sign(clean[r].mean()) == -s and _p(clean[r]) < alpha]
        flip = (f"; {_sign(-s)} at {', '.join(hint)} at the uncorrected 5% level only (a sign flip not shown)"
                if hint else "")
        return RowVerdict("some", f"shows at {listed(s)} ({_sign(s)}); undetermined at {listed(0)} at {n_text}{flip}",
                          claim)
    if pooled:
        return RowVerdict("on_average", f"present on average over the rungs ({_sign(pooled)}), no single rung "
                          f"shows it at {n_text}", pooled=pooled)
    if has_margin and all(within.values()):
        return RowVerdict("no_effect", f"no effect at any rung: every rung within ±{margin:g}",
                          within=tuple(rungs), margin=margin)
    if has_margin:
        need = _games_for_equivalence(margin, sd, alpha, max(rows, 1))
        return RowVerdict("undetermined", f"undetermined at {n_text}: no effect shown and ±{margin:g} not "
                          f"shown; about {max(need, n_games + 1):,} games per rung would show ±{margin:g} "
                          "if there is no effect")
    smallest = _detectable(n_games, round(sd, 3), alpha, max(tests, 1))
    return RowVerdict("undetermined", f"undetermined at {n_text}: no effect shown (these games find an effect "
                      f"of ±{smallest:.3g} at a rung 80% of the time) and no equivalence margin declared")


@functools.lru_cache(maxsize=4096)
def _games_for_equivalence_cached(margin: float, sd: float, alpha: float, rows: int) -> int:
    from analysis import power

    # TOST at level alpha/rows each side succeeds with probability POWER when there is no effect when
    # margin / se >= z(1 - alpha/rows) + z(1 - (1 - POWER)/2): a two-sided test at 2 alpha/rows, power 0.9
    return power.games_for_mean(margin, sd, alpha=2 * alpha, power=1 - (1 - POWER) / 2, family=rows)


def _games_for_equivalence(margin: float, sd: float, alpha: float, rows: int) -> int:
    return _games_for_equivalence_cached(margin, round(sd, 3), alpha, rows) if sd > 0 else MIN_GAMES


@functools.lru_cache(maxsize=4096)
def _detectable(n: int, sd: float, alpha: float, tests: int) -> float:
    from analysis import power

    return power.detectable_effect(n, sd, alpha=alpha, power=POWER, family=tests)


def key_effects(metric, values: pl.DataFrame, reference: float, confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Per key of one rung's per-game `values` (game, key, value) of `metric` (analysis.metrics.Metric):
    the quantity a verdict judges, as effect, effect_low, effect_high, effect_reference, judged_against.

    A metric with a fair value (a seat edge: 0, a win rate: the fair share) is judged as it is.
    Competing keys without one (roof types) are judged by each key's per-game difference from the
    mean of the keys in the same game: a roof type stands out when it earns more or less than the
    average roof type, and pairing on the game cancels the dice. Anything else has nothing to be
    compared with (reference NaN: the verdict says undetermined)."""
    from analysis.metrics import estimate

    if reference is not None and not math.isnan(reference):
        est, ref, against = estimate(metric, values, confidence), float(reference), FAIR_VALUE
    elif metric.dominance and values["key"].n_unique() > 1:
        est = estimate(replace(metric, kind="mean"), _deviation(values), confidence)
        ref, against = 0.0, KEY_MEAN
    else:
        est, ref, against = estimate(metric, values, confidence), math.nan, NO_FAIR_VALUE
    return est.select("key", pl.col("estimate").alias("effect"), pl.col("low").alias("effect_low"),
                      pl.col("high").alias("effect_high")).with_columns(
        pl.lit(ref, pl.Float64).alias("effect_reference"), pl.lit(against).alias("judged_against"))


def _deviation(values: pl.DataFrame) -> pl.DataFrame:
    return values.with_columns(pl.col("value") - pl.col("value").mean().over("game"))


def effect_values(metric, values: pl.DataFrame, reference: float) -> pl.DataFrame:
    """Per game and key, the value a verdict tests (game, key, value): the value minus its fair value,
    or for competing keys without one the value minus the mean key of the game; empty when the
    metric has nothing to be judged against (key_effects, above)."""
    if reference is not None and not math.isnan(reference):
        return values.with_columns(pl.col("value") - float(reference))
    if metric.dominance and values["key"].n_unique() > 1:
        return _deviation(values)
    return values.clear()


FINDINGS_SCHEMA = {"metric": pl.Utf8, "key": pl.Utf8, "rung": pl.Utf8, "n": pl.Int64, "estimate": pl.Float64,
                   "low": pl.Float64, "high": pl.Float64, "reference": pl.Float64, "effect": pl.Float64,
                   "effect_low": pl.Float64, "effect_high": pl.Float64, "effect_reference": pl.Float64,
                   "judged_against": pl.Utf8}
EFFECTS_SCHEMA = {"metric": pl.Utf8, "key": pl.Utf8, "rung": pl.Utf8, "game": pl.Int64, "value": pl.Float64}


@dataclass
class RungFindings:
    """One rung's figures of one metric (FINDINGS_SCHEMA) and the per-game values its verdict tests
    (EFFECTS_SCHEMA). It concatenates like the frame it used to be (`findings`)."""

    findings: pl.DataFrame
    effects: pl.DataFrame


def rung_findings(name: str, metric, values: pl.DataFrame, reference: float, rung: str,
                  confidence: float = CONFIDENCE) -> RungFindings:
    """One rung's figures of one metric, per key: the estimate and interval as the metric
    defines them, and next to them what the verdict judges (key_effects); and the per-game
    values the verdict tests (effect_values)."""
    from analysis.metrics import estimate

    ref = math.nan if reference is None else float(reference)
    est = estimate(metric, values, confidence)
    effects = key_effects(metric, values, ref, confidence)
    frame = est.join(effects, on="key", how="left").with_columns(
        pl.lit(name).alias("metric"), pl.lit(rung).alias("rung"), pl.lit(ref, pl.Float64).alias("reference"))
    per_game = effect_values(metric, values, ref).select(
        pl.lit(name).alias("metric"), "key", pl.lit(rung).alias("rung"), "game", "value").cast(EFFECTS_SCHEMA)
    return RungFindings(frame.select(list(FINDINGS_SCHEMA)).cast(FINDINGS_SCHEMA), per_game)


def concat_findings(parts: list[RungFindings]) -> RungFindings:
    if not parts:
        return RungFindings(pl.DataFrame(schema=FINDINGS_SCHEMA), pl.DataFrame(schema=EFFECTS_SCHEMA))
    return RungFindings(pl.concat([p.findings for p in parts], how="vertical"),
                        pl.concat([p.effects for p in parts], how="vertical"))


VERDICTS_SCHEMA = {"metric": pl.Utf8, "key": pl.Utf8, "verdict": pl.Utf8, "kind": pl.Utf8}


def ladder_row_verdicts(findings: RungFindings, rungs: list[str], margins: dict[str, float] | None = None,
                        alpha: float = ALPHA, strong: tuple[str, ...] = ()) -> list[tuple[str, str, RowVerdict]]:
    """(metric, key, RowVerdict) for every (metric, key) of `findings`; the effect tests are corrected
    over every rung x finding of the ladder (row_verdict). A rung without a row for the key, a NaN, or
    a figure without a fair value is undetermined, never quietly left out."""
    margins = margins or {}
    weak = weak_rungs(rungs, strong)
    table = findings.findings
    groups = list(table.group_by(["metric", "key"], maintain_order=True))
    judged = []
    out: list[tuple[str, str, RowVerdict | None]] = []
    for (metric, key), group in groups:
        by_rung = {r["rung"]: r for r in group.iter_rows(named=True)}
        rows = [by_rung.get(rung) for rung in rungs]
        if any(r is None or any(_nan(r[k]) for k in ("effect", "effect_low", "effect_high")) for r in rows):
            out.append((metric, key, RowVerdict("undetermined", UNDETERMINED_NAN)))
        elif any(_nan(r["effect_reference"]) for r in rows):
            out.append((metric, key, RowVerdict("undetermined", UNDETERMINED_NO_REFERENCE)))
        else:
            out.append((metric, key, None))
            judged.append((metric, key))
    # one contrast, one row: a finding whose per-game effects repeat another's at every rung (first_builder_edge
    # and seat_edge[1st] in Skyline 3000) shares its verdict and is not counted twice in the correction
    per = findings.effects.partition_by(["metric", "key", "rung"], as_dict=True) if judged else {}
    duplicate_of: dict[tuple, tuple] = {}
    seen: list[tuple[tuple, list]] = []
    for mk in judged:
        vecs = [per.get((*mk, rung)) for rung in rungs]
        vecs = [None if v is None else v.sort("game")["value"].to_numpy() for v in vecs]
        for first, other in seen:
            if all(a is not None and b is not None and a.shape == b.shape
                   and np.allclose(a - a.mean(), b - b.mean(), rtol=0, atol=1e-12) for a, b in zip(vecs, other)):
                duplicate_of[mk] = first
                break
        else:
            seen.append((mk, vecs))
    n_rows = len(judged) - len(duplicate_of)
    has_strong = bool(weak) and len(weak) < len(rungs)
    tests = n_rows * (len(rungs) + (1 if len(rungs) > 1 else 0) + (1 if has_strong else 0))
    done = []
    decided: dict[tuple, RowVerdict] = {}
    for metric, key, verdict in out:
        if verdict is None and (metric, key) in duplicate_of:
            verdict = decided[duplicate_of[(metric, key)]]
        elif verdict is None:
            parts = {rung: per.get((metric, key, rung)) for rung in rungs}
            n = max((int(g["game"].max()) + 1 for g in parts.values() if g is not None and g.height), default=0)
            arrays = {}
            for rung, g in parts.items():
                a = np.full(n, np.nan)
                if g is not None:
                    a[g["game"].to_numpy()] = g["value"].to_numpy()
                arrays[rung] = a
            verdict = row_verdict(arrays, rungs, weak, tests=tests, rows=n_rows, margin=margins.get(metric),
                                  alpha=alpha)
            decided[(metric, key)] = verdict
        done.append((metric, key, verdict))
    return done


def ladder_verdicts(findings: RungFindings, rungs: list[str], margins: dict[str, float] | None = None,
                    alpha: float = ALPHA, strong: tuple[str, ...] = ()) -> pl.DataFrame:
    """metric, key, verdict, kind for every (metric, key) of `findings` (ladder_row_verdicts; `strong`:
    the game's strong_policies)."""
    rows = [{"metric": m, "key": k, "verdict": v.text, "kind": v.kind}
            for m, k, v in ladder_row_verdicts(findings, rungs, margins, alpha, strong)]
    return pl.DataFrame(rows, schema=VERDICTS_SCHEMA)


def _nan(value) -> bool:
    return value is None or math.isnan(value)


def declared_margins(game: str, names, overrides: dict[str, float] | None = None) -> dict[str, float]:
    """Each metric's equivalence margin: its declaration (Metric.margin), overridden by `overrides`."""
    from analysis.metrics import get_metric

    out = {}
    for name in names:
        margin = (overrides or {}).get(name, get_metric(game, name).margin)
        if margin is not None:
            out[name] = float(margin)
    return out

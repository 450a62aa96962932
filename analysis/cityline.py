"""Cityline's own report sections and experiment metrics (found by the game
id: analysis.<game_id>), from the tables its GameSpec declares and the
rulebook's language:

- points per roof type: what each type contributes (mean and share), per policy;
- roof choices: how often each type is built, and how often a roof lands on an empty column;
- the value of a die face by turn: the points of the building a set-aside die roofed, and the
  final score, by the die and the construction turn (needs the `decisions` table);
- the sky: how often sun, moon and cloud come up, how often they pay, and the score by sky;
- score distributions per policy;
- with 2+ players: whether seat order matters (win rate by seat, Wilson intervals).

Every figure is aggregated in polars before numpy/scipy/matplotlib see it.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from analysis import plots, quality, stats
from analysis.compare import roof_points_per_game
from analysis.run import Run
from analysis.frames import Metric, Plot, RunData, Section, labels, ordinal, pct, position_column, select

N_TYPES = 6


def sections(run: Run) -> list[Section]:
    out = [roof_type_points(run), roof_choices(run)]
    if "decisions" in run.tables():
        out.append(die_value_by_turn(run))
    else:
        out.append(Section("Value of a die face by turn", "Skipped: this run has no `decisions` table."))
    out += [sky_outcomes(run), score_distributions(run)]
    if run.n_players > 1:
        out.append(seat_order(run))
    game_quality = quality.quality_section(run, None)   # choice, kingmaking, ties (no running score: no race)
    if game_quality is not None:
        out.append(game_quality)
    return out


# ------------------------------------------------------------------ helpers

def roof_names(run: Run) -> dict[int, str]:
    roofs = run.manifest.get("variant", {}).get("values", {}).get("roof", {})
    return {r: f"{r} {roofs.get(str(r), {}).get('name', f'type {r}')}" for r in range(1, N_TYPES + 1)}


def players(run: Run) -> pl.LazyFrame:
    """players with a string `policy` column (from the runner, or from the manifest's line-up)."""
    frame = run.scan("players")
    names = frame.collect_schema().names()
    if "policy" in names:
        return frame.with_columns(pl.col("policy").cast(pl.String))
    lineup = run.lineup
    return frame.with_columns(
        pl.col("lineup_slot").cast(pl.Int64).map_elements(lambda s: lineup[s] if s < len(lineup) else str(s),
                                                          return_dtype=pl.String).alias("policy"))


def _game_unit_means(p: pl.LazyFrame, by, value: str, table: pl.DataFrame) -> pl.DataFrame:
    """`table` (one row per group of `by`, sorted like it) with low/high replaced by the mean per player-game
    with the game as the unit (stats.game_unit_rates: cluster-robust by game; a policy's seats in one game
    share the dice, so player-games are not independent: the t interval over them was 1.25x too narrow,
    1.91x in six-greedy self-play)."""
    by = [by] if isinstance(by, str) else list(by)
    unit = stats.game_unit_rates(p.with_columns(pl.col("game").cast(pl.Int64)), by, value).sort(by)
    return table.drop("low", "high", strict=False).join(unit.select(*by, "low", "high"), on=by, how="left")


def _with_intervals(table: pl.DataFrame) -> pl.DataFrame:
    low, high = stats.t_interval_from_moments(table["n"].to_numpy(), table["mean"].to_numpy(),
                                              table["std"].fill_null(np.nan).to_numpy())
    return table.with_columns(pl.Series("low", np.atleast_1d(low)), pl.Series("high", np.atleast_1d(high)))


# ------------------------------------------------------------------ sections

def roof_type_points(run: Run) -> Section:
    names = roof_names(run)
    p = players(run)
    aggs = [pl.len().alias("n"), pl.col("building_points").cast(pl.Float64).mean().alias("building_points")]
    for r in range(1, N_TYPES + 1):
        col = pl.col(f"points_type{r}").cast(pl.Float64)
        aggs += [col.mean().alias(f"mean_{r}"), col.std().alias(f"std_{r}")]
    agg = p.group_by("policy").agg(aggs).sort("policy").collect()
    rows = []
    for row in agg.iter_rows(named=True):
        for r in range(1, N_TYPES + 1):
            rows.append({"policy": row["policy"], "roof": names[r], "n": row["n"], "mean": row[f"mean_{r}"],
                         "std": row[f"std_{r}"],
                         "share": row[f"mean_{r}"] / row["building_points"] if row["building_points"] else np.nan})
    table = _with_intervals(pl.DataFrame(rows))
    # Intervals over games, not player-games: a policy's seats in one game share the dice.
    low, high = [], []
    for r in range(1, N_TYPES + 1):
        by_game = stats.game_unit_rates(p, "policy", f"points_type{r}")
        low.append(dict(zip(by_game["policy"], by_game["low"])))
        high.append(dict(zip(by_game["policy"], by_game["high"])))
    table = table.with_columns(
        pl.Series("low", [low[i % N_TYPES][pol] for i, pol in enumerate(table["policy"])], pl.Float64),
        pl.Series("high", [high[i % N_TYPES][pol] for i, pol in enumerate(table["policy"])], pl.Float64))
    fig, (ax,) = plots.new_figure(1, (7.5, 4.0))
    pols = table["policy"].unique(maintain_order=True).to_list()
    width = 0.8 / max(len(pols), 1)
    x = np.arange(N_TYPES)
    for i, pol in enumerate(pols):
        t = table.filter(pl.col("policy") == pol)
        mean = t["mean"].to_numpy()
        ax.bar(x + i * width - 0.4 + width / 2, mean, width, label=pol,
               yerr=np.clip(np.vstack([mean - t["low"].to_numpy(), t["high"].to_numpy() - mean]), 0, None),
               capsize=2)
    ax.set_xticks(x, [names[r] for r in range(1, N_TYPES + 1)])
    ax.set_ylabel("points per player and game")
    ax.set_title("Building points by roof type")
    ax.legend(fontsize="small")
    best = (table.sort("mean", descending=True).group_by("policy", maintain_order=True).first()
            .select("policy", "roof", "mean"))
    text = ("Mean building points each roof type contributes per player and game (0 when the player "
            "built none of that type), with 95% intervals over games (cluster-robust by game), and its share of all "
            "building points. "
            "Same-type buildings at the same occupancy level score once (the default variant's rule). Top type per policy: "
            + "; ".join(f"{r['policy']}: {r['roof']} ({r['mean']:.2f})" for r in best.iter_rows(named=True)) + ".")
    return Section("Points per roof type", text,
                   [("points per roof type and policy", table.select("policy", "roof", "n", "mean", "low", "high",
                                                                      "share"))],
                   [Plot("cityline_roof_points", fig, "Mean points per roof type, 95% intervals")])


def roof_choice_shares(run: Run) -> pl.DataFrame:
    """Per policy and roof type: buildings per player and game and the share of the policy's buildings
    with that roof, each with a 95% interval over games (a policy's seats in one game are one cluster).

    Columns: policy, roof, player_games, games, buildings, per_player_game, low, high, share,
    share_low, share_high.
    """
    names = roof_names(run)
    p = players(run).with_columns(
        pl.col("game").cast(pl.Int64),
        pl.sum_horizontal([pl.col(f"buildings_type{r}").cast(pl.Float64) for r in range(1, N_TYPES + 1)])
        .alias("all_buildings"))
    long = pl.concat([p.select("policy", "game", pl.lit(names[r]).alias("roof"),
                               pl.col(f"buildings_type{r}").cast(pl.Float64).alias("buildings"), "all_buildings")
                      for r in range(1, N_TYPES + 1)])
    means = stats.game_unit_rates(long, ["policy", "roof"], "buildings")
    shares = stats.unit_ratio_table(long, ["policy", "roof"], "buildings", "all_buildings", unit="game")
    return means.select("policy", "roof", "player_games", "games", pl.col("total").alias("buildings"),
                        pl.col("rate").alias("per_player_game"), "low", "high").join(
        shares.select("policy", "roof", pl.col("rate").alias("share"), pl.col("low").alias("share_low"),
                      pl.col("high").alias("share_high")), on=["policy", "roof"], how="left").sort("policy", "roof")


def roof_choices(run: Run) -> Section:
    names = roof_names(run)
    p = players(run)
    aggs = [pl.len().alias("n"), pl.col("dead_roofs").cast(pl.Float64).mean().alias("dead_roofs"),
            pl.col("zeroed").cast(pl.Float64).mean().alias("zeroed")]
    aggs += [pl.col(f"buildings_type{r}").cast(pl.Float64).mean().alias(names[r]) for r in range(1, N_TYPES + 1)]
    agg = p.group_by("policy").agg(aggs).sort("policy").collect()
    # dead roofs and zeroed buildings per player and game, 95% intervals over games
    for column in ("dead_roofs", "zeroed"):
        rates = stats.game_unit_rates(p.with_columns(pl.col("game").cast(pl.Int64)), "policy", column)
        agg = agg.join(rates.select("policy", pl.col("low").alias(f"{column} low"),
                                    pl.col("high").alias(f"{column} high")), on="policy", how="left")
    shares = roof_choice_shares(run)
    fig, (ax,) = plots.new_figure(1, (7.5, 4.0))
    x = np.arange(N_TYPES)
    pols = agg["policy"].to_list()
    width = 0.8 / max(len(pols), 1)
    roof_order = {names[r]: r - 1 for r in range(1, N_TYPES + 1)}
    for i, pol in enumerate(pols):
        t = shares.filter(pl.col("policy") == pol).sort(pl.col("roof").replace_strict(roof_order))
        mean = t["per_player_game"].to_numpy()
        ax.bar(x + i * width - 0.4 + width / 2, mean, width, label=pol,
               yerr=np.clip(np.nan_to_num(np.vstack([mean - t["low"].to_numpy(), t["high"].to_numpy() - mean])),
                            0, None), capsize=2)
    ax.set_xticks(x, [names[r] for r in range(1, N_TYPES + 1)])
    ax.set_ylabel("buildings per player and game")
    ax.set_title("Roof types built")
    ax.legend(fontsize="small")
    text = ("How many buildings (roofed columns with at least one floor) of each roof type a player "
            "ends with, per game; *dead roofs* counts roofs put on an empty column (no room, no "
            "points) and *zeroed* buildings scoring nothing because a same-type building took that "
            "occupancy level first. *share* is the share of a policy's buildings that carry each roof type "
            "(summed over its seats and games). All intervals are 95% and run over games (the game is the "
            "unit: a policy's seats in one game share the dice): means per player-game and shares are ratio "
            "estimates with a cluster-robust standard error grouped by game (Student t on games - 1 degrees "
            "of freedom).")
    return Section("Roof type choices", text,
                   [("buildings per player and game", agg),
                    ("roof type shares per policy, 95% intervals over games", shares)],
                   [Plot("cityline_roof_choices", fig, "Buildings per roof type, 95% intervals over games")])


def die_value_by_turn(run: Run) -> Section:
    names = roof_names(run)
    dec = run.scan("decisions").filter(pl.col("phase") == 0)
    sc = run.scan("players").select(pl.col("game").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                                    pl.col("score").cast(pl.Float64))
    joined = dec.with_columns(pl.col("game").cast(pl.Int64), pl.col("seat").cast(pl.Int64)).join(
        sc, on=["game", "seat"], how="left")
    by = (joined.group_by(["turn", "die"])
          .agg(pl.len().alias("n"),
               pl.col("column_points").cast(pl.Float64).mean().alias("mean"),
               pl.col("column_points").cast(pl.Float64).std().alias("std"),
               pl.col("height").cast(pl.Float64).mean().alias("height"),
               pl.col("score").cast(pl.Float64).mean().alias("final_score"))
          .sort(["turn", "die"]).collect())
    # one game sets aside many dice, and a game's dice share its players' fortunes: the game is the unit
    by = _game_unit_means(joined, ["turn", "die"], "column_points", by)
    series = {}
    for r in range(1, N_TYPES + 1):
        t = by.filter(pl.col("die") == r)
        if t.height:
            series[names[r]] = (t["turn"].to_numpy() - 1, t["mean"].to_numpy(), t["low"].to_numpy(),
                                t["high"].to_numpy())
    turns = sorted(by["turn"].unique().to_list())
    fig = plots.rate_lines(series, title="Points of the building a set-aside die roofed",
                           xlabel="construction turn", ylabel="final points of that building",
                           xticklabels=[str(t) for t in turns])
    text = ("For each construction turn and set-aside die (= roof type), the final points of the "
            "building it roofed (after the same-type rule), with 95% intervals cluster-robust by game "
            "(a game's dice are not independent), the building's height "
            "when roofed, and the player's mean final score. Read it as the value of a die face at "
            "each turn under the policies of this run (choices, not random assignment).")
    return Section("Value of a die face by turn", text,
                   [("by turn and die", by.select("turn", "die", "n", "mean", "low", "high", "height",
                                                  "final_score"))],
                   [Plot("cityline_die_value_by_turn", fig, "Final building points by set-aside die and turn")])


MIN_SKY_PLAYERS = 20   # fewer player-games under a sky: its mean score is left out of the sky figure


def sky_outcomes(run: Run) -> Section:
    sky_names = labels(run.game_id, "sky")   # players.sky codes, as the engine declares them
    p = players(run)
    agg = (p.group_by(["policy", "sky"])
           .agg(pl.len().alias("n"),
                pl.col("sky_hit").cast(pl.Float64).sum().alias("hits"),
                pl.col("sky_bonus").cast(pl.Float64).mean().alias("mean_bonus"),
                pl.col("score").cast(pl.Float64).mean().alias("mean"),
                pl.col("score").cast(pl.Float64).std().alias("std"))
           .sort(["policy", "sky"]).collect())
    totals = agg.group_by("policy").agg(pl.col("n").sum().alias("total"))
    agg = agg.join(totals, on="policy").with_columns(
        (pl.col("n") / pl.col("total")).alias("rate"),
        pl.col("sky").map_elements(lambda s: sky_names[s] if 0 <= s < len(sky_names) else "?", return_dtype=pl.String)
        .alias("sky_name"))
    # the game is the unit: a policy's seats in one game share the dice (and the sky)
    agg = _game_unit_means(p, ["policy", "sky"], "score", agg.sort(["policy", "sky"]))
    hits = stats.game_unit_rates(p, ["policy", "sky"], "sky_hit").sort(["policy", "sky"])
    agg = agg.join(hits.select("policy", "sky", pl.col("low").alias("hit_low"), pl.col("high").alias("hit_high")),
                   on=["policy", "sky"], how="left").with_columns((pl.col("hits") / pl.col("n")).alias("hit_rate"))
    flagged = p.with_columns(*[(pl.col("sky") == k).cast(pl.Float64).alias(f"_sky{k}") for k in range(3)])
    sky_rates = {k: stats.game_unit_rates(flagged, "policy", f"_sky{k}") for k in range(3)}
    fig, axes = plots.new_figure(2, (10, 4))
    series_rate, series_score = {}, {}
    for pol in agg["policy"].unique(maintain_order=True).to_list():
        t = agg.filter(pl.col("policy") == pol)
        x = t["sky"].to_numpy()
        bounds = [sky_rates[int(k)].filter(pl.col("policy") == pol).row(0, named=True) for k in x]
        series_rate[pol] = (x, t["rate"].to_numpy(), np.array([b["low"] for b in bounds]),
                            np.array([b["high"] for b in bounds]))
        # a mean score from a handful of players (2 under a moon: 9-22 points) says nothing: drawn from
        # MIN_SKY_PLAYERS player-games on, the table keeps every row
        kept = t.filter(pl.col("n") >= MIN_SKY_PLAYERS)
        series_score[pol] = (kept["sky"].to_numpy(), kept["mean"].to_numpy(), kept["low"].to_numpy(),
                             kept["high"].to_numpy())
    plots.rate_lines(series_rate, title="How often each sky comes up", xlabel="sky", ylabel="share of players",
                     xticklabels=list(sky_names), axes=axes[0])
    plots.rate_lines(series_score, title="Final score by sky", xlabel="sky", ylabel="mean final score",
                     xticklabels=list(sky_names), axes=axes[1])
    text = ("The sky is set by the six construction set-aside dice (4+ odd: sun, 4+ even: moon, 3-3: "
            "cloud). *hit rate* is how often it then paid (sun/moon: the occupancy set-aside dice had "
            "the matching strict majority; cloud: the penalty applied because they had any majority), "
            "*mean bonus* what it was worth on average, *mean* the final score; 95% intervals over games "
            "(cluster-robust by game: a policy's seats in one game share the dice).")
    return Section("Sky outcomes", text,
                   [("sky by policy", agg.select("policy", "sky_name", "n", "rate", "hit_rate", "hit_low",
                                                 "hit_high", "mean_bonus", "mean", "low", "high"))],
                   [Plot("cityline_sky", fig, "Sky rates and score by sky, 95% intervals over games; a score "
                         f"from fewer than {MIN_SKY_PLAYERS} player-games is left out (the table keeps it).")])


def score_distributions(run: Run) -> Section:
    p = players(run)
    table = _game_unit_means(p, "policy", "score", stats.mean_table(p, "policy", "score", quantiles=(0.1, 0.5, 0.9)))
    counts = p.group_by(["policy", "score"]).agg(pl.len().alias("count")).sort(["policy", "score"]).collect()
    series = {}
    for pol in counts["policy"].unique(maintain_order=True).to_list():
        t = counts.filter(pl.col("policy") == pol)
        series[pol] = stats.value_counts_histogram(t, "score", "count")
    fig = plots.histogram_steps(series, title="Final scores", xlabel="score")
    parts = (p.group_by("policy").agg(
        pl.col("building_points").cast(pl.Float64).mean().alias("building_points"),
        pl.col("x_penalty").cast(pl.Float64).mean().alias("x_penalty"),
        pl.col("sky_bonus").cast(pl.Float64).mean().alias("sky_bonus"),
        pl.col("forced_x").cast(pl.Float64).mean().alias("forced_x_fills"),
        pl.col("rerolled").cast(pl.Float64).mean().alias("dice_rerolled"),
        pl.col("wasted_walls").cast(pl.Float64).mean().alias("wasted_walls"),
        pl.col("wasted_early").cast(pl.Float64).mean().alias("wasted_early")).sort("policy").collect())
    text = ("Final score per policy with a 95% interval over games (cluster-robust by game: a policy's seats in "
            "one game share the dice) and quantiles; score = building points "
            "- X penalty + sky bonus, split below with the forced X-fills, re-rolls and wasted dice.")
    return Section("Score distributions", text,
                   [("final score by policy", table), ("where the points come from", parts)],
                   [Plot("cityline_scores", fig, "Final score distribution per policy")])


def seat_order(run: Run) -> Section:
    p = players(run)
    n_winners = run.scan("games").select(pl.col("game").cast(pl.Int64), "n_winners")
    frame = p.with_columns(pl.col("game").cast(pl.Int64)).join(n_winners, on="game", how="left")
    rates = stats.win_rates(frame, "seat")
    # shared wins count for every sharer: the average seat wins mean-winners / P, not 1/P
    winners = float(rates["wins"].sum()) / max(int(rates["games"].max()), 1) if rates.height else 1.0
    fair = winners / run.n_players

    fig = plots.rate_chart([ordinal(int(s)) for s in rates["seat"].to_list()], rates["win_rate"].to_numpy(),
                           rates["win_low"].to_numpy(), rates["win_high"].to_numpy(),
                           title="Win rate by seat (shared wins count)", ylabel="win rate",
                           reference=fair, reference_label="mean winners per game / players")
    scores = position_column(stats.mean_table(p, "seat", "score"), "seat")
    rates = position_column(rates, "seat")
    text = ("Cityline's seats differ only in who re-rolls for the table (the 1st seat, the starting player, "
            "when the variant allows it); everyone uses the same dice. The 1st seat moves first, so seat = turn-order "
            "position. Win rates by seat with 95% intervals over games (a shared win counts for every sharer, "
            "so rates can sum above 1); "
            f"the dashed line is the average seat's rate, mean winners per game / {run.n_players} = {pct(fair)}.")
    return Section("Does seat order matter?", text,
                   [("win rate by seat", rates), ("score by seat", scores)],
                   [Plot("cityline_seat_wins", fig, "Win rate by seat, 95% intervals over games")])


# ------------------------------------------------------------------ experiment metrics
# Is every roof type worth picking? Keys are roof types as "<die value> <name>" with the
# names of the run's own variant (default: 1 Odds, 2 Evens, 3 Low, 4 High, 5 Pairs, 6 Any),
# read from the players table's points_type<r> and buildings_type<r> columns. Roof points
# are unconditional (a seat that built none of a type scores 0 with it), so two arms are
# compared on the same games; shares are over the seats that built (scored) anything.

def _long(run: RunData) -> pl.DataFrame:
    """One row per game, seat and roof type: buildings, points, and the seat's totals."""
    p = run.table("players")
    names = roof_names(run.run)
    frames = []
    for r in range(1, N_TYPES + 1):
        frames.append(p.select(
            "game", "seat",
            pl.lit(names[r]).alias("roof"),
            pl.col(f"buildings_type{r}").cast(pl.Float64).alias("buildings"),
            pl.col(f"points_type{r}").cast(pl.Float64).alias("points"),
            pl.sum_horizontal([pl.col(f"buildings_type{k}") for k in range(1, N_TYPES + 1)]).cast(pl.Float64)
            .alias("all_buildings"),
            pl.col("building_points").cast(pl.Float64).alias("all_points"),
        ))
    return pl.concat(frames)


def roof_points(run: RunData) -> pl.DataFrame:
    # every game and seat counts (0 for a seat that built none): arms are compared on the same games
    return roof_points_per_game(run.table("players"), roof_names(run.run))


def roof_share(run: RunData) -> pl.DataFrame:
    long = _long(run).filter(pl.col("all_buildings") > 0)
    per_game = (long.group_by(["game", "roof"])
                .agg((pl.col("buildings") / pl.col("all_buildings")).mean().alias("v")).sort(["game", "roof"]))
    return select(per_game, pl.col("roof"), pl.col("v"))


def roof_points_share(run: RunData) -> pl.DataFrame:
    long = _long(run).filter(pl.col("all_points") > 0)
    per_game = (long.group_by(["game", "roof"])
                .agg((pl.col("points") / pl.col("all_points")).mean().alias("v")).sort(["game", "roof"]))
    return select(per_game, pl.col("roof"), pl.col("v"))


def x_penalty(run: RunData) -> pl.DataFrame:
    per_game = run.table("players").group_by("game").agg(pl.col("x_penalty").cast(pl.Float64).mean().alias("v"))
    return select(per_game.sort("game"), "all", pl.col("v"))


def sky_hit_rate(run: RunData) -> pl.DataFrame:
    per_game = run.table("players").group_by("game").agg(pl.col("sky_hit").cast(pl.Float64).mean().alias("v"))
    return select(per_game.sort("game"), "all", pl.col("v"))


METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("roof_points", "mean points each roof type earns a seat per game (0 for a seat that built none: "
           "unconditional)", "mean", roof_points, dominance=True),
    Metric("roof_share", "share of a player's buildings that have each roof type", "mean", roof_share),
    Metric("roof_points_share", "share of a player's building points that come from each roof type", "mean",
           roof_points_share),
    Metric("x_penalty", "points lost to X's per player", "mean", x_penalty),
    Metric("sky_hit_rate", "share of players whose sky bonus or penalty applied", "mean", sky_hit_rate),
)}

# the headline figures the skill ladder reports per rung (experiments/ladder.py): what each roof
# type earns, which a designer balances through the score table
LADDER_FINDINGS = ("roof_points",)

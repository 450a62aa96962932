"""Skyline of the World's own report sections (GameSpec.report), from the tables in
engines/skyline_of_the_world/tables.py:

- win rate by turn order (the start player is drawn at random) and by who ended the game;
- income curves: income earned by round, per policy (needs the `income` table);
- what each floor value is worth: floors built and bought per seat and their association with
  income and prestige (least squares with 95% intervals; an association, not a causal price);
- how often the 30M cash cap binds (it stops every gain: income, fees, sales, cards); mission and
  bonus completion; neutral floors as blockers;
- stall rate (games ended by the turn cap) and game length; fee flows between seats.

Every figure is aggregated in polars before numpy/matplotlib see it.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from analysis import plots, quality, stats
from analysis.quality import RoundScores
from analysis.run import Run
from analysis.frames import (Finding, Metric, Plot, Section, interval_text, ordinal, pct, players_with_winners,
                             rate_with_interval,
                             position_column, zero)

KIND_SUFFIX = ("1", "2", "4", "6", "ph", "neutral")
KIND_LABEL = {"1": "1M floor", "2": "2M floor", "4": "4M floor", "6": "6M floor", "ph": "penthouse",
              "neutral": "neutral floor"}


def sections(run: Run) -> list[Section]:
    out = [turn_order(run), end_trigger(run)]
    if "income" in run.tables():
        out.append(income_curves(run))
    else:
        out.append(Section("Income over the game", "Skipped: this run has no `income` table."))
    out += [floor_values(run), cash_cap(run), missions_and_bonus(run), stalls(run), fee_flows(run)]
    game_quality = quality.quality_section(run, ROUND_SCORES)   # the race: from the rounds table
    if game_quality is not None:
        out.append(game_quality)
    return out


# ------------------------------------------------------------------ helpers

def players(run: Run) -> pl.LazyFrame:
    """players with n_winners and a string `policy` column (from the runner or the line-up)."""
    frame = players_with_winners(run)
    if "policy" in frame.collect_schema().names():
        return frame
    lineup = run.lineup
    return frame.with_columns(
        pl.col("lineup_slot").cast(pl.Int64).map_elements(lambda s: lineup[s] if s < len(lineup) else str(s),
                                                          return_dtype=pl.String).alias("policy"))


# ------------------------------------------------------------------ sections

def turn_order(run: Run) -> Section:
    p = players(run)
    rates = stats.win_rates(p, "turn_order")
    P = run.n_players

    fig = plots.rate_chart([ordinal(int(t)) for t in rates["turn_order"]], rates["win_rate"].to_numpy(),
                           rates["win_low"].to_numpy(), rates["win_high"].to_numpy(),
                           title="Win rate by turn order (1st = start player)", ylabel="win rate",
                           reference=1 / P, reference_label=f"1/{P}")
    by_policy = position_column(stats.win_rates(p, ["policy", "turn_order"]), "turn_order")
    rates = position_column(rates, "turn_order")
    return Section(
        "Turn order",
        "The start player is drawn at random each game; positions count from 1st, the start player. A rate "
        f"outside the fair share 1/{P} with its whole 95% Wilson interval points to a turn-order advantage "
        "(shared wins count for each sharer).",
        tables=[("Win rate by turn order", rates), ("Win rate by policy and turn order", by_policy)],
        plots=[Plot("sotw_turn_order", fig, "Win rate by turn order with 95% Wilson intervals")],
    )


def end_trigger(run: Run) -> Section:
    g = run.scan("games")
    ended = g.filter(pl.col("trigger_seat") >= 0).select(
        pl.len().alias("games"), (pl.col("trigger_won") == 1).cast(pl.Int64).sum().alias("trigger_won")).collect()
    n, k = int(ended["games"][0]), int(ended["trigger_won"][0])
    low, high = stats.wilson_interval(k, n)
    P = run.n_players
    p = players(run)
    by_role = stats.win_rates(p.with_columns(pl.when(pl.col("triggered_end") == 1).then(pl.lit("ended the game"))
                                             .otherwise(pl.lit("other")).alias("role")), "role")
    counts = (g.filter(pl.col("trigger_seat") >= 0).group_by("trigger_order").agg(pl.len().alias("games"))
              .sort("trigger_order").collect())
    o_low, o_high = stats.wilson_interval(counts["games"].to_numpy(), np.full(counts.height, max(n, 1)))
    by_order = counts.with_columns((pl.col("games") / max(n, 1)).alias("share"),
                                   pl.Series("low", np.atleast_1d(o_low)), pl.Series("high", np.atleast_1d(o_high)))
    by_order = position_column(by_order, "trigger_order")   # counted from 1st, as every table (it printed 0-3)

    text = (f"In {n:,} game{'' if n == 1 else 's'} a third penthouse ended the game; the player who built it won {k} of them, "
            f"{rate_with_interval(k / n if n else np.nan, low, high, level='95% Wilson')}, against a fair "
            f"share of {pct(1 / P)}. The rulebook expects the ender to win more often under the second-version rules.")

    findings = []
    if n >= 2 and np.isfinite(low) and (low > 1 / P or high < 1 / P):   # the interval leaves the even share
        findings.append(Finding(f"The player who ends the game (a third penthouse) wins {pct(k / n)} of those games "
                                f"(95% CI {interval_text(low, high, clip=(0, 1))}), against an even {pct(1 / P)}.",
                                65.0))
    return Section("Who ends the game", text, findings=findings,
                   tables=[("Win rate of the player who ended the game vs the others", by_role),
                           ("Turn order of the player who ended the game (share of ended games, Wilson intervals)", by_order)])


def income_curves(run: Run) -> Section:
    inc = run.scan("income")
    lineup = run.lineup
    inc = inc.with_columns(pl.col("lineup_slot").cast(pl.Int64).map_elements(
        lambda s: lineup[s] if s < len(lineup) else str(s), return_dtype=pl.String).alias("policy"))
    table = stats.mean_table(inc, ["policy", "round"], "income").sort(["policy", "round"])
    series = {}
    for pol in table["policy"].unique().sort():
        t = table.filter((pl.col("policy") == pol) & (pl.col("n") >= 20))
        series[pol] = (t["round"].to_numpy(), t["mean"].to_numpy(), t["low"].to_numpy(), t["high"].to_numpy())
    fig = plots.rate_lines(series, title="Income by round", xlabel="round", ylabel="income (millions)")
    short = table.filter(pl.col("round") % 5 == 0)
    return Section("Income over the game",
                   "Mean income earned at the start of a turn, by round and policy (rounds reached by at least 20 "
                   "turns are drawn), with Student t intervals. Later rounds are played only by longer games.",
                   tables=[("Income by round (every fifth round)", short)],
                   plots=[Plot("sotw_income", fig, "Income by round, 95% intervals")])


def floor_values(run: Run) -> Section:
    built = [f"built_{s}" for s in KIND_SUFFIX]
    bought = [f"bought_{s}" for s in KIND_SUFFIX]
    sold = [f"sold_{s}" for s in KIND_SUFFIX]
    frame = players(run).select("game", *built, *bought, *sold, "income_total", "score")
    # sums and regressions over stats.UNIT_SLICE games at a time: a million games are 4 million seats
    sums = stats.aggregate_by_units(frame, [], {
        "seats": (pl.len(), "sum"), **{c: (pl.col(c).cast(pl.Float64).sum(), "sum") for c in (*bought, *built, *sold)},
        **{f"max {c}": (pl.col(c).max(), "max") for c in built}}).row(0, named=True)
    seats = sums["seats"]
    means = pl.DataFrame({
        "floor": [KIND_LABEL[s] for s in KIND_SUFFIX],
        "bought_per_seat": [sums[c] / seats for c in bought],
        "built_per_seat": [sums[c] / seats for c in built],
        "sold_per_seat": [sums[c] / seats for c in sold],
        "built_max": [sums[f"max {c}"] for c in built],
    })
    names = {c: KIND_LABEL[s] + " built" for c, s in zip(built, KIND_SUFFIX)}
    tables = [("Floors bought, built and sold per seat", means)]
    if seats > len(built) + 2:
        for outcome, title in (("income_total", "Income over the game per floor built"),
                               ("score", "Prestige per floor built")):
            fit = stats.cluster_ols(frame, outcome, built).with_columns(pl.col("term").replace(names))
            tables.append((f"{title} (least squares, 95% intervals over games, cluster-robust by game)", fit))
    return Section("What each floor value is worth",
                   "Buy prices are 1, 2, 4, 6, 10 (penthouse) and 5 (neutral) million; a floor sells for half, "
                   "rounded down. By default each colour has its own supply (8 x 1M, 6 x 2M, 4 x 4M, 3 x 6M, "
                   "3 penthouses, the setup's floors included; supply.pool = \"shared\" is one pool for the table), "
                   "the 6 neutral floors are shared: built_max is the most one seat built. The regressions relate "
                   "each seat's floors built of each value to the income it received and the prestige it scored: an "
                   "association across seats and policies, not a causal price. Their intervals run over games (the "
                   "seats of one game are not independent): " + stats.CLUSTER_OLS + ".", tables=tables)


def cash_cap(run: Run) -> Section:
    p = players(run).with_columns((pl.col("cap_hits") > 0).cast(pl.Int64).alias("capped"))
    rate = stats.proportion_table(p, "policy", "capped")
    tables = [("Seats hitting the cap", rate), ("Income lost to the cap", stats.mean_table(p, "policy", "cap_lost"))]
    if "cap_lost_other" in p.collect_schema().names():   # runs before the cap stopped every gain lack it
        tables.append(("Other gains lost to the cap (fees, sales, cards)",
                       stats.mean_table(p, "policy", "cap_lost_other")))
    cash = ((run.manifest.get("variant") or {}).get("values") or {}).get("cash") or {}
    if cash.get("cap_rule", "always") == "after_income":
        rule = ("Only income stops at the cap (cash.cap_rule = \"after_income\"): a fee received, a sale or a "
                "card may take cash above it.")
    elif cash.get("fee_over_cap", "bank") == "unpaid":
        rule = ("Cash is never above the cap (cash.cap_rule = \"always\"): income, a sale, a bonus card or a "
                "trade-in stops there and the rest is lost; a builder pays a fee only up to what its owner can "
                "still hold (cash.fee_over_cap = \"unpaid\").")
    else:
        rule = ("Cash is never above the cap (cash.cap_rule = \"always\", the default): income, a fee received, "
                "a sale, a bonus card or a trade-in stops there and the rest is lost (a fee is paid in full, the "
                "part its owner cannot hold goes to the bank: cash.fee_over_cap = \"bank\").")
    return Section("Does the 30M cash cap bind?",
                   rule + " Share of seats whose income the cap cut at least once (Wilson intervals), and the money "
                   "lost to it per seat.",
                   tables=tables)


def missions_and_bonus(run: Run) -> Section:
    p = players(run)
    mission = stats.proportion_table(p, "policy", "mission_done")
    win_by_mission = stats.win_rates(p, "mission_done")
    bonus = stats.mean_table(p, "policy", "bonus_cashed")
    blocks = stats.win_rates(p.with_columns((pl.col("blocks") > 0).cast(pl.Int64).alias("blocked")), "blocked")
    return Section("Missions, bonus cards and neutral blockers",
                   "Mission completion (held at the end, 2 points), win rate with and without it, bonus cards "
                   "cashed per seat, and the win rate of seats that placed a neutral floor on another player's "
                   "top floor.",
                   tables=[("Mission completed", mission), ("Win rate by mission completed", win_by_mission),
                           ("Bonus cards cashed", bonus), ("Win rate by neutral blocking", blocks)])


def stalls(run: Run) -> Section:

    g = run.scan("games")
    n = g.select(pl.len()).collect().item()
    k = g.select(pl.col("stalled").cast(pl.Int64).sum()).collect().item()
    low, high = stats.wilson_interval(k, n)
    length = stats.mean_table(g.with_columns(pl.lit(run.n_players).alias("players")), "players", "turns",
                              quantiles=(0.1, 0.5, 0.9))
    return Section("Stalled games",
                   f"{k} of {n} games reached the turn cap without a game-ending penthouse: stall rate "
                   f"{rate_with_interval(k / n if n else np.nan, low, high, level='95% Wilson')} with "
                   f"{run.n_players} players. Compare player counts with the stall-rate experiment. With a "
                   "supply per colour a stall is mostly a dead board (no player can place anything, even with "
                   "money: the fourth-level sites are used up) or a broke player with no income and nothing left "
                   "to sell; `python -m experiments.sotw_stalls <run>` sorts a run's stalled games that way.",
                   tables=[("Game length in turns", length)])


def fee_flows(run: Run) -> Section:
    p = players(run)
    table = (p.group_by("policy").agg(
        pl.len().alias("seats"),
        pl.col("fees_paid").cast(pl.Float64).mean().alias("paid_to_players"),
        pl.col("fees_received").cast(pl.Float64).mean().alias("received"),
        pl.col("fees_bank").cast(pl.Float64).mean().alias("paid_to_bank"),
        pl.col("spent_buying").cast(pl.Float64).mean().alias("spent_buying"),
        pl.col("got_selling").cast(pl.Float64).mean().alias("got_selling"),
        pl.col("bonus_value").cast(pl.Float64).mean().alias("bonus_money"),
    ).sort("policy").collect())
    by_order = position_column(stats.mean_table(p, "turn_order", pl.col("fees_received") - pl.col("fees_paid"))
                               .sort("turn_order"), "turn_order")
    return Section("Fee flows", "Mean money per seat and game (millions): fees between players, fees to the bank, "
                   "buying and selling, bonus cards; and the net fee balance by turn order.",
                   tables=[("Money flows by policy", table), ("Net fees (received - paid) by turn order", by_order)])


# ------------------------------------------------------------------ experiment metrics
# Each takes the experiment's run data (`.table(name)`, `.players_count`) and returns one row per
# game and key: (game, key, value). Found by game id (analysis.<game_id>.METRICS).

def _rows(frame: pl.DataFrame, key, value: pl.Expr) -> pl.DataFrame:
    key_expr = pl.lit(key) if isinstance(key, str) else key
    return frame.select(pl.col("game").cast(pl.Int64), key_expr.cast(pl.Utf8).alias("key"),
                        value.cast(pl.Float64).alias("value"))


def end_trigger_win_rate(run) -> pl.DataFrame:
    """Games ended by a penthouse: 1 if the player who built it won (alone or shared)."""
    g = run.table("games").filter(pl.col("trigger_seat") >= 0)
    return _rows(g, "ender", pl.col("trigger_won"))


def end_trigger_edge(run) -> pl.DataFrame:
    """Games ended by a penthouse: the ender's win minus the mean win of all seats (0 = no edge)."""
    p = run.table("players").with_columns(
        (pl.col("win").cast(pl.Float64) - pl.col("win").cast(pl.Float64).mean().over("game")).alias("e"))
    return _rows(p.filter(pl.col("triggered_end") == 1), "ender", pl.col("e"))


def order_win_rate(run) -> pl.DataFrame:
    """Win (0/1) of each seat keyed by turn order (0 = start player)."""
    p = run.table("players")
    return _rows(p, pl.format("order {}", pl.col("turn_order")), pl.col("win"))


def order_edge(run) -> pl.DataFrame:
    """Each turn-order position's win minus the mean win of its game (0 = fair)."""
    p = run.table("players").with_columns(
        (pl.col("win").cast(pl.Float64) - pl.col("win").cast(pl.Float64).mean().over("game")).alias("e"))
    return _rows(p, pl.format("order {}", pl.col("turn_order")), pl.col("e"))


def cap_binding(run) -> pl.DataFrame:
    """Share of a game's seats whose income the cash cap cut at least once."""
    per = run.table("players").group_by("game").agg((pl.col("cap_hits") > 0).cast(pl.Float64).mean().alias("v"))
    return _rows(per.sort("game"), "all", pl.col("v"))


def mission_rate(run) -> pl.DataFrame:
    """Share of a game's seats holding their mission at the end."""
    per = run.table("players").group_by("game").agg(pl.col("mission_done").cast(pl.Float64).mean().alias("v"))
    return _rows(per.sort("game"), "all", pl.col("v"))


def fees_per_seat(run) -> pl.DataFrame:
    """Fees paid to other players per seat (millions)."""
    per = run.table("players").group_by("game").agg(pl.col("fees_paid").cast(pl.Float64).mean().alias("v"))
    return _rows(per.sort("game"), "all", pl.col("v"))


def turns(run) -> pl.DataFrame:
    """Player turns in a game."""
    return _rows(run.table("games"), "all", pl.col("turns"))


def _fair(run) -> float:
    return 1.0 / run.players_count


# each seat's prestige after each full turn cycle, as the end scores it (engines/skyline_of_the_world
# writes it): the game-quality metrics and the report's "Game quality" section read it (analysis/quality.py)
ROUND_SCORES = RoundScores("rounds")

METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("end_trigger_win_rate", "share of penthouse-ended games won by the player who ended them",
           "proportion", end_trigger_win_rate, reference=_fair, min_players=2),
    Metric("end_trigger_edge", "the ender's win minus the mean win of all seats of that game (0 = no edge)",
           "mean", end_trigger_edge, reference=zero, min_players=2),
    Metric("order_win_rate", "win rate by turn order (0 = the random start player)", "proportion",
           order_win_rate, reference=_fair, min_players=2),
    Metric("order_edge", "win minus the game's mean win, by turn order (0 = fair)", "mean", order_edge,
           reference=zero, min_players=2),
    Metric("cap_binding", "share of seats whose income the cash cap cut at least once", "mean", cap_binding),
    Metric("mission_rate", "share of seats holding their mission at the end", "mean", mission_rate),
    Metric("fees_per_seat", "fees paid to other players per seat (millions)", "mean", fees_per_seat),
    Metric("turns", "player turns in a game", "mean", turns),
    *quality.metrics(ROUND_SCORES).values(),   # lead_changes, decided_round, leader_wins, ... (analysis/quality.py)
)}

# the headline figures the skill ladder reports per rung (experiments/ladder.py): the end trigger's
# advantage (does ending the game with the last penthouse pay?) and the turn-order edge
LADDER_FINDINGS = ("end_trigger_edge", "order_edge")

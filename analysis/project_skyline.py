"""Project Skyline's own report sections (GameSpec.report), from the tables in
engines/project_skyline/tables.py:

- win rate by seat (turn order) and map, Wilson intervals;
- card value curves: for each card, the win rate and final money of the players who acquired it
  (bought, upgraded into or took it), by the turn of the first acquisition, with intervals.
  Correlational: a card bought by a player who is already ahead looks good. The causal answer
  is a paired "forced acquisition" experiment (policy weight `force_card`, common random numbers);
- the Basic market: pick rates per pile and price;
  (every table of cards shows each card's name from its card file beside its code);
- money by source (monuments, areas, card effects, bonus spaces, selling, card values, the
  map's end condition), per policy, with intervals;
- ending frequencies (money, last floor, stalled) and game length.

Every figure is aggregated in polars before numpy / matplotlib see it.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from analysis import plots, quality, stats
from analysis.quality import RoundScores
from analysis.run import Run
from analysis.frames import (Finding, Metric, Plot, Section, game_spec, interval_text, labels, ordinal, pct,
                             position_column)

ENDINGS = {1: "money reached", 2: "last floor placed", 3: "stalled (round cap)"}
ACQUIRE = (0, 1, 4)                  # card_events: bought, upgraded_into, taken
SOURCES = ("money_cards", "money_monuments", "money_areas", "money_bonuses", "money_sell", "money_card_values",
           "money_end")
TURN_BUCKETS = ((1, 3, "turns 1-3"), (4, 6, "turns 4-6"), (7, 9, "turns 7-9"), (10, 10_000, "turns 10+"))


def sections(run: Run) -> list[Section]:
    out = [seat_and_map(run)]
    if "card_events" in run.tables():
        out += [card_value_curves(run), market_picks(run)]
    out += [money_sources(run), endings(run)]
    game_quality = quality.quality_section(run, ROUND_SCORES)   # the race: from the rounds table
    if game_quality is not None:
        out.append(game_quality)
    return out


# ------------------------------------------------------------------ helpers

def players(run: Run) -> pl.LazyFrame:
    """players with a string `policy`, the game's map name and n_winners."""
    map_names = labels(run.game_id, "map")   # games.map codes, as the engine declares them
    frame = run.scan("players").with_columns(pl.col("game").cast(pl.Int64))
    if "policy" in frame.collect_schema().names():
        frame = frame.with_columns(pl.col("policy").cast(pl.String))
    else:
        lineup = run.lineup
        slot = pl.col("lineup_slot").cast(pl.Int64)
        frame = frame.with_columns(slot.replace_strict(dict(enumerate(lineup)), default=slot.cast(pl.String),
                                                       return_dtype=pl.String).alias("policy"))
    games = run.scan("games").select(pl.col("game").cast(pl.Int64), "n_winners", "map")
    code = pl.col("map").cast(pl.Int64)
    return frame.join(games, on="game", how="left").with_columns(
        code.replace_strict(dict(enumerate(map_names)), default=code.cast(pl.String), return_dtype=pl.String)
        .alias("map_name"))


def _mean_intervals(table: pl.DataFrame, n="n", mean="mean", std="std") -> pl.DataFrame:
    low, high = stats.t_interval_from_moments(table[n].to_numpy(), table[mean].to_numpy(),
                                              table[std].fill_null(np.nan).to_numpy())
    return table.with_columns(pl.Series("low", np.atleast_1d(low)), pl.Series("high", np.atleast_1d(high)))


def _card_base(code: pl.Expr) -> pl.Expr:
    """U-17g -> U-17 (the four Upgrade sets are one card for the designer)."""
    return code.str.slice(0, 4)


def card_names(run: Run) -> dict[str, str]:
    """The run's card names by printed code ("U-17": "Catch-up draw"), from its card file
    through the game's contract; {} when the card file is gone."""
    facts = _variant_facts(run)
    return dict(facts.get("card_names", {}))


def with_names(table: pl.DataFrame, names: dict[str, str], col: str = "card") -> pl.DataFrame:
    """`table` with a `name` column right after its card-code column `col` (U-17g -> U-17's name)."""
    if table.height == 0 or col not in table.columns:
        return table
    named = table.with_columns(pl.col(col).map_elements(lambda c: names.get(str(c)[:4], ""), return_dtype=pl.String)
                               .alias("name"))
    cols = [c for c in named.columns if c != "name"]
    i = cols.index(col) + 1
    return named.select(cols[:i] + ["name"] + cols[i:])


def card_label(code: str, names: dict[str, str]) -> str:
    """A figure's label for a card: its code and name ("U-17 Catch-up draw")."""
    name = names.get(str(code)[:4], "")
    return f"{code} {name}" if name else str(code)


# ------------------------------------------------------------------ sections

def seat_and_map(run: Run) -> Section:
    rates = stats.win_rates(players(run), ["map_name", "seat"])

    fig = plots.rate_chart([f"{m} {ordinal(int(s))}" for m, s in zip(rates["map_name"], rates["seat"])],
                           rates["win_rate"].to_numpy(), rates["win_low"].to_numpy(), rates["win_high"].to_numpy(),
                           title="Win rate by map and position (1st starts)", ylabel="win rate",
                           reference=1.0 / run.n_players, reference_label="1 / players")
    rates = position_column(rates, "seat")
    text = ("The 1st seat holds the start marker, so the seat is the turn-order position (counted from 1st). "
            "Win rates with "
            "Wilson 95% intervals; a shared win counts for every sharer (ties are broken by most "
            f"cards first, so they are rare). The dashed line is 1/{run.n_players}. With a rotating "
            "line-up every policy sits in every seat equally often.")
    return Section("Does the start player win more (by map)?", text, [("win rate by map and seat", rates)],
                   [Plot("ps_seat_wins", fig, "Win rate by map and seat, Wilson 95% intervals")])


def acquisitions(run: Run) -> pl.LazyFrame:
    """First acquisition of each card (Upgrade sets merged) per game and seat, with the seat's
    result: game, seat, card, turn, win, score, n_winners, bucket, bucket_k. Lazy: a run's card
    events are millions of rows, which the report sums stats.UNIT_SLICE games at a time."""
    ev = (run.scan("card_events").filter(pl.col("event").is_in(list(ACQUIRE)))
          .with_columns(pl.col("game").cast(pl.Int64), _card_base(pl.col("code")).alias("card"))
          .group_by(["game", "seat", "card"]).agg(pl.col("turn").min().alias("turn")))
    res = players(run).select("game", "seat", "win", "score", "n_winners")
    frame = ev.join(res, on=["game", "seat"], how="inner")
    bucket = pl.lit(None, dtype=pl.String)
    for lo, hi, name in reversed(TURN_BUCKETS):
        bucket = pl.when((pl.col("turn") >= lo) & (pl.col("turn") <= hi)).then(pl.lit(name)).otherwise(bucket)
    names = [name for _, _, name in TURN_BUCKETS]
    frame = frame.with_columns(bucket.alias("bucket"))
    return frame.with_columns(pl.col("bucket").replace_strict(names, list(range(len(names))),
                                                              return_dtype=pl.Int64).alias("bucket_k"))


MIN_CURVE_GAMES = 20   # fewer games at a curve point: the point is left out of the figure (the table keeps it)


def card_value_curves(run: Run) -> Section:
    acq = acquisitions(run)
    acquired = run.scan("card_events").filter(pl.col("event").is_in(list(ACQUIRE))).select(pl.len())
    if acquired.collect().item() == 0:   # (counting `acq` itself would group every game's events at once)
        return Section("Card value curves", "No card was acquired in this run.")
    rates = stats.win_rates(acq, ["card", "bucket_k", "bucket"])
    money = (stats.mean_table(acq, ["card", "bucket_k", "bucket"], "score")
             .select("card", "bucket_k", "bucket", "n", "mean", "std", "low", "high"))
    overall = stats.win_rates(acq, "card").sort("win_rate", descending=True)
    names = card_names(run)
    base = players(run).select(pl.col("score").cast(pl.Float64).mean()).collect().item()
    series = {}
    for card in overall["card"].to_list()[:6]:
        # a point from a handful of games (n=2 spans 0.09-0.91) says nothing: drawn only from MIN_CURVE_GAMES
        sub = rates.filter((pl.col("card") == card) & (pl.col("games") >= MIN_CURVE_GAMES))
        if sub.height == 0:
            continue
        series[card_label(card, names)] = (sub["bucket_k"].to_numpy(), sub["win_rate"].to_numpy(), sub["win_low"].to_numpy(),
                        sub["win_high"].to_numpy())
    fig = plots.rate_lines(series, title="Win rate of acquirers by turn of first acquisition (top 6 cards)",
                           xlabel="turn of first acquisition", ylabel="win rate",
                           reference=1.0 / run.n_players,
                           xticklabels=[name for _, _, name in TURN_BUCKETS]) if series else None
    text = ("For each card (the four Upgrade sets merged), the players who acquired it -- bought, "
            "upgraded into or took it -- by the turn of their first acquisition: win rate (Wilson 95%) "
            f"and final money (t interval; all players' mean is {base:.1f}). This is correlational: a "
            "card that leaders can afford looks strong. For a causal estimate run the paired forced-"
            "acquisition experiment (heuristic weight `force_card` = card type + 1, same seeds with and "
            "without), which compares the same games.")
    plots_out = [Plot("ps_card_curves", fig, "Card value curves, 95% intervals over games; points from fewer "
                      f"than {MIN_CURVE_GAMES} games are left out (the tables keep them)")] if fig else []
    return Section("Card value curves: which cards do winners acquire, and when?", text,
                   [("win rate of acquirers, whole game", with_names(overall, names)),
                    ("win rate by acquisition turn", with_names(rates, names)),
                    ("final money by acquisition turn", with_names(money, names))], plots_out)


def market_picks(run: Run) -> Section:
    ev = run.scan("card_events").with_columns(pl.col("game").cast(pl.Int64))
    n_games = run.scan("games").select(pl.len()).collect().item()
    seats = n_games * run.n_players
    bought = (ev.filter(pl.col("event") == 0).group_by("code").agg(pl.len().alias("bought"))
              .collect().sort("code"))
    prices = _prices(run)
    rows = []
    for code, k in zip(bought["code"], bought["bought"]):
        low, high = stats.wilson_interval(min(k, seats), seats)
        rows.append({"card": code, "price": prices.get(code), "bought": int(k), "per_player_game": k / seats,
                     "low": low, "high": high})
    table = pl.DataFrame(rows, schema={"card": pl.String, "price": pl.Int64, "bought": pl.Int64,
                                       "per_player_game": pl.Float64, "low": pl.Float64, "high": pl.Float64})
    upg = (ev.filter(pl.col("event") == 1).with_columns(_card_base(pl.col("code")).alias("card"))
           .group_by("card").agg(pl.len().alias("upgraded_into")).collect().sort("card"))
    text = ("Basic market: cards bought per player and game for each pile, with its price (the interval "
            "treats each player-game as one trial, exact while a player buys a pile at most once). "
            "Upgrade market: how often each card was chosen when upgrading.")
    names = card_names(run)
    return Section("The market: what is picked, at what price?", text,
                   [("Basic buys per pile", with_names(table, names)), ("Upgrade picks", with_names(upg, names))])


def _variant_facts(run: Run) -> dict:
    """The run's variant facts from the contract (the engine reads its card file); {} if none."""
    spec = game_spec(run.game_id)
    if spec is None or spec.variant_facts is None:
        return {}
    try:
        return dict(spec.variant_facts(run.manifest.get("variant", {}).get("values", {})))
    except (OSError, ValueError, KeyError):  # a card file that no longer exists: facts unknown
        return {}


def _prices(run: Run) -> dict[str, int]:
    """The run's own card prices (Basic cards), by code."""
    return dict(_variant_facts(run).get("basic_prices", {}))


def money_sources(run: Run) -> Section:
    p = players(run)
    aggs = [pl.len().alias("n")]
    for s in SOURCES + ("score",):
        aggs += [pl.col(s).cast(pl.Float64).mean().alias(f"mean_{s}"), pl.col(s).cast(pl.Float64).std().alias(f"std_{s}")]
    agg = p.group_by(["map_name", "policy"]).agg(aggs).sort(["map_name", "policy"]).collect()
    rows = []
    for row in agg.iter_rows(named=True):
        for s in SOURCES + ("score",):
            rows.append({"map": row["map_name"], "policy": row["policy"], "source": s.replace("money_", ""),
                         "n": row["n"], "mean": row[f"mean_{s}"], "std": row[f"std_{s}"]})
    table = _mean_intervals(pl.DataFrame(rows))
    shares = {}
    for (m, pol), sub in table.filter(pl.col("source") != "score").group_by(["map", "policy"], maintain_order=True):
        shares[f"{m} {pol}"] = np.maximum(sub["mean"].to_numpy(), 0)
    cats = [s.replace("money_", "") for s in SOURCES]
    fig = plots.stacked_shares(list(shares), {c: np.array([v[i] / max(v.sum(), 1e-9) for v in shares.values()])
                                              for i, c in enumerate(cats)},
                               title="Where the money comes from", xlabel="map and policy",
                               ylabel="share of money")
    text = ("Mean money per player and game by source, per map and policy, with t intervals: card "
            "effects, monument bonuses (every turn while held), area scorings, one-time bonus spaces, "
            "selling (U-14), and at the end the card values and the map's end condition (NYC: 5 per "
            "7-floor building topped; Tokyo: by the number of areas reached).")
    return Section("Monument and area income", text, [("money by source", table)],
                   [Plot("ps_money_sources", fig, "Share of money by source")])


def endings(run: Run) -> Section:
    g = run.scan("games").collect()
    n = g.height
    rows = []
    for code, name in ENDINGS.items():
        k = int((g["ending"] == code).sum())
        low, high = stats.wilson_interval(k, n)
        rows.append({"ending": name, "games": k, "rate": k / n if n else np.nan, "low": low, "high": high})
    if "floor_round" in g.columns:  # someone placed a last floor at all, whatever ended the game
        k = int((g["floor_round"] > 0).sum())
        low, high = stats.wilson_interval(k, n)
        rows.append({"ending": "(a last floor placed at all)", "games": k, "rate": k / n if n else np.nan,
                     "low": low, "high": high})
    table = pl.DataFrame(rows)
    length = g.select(pl.col("rounds").cast(pl.Float64).mean().alias("mean_rounds"),
                      pl.col("rounds").cast(pl.Float64).std().alias("std_rounds"),
                      pl.col("rounds").min().alias("min"), pl.col("rounds").max().alias("max"),
                      pl.col("decisions").cast(pl.Float64).mean().alias("mean_decisions"))
    text = ("How games end: someone reaches the end money (the round is finished, then one more), the "
            "last floor of a supply is placed (the round is finished, no additional round: counted as the "
            "end only when it cut the game short, i.e. was placed before the money end's last round), or "
            "the round cap stalls the game. The rulebook calls the last-floor end \"the rare case\". "
            "Wilson 95% intervals over games.")

    findings = []
    if n >= 2:
        endings_only = table.filter(pl.col("ending").is_in(list(ENDINGS.values())))  # not "placed at all"
        top = endings_only.sort("rate", descending=True).row(0, named=True)
        findings.append(Finding(f"The commonest ending is {top['ending']}: {pct(top['rate'])} of games (95% CI "
                                f"{interval_text(top['low'], top['high'], clip=(0, 1))}), after "
                                f"{length['mean_rounds'][0]:.1f} rounds on average.", 30.0))
    return Section("How do games end, and how long are they?", text,
                   [("ending frequencies", table), ("game length (rounds)", length)], findings=findings)


# ---------------------------------------------------------------- experiment metrics

def _game_rows(run, value: pl.Expr) -> pl.DataFrame:
    return run.table("games").select(pl.col("game").cast(pl.Int64), pl.lit("all").alias("key"),
                                     value.cast(pl.Float64).alias("value"))


def money_end_rate(run) -> pl.DataFrame:
    return _game_rows(run, pl.col("ending") == 1)


def last_floor_end_rate(run) -> pl.DataFrame:
    return _game_rows(run, pl.col("ending") == 2)


def rounds(run) -> pl.DataFrame:
    return _game_rows(run, pl.col("rounds"))


def winner_money(run) -> pl.DataFrame:
    """The money track (before final scoring) of the best-ranked seat, per game."""
    p = run.players.filter(pl.col("rank") == 1).group_by("game").agg(pl.col("money").max().alias("m"))
    return p.sort("game").select(pl.col("game").cast(pl.Int64), pl.lit("all").alias("key"),
                                 pl.col("m").cast(pl.Float64).alias("value"))


# each seat's money after each round, the final score after the last (engines/project_skyline writes
# it): the game-quality metrics and the report's "Game quality" section read it (analysis/quality.py)
ROUND_SCORES = RoundScores("rounds")

METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("money_end_rate", "share of games ended by the end money (the rulebook's usual end)", "proportion",
           money_end_rate),
    Metric("last_floor_end_rate", "share of games a last floor cut short (the rulebook's \"rare case\")",
           "proportion", last_floor_end_rate),
    Metric("rounds", "rounds played in a game", "mean", rounds),
    Metric("winner_money", "the winner's money track before final scoring", "mean", winner_money),
    *quality.metrics(ROUND_SCORES).values(),   # lead_changes, decided_round, leader_wins, ... (analysis/quality.py)
)}

"""Skyline 3000's own report sections and experiment metrics (found by the
game id: analysis.<game_id>), from the tables its GameSpec declares and the rulebook's language
(the Skyline 3000 rulebook):

- auction value curves: what the winner paid for a Greenspace, Spaceport or
  Megamall, round by round, and how prices spread;
- what buying did for the buyer: final score and win rate by price paid;
- unsold items (everyone bid zero) and how auction ties were broken;
- where the improvements were placed on the 9 blocks;
- the first-builder effect: win rates by turn-order position, fixed by who
  builds first in round 1 (the round-1 Key Player);
- the Key Player in the auctions: how the round's Key Player bids, wins and
  pays, and the ties it takes on Key order;
- card values: which values were played in construction, bid away or kept;
- per-policy habits: buildings, floors, billboards, auctions, points.

Every figure is aggregated in polars before numpy/scipy/matplotlib see it.
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from analysis import plots, quality, stats
from analysis.frames import (ORDINALS, SEAT_MARGIN, Metric, Plot, RunData, Section, fair_share,
                             players_with_winners, position_wins, scan_players, select, with_policy_strings, zero)
from analysis.frames import format_p, game_spec, interval_text, labels as declared_labels, pct, rate_with_interval
from analysis.quality import RoundScores
from analysis.run import Run
from analysis.runfolder import RunFolderError

N_PRICE_BINS = 8
CARD_USES = ("played", "bid", "kept")
# Blocks 0-8: block b lies in district b // 3 (variants/default.toml). Colours as in the rulebook.
DISTRICT_NAMES = ("red", "yellow", "blue")

POLICY_SUMMARY_COLUMNS = (
    "buildings_built", "buildings_placed", "floors_placed", "billboards_placed", "billboards_built_over",
    "improvements_won", "spent", "points_first", "points_second", "points_billboards", "extra_cards",
    "cards_left", "hand_value_left", "passes_round1",
)

GAME_ID = "skyline_3000"


def _spec():
    """The game's contract, through the registry (analysis never imports an engine package directly)."""
    return game_spec(GAME_ID)


def _names(kind: str) -> tuple[str, ...]:
    """Labels of a coded column (item, tie_break, card_type), as the GameSpec declares them."""
    return declared_labels(GAME_ID, kind)


def sections(run: Run) -> list[Section]:
    check_columns(run)
    held, sold = auction_counts(run)
    if sold:
        result = [auction_prices(run), buyer_outcomes(run), unsold_items(run), auction_tie_breaks(run),
                  improvement_placement(run)]
    else:  # a degenerate variant (empty stacks, a one-turn cap, nothing to bid): say so, plot nothing
        why = ("no auction was held (the variant's auction stacks are empty, or every game ended before "
               "the first auction)" if not held else
               f"none of the {held:,} auctions held was sold (every player bid zero every time)")
        result = [Section("Auctions", f"No auctions were sold in this run: {why}. Prices, buyers, tie-breaks "
                          "and placements have nothing to show.")]
        if held:
            result.append(unsold_items(run))
    result.append(first_builder_effect(run))
    if sold:
        result.append(key_player_auctions(run))
    if "card_use" in run.tables():
        result.append(card_use(run))
    else:
        result.append(Section("Card values: played, bid or kept", "Skipped: this run has no `card_use` table."))
    result.append(policy_summary(run))
    game_quality = quality.quality_section(run, ROUND_SCORES)   # the race: from the rounds table
    if game_quality is not None:
        result.append(game_quality)
    return result


def check_columns(run: Run) -> None:
    """Refuse, in one line naming the missing columns, a run whose tables lack columns of tables.py
    (written by an older engine, or the tables drifted)."""
    for name in set(run.tables()) & set(_spec().tables):
        present = set(run.scan(name).collect_schema().names())
        missing = [c for c in _spec().tables[name].names if c not in present]
        if missing:
            raise RunFolderError(f"{run.path}: table '{name}' lacks columns {missing}: the run was written by an "
                                 "older engine; play it again (skyline-lab run ... --fresh) to report it")


# --- helpers -------------------------------------------------------------------------

def _item_name(column: str = "item") -> pl.Expr:
    return pl.col(column).replace_strict(dict(enumerate(_names("item"))), return_dtype=pl.String)


def auction_counts(run: Run) -> tuple[int, int]:
    """(auctions held, auctions sold) over the whole run; 0 held when there is no auctions table."""
    if "auctions" not in run.tables():
        return 0, 0
    counts = run.scan("auctions").select(pl.len().alias("held"), (pl.col("winner") >= 0).sum().alias("sold")).collect()
    return int(counts["held"][0]), int(counts["sold"][0] or 0)


def sold_auctions(run: Run) -> pl.LazyFrame:
    """Auctions somebody won (winner -1 means everyone bid zero: unsold)."""
    return run.scan("auctions").filter(pl.col("winner") >= 0)


def _slot_policies(run: Run) -> pl.LazyFrame:
    return pl.LazyFrame({"slot": list(range(len(run.lineup))), "buyer policy": run.lineup},
                        schema={"slot": pl.Int64, "buyer policy": pl.String})


def _per_item_series(table: pl.DataFrame, x: str, value: str, low: str, high: str) -> dict[str, tuple]:
    """{item name: (x, value, low, high)} in item order, for plots.rate_lines."""
    series = {}
    for item in sorted(table["item"].unique().to_list()):
        rows = table.filter(pl.col("item") == item).sort(x)
        series[_names("item")[item]] = (rows[x].to_numpy(), rows[value].to_numpy(), rows[low].to_numpy(),
                                    rows[high].to_numpy())
    return series


# --- auctions --------------------------------------------------------------------------

def auction_prices(run: Run) -> Section:
    sold = sold_auctions(run)
    prices = stats.mean_table(sold, ["item", "round"], "price", quantiles=(0.0, 0.25, 0.5, 0.75, 1.0))
    curve = plots.rate_lines(_per_item_series(prices, "round", "mean", "low", "high"),
                             title="Auction price by item and round", xlabel="round",
                             ylabel="price paid (card value), mean")
    curve.axes[0].set_xticks([1, 2, 3, 4])

    counts = stats.aggregate_by_units(sold, ["item", "price"], {"count": (pl.len(), "sum")})
    edges = stats.integer_bin_edges(counts["price"].min(), counts["price"].max())
    distributions = {}
    for item in sorted(counts["item"].unique().to_list()):
        item_counts = counts.filter(pl.col("item") == item)
        distributions[_names("item")[item]] = stats.histogram(item_counts["price"].to_numpy(), edges,
                                                          weights=item_counts["count"].to_numpy())
    spread = plots.histogram_steps(distributions, title="Price paid by item", xlabel="price paid (card value)")
    spread.axes[0].set_ylabel("share of auctions won")

    table = prices.select(_item_name().alias("item"), pl.col("round").cast(pl.Int64), pl.col("n").alias("sold"),
                          pl.col("mean").alias("mean price"), pl.col("low").alias("95% low"),
                          pl.col("high").alias("95% high"), "min", "q25", pl.col("q50").alias("median"), "q75",
                          "max")
    tables = [("Price paid per item and round (sold auctions), 95% t intervals", table)]
    if len(set(run.lineup)) > 1:
        by_policy = stats.mean_table(
            sold.with_columns(pl.col("winner_slot").cast(pl.Int64).alias("slot")).join(_slot_policies(run), on="slot"),
            ["item", "round", "buyer policy"], "price")
        tables.append(("Price paid by the buyer's policy, 95% t intervals",
                       by_policy.select(_item_name().alias("item"), pl.col("round").cast(pl.Int64), "buyer policy",
                                        pl.col("n").alias("sold"), pl.col("mean").alias("mean price"),
                                        pl.col("low").alias("95% low"), pl.col("high").alias("95% high"))))
    text = ("The price is the winning bid: the total card value the winner discarded. Each round auctions two "
            "Greenspaces and a Spaceport (rounds 1-2) or a Megamall (rounds 3-4). Unsold items (everyone bid "
            "zero) are left out here; their rate is in *Unsold items*.")
    return Section("Auction prices by item and round", text, tables,
                   [Plot("auction_price_curves", curve, "Mean price paid per item and round, 95% t intervals."),
                    Plot("auction_price_distribution", spread, "Distribution of the price paid, per item.")])


def price_bins(sold: pl.LazyFrame) -> tuple[int, list[str]]:
    """Bin width and labels for prices: N_PRICE_BINS equal bins from 1 up to
    the 99th percentile, the last bin open-ended so rare huge bids don't
    stretch the axis."""
    p99 = stats.mean_table(sold.with_columns(pl.lit(0).alias("all")), "all", "price", quantiles=(0.99,))["q99"]
    p99 = p99[0] if len(p99) else None
    width = max(1, math.ceil((p99 or 1) / N_PRICE_BINS))
    labels = []
    for b in range(N_PRICE_BINS):
        low = 1 + b * width
        if b == N_PRICE_BINS - 1:
            labels.append(f"{low}+")
        else:
            labels.append(str(low) if width == 1 else f"{low}-{low + width - 1}")
    return width, labels


MIN_CURVE_AUCTIONS = 20   # fewer won auctions in a price bin: the bin is left out of the buyer figure


def buyer_outcomes(run: Run) -> Section:
    sold = sold_auctions(run)
    width, labels = price_bins(sold)
    buyers = (
        sold.select(pl.col("game").cast(pl.Int64), "item", "price", pl.col("winner").cast(pl.Int64).alias("seat"))
        .with_columns(((pl.col("price") - 1) // width).clip(0, N_PRICE_BINS - 1).cast(pl.Int64).alias("price_bin"))
        .join(scan_players(run).select(pl.col("game").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                                       "score", "win"),
              on=["game", "seat"], how="inner")
    )
    # One pass over the join (millions of rows): counts and moments per bin, intervals after.
    summary = stats.aggregate_by_units(buyers, ["item", "price_bin"],
                                       {"n": (pl.len(), "sum"), "wins": (pl.col("win").cast(pl.Int64).sum(), "sum"),
                                        "score": (pl.col("score").cast(pl.Float64).sum(), "sum")})
    summary = summary.with_columns((pl.col("score") / pl.col("n")).alias("mean")).drop("score")
    # Intervals over games: one game's buyers (several auctions, often the same player) are not
    # independent, so the auctions are summed per game first (cluster-robust by game).
    win_by_game = stats.game_unit_rates(buyers, ["item", "price_bin"], "win")
    score_by_game = stats.game_unit_rates(buyers, ["item", "price_bin"], "score")
    win_low, win_high = win_by_game["low"].to_numpy(), win_by_game["high"].to_numpy()
    score_low, score_high = score_by_game["low"].to_numpy(), score_by_game["high"].to_numpy()
    summary = summary.with_columns(
        (pl.col("wins") / pl.col("n")).alias("win_rate"),
        pl.Series("win_low", np.atleast_1d(win_low)), pl.Series("win_high", np.atleast_1d(win_high)),
        pl.Series("low", np.atleast_1d(score_low)), pl.Series("high", np.atleast_1d(score_high)),
    )
    fair = 1 / run.n_players

    figure, (win_axes, score_axes) = plots.new_figure(2, figsize=(11, 4))
    # a price bin won a handful of times says nothing (2 auctions: a win rate of 0% spanning 0-84%): the
    # figure draws a bin from MIN_CURVE_AUCTIONS won auctions on, the table keeps every bin
    drawn = summary.filter(pl.col("n") >= MIN_CURVE_AUCTIONS)
    plots.rate_lines(_per_item_series(drawn, "price_bin", "win_rate", "win_low", "win_high"),
                     title="Buyer's win rate by price paid", xlabel="price paid", ylabel="buyer's win rate",
                     reference=fair, reference_label=f"fair share 1/{run.n_players}", xticklabels=labels,
                     axes=win_axes)
    plots.rate_lines(_per_item_series(drawn, "price_bin", "mean", "low", "high"),
                     title="Buyer's final score by price paid", xlabel="price paid",
                     ylabel="buyer's final score, mean", xticklabels=labels, axes=score_axes)

    table = summary.select(
        _item_name().alias("item"),
        pl.col("price_bin").replace_strict(dict(enumerate(labels)), return_dtype=pl.String).alias("price paid"),
        pl.col("n").alias("auctions won"),
        pl.col("win_rate").alias("buyer win rate"), pl.col("win_low").alias("win 95% low"),
        pl.col("win_high").alias("win 95% high"),
        pl.col("mean").alias("buyer mean score"), pl.col("low").alias("score 95% low"),
        pl.col("high").alias("score 95% high"),
    )
    text = ("Each won auction is one row: the buyer's final score and whether the buyer won the game, against "
            f"the price paid, binned ({labels[0]} … {labels[-1]}). This is an association, not a cause: strong "
            "positions may both pay more and win more. Intervals run over games (a game with several won "
            "auctions counts once, cluster-robust by game): win rates (a shared win counts as a win) and "
            "scores, 95%.")
    return Section("What buying did for the buyer", text,
                   [("Buyer's outcome by item and price paid", table)],
                   [Plot("buyer_vs_price", figure, "Buyer's win rate and mean final score (95% intervals over games) "
                         "by price paid, per item; dashed line: fair share. A price bin won in fewer than "
                         f"{MIN_CURVE_AUCTIONS} auctions is left out (the table keeps it).")])


def unsold_items(run: Run) -> Section:
    auctions = run.scan("auctions").with_columns((pl.col("winner") < 0).cast(pl.Int8).alias("unsold"))
    rates = stats.proportion_table(auctions, ["item", "round"], "unsold")
    figure = plots.rate_lines(_per_item_series(rates, "round", "rate", "low", "high"),
                              title="Unsold items by round", xlabel="round", ylabel="share of auctions unsold")
    figure.axes[0].set_xticks([1, 2, 3, 4])
    table = rates.select(_item_name().alias("item"), pl.col("round").cast(pl.Int64),
                         pl.col("n").alias("auctions"), pl.col("count").alias("unsold"),
                         pl.col("rate").alias("unsold rate"), pl.col("low").alias("95% low"),
                         pl.col("high").alias("95% high"))
    return Section("Unsold items", "An item is unsold when every player bids zero; it leaves the game. "
                   "Rates with 95% Wilson intervals.",
                   [("Unsold rate per item and round", table)],
                   [Plot("unsold_rate", figure, "Share of auctions where everyone bid zero, 95% Wilson intervals.")])


def auction_tie_breaks(run: Run) -> Section:
    sold = sold_auctions(run)
    counts = sold.group_by("item", "tie_break").agg(pl.len().alias("count")).collect()
    totals = counts.group_by("item").agg(pl.col("count").sum().alias("sold"))
    # Every (item, tie-break) pair, so a rule that never fired shows as 0 rather than missing.
    grid = totals.join(pl.DataFrame({"tie_break": list(range(len(_names("tie_break"))))},
                                    schema={"tie_break": counts["tie_break"].dtype}), how="cross")
    table = grid.join(counts, on=["item", "tie_break"], how="left").with_columns(pl.col("count").fill_null(0))
    table = table.sort("item", "tie_break")
    low, high = stats.wilson_interval(table["count"].to_numpy(), table["sold"].to_numpy())
    table = table.select(
        _item_name().alias("item"),
        pl.col("tie_break").replace_strict(dict(enumerate(_names("tie_break"))), return_dtype=pl.String)
        .alias("decided by"),
        "sold", "count", (pl.col("count") / pl.col("sold")).alias("share"),
        pl.Series("95% low", np.atleast_1d(low)), pl.Series("95% high", np.atleast_1d(high)),
    )
    text = ("Level highest bids go to the player who played the highest single card, then to the Key Player "
            "or the nearest player clockwise from the Key (rulebook, Improvement Phase). \"none\" means the "
            "highest bid was alone. Shares of sold auctions, 95% Wilson intervals.")
    return Section("How auction ties were broken", text, [("Auction tie-breaks per item", table)])


PLACES = list(range(9)) + [-1]  # blocks 0-8, then -1 = not placed


def placement_shares(run: Run) -> pl.DataFrame:
    """Share of each item won that went to each block (-1: not placed), with 95% intervals over games.

    A game holds up to 12 auctions (8 Greenspaces), so one auction is not the unit: each game's
    placements are counted first and the share is the ratio estimate with a cluster-robust standard
    error grouped by game (stats.unit_ratio_table). Columns: item, block, games, won, placed, share,
    low, high.
    """
    places = pl.LazyFrame({"block_": PLACES}, schema={"block_": pl.Int64})
    long = (sold_auctions(run).select(pl.col("game").cast(pl.Int64), pl.col("item").cast(pl.Int64),
                                      pl.col("block").cast(pl.Int64))
            .join(places, how="cross")
            .with_columns((pl.col("block") == pl.col("block_")).cast(pl.Float64).alias("placed")))
    table = stats.unit_ratio_table(long, ["item", "block_"], "placed", unit="game")
    return table.select("item", pl.col("block_").alias("block"), pl.col("units").alias("games"),
                        pl.col("total_n").cast(pl.Int64).alias("won"), pl.col("total").cast(pl.Int64).alias("placed"),
                        pl.col("rate").alias("share"), "low", "high").sort("item", pl.col("block") < 0, "block")


def improvement_placement(run: Run) -> Section:
    shares_long = placement_shares(run)
    items = sorted(shares_long["item"].unique().to_list())
    figure, panels = plots.new_figure(len(items), figsize=(3.6 * len(items), 3.6))
    # one colour scale for every panel: the same colour is the same share in each item's map
    top = float(np.nanmax(shares_long.filter(pl.col("block") >= 0)["share"].to_numpy(), initial=0.0)) or 1.0
    rows = []
    for axes, item in zip(panels, items):
        item_rows = shares_long.filter(pl.col("item") == item)
        by_block = {b: r for b, r in zip(item_rows["block"].to_list(), item_rows.iter_rows(named=True))}
        total = int(item_rows["won"][0])
        shares = np.array([by_block[block]["share"] for block in range(9)])
        rows.append({"item": _names("item")[item], "won": total,
                     **{f"block {b} share": shares[b] for b in range(9)},   # named as a share: printed as one
                     "not placed share": by_block[-1]["share"]})
        grid = shares.reshape(3, 3)  # row = district, column = block within the district
        image = axes.imshow(grid, cmap="Greens", vmin=0, vmax=top)
        for district in range(3):
            for column in range(3):
                block = 3 * district + column
                share = grid[district, column]
                low, high = by_block[block]["low"], by_block[block]["high"]
                bounds = (f"{max(low, 0.0):.2f}–{min(high, 1.0):.2f}" if np.isfinite(low) and np.isfinite(high)
                          else "too few games")
                axes.text(column, district, f"{share:.2f}\n({bounds})\nb{block}", ha="center", va="center",
                          fontsize=7, color="white" if share > 0.6 * top else "black")
        axes.set_yticks(range(3), DISTRICT_NAMES)
        axes.set_ylabel("district")
        axes.set_xticks(range(3), ["1st", "2nd", "3rd"])
        axes.set_xlabel("block in the district (cell: b#)")
        axes.set_title(_names("item")[item])
    figure.colorbar(image, ax=list(panels), shrink=0.7, label="share of items won placed there (one scale)")
    place_names = {b: f"block {b} ({DISTRICT_NAMES[b // 3]})" for b in range(9)} | {-1: "not placed"}
    intervals = shares_long.select(
        pl.col("item").replace_strict(dict(enumerate(_names("item"))), return_dtype=pl.String),
        pl.col("block").replace_strict(place_names, return_dtype=pl.String).alias("placed in"),
        "games", "won", "placed", "share", pl.col("low").alias("95% low"), pl.col("high").alias("95% high"))
    text = ("Share of each item won that was placed in each block (blocks 0-8; block b lies in district b // 3: "
            "red 0-2, yellow 3-5, blue 6-8). Pre-placed Greenspaces are not counted. A game holds up to 12 "
            "auctions, so the game is the unit: placements are counted per game and each share is a ratio "
            "estimate with a 95% cluster-robust interval grouped by game (Student t on games - 1 degrees of "
            "freedom). A share of exactly 0 (never placed there) has a zero-width interval: nothing varied "
            "between games, which is not proof that the block is never chosen.")
    return Section("Where improvements were placed", text,
                   [("Placement share per block", pl.DataFrame(rows)),
                    ("Placement share per item and block, 95% intervals over games", intervals)],
                   [Plot("improvement_placement", figure, "Share of won items placed in each block, by district, "
                         "with 95% intervals over games (cluster-robust by game).")])


# --- turn order: the first builder -------------------------------------------------------
# Rulebook: the Key is given to a random player at Preparation; "Beginning with the Key
# Player and proceeding clockwise" every Construction Phase (and Draw Phase) starts with the
# Key Player; after the Draw Phase the Key passes to the left. So the only seating fact fixed
# for the whole game is who builds first in round 1 (games.first_key, players.key_player);
# the seat at position k clockwise from it builds first, and holds the Key, in rounds
# k + 1, k + 1 + P, k + 1 + 2P, ...



def _rounds(run: Run) -> int:
    """Rounds per game: the variant's game.rounds, else the last auction round seen, else 4 (rulebook)."""
    rounds = (run.manifest.get("variant") or {}).get("values", {}).get("game", {}).get("rounds")
    if rounds is None and "auctions" in run.tables():
        rounds = run.scan("auctions").select(pl.col("round").max()).collect().item()
    return int(rounds or 4)


def key_rounds(position: int, n_players: int, rounds: int) -> list[int]:
    """Rounds (1-based) in which the seat `position` places clockwise from the round-1 Key Player
    holds the Key, and so builds first: position + 1, then every n_players rounds."""
    return list(range(position + 1, rounds + 1, n_players))


def first_builder_effect(run: Run) -> Section:

    n_players = run.n_players
    rounds = _rounds(run)
    first_key = run.scan("games").select(pl.col("game").cast(pl.Int64), pl.col("first_key").cast(pl.Int64))
    players = (
        players_with_winners(run)
        .with_columns(pl.col("game").cast(pl.Int64))
        .join(first_key, on="game")
        .with_columns(
            pl.when(pl.col("key_player") == 1).then(pl.lit("first builder")).otherwise(pl.lit("others"))
            .alias("player"),
            ((pl.col("seat").cast(pl.Int64) - pl.col("first_key")) % n_players).alias("position"),
        )
    )
    builder_rates = stats.win_rates(players, "player").sort("player")
    position_rates = stats.win_rates(players, "position")
    # Final ties are settled by the cards' value left in hand (End of the Game), never by the Key.
    hand_value_wins = stats.aggregate_by_units(
        players, ["position"], {"won on hand value": (pl.col("tie_break_win").cast(pl.Int64).sum(), "sum")})
    position_rates = position_rates.join(hand_value_wins, on="position", how="left")

    # Every game, shared wins included: Cochran's Q on the games x positions win matrix
    # (equal to the chi-square of the winner's position when each game has one winner).
    test = stats.seat_test(position_wins(players, n_players)[0])

    labels = [ORDINALS[p] for p in range(n_players)]
    schedule = {p: ", ".join(map(str, key_rounds(p, n_players, rounds))) or "none" for p in range(n_players)}
    figure = plots.rate_chart([f"{label}\n(rounds {schedule[p]})" for p, label in enumerate(labels)],
                              position_rates["win_rate"], position_rates["win_low"], position_rates["win_high"],
                              title="Win rate by turn-order position (1st = builds first in round 1)",
                              ylabel="win rate (shared wins count)", reference=1 / n_players,
                              reference_label=f"fair share 1/{n_players}")
    first = builder_rates.row(0, named=True)
    others = builder_rates.row(1, named=True)
    if rounds % n_players == 0:
        turns = (f"With {n_players} players and {rounds} rounds every seat holds the Key, and builds first, in "
                 f"exactly {rounds // n_players} round(s): the positions differ in *when*, not in *how often*.")
    else:
        turns = (f"With {n_players} players and {rounds} rounds the seats do not hold the Key equally often: "
                 + "; ".join(f"{labels[p]} in round(s) {schedule[p]}" for p in range(n_players)) + ".")
    text = "\n\n".join([
        "What this measures: the **turn-order position** fixed before round 1. The Key is dealt at random; the "
        "Key Player builds first in every Construction Phase and draws first in every Draw Phase, and the Key "
        "passes clockwise after each round. The **first builder** is the seat that builds first in round 1 (the "
        "round-1 Key Player); positions count clockwise from it: 1st builds first in round 1, 2nd in round 2, "
        "and so on around the table. A position's win rate is the effect of the whole schedule it brings (in "
        "which rounds it builds first, and holds the Key for auction tie-breaks and the first draw), not of "
        "holding the Key as such: the Key Player's own auction results are in *The Key Player in the auctions*. "
        + turns,
        f"First builder: win rate {rate_with_interval(first['win_rate'], first['win_low'], first['win_high'], level='95% ' + first['interval'])}; "
        f"others: {rate_with_interval(others['win_rate'], others['win_low'], others['win_high'])}; "
        f"fair share 1/{n_players} = {pct(1 / n_players)}.",
        (f"Cochran's Q test of equal win rates by position over the {test.informative_games:,} of {test.games:,} "
         f"games in which some but not all seats won: statistic {test.statistic:.3f}, {test.dof} degrees of "
         f"freedom, p = {format_p(test.p_value)}." if not np.isnan(test.p_value) else
         f"No test of position is possible: in all {test.games:,} games every seat won or none did."),
        "*won on hand value* counts wins decided by the end-of-game tie-break (most card value left in hand, "
        "players.tie_break_win); the Key plays no part in it.",
    ])

    def columns(rates: pl.DataFrame, first_column: pl.Expr, *extra: pl.Expr) -> pl.DataFrame:
        return rates.select(first_column, *extra, pl.col("player_games").alias("player-games"), "games", "wins",
                            pl.col("win_rate").alias("win rate"), pl.col("win_low").alias("95% low"),
                            pl.col("win_high").alias("95% high"), pl.col("share_rate").alias("win share"),
                            pl.col("share_low").alias("share 95% low"), pl.col("share_high").alias("share 95% high"))

    by_position = columns(
        position_rates, pl.col("position").replace_strict(dict(enumerate(labels)), return_dtype=pl.String),
        pl.col("position").replace_strict(schedule, return_dtype=pl.String).alias("builds first in round(s)"))
    by_position = by_position.with_columns(position_rates["won on hand value"].cast(pl.Int64))
    return Section("First-builder effect", text,
                   [("First builder (builds first in round 1) vs the others, 95% intervals over games",
                     columns(builder_rates, pl.col("player"))),
                    ("Win rate by turn-order position (1st = the first builder)", by_position)],
                   [Plot("first_builder_positions", figure, "Win rate by turn-order position (1st builds first "
                         "in round 1; each position builds first in the rounds shown), 95% intervals over games; "
                         "dashed line: fair share.")])


# --- the Key Player in the auctions ----------------------------------------------------------

def auction_seats(run: Run) -> pl.LazyFrame:
    """One row per held auction and seat at the table: game, round, item, seat, `from_key` (seats
    clockwise from that round's Key Player, 0 = the Key Player: first_key + round - 1), bid,
    entered (bid > 0: a zero bid is the STOP card on top), won, price (paid, 0 unless won),
    tie_break (of the auction, counted only for its winner)."""
    n_players = run.n_players
    first_key = run.scan("games").select(pl.col("game").cast(pl.Int64), pl.col("first_key").cast(pl.Int64))
    bids = [f"bid_{s}" for s in range(n_players)]
    auctions = (run.scan("auctions")
                .select(pl.col("game").cast(pl.Int64), pl.col("round").cast(pl.Int64), pl.col("item").cast(pl.Int64),
                        pl.col("winner").cast(pl.Int64), pl.col("price").cast(pl.Int64),
                        pl.col("tie_break").cast(pl.Int64), *[pl.col(b).cast(pl.Int64) for b in bids])
                .join(first_key, on="game"))
    won = pl.col("winner") == pl.col("seat")
    common = ["game", "round", "item", "winner", "price", "tie_break", "first_key"]
    # one frame per seat, stacked (as unpivot would, seat 0's rows first): a filter on the game
    # reaches the Parquet scans through a concat, not through an unpivot (stats.UNIT_SLICE)
    seats = pl.concat([auctions.select(*common, pl.lit(s, pl.Int64).alias("seat"), pl.col(bid).alias("bid"))
                       for s, bid in enumerate(bids)])
    return (seats
            .with_columns(((pl.col("seat") - pl.col("first_key") - pl.col("round") + 1) % n_players).alias("from_key"),
                          (pl.col("bid") > 0).cast(pl.Int64).alias("entered"), won.cast(pl.Int64).alias("won"))
            .with_columns(pl.when(won).then(pl.col("price")).otherwise(0).alias("paid"),
                          (won & (pl.col("tie_break") == 1)).cast(pl.Int64).alias("won on highest card"),
                          (won & (pl.col("tie_break") == 2)).cast(pl.Int64).alias("won on Key order"))
            .select("game", "round", "item", "seat", "from_key", "bid", "entered", "won", "paid",
                    "won on highest card", "won on Key order"))


def _from_key_labels(n_players: int) -> dict[int, str]:
    return {0: "Key Player"} | {k: f"Key+{k}" for k in range(1, n_players)}


def key_player_auctions(run: Run) -> Section:

    n_players = run.n_players
    labels = _from_key_labels(n_players)
    rows = auction_seats(run)
    games = stats.aggregate_by_units(rows, [], {"games": (pl.col("game").n_unique(), "sum")})["games"][0]
    relation = pl.col("from_key").replace_strict(labels, return_dtype=pl.String)

    entry = stats.unit_ratio_table(rows, "from_key", "entered", unit="game")
    success = stats.unit_ratio_table(rows.filter(pl.col("entered") == 1), "from_key", "won", unit="game")
    price = stats.unit_ratio_table(rows.filter(pl.col("won") == 1), "from_key", "paid", unit="game")
    counts = stats.aggregate_by_units(rows, ["from_key"], {
        "seat-auctions": (pl.len().cast(pl.Int64), "sum"), "won": (pl.col("won").sum(), "sum"),
        "won on highest card": (pl.col("won on highest card").sum(), "sum"),
        "won on Key order": (pl.col("won on Key order").sum(), "sum")})
    table = (counts
             .join(entry.select("from_key", pl.col("total").cast(pl.Int64).alias("entered"),
                                pl.col("rate").alias("entry rate"), pl.col("low").alias("entry 95% low"),
                                pl.col("high").alias("entry 95% high")), on="from_key", how="left")
             .join(success.select("from_key", pl.col("rate").alias("win rate when entered"),
                                  pl.col("low").alias("win 95% low"), pl.col("high").alias("win 95% high")),
                   on="from_key", how="left")
             .join(price.select("from_key", pl.col("rate").alias("mean price"), pl.col("low").alias("price 95% low"),
                                pl.col("high").alias("price 95% high")), on="from_key", how="left")
             .sort("from_key")
             .select(relation.alias("bidder"), "seat-auctions", "entered", "entry rate", "entry 95% low",
                     "entry 95% high", "won", (pl.col("won") / games).alias("won per game"),
                     "win rate when entered", "win 95% low", "win 95% high", "mean price", "price 95% low",
                     "price 95% high", "won on highest card", "won on Key order"))

    # Each item: the Key Player's share of the sold ones (fair share 1/P if the Key helped nobody).
    sold_rows = rows.filter(pl.col("won") == 1).with_columns((pl.col("from_key") == 0).cast(pl.Int64).alias("key"))
    by_item = stats.unit_ratio_table(sold_rows, "item", "key", unit="game")
    key_price = stats.unit_ratio_table(sold_rows.filter(pl.col("key") == 1), "item", "paid", unit="game")
    other_price = stats.unit_ratio_table(sold_rows.filter(pl.col("key") == 0), "item", "paid", unit="game")
    items = (by_item.select("item", pl.col("total_n").cast(pl.Int64).alias("sold"),
                            pl.col("total").cast(pl.Int64).alias("won by the Key Player"),
                            pl.col("rate").alias("Key Player's share"), pl.col("low").alias("share 95% low"),
                            pl.col("high").alias("share 95% high"))
             .join(key_price.select("item", pl.col("rate").alias("Key Player's mean price"),
                                    pl.col("low").alias("Key price 95% low"), pl.col("high").alias("Key price 95% high")),
                   on="item", how="left")
             .join(other_price.select("item", pl.col("rate").alias("others' mean price"),
                                      pl.col("low").alias("others' price 95% low"),
                                      pl.col("high").alias("others' price 95% high")), on="item", how="left")
             .sort("item")
             .with_columns(_item_name().alias("item")))

    overall = stats.unit_ratio_table(sold_rows.with_columns(pl.lit("all").alias("all")), "all", "key", unit="game")
    share = overall.row(0, named=True)
    key = table.row(0, named=True)
    sold = int(table["won"].sum())
    key_order = int(table["won on Key order"].sum())
    text = "\n\n".join([
        "The Key Player's own part in the Improvement Phase: level highest bids go to the highest single card, "
        "then to the Key Player, then clockwise from the Key (rulebook, Improvement Phase); bids are sealed, so "
        "bidding first tells the Key Player nothing. Each auction is seen from the Key Player *of that round* "
        f"(the round-1 Key Player's seat + round - 1, clockwise); Key+k is the seat k places clockwise from it. "
        "A seat *entered* an auction when it bid more than zero. Intervals are 95% over games (cluster-robust "
        "by game: one game holds several auctions of each seat).",
        f"The Key Player entered {rate_with_interval(key['entry rate'], key['entry 95% low'], key['entry 95% high'])} "
        f"of its auctions and won {rate_with_interval(key['win rate when entered'], key['win 95% low'], key['win 95% high'])} "
        f"of those it entered, paying {key['mean price']:.2f} in card value on average "
        f"(95% {interval_text(key['price 95% low'], key['price 95% high'], unit=' card value', scale=1, digits=2, clip=(0.0, math.inf))}). It took "
        f"{rate_with_interval(share['rate'], share['low'], share['high'])} of the {sold:,} sold items "
        f"(fair share 1/{n_players} = {pct(1 / n_players)}). Its tie-break wins: {key['won on Key order']:,} items won only on Key order, of "
        f"the {key_order:,} auctions Key order settled (the other {key_order - key['won on Key order']:,} went "
        "to the tied seat nearest the Key clockwise).",
        "*won on Key order*: tied on the bid and on the highest card, the seat nearest the Key clockwise took "
        "the item; for the Key Player this is its tie-break privilege, for Key+k it means the seats before it "
        "were not in the tie.",
    ])
    return Section("The Key Player in the auctions", text,
                   [("Auctions by the bidder's place from the round's Key Player", table),
                    ("Items won by the round's Key Player", items.select(
                        "item", "sold", "won by the Key Player", "Key Player's share", "share 95% low",
                        "share 95% high", "Key Player's mean price", "Key price 95% low", "Key price 95% high",
                        "others' mean price", "others' price 95% low", "others' price 95% high"))])


# --- cards ----------------------------------------------------------------------------------

def _card_use_with_policy(run: Run) -> pl.LazyFrame:
    card_use = run.scan("card_use")
    if "policy" in card_use.collect_schema().names():
        return with_policy_strings(card_use)
    # The runner adds `policy` to tables with a lineup_slot; older runs may lack it.
    slots = pl.LazyFrame({"lineup_slot": list(range(len(run.lineup))), "policy": run.lineup},
                         schema={"lineup_slot": pl.Int64, "policy": pl.String})
    return card_use.with_columns(pl.col("lineup_slot").cast(pl.Int64)).join(slots, on="lineup_slot")


CARD_USE_UNIT = ("The card_use table is summed per chunk of games (its `game` column is the chunk's first game), "
                 "so there is no per-game row: the chunk is the independent unit (chunks are disjoint sets of "
                 "games). Each share is the ratio estimate over chunks with a 95% cluster-robust interval grouped "
                 "by chunk (Student t on chunks - 1 degrees of freedom).")


def card_use_shares(frame: pl.LazyFrame, by: list[str]) -> pl.DataFrame:
    """Per group of `by`: cards, each use's count and share of the cards with a 95% interval over chunks,
    and the mean value of the cards of each use with a 95% interval over chunks (NaN below 2 chunks)."""
    frame = frame.with_columns(pl.sum_horizontal(*CARD_USES).cast(pl.Float64).alias("cards"),
                               *[(pl.col("value").cast(pl.Float64) * pl.col(use)).alias(f"{use} value")
                                 for use in CARD_USES])
    out = None
    for use in CARD_USES:
        share = stats.unit_ratio_table(frame, by, use, "cards", unit="game")
        value = stats.unit_ratio_table(frame, by, f"{use} value", use, unit="game")
        part = share.select(*by, pl.col("units").alias("chunks"), pl.col("total_n").cast(pl.Int64).alias("cards"),
                            pl.col("total").cast(pl.Int64).alias(use), pl.col("rate").alias(f"{use} share"),
                            pl.col("low").alias(f"{use} 95% low"), pl.col("high").alias(f"{use} 95% high"))
        part = part.join(value.select(*by, pl.col("rate").alias(f"mean value {use}"),
                                      pl.col("low").alias(f"value {use} 95% low"),
                                      pl.col("high").alias(f"value {use} 95% high")), on=by, how="left")
        out = part if out is None else out.join(part.drop("chunks", "cards"), on=by, how="left")
    return out.sort(by)


def card_use(run: Run) -> Section:
    card_use_frame = _card_use_with_policy(run)
    by_value = card_use_shares(card_use_frame, ["card_type", "value"])
    chunks = card_use_frame.select(pl.col("game").n_unique()).collect().item()

    types = sorted(by_value["card_type"].unique().to_list())
    figure, panels = plots.new_figure(len(types), figsize=(4.2 * len(types), 4))
    for axes, card_type in zip(panels, types):
        rows = by_value.filter(pl.col("card_type") == card_type)
        plots.stacked_shares(rows["value"].to_list(), {use: rows[f"{use} share"].to_numpy() for use in CARD_USES},
                             title=f"{_names('card_type')[card_type]} cards", xlabel="card value",
                             ylabel="share of cards", axes=axes)

    # Mean value of a card by what happened to it: do players bid their high cards and build with low ones?
    type_name = pl.col("card_type").replace_strict(dict(enumerate(_names("card_type"))), return_dtype=pl.String)
    by_policy = card_use_shares(card_use_frame, ["policy", "card_type"]).select(
        "policy", type_name.alias("card type"), "chunks", "cards",
        *[c for use in CARD_USES for c in (f"{use} share", f"{use} 95% low", f"{use} 95% high")],
        *[c for use in CARD_USES for c in (f"mean value {use}", f"value {use} 95% low", f"value {use} 95% high")])
    table = by_value.select(
        type_name.alias("card type"), pl.col("value").cast(pl.Int64), "cards", *CARD_USES,
        *[f"{use} share" for use in CARD_USES],
        *[c for use in CARD_USES for c in (f"{use} 95% low", f"{use} 95% high")])
    if chunks >= 2:
        unit = f"{CARD_USE_UNIT} This run has {chunks:,} chunks."
    else:
        unit = ("The card_use table is summed per chunk of games and this run has a single chunk, so no interval "
                "is possible: there is one independent unit and the spread between games is unknown (the "
                "interval columns read n/a). Run more games, or smaller chunks, to get intervals.")
    text = ("Every card a player held ends one of three ways: **played** in the Construction Phase (its number "
            "ignored), **bid** away in a won auction (only its number counts), or **kept** in hand at the end "
            "(the final tie-break). Counts summed over all games and seats. Cards bid in lost auctions went back "
            "to hand and are not counted as bid.\n\n" + unit)
    return Section("Card values: played, bid or kept", text,
                   [("Card use by type and value", table), ("Card use by policy", by_policy)],
                   [Plot("card_use", figure, "Share of cards of each value played, bid or kept, per card type "
                         "(point estimates; 95% intervals over chunks in the tables).")])


# --- policies -----------------------------------------------------------------------------------

def policy_summary(run: Run) -> Section:
    means = (
        scan_players(run)
        .group_by("policy")
        .agg(pl.len().alias("player-games"), *[pl.col(c).cast(pl.Float64).mean().alias(c) for c in POLICY_SUMMARY_COLUMNS])
        .sort("policy")
        .collect()
    )
    meanings = {column.name: column.meaning for column in _spec().tables["players"].columns}
    policies = means["policy"].to_list()
    rows = [{"per game": "player-games", **{p: float(n) for p, n in zip(policies, means["player-games"])},
             "meaning": "games played by this policy, summed over its seats"}]
    for column in POLICY_SUMMARY_COLUMNS:
        rows.append({"per game": column, **dict(zip(policies, means[column].to_list())),
                     "meaning": meanings[column]})
    return Section("Per-policy habits", "Mean per player-game, by policy.",
                   [("What each policy did, on average", pl.DataFrame(rows))])


# --- experiment metrics (analysis.metrics finds METRICS by the game id) ----------------------

def first_builder_win_rate(run: RunData) -> pl.DataFrame:
    return select(run.players.filter(pl.col("key_player") == 1), FIRST_BUILDER, pl.col("win"))


def first_builder_edge(run: RunData) -> pl.DataFrame:
    p = run.players.with_columns((pl.col("win") - pl.col("win").cast(pl.Float64).mean().over("game")).alias("e"))
    return select(p.filter(pl.col("key_player") == 1), FIRST_BUILDER, pl.col("e"))


FIRST_BUILDER = "first builder"
# players.key_player marks the round-1 Key Player, who builds first in round 1 (see first_builder_effect):
# a turn-order position, so these two metrics are named for what they measure.
# the running score after each round's Scoring Phase (engines/skyline_3000 writes it): the game-quality
# metrics and the report's "Game quality" section read it (analysis/quality.py)
ROUND_SCORES = RoundScores("rounds")

METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("first_builder_win_rate", "share of games won by the seat that builds first in round 1 (the round-1 "
           "Key Player; = seat_win_rate of the 1st seat)", "proportion", first_builder_win_rate,
           reference=fair_share, min_players=2, margin=SEAT_MARGIN),
    Metric("first_builder_edge", "the first builder's win minus the mean win of all seats (0 = no edge)", "mean",
           first_builder_edge, reference=zero, min_players=2, margin=SEAT_MARGIN),
    *quality.metrics(ROUND_SCORES).values(),   # lead_changes, decided_round, leader_wins, ... (analysis/quality.py)
)}
# Names used before issue 12 (they said "Key Player" for a turn-order position): refused with a pointer.
RENAMED_METRICS = {"key_player_win_rate": "first_builder_win_rate", "key_player_edge": "first_builder_edge"}

# the headline figures the skill ladder reports per rung (experiments/ladder.py): seat edges come
# with every game; the first builder's edge is the one a designer asks about
LADDER_FINDINGS = ("first_builder_edge",)

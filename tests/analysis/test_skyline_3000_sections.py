"""Skyline 3000's own report sections on a synthetic run, checked against pandas."""
import re
import shutil

import pandas as pd
import pytest

from analysis import skyline_3000
from analysis.report import format_value
from analysis.run import Run
from report_tables import markdown_tables, number, percent

ITEMS = {0: "greenspace", 1: "spaceport", 2: "megamall"}


def read_table(run_path, name) -> pd.DataFrame:
    return pd.concat([pd.read_parquet(p) for p in sorted((run_path / name).glob("part-*.parquet"))])


@pytest.fixture(scope="module")
def tables(skyline_report):
    return markdown_tables(skyline_report.read_text())


def test_the_report_includes_the_game_sections(skyline_report):
    markdown = skyline_report.read_text()
    for title in ("Auction prices by item and round", "What buying did for the buyer", "Unsold items",
                  "How auction ties were broken", "Where improvements were placed", "First-builder effect",
                  "The Key Player in the auctions", "Card values: played, bid or kept", "Per-policy habits"):
        assert f"## {title}" in markdown


def test_auction_price_curve_matches_pandas(skyline_run, tables):
    auctions = read_table(skyline_run, "auctions")
    sold = auctions[auctions["winner"] >= 0]
    rows = tables["Price paid per item and round (sold auctions), 95% t intervals"]
    # 2 Greenspaces every round, a Spaceport in rounds 1-2, a Megamall in rounds 3-4.
    assert [(row["item"], row["round"]) for row in rows] == (
        [("greenspace", str(r)) for r in range(1, 5)] + [("spaceport", "1"), ("spaceport", "2"),
                                                          ("megamall", "3"), ("megamall", "4")])
    for row in rows:
        prices = sold[(sold["item"].map(ITEMS) == row["item"]) & (sold["round"] == int(row["round"]))]["price"]
        assert number(row["sold"]) == len(prices)
        assert row["mean price"] == format_value(float(prices.mean()))
        assert row["median"] == format_value(float(prices.median()))
        assert number(row["95% low"]) < number(row["mean price"]) < number(row["95% high"])


def test_unsold_rates_match_pandas(skyline_run, tables):
    auctions = read_table(skyline_run, "auctions")
    for row in tables["Unsold rate per item and round"]:
        these = auctions[(auctions["item"].map(ITEMS) == row["item"]) & (auctions["round"] == int(row["round"]))]
        assert number(row["unsold"]) == int((these["winner"] == -1).sum())
        assert row["unsold rate"] == percent(float((these["winner"] == -1).mean()))


def test_tie_break_counts_match_pandas(skyline_run, tables):
    sold = read_table(skyline_run, "auctions").query("winner >= 0")
    names = {0: "none", 1: "highest card", 2: "key order"}
    rows = tables["Auction tie-breaks per item"]
    assert len(rows) == 9  # every rule for every item, even at zero
    for row in rows:
        these = sold[sold["item"].map(ITEMS) == row["item"]]
        assert number(row["count"]) == int((these["tie_break"].map(names) == row["decided by"]).sum())


def test_buyer_outcomes_cover_every_sold_auction(skyline_run, tables):
    sold = read_table(skyline_run, "auctions").query("winner >= 0")
    rows = tables["Buyer's outcome by item and price paid"]
    for item in ITEMS.values():
        won = sum(number(row["auctions won"]) for row in rows if row["item"] == item)
        assert won == int((sold["item"].map(ITEMS) == item).sum())


def test_buyer_win_rate_in_one_bin_matches_pandas(skyline_run, skyline_report):
    auctions = read_table(skyline_run, "auctions").query("winner >= 0")
    players = read_table(skyline_run, "players")
    run = Run.open(skyline_run)
    width, labels = skyline_3000.price_bins(skyline_3000.sold_auctions(run))
    row = next(r for r in markdown_tables(skyline_report.read_text())["Buyer's outcome by item and price paid"]
               if r["item"] == "greenspace" and r["price paid"] == labels[2])
    in_bin = auctions[(auctions["item"] == 0) & ((auctions["price"] - 1) // width == 2)]
    buyers = in_bin.merge(players, left_on=["game", "winner"], right_on=["game", "seat"])
    assert row["buyer win rate"] == percent(float(buyers["win"].mean()))
    assert row["buyer mean score"] == format_value(float(buyers["score"].mean()))


def test_first_builder_win_rate_matches_pandas(skyline_run, tables):
    players = read_table(skyline_run, "players")
    rows = {row["player"]: row for row in tables["First builder (builds first in round 1) vs the others, "
                                                 "95% intervals over games"]}
    first = players[players["key_player"] == 1]  # the round-1 Key Player builds first in round 1
    assert number(rows["first builder"]["player-games"]) == len(first) == 600
    assert rows["first builder"]["win rate"] == percent(float(first["win"].mean()))
    assert rows["others"]["win rate"] == percent(float(players[players["key_player"] == 0]["win"].mean()))
    positions = tables["Win rate by turn-order position (1st = the first builder)"]
    assert positions[0]["win rate"] == rows["first builder"]["win rate"]
    # 3 players, 4 rounds: the Key (and the first turn) comes back to the 1st seat in round 4
    assert [row["builds first in round(s)"] for row in positions] == ["1, 4", "2", "3"]
    games = read_table(skyline_run, "games")
    players = players.merge(games[["game", "first_key"]], on="game")
    position = (players["seat"].astype(int) - players["first_key"].astype(int)) % 3
    assert [number(row["won on hand value"]) for row in positions] == [
        int(players[position == p]["tie_break_win"].sum()) for p in range(3)]


def test_first_builder_section_says_what_it_measures(skyline_report):
    markdown = skyline_report.read_text()
    text = markdown[markdown.index("## First-builder effect"):markdown.index("## The Key Player in the auctions")]
    assert "turn-order position" in text and "builds first in round 1" in text
    assert "not of holding the Key as such" in text
    assert "Key Player effect" not in markdown


def _auction_seats_pandas(run_path, players=3):
    """One row per auction and seat with the seat's place from that round's Key Player (pandas)."""
    auctions = read_table(run_path, "auctions").merge(read_table(run_path, "games")[["game", "first_key"]], on="game")
    rows = []
    for seat in range(players):
        part = auctions[["game", "round", "item", "winner", "price", "tie_break", "first_key"]].copy()
        part["seat"] = seat
        part["bid"] = auctions[f"bid_{seat}"].astype(int)
        rows.append(part)
    seats = pd.concat(rows)
    key_seat = (seats["first_key"].astype(int) + seats["round"].astype(int) - 1) % players
    seats["from_key"] = (seats["seat"] - key_seat) % players
    seats["won"] = seats["winner"].astype(int) == seats["seat"]
    return seats


def test_key_player_auctions_match_pandas(skyline_run, tables):
    seats = _auction_seats_pandas(skyline_run)
    rows = {row["bidder"]: row for row in tables["Auctions by the bidder's place from the round's Key Player"]}
    assert list(rows) == ["Key Player", "Key+1", "Key+2"]
    key = seats[seats["from_key"] == 0]
    entered = key[key["bid"] > 0]
    row = rows["Key Player"]
    assert number(row["seat-auctions"]) == len(key) == 600 * 12
    assert number(row["entered"]) == len(entered)
    assert row["entry rate"] == percent(len(entered) / len(key))
    assert number(row["won"]) == int(key["won"].sum())
    assert row["win rate when entered"] == percent(float(entered["won"].mean()))
    assert row["mean price"] == format_value(float(key[key["won"]]["price"].mean()))
    # its tie-break wins: tied on the bid and the highest card, it took the item as the Key Player
    assert number(row["won on Key order"]) == int((key["won"] & (key["tie_break"] == 2)).sum())
    sold = read_table(skyline_run, "auctions").query("winner >= 0")
    assert sum(number(r["won"]) for r in rows.values()) == len(sold)
    assert sum(number(r["won on Key order"]) for r in rows.values()) == int((sold["tie_break"] == 2).sum())
    # the last seat clockwise from the Key never wins on Key order: anyone tied with it comes first
    assert number(rows["Key+2"]["won on Key order"]) == 0
    items = {r["item"]: r for r in tables["Items won by the round's Key Player"]}
    for code, name in ITEMS.items():
        won = seats[seats["won"] & (seats["item"] == code)]
        assert number(items[name]["sold"]) == len(won)
        assert items[name]["Key Player's share"] == percent(float((won["from_key"] == 0).mean()))
        assert items[name]["others' mean price"] == format_value(float(won[won["from_key"] != 0]["price"].mean()))


def test_card_use_shares_match_pandas_and_add_up(skyline_run, tables):
    card_use = read_table(skyline_run, "card_use")
    rows = tables["Card use by type and value"]
    assert len(rows) == 8 + 7 + 8  # floor 1-8, roof 1-7, contract 1-8
    floor8 = next(row for row in rows if row["card type"] == "floor" and row["value"] == "8")
    these = card_use[(card_use["card_type"] == 0) & (card_use["value"] == 8)]
    total = these[["played", "bid", "kept"]].to_numpy().sum()
    assert number(floor8["cards"]) == total
    assert floor8["bid share"] == percent(these["bid"].sum() / total)
    for row in rows:
        # each share is printed to 0.1 point (rounding off at most 0.05 point each)
        assert sum(number(row[f"{use} share"]) for use in ("played", "bid", "kept")) == pytest.approx(1, abs=1.5e-3)


def test_policy_summary_means_match_pandas(skyline_run, tables):
    players = read_table(skyline_run, "players")
    players["policy"] = players["policy"].astype(str)
    rows = {row["per game"]: row for row in tables["What each policy did, on average"]}
    for column in ("spent", "floors_placed", "points_billboards"):
        for policy in ("heuristic", "random"):
            want = players[players["policy"] == policy][column].mean()
            assert rows[column][policy] == format_value(float(want))


@pytest.mark.parametrize("players", [2, 4])
def test_two_and_four_player_runs(make_run, players):
    run = make_run(n_games=200, players=players, chunk_size=64)
    sections = {section.title: section for section in skyline_3000.sections(Run.open(run))}
    positions = dict(sections["First-builder effect"].tables)[
        "Win rate by turn-order position (1st = the first builder)"]
    assert positions["position"].to_list() == ["1st", "2nd", "3rd", "4th"][:players]
    assert positions["player-games"].sum() == 200 * players
    # 4 rounds: with 4 players each seat builds first once; with 2, twice
    schedule = {2: ["1, 3", "2, 4"], 4: ["1", "2", "3", "4"]}[players]
    assert positions["builds first in round(s)"].to_list() == schedule
    bidders = dict(sections["The Key Player in the auctions"].tables)[
        "Auctions by the bidder's place from the round's Key Player"]
    assert bidders["bidder"].to_list() == ["Key Player"] + [f"Key+{k}" for k in range(1, players)]
    assert bidders["seat-auctions"].sum() == 200 * 12 * players


def test_a_run_without_card_use_skips_that_section(make_run):
    run = make_run(n_games=100)
    shutil.rmtree(run / "card_use")
    sections = {section.title: section for section in skyline_3000.sections(Run.open(run))}
    assert sections["Card values: played, bid or kept"].text == "Skipped: this run has no `card_use` table."


def test_missing_engine_columns_are_named(make_run):
    import polars as pl

    run = make_run(n_games=50, chunk_size=50)
    part = run / "auctions" / "part-000000.parquet"
    pl.read_parquet(part).drop("tie_break").write_parquet(part)
    from analysis.runfolder import RunFolderError

    # a run folder error: `skyline-lab report` refuses it in one line (exit 2), no traceback
    with pytest.raises(RunFolderError, match=r"'auctions' lacks columns \['tie_break'\]: the run was written by an older"):
        skyline_3000.sections(Run.open(run))


def test_placement_shares_have_intervals_over_games_that_cover_the_truth(make_run):
    # The synthetic engine places every sold item in a uniform block 0-8: truth 1/9 each.
    import numpy as np

    run = make_run(n_games=1000, chunk_size=250, seed=3)
    section = next(s for s in skyline_3000.sections(Run.open(run)) if s.title == "Where improvements were placed")
    tables = dict(section.tables)
    assert list(tables["Placement share per block"].columns)[:2] == ["item", "won"]  # the old table is kept
    long = tables["Placement share per item and block, 95% intervals over games"]
    assert {"share", "95% low", "95% high", "games"} <= set(long.columns)
    blocks = long.filter(long["placed in"] != "not placed")
    assert blocks.height == 27 and (blocks["games"] == 1000).all()
    assert ((blocks["95% low"] <= blocks["share"]) & (blocks["share"] <= blocks["95% high"])).all()
    covered = ((blocks["95% low"] <= 1 / 9) & (1 / 9 <= blocks["95% high"])).to_numpy()
    assert covered.mean() >= 0.85
    # The interval runs over games (8 Greenspaces a game), as stats.unit_ratio_table clusters it.
    auctions = read_table(run, "auctions").query("winner >= 0 and item == 0")
    per_game = auctions.assign(hit=(auctions["block"] == 0)).groupby("game").agg(w=("hit", "sum"), n=("hit", "size"))
    rate = per_game["w"].sum() / per_game["n"].sum()
    g = len(per_game)
    se = np.sqrt(g / (g - 1) * ((per_game["w"] - rate * per_game["n"]) ** 2).sum()) / per_game["n"].sum()
    row = long.filter((long["item"] == "greenspace") & (long["placed in"] == "block 0 (red)")).row(0, named=True)
    from scipy import stats as scipy_stats
    assert row["95% high"] == pytest.approx(rate + scipy_stats.t.ppf(0.975, g - 1) * se)


def test_card_use_shares_have_intervals_over_chunks_that_cover_the_truth(make_run):
    # Synthetic card use per chunk and slot: played ~ Poisson(40 - 3v), bid ~ Poisson(5v), kept ~ Poisson(8).
    run = make_run(n_games=1000, chunk_size=100, seed=5)
    section = next(s for s in skyline_3000.sections(Run.open(run)) if s.title == "Card values: played, bid or kept")
    assert "the chunk is the independent unit" in section.text and "10 chunks" in section.text
    table = dict(section.tables)["Card use by type and value"]
    truth = (40 - 3 * table["value"]) / (48 + 2 * table["value"])
    assert ((table["played 95% low"] <= table["played share"]) & (table["played share"] <= table["played 95% high"])).all()
    covered = ((table["played 95% low"] <= truth) & (truth <= table["played 95% high"])).to_numpy()
    assert covered.mean() >= 0.8
    by_policy = dict(section.tables)["Card use by policy"]
    assert {"played 95% low", "bid 95% high", "value bid 95% low", "chunks"} <= set(by_policy.columns)
    assert (by_policy["chunks"] == 10).all()


def test_card_use_with_one_chunk_says_no_interval_is_possible(make_run):
    run = make_run(n_games=100, chunk_size=200)
    section = next(s for s in skyline_3000.sections(Run.open(run)) if s.title == "Card values: played, bid or kept")
    assert "single chunk, so no interval is possible" in section.text
    table = dict(section.tables)["Card use by type and value"]
    assert table["played 95% low"].is_nan().all() and table["bid 95% high"].is_nan().all()


def test_placement_table_prints_shares_as_percentages(skyline_run, tables):
    # issue 25 item 5: the 'block 0 ... block 8' columns printed shares as 0.1111; the blocks keep their numbers
    auctions = read_table(skyline_run, "auctions")
    sold = auctions[auctions["winner"] >= 0]
    rows = {row["item"]: row for row in tables["Placement share per block"]}
    assert set(rows) == set(ITEMS.values())
    for code, name in ITEMS.items():
        won = sold[sold["item"] == code]
        assert number(rows[name]["won"]) == len(won)
        for block in range(9):
            assert rows[name][f"block {block} share"] == percent(float((won["block"] == block).mean()))
        assert rows[name]["not placed share"] == percent(float((won["block"] == -1).mean()))
    assert list(rows["greenspace"]) == ["item", "won", *(f"block {b} share" for b in range(9)), "not placed share"]


def test_placement_heatmaps_are_labelled(skyline_run):
    figure = skyline_3000.improvement_placement(Run.open(skyline_run)).plots[0].figure
    heatmaps = [a for a in figure.axes if a.images]
    assert heatmaps
    for axes in heatmaps:  # a reader can tell rows, columns and colour apart without the text
        assert axes.get_xlabel() and axes.get_ylabel() and axes.get_title()
        assert [t.get_text() for t in axes.get_xticklabels()] == ["1st", "2nd", "3rd"]
    # one colour scale for every panel (issue 25: a scale per panel made the same colour mean different shares)
    colorbars = [a for a in figure.axes if not a.images and a.get_ylabel()]
    assert len(colorbars) == 1
    assert len({image.get_clim() for axes in heatmaps for image in axes.images}) == 1


def test_seat_chart_shows_the_differences_on_their_own_axis(skyline_run):
    from analysis.report import seat_win_rates

    figure = seat_win_rates(Run.open(skyline_run)).plots[0].figure
    rates, edges = figure.axes[:2]
    assert rates.get_ylim()[0] == 0  # rates from zero
    low, high = edges.get_ylim()
    # edges sit around 0: the axis spans them (both signs) instead of starting at 0
    assert low < 0 < high and high - low < 1


@pytest.mark.parametrize("override", [{"game.construction_turn_cap": 1}, {"auction.stacks": [[], [], []]}])
def test_a_variant_with_no_auction_sold_gets_a_report_that_says_so(tmp_path, override):
    # degenerate but valid variants: a one-turn cap stalls every game before any bid; empty stacks
    # hold no auction at all. The report says so instead of failing on empty price tables.
    from analysis.report import build_report
    from experiments.runner import run_batch

    run = run_batch("skyline_3000", n_games=40, overrides=override, out=tmp_path / "run", progress=False)
    markdown = build_report(run.path).read_text()
    assert "No auctions were sold in this run" in markdown
    assert "Auction prices by item and round" not in markdown


def test_the_buyer_figure_leaves_out_a_price_bin_won_a_handful_of_times(skyline_run, tables):
    # issue 25: a curve point from 2 auctions (a win rate of 0% spanning 0-84%) was drawn like the others;
    # the figure now draws a bin from MIN_CURVE_AUCTIONS won auctions on, the table keeps every bin
    rows = tables["Buyer's outcome by item and price paid"]
    few = [row for row in rows if number(row["auctions won"]) < skyline_3000.MIN_CURVE_AUCTIONS]
    assert few   # this small run has such bins
    section = skyline_3000.buyer_outcomes(Run.open(skyline_run))
    win_axes, score_axes = section.plots[0].figure.axes[:2]
    for axes in (win_axes, score_axes):
        drawn = sum(len(container.lines[0].get_xdata()) for container in axes.containers)
        assert drawn == len(rows) - len(few)
    assert f"fewer than {skyline_3000.MIN_CURVE_AUCTIONS} auctions is left out" in section.plots[0].caption


def test_the_key_players_price_has_its_unit(skyline_report):
    # issue 25: the Key Player section read "paying 17.1162" with no unit and 4 decimals
    text = skyline_report.read_text()
    paying = re.search(r"paying (\S+) in card value on average \(95% (\d+\.\d\d)-(\d+\.\d\d) card value\)", text)
    assert paying and re.fullmatch(r"\d+\.\d\d", paying.group(1)), re.findall(r"paying [^.]*", text)

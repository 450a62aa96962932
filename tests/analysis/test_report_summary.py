"""The summary a designer reads in one minute (issue 25): at most five plain sentences built from the
computed findings, most important first; percentages, positions from 1st, no test names or p-values,
no finding from a test that found nothing; and the numbers and figures around it."""
import math
import re

import numpy as np
import polars as pl
import pytest

from analysis import plots
from analysis.report import (build_report, cell_text, count_of, format_value, html_table, interval_text,
                             markdown_table, pct, tidy_table, whose_play)
from analysis.run import Run

TEST_WORDS = re.compile(r"(p = |p < |p-value|Cochran|Bonferroni|chi-square|degrees of freedom|TOST|Wilson|"
                        r"\d\.\d{4}|nan|-0\.0)", re.I)


def summary_sentences(markdown: str) -> list[str]:
    summary = markdown.split("## Summary of findings")[1].split("## Contents")[0].strip()
    return [p for p in summary.split("\n\n") if not p.startswith(">")]


def test_a_seat_edge_in_self_play_leads_the_summary_in_plain_words(make_run):
    run = make_run(game="toy_trio", n_games=1500, players=3, lineup=["random"] * 3, seat_bonus=[5, 0, 0], seed=3)
    markdown = build_report(run).read_text()
    sentences = summary_sentences(markdown)
    assert len(sentences) <= 5
    # what was played, by whom: the policy is named
    assert sentences[0].startswith("1,500 games of ") and "random in every seat" in sentences[0]
    found = re.fullmatch(r"Turn order matters: the 1st player wins (\d+\.\d)%, the others (\d+\.\d)% "
                         r"\((\d+\.\d) points ahead, 95% CI (\d+\.\d)-(\d+\.\d) points\)\.", sentences[1])
    assert found, sentences[1]
    first, others, gap, low, high = map(float, found.groups())
    assert abs(first - others - gap) <= 0.11 and low <= gap <= high
    # the same number as the section's table
    players = Run.open(run).scan("players").filter(pl.col("seat") == 0).select(pl.col("win").mean()).collect().item()
    assert f"{100 * players:.1f}%" == f"{first:.1f}%"
    assert not any(TEST_WORDS.search(s) for s in sentences), sentences
    # self-play: no win-rate-by-policy chart or section (one policy in every seat)
    assert "## Win rate by policy" not in markdown and "policy_win_rates.png" not in markdown
    assert "mixes skill levels" not in markdown


def test_a_mixed_line_up_says_check_the_ladder(make_run):
    run = make_run(game="toy_trio", n_games=1500, players=3, seat_bonus=[8, 0, 0], seed=4)
    sentences = summary_sentences(build_report(run).read_text())
    turn = next(i for i, s in enumerate(sentences) if s.startswith("Turn order matters"))
    assert sentences[turn + 1].startswith("This line-up mixes skill levels: check the skill ladder")


def test_no_finding_from_a_test_that_found_nothing(make_run):
    run = make_run(game="toy_quad", n_games=400, players=4, lineup=["random"] * 4, seed=5)
    markdown = build_report(run).read_text()
    sentences = summary_sentences(markdown)
    assert not any("Turn order matters" in s for s in sentences)
    # never "fair" or "balanced" without a margin shown
    for s in sentences:
        assert "balanced" not in s.replace("does not show that the game is balanced", "")
        if "fair" in s:
            assert "fair within ±2.0 points" in s
    assert "stalled" not in " ".join(sentences) or "0.0%" not in " ".join(sentences)


def test_numbers_as_a_designer_reads_them():
    assert format_value(5.55e-17) == "0" and format_value(-0.0) == "0"
    assert format_value(4.27e-13) == "4.27e-13"   # a p-value stays
    assert cell_text("95% low", float("nan")) == "too few games"
    assert cell_text("share 95% high", float("nan")) == "too few games"
    assert interval_text(float("nan"), float("nan")) == "too few games"
    assert interval_text(-0.0004, 0.03, clip=(0, 1)) == "0.0-3.0%"
    assert pct(0.2307) == "23.1%" and pct(-1e-17) == "0.0%"
    assert count_of(1, "game") == "1 game" and count_of(1000, "game") == "1,000 games"
    table = pl.DataFrame({"share": [0.0, 0.5], "95% low": [-2.47e-05, 0.4], "95% high": [0.01, 1.2]})
    tidy = tidy_table(table)
    assert tidy["95% low"].to_list() == [0.0, 0.4] and tidy["95% high"].to_list() == [0.01, 1.0]
    assert "-" not in markdown_table(table).split("\n", 2)[2]
    edges = pl.DataFrame({"mean edge": [-0.02], "95% low": [-0.05], "95% high": [0.01]})
    assert tidy_table(edges)["95% low"][0] == -0.05   # a difference may be negative
    assert "nan" not in markdown_table(pl.DataFrame({"rate": [0.5], "low": [math.nan], "high": [math.nan]}))


def test_only_a_shares_bounds_are_clipped():
    # a Cityline roof table (policy | roof | n | mean | low | high | share) printed a mean of 2.1
    # buildings with the interval 1-1: every bound of a table holding a share was clipped to [0, 1]
    roofs = pl.DataFrame({"roof": ["3 Low"], "n": [300], "mean": [2.1167], "low": [1.95], "high": [2.28],
                          "share": [0.1262], "share_low": [-0.01], "share_high": [0.14]})
    tidy = tidy_table(roofs)
    assert (tidy["low"][0], tidy["high"][0]) == (1.95, 2.28)
    assert (tidy["share_low"][0], tidy["share_high"][0]) == (0.0, 0.14)
    bonus = pl.DataFrame({"hit_rate": [0.5], "hit_low": [-0.1], "hit_high": [1.1], "mean": [-3.0], "low": [-4.0],
                          "high": [-2.0]})
    tidy = tidy_table(bonus)
    assert tidy.row(0) == (0.5, 0.0, 1.0, -3.0, -4.0, -2.0)
    # bounds gathered at the end of the table belong to the estimate named like them
    grouped = pl.DataFrame({"played share": [0.01], "mean price": [-0.5], "played 95% low": [-0.02],
                            "played 95% high": [0.04], "price low": [-1.0]})
    assert tidy_table(grouped).row(0) == (0.01, -0.5, 0.0, 0.04, -1.0)


def test_wide_tables_scroll_inside_their_box():
    html = html_table("wide", pl.DataFrame({f"column {i}": [0.123456] for i in range(30)}))
    assert html.startswith('<div class="table-box">') and html.endswith("</div>")


def test_captions_say_whose_play_in_words(make_run):
    run = Run.open(make_run(game="toy_trio", n_games=50, players=3))
    words = whose_play(run)
    assert "pool every seat" not in words and words.startswith("the line-up heuristic, random, heuristic")


def test_a_money_chart_says_money():
    figure = plots.stacked_shares(["a", "b"], {"cards": np.array([0.5, 0.2]), "bonus": np.array([0.5, 0.8])},
                                  title="money", xlabel="map", ylabel="share of money")
    assert figure.axes[0].get_ylabel() == "share of money"


def test_fixed_seats_with_mixed_policies_draw_no_turn_order_finding(make_run):
    # no turn effect at all, but the strong policy keeps the 1st seat: a position's edge is its
    # policy's strength, and the summary must not call it turn order
    run = make_run(game="toy_trio", n_games=1500, players=3, lineup=["heuristic", "random", "random"],
                   rotate=False, seat_bonus=[0, 0, 0], seed=6)
    sentences = summary_sentences(build_report(run).read_text())
    assert not any(s.startswith("Turn order matters") for s in sentences), sentences
    assert any("Seats did not rotate" in s for s in sentences), sentences


@pytest.mark.parametrize("game", ["skyline_3000", "cityline", "skyline_of_the_world", "project_skyline"])
def test_a_one_game_report_prints_no_nan_and_counts_positions_from_1st(game, tmp_path):
    # a 1-game Skyline 3000 report read "paying 29.33 in card value on average (95% nan–nan card value)":
    # an interval of one game is "too few games", in every section, not only in the summary; and the
    # methods said "position 0 moves first" where every table counts from 1st
    from experiments.runner import run_batch

    run = run_batch(game, n_games=1, out=tmp_path / "r", progress=False, workers=1)
    markdown = build_report(run.path).read_text()
    found = [line for line in markdown.splitlines() if re.search(r"\bnan\b|\binf\b", line, re.I)]
    assert not found, found
    zero = re.findall(r"[^|\n]{0,40}\b(?:position|seat) 0\b[^|\n]{0,40}", markdown, re.I)
    assert not zero, zero
    # issue 25: "1 games" ("over 1 player-games", "In 1 games a third penthouse", "over 1 games that were")
    one = re.findall(r"[^|\n]{0,40}(?<![\d,.])(?<!of )1 (?:games|player-games|seats|players)\b[^|\n]{0,20}", markdown)
    assert not one, one


def test_tables_print_rates_as_percentages_under_plain_headers():
    # the tables printed rates as 0.2135 (the summary said 21.4%) under snake_case headers (win_low, share_rate)
    seats = pl.DataFrame({"position": ["1st"], "player_games": [300], "wins": [64], "win_rate": [0.2136],
                          "win_low": [0.171], "win_high": [0.2634], "win_shares": [59.5], "share_rate": [0.1983],
                          "share_low": [0.1531], "share_high": [0.2436], "mean": [17.25], "low": [16.5],
                          "high": [18.0], "p_value": [0.0312]})
    header, _, row = markdown_table(seats).split("\n")
    assert "_" not in header
    assert header == ("| position | player-games | wins | win rate | 95% low | 95% high | wins (ties split) | win share "
                      "| share 95% low | share 95% high | mean | low | high | p-value |")
    assert row == "| 1st | 300 | 64 | 21.4% | 17.1% | 26.3% | 59.5000 | 19.8% | 15.3% | 24.4% | 17.2500 | 16.5000 | 18 | 0.0312 |"
    html = html_table("Seats", seats)
    assert "<th>win rate</th>" in html and ">21.4%</td>" in html and "win_rate" not in html
    # a rate is a percentage also in a table of one game, a tiny one keeps two digits, an undefined bound says so
    events = pl.DataFrame({"event": ["a", "b", "c"], "rate": [0.0, 1.0, 0.00042], "95% low": [0.0, math.nan, 1e-5],
                           "95% high": [0.0126, math.nan, 0.003], "hit_rate": [0.5, 0.25, 0.75],
                           "hit_low": [0.4, 0.2, 0.7], "hit_high": [0.6, 0.3, 0.8]})
    rows = markdown_table(events).split("\n")
    assert rows[0] == "| event | rate | 95% low | 95% high | hit rate | hit 95% low | hit 95% high |"
    assert rows[2:] == ["| a | 0% | 0% | 1.3% | 50.0% | 40.0% | 60.0% |",
                        "| b | 100% | too few games | too few games | 25.0% | 20.0% | 30.0% |",
                        "| c | 0.042% | 0.001% | 0.3% | 75.0% | 70.0% | 80.0% |"]
    # not a rate: a mean named 'rate' that leaves [0, 1], a share's count, a policy's label as a header
    other = pl.DataFrame({"goal_rate": [1.5], "win_shares": [0.5], "my label": [0.25]})
    assert markdown_table(other).split("\n")[2] == "| 1.5000 | 0.5000 | 0.2500 |"


def test_every_table_of_a_report_has_plain_headers_and_percentages(skyline_report):
    from report_tables import markdown_tables

    tables = markdown_tables(skyline_report.read_text())
    rate = re.compile(r"(^|[ '])(rate|share)($| )")
    for caption, rows in tables.items():
        for column in rows[0] if rows else []:
            assert "_" not in column, (caption, column)
            if rate.search(column):
                for row in rows:
                    assert row[column].endswith("%") or row[column] in ("", "too few games"), (caption, column, row)


def test_a_seat_edge_reads_in_percentage_points_with_its_bounds(skyline_report):
    # issue 25 item 5: the seat-edge table printed a difference of win rates as 'mean edge -0.0433'
    edges = pl.DataFrame({"position": ["1st", "2nd"], "games": [300, 300], "mean edge": [-0.0433, 0.0267],
                          "simultaneous 95% low": [-0.0912, -0.0004], "simultaneous 95% high": [0.0046, 0.0538],
                          "p_value": [0.0312, 0.2], "p (Bonferroni)": [0.0624, 0.4]})
    rows = markdown_table(edges).split("\n")
    assert rows[2] == "| 1st | 300 | -4.3 points | -9.1 points | +0.5 points | 0.0312 | 0.0624 |"
    assert rows[3] == "| 2nd | 300 | +2.7 points | 0.0 points | +5.4 points | 0.2000 | 0.4000 |"
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html_table("edges", edges))
    assert cells[2:4] == ["-4.3 points", "-9.1 to +0.5 points"]
    # a mean edge of a score (leaves [-1, 1]) keeps its number
    assert "points" not in markdown_table(pl.DataFrame({"mean edge": [-3.5], "low": [-5.0], "high": [-2.0]}))
    from report_tables import markdown_tables

    table = markdown_tables(skyline_report.read_text())["Per-game seat edges by position (win minus the game's mean win)"]
    for row in table:
        for column in ("mean edge", "simultaneous 95% low", "simultaneous 95% high"):
            assert re.fullmatch(r"([+-]\d+\.\d|0\.0) points", row[column]), (column, row)


def test_the_page_shows_an_interval_in_one_column_and_headers_wrap_between_words():
    # issue 25: tables wider than a 1,280 px window (20 tables of four 300-game reports); the page joins
    # each interval's bounds into one column, report.md keeps both (a table read back by program)
    from analysis.report import HTML_STYLE

    table = pl.DataFrame({"position": ["1st", "2nd"], "win_rate": [0.2, 0.5], "win_low": [0.159, math.nan],
                          "win_high": [0.249, math.nan], "coef": [-4.4432, 1.2], "low": [-7.5097, 0.5],
                          "high": [-1.3766, 1.9], "share": [0.25, 0.5], "share 95% low": [0.1, 0.4],
                          "share 95% high": [0.3, 0.6]})
    page = html_table("t", table)
    heads = re.findall(r"<th>(.*?)</th>", page)
    assert heads == ["position", "win rate", "95% interval", "coef", "95% interval", "share", "share 95% interval"]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", page)
    assert cells[:7] == ["1st", "20.0%", "15.9-24.9%", "-4.4432", "-7.5097 to -1.3766", "25.0%", "10.0-30.0%"]
    assert cells[7:10] == ["2nd", "50.0%", "too few games"]
    assert "95% low" in markdown_table(table) and "| 15.9% | 24.9% |" in markdown_table(table)
    assert re.search(r"th \{[^}]*white-space: normal", HTML_STYLE) and "th { white-space: nowrap" not in HTML_STYLE

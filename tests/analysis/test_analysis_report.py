"""The generic report, built from synthetic run folders: files, numbers, solo runs."""
import base64
import json
import re

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint
from scipy.stats import chisquare

from analysis.report import build_report, format_value
from analysis.run import Run
from report_tables import markdown_tables, number, percent

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def read_table(run_path, name) -> pd.DataFrame:
    """Straight from the Parquet parts with pandas: an independent path from the report's polars code."""
    return pd.concat([pd.read_parquet(p) for p in sorted((run_path / name).glob("part-*.parquet"))])


def test_report_writes_markdown_html_and_every_figure(skyline_report):
    report_dir = skyline_report.parent
    markdown = skyline_report.read_text()
    html = (report_dir / "report.html").read_text()
    figures = re.findall(r"!\[[^\]]*\]\((figures/[^)]+\.png)\)", markdown)
    assert len(figures) >= 10
    # report.html embeds every figure (one file that can be mailed): the same PNG bytes, in order
    embedded = re.findall(r'<img src="data:image/png;base64,([^"]+)"', html)
    assert len(embedded) == len(figures) and 'src="figures/' not in html
    for figure, data in zip(figures, embedded):
        assert (report_dir / figure).read_bytes()[:8] == PNG_MAGIC
        assert base64.b64decode(data) == (report_dir / figure).read_bytes()
    assert sorted(p.name for p in (report_dir / "figures").glob("*.png")) == sorted(f[8:] for f in figures)
    # Self-contained HTML: tables as HTML, no outside stylesheet or script.
    rule_lines = [line for line in markdown.splitlines() if line.startswith("| ---")]
    assert html.count("<table>") == len(rule_lines) > 10
    outside = re.sub(r'data:image/png;base64,[^"]+', "", html)  # base64 may spell anything, even "http"
    assert "<link" not in outside and "<script" not in outside and "http" not in outside
    for section in ("Run summary", "Win rate by seat", "Win rate by policy", "Score distribution by policy",
                    "Victory margin", "Ties and shared wins", "Game length and stalls"):
        assert f"## {section}" in markdown and f"<h2>{section}</h2>" in html
    # a designer reads the findings first, then the contents; the variant dump is in the appendix
    assert markdown.index("## Summary of findings") < markdown.index("## Contents") < markdown.index("## Run summary")
    assert markdown.index("## Appendix") > markdown.index("## Game length and stalls")
    assert markdown.index("Variant values as played") > markdown.index("## Appendix")


def test_report_states_its_interval_and_test(skyline_report):
    markdown = skyline_report.read_text()
    assert "Wilson score interval (statsmodels proportion_confint, method='wilson')" in markdown
    assert "Student t interval" in markdown
    assert "statsmodels cochrans_q" in markdown and "turn order" in markdown
    assert "win share" in markdown and "1/k" in markdown


def test_run_summary_comes_from_the_manifest(skyline_run, skyline_report):
    manifest = json.loads((skyline_run / "manifest.json").read_text())
    summary = {row["item"]: row["value"] for row in markdown_tables(skyline_report.read_text())["Run"]}
    assert summary["variant"] == f"default (digest {manifest['variant']['digest']})"
    assert summary["line-up (by slot)"] == "0: heuristic, 1: random, 2: heuristic"
    assert summary["seed"] == "0" and summary["players"] == "3"
    assert summary["games in the tables"] == "600"
    assert summary["engine version"] == manifest["engine_version"]
    assert summary["throughput (simulation only)"] == "400 games/s"
    assert summary["status"] == "complete"
    policies = {row["label"]: row for row in markdown_tables(skyline_report.read_text())["Policies in the line-up"]}
    assert policies["heuristic"]["weights"] == "bid_fraction=0.5"


def test_seat_win_rates_match_a_direct_computation(skyline_run, skyline_report):
    # Seats are counted in turn order: position = (seat - the round-1 Key Player's seat) mod P.
    players = read_table(skyline_run, "players")
    games = read_table(skyline_run, "games")
    players = players.merge(games[["game", "n_winners", "first_key"]], on="game")
    players["position"] = (players["seat"].astype(int) - players["first_key"].astype(int)) % 3
    rows = markdown_tables(skyline_report.read_text())["Win rate by turn-order position, 95% intervals over games"]
    assert len(rows) == 3
    for row in rows:
        seat = players[players["position"] == int(row["position"][0]) - 1]   # positions count from 1st
        wins = int(seat["win"].sum())
        low, high = proportion_confint(wins, len(seat), method="wilson")  # one seat per game: Wilson over games
        assert number(row["player-games"]) == number(row["games"]) == len(seat)
        assert number(row["wins"]) == wins
        assert row["win rate"] == percent(wins / len(seat))
        assert (row["95% low"], row["95% high"]) == (percent(low), percent(high))
        share = (seat["win"] / seat["n_winners"]).mean()
        assert row["win share"] == percent(share)


def test_policy_win_rates_match_a_direct_computation(skyline_run, skyline_report):
    players = read_table(skyline_run, "players")
    players["policy"] = players["policy"].astype(str)
    rows = markdown_tables(skyline_report.read_text())["Win rate by policy, 95% intervals over games"]
    assert [row["policy"] for row in rows] == ["heuristic", "random"]
    for row in rows:
        mine = players[players["policy"] == row["policy"]]
        assert row["win rate"] == percent(mine["win"].mean())
        assert number(row["player-games"]) == len(mine)
        assert number(row["games"]) == mine["game"].nunique()
    # The planted +4 points for the heuristic shows.
    assert number(rows[0]["win rate"]) > number(rows[1]["win rate"])


def test_seat_test_matches_statsmodels_cochrans_q(skyline_run, skyline_report):
    from statsmodels.stats.contingency_tables import cochrans_q

    from analysis.report import format_p

    players = read_table(skyline_run, "players")
    games = read_table(skyline_run, "games")
    players = players.merge(games[["game", "first_key"]], on="game")
    players["position"] = (players["seat"].astype(int) - players["first_key"].astype(int)) % 3
    matrix = players.pivot(index="game", columns="position", values="win").to_numpy()
    informative = matrix[(matrix.sum(1) > 0) & (matrix.sum(1) < 3)]
    result = cochrans_q(informative)
    text = skyline_report.read_text()
    if players["policy"].astype(str).nunique() == 1:
        assert f"statistic {result.statistic:.3f}, 2 degrees of freedom, p = {format_p(result.pvalue)}" in text
        return
    # a mixed line-up: stratified by seating (the policies by position), which Cochran's Q ignores
    from analysis.stats import seat_test

    players["policy"] = players["policy"].astype(str)
    seating = (players.sort_values(["game", "position"]).groupby("game")["policy"].agg("|".join))
    stratified = seat_test(matrix, seating.to_numpy())
    assert stratified.stratified and "stratified by seating" in text
    assert f"statistic {stratified.statistic:.3f}, 2 degrees of freedom, p = {format_p(stratified.p_value)}" in text


def test_a_favoured_seat_is_found(make_run):
    favoured = make_run(game="toy_trio", n_games=1500, players=3, seat_bonus=[5, 0, 0], seed=3)
    markdown = build_report(favoured).read_text()
    assert "turn order is **not** balanced at the 5% level" in markdown
    rows = markdown_tables(markdown)["Win rate by turn-order position, 95% intervals over games"]
    assert max(rows, key=lambda row: number(row["win rate"]))["position"] == "1st"


def test_balanced_seats_are_not_flagged(make_run):
    balanced = make_run(game="toy_quad", n_games=1500, players=4, lineup=["random"] * 4, seed=5)
    assert "no turn-order edge detected at the 5% level" in build_report(balanced).read_text()


def test_score_table_matches_pandas(skyline_run, skyline_report):
    players = read_table(skyline_run, "players")
    players["policy"] = players["policy"].astype(str)
    rows = markdown_tables(skyline_report.read_text())["Final score by policy"]
    for row in rows:
        scores = players[players["policy"] == row["policy"]]["score"]
        assert row["mean"] == format_value(float(scores.mean()))
        assert row["q50"] == format_value(float(scores.median()))
        assert row["max"] == format_value(float(scores.max()))


def test_tie_stall_and_length_rates_match(skyline_run, skyline_report):
    games = read_table(skyline_run, "games")
    tables = markdown_tables(skyline_report.read_text())
    ties = {row["event"]: row for row in tables["Tie and shared-win rates"]}
    assert ties["shared win (several winners)"]["rate"] == percent(float((games["n_winners"] > 1).mean()))
    assert ties["winner decided by tie-break"]["rate"] == percent(float(games["tie_break_decided"].mean()))
    assert tables["Stall rate"][0]["rate"] == percent(float(games["stalled"].mean()))
    assert tables["Decisions per game"][0]["mean"] == format_value(float(games["decisions"].mean()))


def test_solo_runs_skip_seat_and_win_sections(make_run):
    # An unregistered game id: generic sections only, and its own sections are skipped with a note.
    solo = make_run(game="toy_solo", players=1, n_games=300, lineup=["heuristic"])
    markdown = build_report(solo).read_text()
    for skipped in ("Win rate by seat", "Win rate by policy", "Victory margin", "Ties and shared wins"):
        assert f"## {skipped}" not in markdown
    assert "## Score distribution by policy" in markdown and "## Game length and stalls" in markdown
    assert "Skipped: no report module `analysis.toy_solo`" in markdown
    figures = sorted(p.name for p in (solo / "report" / "figures").glob("*.png"))
    assert figures == ["game_length.png", "score_distribution.png"]


def test_two_player_generic_game_and_fixed_seats(make_run):
    run = make_run(game="toy_duel", players=2, n_games=400, lineup=["heuristic", "random"], rotate=False)
    markdown = build_report(run).read_text()
    # shared wins count for each sharer, so the average seat's rate is mean winners / P, not 1/P
    winners = Run.open(run).scan("games").select("n_winners").collect()["n_winners"].mean()
    expected = ("Fair share: 1/2 = 0.5000" if winners == 1 else
                f"Fair share: the mean number of winners per game ({winners:.3f}")
    assert expected in markdown and "Best position" not in markdown
    assert "Seats did **not** rotate" in markdown


def test_partial_run_is_flagged_and_rebuild_drops_stale_figures(make_run):
    run = make_run(game="toy_trio", n_games=600, players=3)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest.update(n_games=1000, status="interrupted")
    (run / "manifest.json").write_text(json.dumps(manifest))
    stale = run / "report" / "figures" / "old_plot.png"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(PNG_MAGIC)
    markdown = build_report(run).read_text()
    assert "**Partial run:** 600 of 1,000 games" in markdown
    assert not stale.exists()


def test_format_value():
    assert format_value(1234567) == "1,234,567"
    assert format_value(0.123456) == "0.1235"
    assert format_value(42.0) == "42"
    assert format_value(3e-7) == "3.00e-07"
    assert format_value(float("nan")) == "n/a"
    assert format_value(None) == ""


@pytest.mark.slow
def test_report_on_a_large_run_is_fast(tmp_path):
    import time

    from synthetic_run import write_synthetic_run

    run = write_synthetic_run(tmp_path / "big", n_games=200_000, players=4, chunk_size=25_000)
    start = time.perf_counter()
    build_report(run)
    assert time.perf_counter() - start < 60
    assert np.isfinite(number(markdown_tables((run / "report" / "report.md").read_text())
                              ["Win rate by turn-order position, 95% intervals over games"][0]["win rate"]))

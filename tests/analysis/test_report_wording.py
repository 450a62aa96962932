"""Every game's report prints rates in its own text as the summary does: percentages with their
interval (23.1% (95% 19.2-27.4%)), never a raw 4-decimal rate (0.2307). Tables keep their numbers;
the text around them (section paragraphs, captions, the summary) is what a designer reads."""
from __future__ import annotations

import re

import pytest

from analysis.report import build_report
from engines.registry import game_ids

# a number with exactly four decimals, not part of a longer number or a version (0.2307, 1.0000)
RAW_RATE = re.compile(r"(?<![\d.])\d+\.\d{4}(?!\d|\.\d)")


def report_text(markdown: str) -> str:
    """The rendered report without its tables (rows start with '|'): paragraphs, lists and captions."""
    return "\n".join(line for line in markdown.splitlines() if not line.lstrip().startswith("|"))


def test_the_shared_formatter():
    from analysis.report import format_p, rate_with_interval

    assert rate_with_interval(0.2307, 0.1921, 0.2744) == "23.1% (95% 19.2-27.4%)"
    assert rate_with_interval(0.0, -2.47e-05, 0.2775, level="95% Wilson") == "0.0% (95% Wilson 0.0-27.8%)"
    assert rate_with_interval(0.5, float("nan"), float("nan")) == "50.0% (95% too few games)"
    assert (format_p(0.95594), format_p(0.0123), format_p(4.27e-13)) == ("0.956", "0.012", "4.27e-13")
    assert not RAW_RATE.search("p = 0.956, 23.1%, statistic 0.400, version 1.0.0, 2,000 games")
    assert RAW_RATE.search("Fair share: 1/4 = 0.2500.") and RAW_RATE.search("win rate 0.2307 (0.1921")


@pytest.mark.parametrize("game", game_ids())
def test_no_raw_four_decimal_rate_in_any_games_report_text(game, tmp_path):
    from experiments.runner import run_batch

    run = run_batch(game, n_games=40, seed=2, out=tmp_path / "run", workers=1, progress=False)
    text = report_text(build_report(run.path).read_text())
    raw = [text[max(m.start() - 60, 0):m.end() + 10].replace("\n", " ") for m in RAW_RATE.finditer(text)]
    assert not raw, f"{game}: raw 4-decimal numbers in the report's text: {raw}"


@pytest.mark.parametrize("game", game_ids())
def test_every_games_tables_and_captions_read_plainly(game, tmp_path):
    # issue 25: tables printed rates as 0.2135 under snake_case headers (win_low, share_rate); a game section's
    # caption without its full stop ran into the label ("95% intervals Played by ..."); "1 games"
    from experiments.runner import run_batch
    from report_tables import markdown_tables

    run = run_batch(game, n_games=40, seed=3, out=tmp_path / "run", workers=1, progress=False)
    markdown = build_report(run.path).read_text()
    rate = re.compile(r"(^|[ '])(rate|share)($| )")
    for caption, rows in markdown_tables(markdown).items():
        for column in rows[0] if rows else []:
            assert "_" not in column, (game, caption, column)
            if re.fullmatch(r"position|seat|\w+ order", column):   # positions count from 1st (two printed 0-3)
                assert all(row[column] != "0" for row in rows), (game, caption, column)
            if rate.search(column):   # a rate or a share, as a percentage
                for row in rows:
                    assert row[column].endswith("%") or row[column] in ("", "too few games"), (game, caption, row)
    # the game-quality table printed shares of games as 0.6367 beside the means (one 'estimate' column)
    quality = markdown_tables(markdown)["Game-quality metrics (per game, game as unit)"]
    shares = [row for row in quality if row["metric"] in ("tie_rate", "stall_rate", "leader_wins", "comeback")]
    assert shares and all(row["share of games"].endswith("%") for row in shares), (game, shares)
    assert not [row for row in shares if any(RAW_RATE.fullmatch(cell) for cell in row.values())], game
    captions = re.findall(r"^!\[(.*)\]\(figures/", markdown, flags=re.M)
    assert captions
    run_on = [c for c in captions if re.search(r"[^.!?] Played by ", c)]
    assert not run_on, f"{game}: a caption runs into its label: {run_on}"
    assert not re.search(r"(?<![\d,])1 (games|player-games|seats|auctions)\b", markdown), game

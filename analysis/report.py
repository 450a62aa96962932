"""The run report: everything rebuilt from a run's Parquet files and manifest.

    build_report(run_path) -> report/report.md, report/report.html, report/figures/*.png

The generic sections work for any registered game (they read only the
contract columns every game writes, and what its GameSpec declares, such as
its tie-break columns); the game's own sections come from its analysis
module, analysis/<game_id>.py, found by the game id. Every number is aggregated in polars
(lazy scans, group-bys) before it reaches numpy, scipy or matplotlib, so a run
of millions of games costs a few seconds, not a plot of millions of points.

Statistics used (and stated in the report itself): Wilson score intervals for
rates, Student t intervals for means, a chi-square goodness-of-fit test for
seat balance. See analysis/stats.py.
"""
from __future__ import annotations

import base64
import html
import json
import math
import re
from pathlib import Path

import numpy as np
import polars as pl

from analysis import plots, stats
from analysis.run import Run, resume_command
from analysis.frames import (ORDINALS, SEAT_MARGIN, format_p, interval_text, ordinal, ordinal_column, pct, rate_with_interval,  # noqa: F401
                             players_with_winners, position_column, position_wins, scan_players, signed_points,
                             with_policy_strings)
from analysis.plugins import game_module, game_module_name
from analysis.sections import Finding, Plot, Section, game_spec

QUANTILES = (0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0)


def build_report(run_path: str | Path) -> Path:
    """Write the report of the run at `run_path`; return the path of report.md.
    A damaged run is refused (RunDamaged, one line with the command that
    repairs it); an unfinished one is reported as partial, never as whole."""
    run = Run.open(run_path)
    # the tables are summed stats.UNIT_SLICE games at a time over the run's own game ids: memory stays flat
    with stats.unit_ranges(game=run.game_range()):
        sections = generic_sections(run) + game_sections(run) + [appendix(run)]
    return write_report(run, label_play(run, sections))


def whose_play(run: Run) -> str:
    """Which policies produced the run's figures: one policy in every seat (self-play, a rung
    of the skill ladder), or the line-up, whose seats every figure not split by policy pools."""
    lineup = list(run.lineup)
    if len(set(lineup)) == 1:
        return f"{lineup[0]} in every seat" if len(lineup) > 1 else lineup[0]
    seats = "seats rotate" if run.manifest.get("rotate", True) else "fixed seats"
    return (f"the line-up {', '.join(lineup)} ({seats}; a figure not split by policy pools the seats of "
            "every policy)")


def _players_in_short(run: Run) -> str:
    lineup = list(run.lineup)
    if len(set(lineup)) == 1:
        return whose_play(run)
    return f"{', '.join(lineup)} ({'seats rotate' if run.manifest.get('rotate', True) else 'fixed seats'})"


def label_play(run: Run, sections: list[Section]) -> list[Section]:
    """Every figure's caption says whose play it shows: a figure copied out of the report
    (or a report of a ladder rung read next to another rung's) still names its policies."""
    label = f"Played by {whose_play(run)}."
    for section in sections:
        for plot in section.plots:
            if label not in plot.caption:
                caption = plot.caption.rstrip()
                # a caption without its full stop ran into the label ("95% intervals Played by ...")
                stop = "" if not caption or caption.endswith((".", "!", "?")) else "."
                plot.caption = f"{caption}{stop} {label}".lstrip()
    return sections


def is_multiplayer(run: Run) -> bool:
    return run.n_players > 1


# --- generic sections --------------------------------------------------------------

def generic_sections(run: Run) -> list[Section]:
    """Sections every game gets. Seat, win, margin and tie sections need at
    least two players and are skipped for solo runs."""
    sections = [run_summary(run), method_notes(run)]
    if is_multiplayer(run):
        sections.append(seat_win_rates(run))
        if len(set(run.lineup)) > 1:  # self-play (one policy in every seat): its rate is the average seat's
            sections.append(policy_win_rates(run))
    sections.append(score_distribution(run))
    if is_multiplayer(run):
        sections += [victory_margins(run), ties_and_shared_wins(run)]
    sections.append(game_length_and_stalls(run))
    return sections


def run_summary(run: Run) -> Section:
    manifest = run.manifest
    variant = manifest.get("variant", {})
    games_found = run.scan("games").select(pl.len()).collect().item()
    times = session_times(manifest)
    rows = [
        ("game", f"{manifest.get('title', run.game_id)} ({run.game_id})"),
        ("run", manifest.get("run", run.path.name)),
        ("variant", f"{variant.get('name', '?')} (digest {variant.get('digest', '?')})"),
        ("players", str(run.n_players)),
        ("line-up (by slot)", ", ".join(f"{slot}: {label}" for slot, label in enumerate(run.lineup))),
        ("seats rotate", "yes" if manifest.get("rotate") else "no"),
        ("status", run.status + (f" ({manifest['error']})" if manifest.get("error") else "")),
        ("games requested", _format_count(manifest.get("n_games"))),
        ("games done (verified chunks)", _format_count(run.games_done)),
        ("games in the tables", f"{games_found:,}"),
        ("seed", str(manifest.get("seed", "?"))),
        ("engine version", str(manifest.get("engine_version", "?"))),
        ("engine source digest", str(manifest.get("source_digest", "?"))),
        ("run time", _format_seconds(times["seconds"])),
        ("compile time (first run of the engine)", _format_seconds(times["compile_seconds"])),
        ("simulation time", _format_seconds(times["simulate_seconds"])),
        ("throughput (simulation only)", f"{times['games_per_s']:,.0f} games/s" if times["games_per_s"] else "?"),
        ("sessions", str(times["sessions"])),
        ("created", str(manifest.get("created", "?"))),
        ("package versions", ", ".join(f"{k} {v}" for k, v in sorted(manifest.get("versions", {}).items()))),
    ]
    text = ""
    n_games = manifest.get("n_games")
    if isinstance(n_games, int) and run.games_done < n_games:
        text = (f"**Partial run:** {run.games_done:,} of {n_games:,} games were "
                "finished; every figure below covers the finished games only.")
        command = resume_command(run.path, manifest)
        if command:
            text += f" Run `{command}` to finish it."
    tables = [("Run", pl.DataFrame(rows, schema=["item", "value"], orient="row"))]
    policies = manifest.get("policies") or {}
    if policies:  # the runner records each line-up label's policy and weights
        policy_rows = [(label, str(info.get("policy", "?")),
                        ", ".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}"
                                  for k, v in (info.get("weights") or {}).items()))
                       for label, info in policies.items()]
        tables.append(("Policies in the line-up", pl.DataFrame(policy_rows, schema=["label", "policy", "weights"],
                                                             orient="row")))
    return Section("Run summary", text, tables)


def session_times(manifest: dict) -> dict:
    """Run time over every session of the folder (a resumed or re-run command
    adds a session; none erases an earlier one), with compile time apart:
    throughput is games per second of simulation, not of compiling."""
    sessions = [s for s in manifest.get("sessions") or [] if isinstance(s, dict)]
    if not sessions:  # a manifest from before sessions were kept: its one timing
        timings = manifest.get("timings") or {}
        return {"seconds": timings.get("seconds"), "compile_seconds": timings.get("compile_seconds"),
                "simulate_seconds": timings.get("simulate_seconds"), "games_per_s": timings.get("games_per_s"),
                "sessions": 1}
    total = lambda key: sum(float(s.get(key) or 0.0) for s in sessions)  # noqa: E731
    games, simulate = total("games"), total("simulate_seconds")
    return {"seconds": total("seconds"), "compile_seconds": total("compile_seconds"),
            "simulate_seconds": simulate, "games_per_s": games / simulate if simulate > 0 and games else None,
            "sessions": len(sessions)}


def appendix(run: Run) -> Section:
    """The long tables a designer rarely needs first: every variant value as
    played, and every session of the run."""
    manifest = run.manifest
    tables = []
    values = (manifest.get("variant") or {}).get("values") or {}
    if values:
        variant_rows = [(key, _format_variant_value(value)) for key, value in _flatten(values)]
        tables.append(("Variant values as played (resolved)",
                       pl.DataFrame(variant_rows, schema=["key", "value"], orient="row")))
    sessions = [s for s in manifest.get("sessions") or [] if isinstance(s, dict)]
    if sessions:
        rows = [(str(s.get("started", "?")), str(s.get("status", "?")), int(s.get("games") or 0),
                 _format_seconds(s.get("compile_seconds")), _format_seconds(s.get("simulate_seconds")),
                 str(s.get("error", ""))) for s in sessions]
        tables.append(("Sessions (each run of the command on this folder)",
                       pl.DataFrame(rows, schema=["started", "status", "games", "compile", "simulation", "error"],
                                    orient="row")))
    command = resume_command(run.path, manifest)
    text = f"The command that resumes or repeats this run: `{command}`" if command else ""
    return Section("Appendix: variant values and sessions", text, tables)


def method_notes(run: Run) -> Section:
    text = "\n".join([
        f"- Rates (win rates, shared-win, stall and other rates) come with a 95% {stats.WILSON}.",
        f"- Means (scores, margins, game length) come with a 95% {stats.T_INTERVAL}.",
        f"- Win rates by seat and by policy: {stats.GAME_UNIT}. The seats of one game are not independent "
        "(with shared dice one policy's seats win together; with one winner its seats exclude each other), "
        "so counting player-games as independent would make intervals too narrow or too wide.",
        "- Seats are counted in **turn order** from 1st (the 1st position moves first), the order the game declares; a seat "
        f"edge is tested with {stats.SEAT_TEST}.",
        "- A shared win counts as a win for every sharer in **win rate**; **win share** counts a "
        "win shared by k players as 1/k for each, so win shares of all seats add up to 1 and the "
        "fair share is exactly 1/P.",
    ])
    return Section("How to read this report", text)


def turn_order_position(run: Run) -> pl.LazyFrame:
    """(game, seat, position): each seat's place in the game's turn order, 0 = moves first.

    Who moves first is the game's declaration (GameSpec.turn_order, e.g. Skyline 3000's
    round-1 Key Player, dealt at random): position = (seat - that seat) mod P. Without a
    declaration seat 0 moves first, so position = seat.
    """
    spec = game_spec(run.game_id)
    order = spec.turn_order if spec is not None else None
    players = run.scan("players").select(pl.col("game").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                                         *([order.name] if order is not None and order.table == "players" else []))
    if order is None:
        return players.with_columns(pl.col("seat").alias("position"))
    if order.table == "games":   # a column holding the seat that moves first
        first = run.scan("games").select(pl.col("game").cast(pl.Int64), pl.col(order.name).cast(pl.Int64).alias("first"))
    elif order.table == "players":  # a 0/1 flag on the row of the seat that moves first
        first = players.filter(pl.col(order.name) == 1).select("game", pl.col("seat").alias("first"))
    else:
        raise ValueError(f"{run.game_id}: turn order column '{order.column}' is not in players or games")
    return (players.join(first, on="game", how="left")
            .select("game", "seat", ((pl.col("seat") - pl.col("first").fill_null(0)) % run.n_players)
                    .alias("position")))


def seat_win_rates(run: Run) -> Section:
    n_players = run.n_players
    frame = (players_with_winners(run).with_columns(pl.col("seat").cast(pl.Int64))
             .join(turn_order_position(run), on=["game", "seat"], how="left"))
    rates = stats.win_rates(frame, "position")
    mixed = len(set(run.lineup)) > 1
    # mixed line-up: the test is stratified by seating (which policy sat at each position), so rotating
    # seats' balance of the policies is not counted as noise (stats.STRATIFIED_SEAT_TEST)
    win_matrix, strata = position_wins(frame, n_players, seating=mixed)
    test = stats.seat_test(win_matrix, strata)
    edges = stats.seat_edge_table(win_matrix).with_columns(ordinal_column("position"))
    rates = rates.with_columns(ordinal_column("position"))

    # the average seat's win rate: 1/P when one player wins, more when wins are shared (each sharer counts)
    winners = float(rates["wins"].sum()) / max(int(rates["games"].max()), 1) if rates.height else 1.0
    fair = winners / n_players
    fair_label = f"fair share 1/{n_players}" if abs(winners - 1) < 1e-12 else \
        f"fair share {winners:.3f} winners / {n_players} = {pct(fair)}"
    if math.isnan(test.p_value):
        verdict = (f"no test is possible: in every one of the {count_of(test.games, 'game')} all seats won together "
                   "(or none won), so no seat ever did better than another")
    elif test.p_value < 0.05:
        favoured = edges.filter(pl.col("p_adjusted") < 0.05)
        named = ", ".join(f"{r['position']} position ({signed_points(r['edge'])}, simultaneous 95% "
                          f"{signed_points(r['low'])} to {signed_points(r['high'])})"
                          for r in favoured.iter_rows(named=True))
        verdict = ("turn order is **not** balanced at the 5% level"
                   + (f"; edges beyond noise (Bonferroni over {n_players} positions): {named}" if named else ""))
    else:
        verdict = ("no turn-order edge detected at the 5% level (this is not evidence of fairness: "
                   "fairness needs an equivalence margin)")
    text_lines = [
        "Seats are counted in turn order from 1st: the 1st position moves first, then clockwise. "
        + (f"Fair share: 1/{n_players} = {pct(fair)}." if abs(winners - 1) < 1e-12 else
           f"Fair share: the mean number of winners per game ({winners:.3f}: shared wins count for each sharer) "
           f"/ {n_players} = {pct(fair)}, not 1/{n_players}."),
        ("Test of equal win rates by position, stratified by seating (which policy sat where: "
         "a Wald test, Hotelling's T², of the mean per-game edges with their covariance within seatings)"
         if test.stratified else "Cochran's Q test of equal win rates by position")
        + f" over {test.informative_games:,} of {count_of(test.games, 'game')} "
        "(games where every seat won or none did carry no seat information): "
        + (f"statistic {test.statistic:.3f}, {test.dof} degrees of freedom, p = {format_p(test.p_value)}: "
           if not math.isnan(test.p_value) else "")
        + f"{verdict}.",
    ]
    if not run.manifest.get("rotate", True) and len(set(run.lineup)) > 1:
        text_lines.append("Seats did **not** rotate and the line-up mixes policies, so each seat's "
                          "rate also carries its policy's strength.")
    # two panels: the rates on an axis from 0, and their differences (per-game edges) on an
    # axis scaled to the differences, where an edge of a point or two is visible
    figure, (rate_axes, edge_axes) = plots.new_figure(2)
    plots.rate_chart(
        rates["position"].to_list(),
        rates["win_rate"], rates["win_low"], rates["win_high"],
        title="Win rate by turn-order position", ylabel="win rate (shared wins count)",
        reference=fair, reference_label=fair_label, axes=rate_axes,
    )
    if edges.height:
        plots.rate_chart(
            edges["position"].to_list(),
            edges["edge"], edges["low"], edges["high"],
            title="Edge: win minus the game's mean win", ylabel="edge (simultaneous 95% interval)",
            reference=0.0, reference_label="no edge", axes=edge_axes, from_zero=False,
            point_label="edge, simultaneous 95% interval",
        )
    table = pl.DataFrame({"position": rates["position"]}).hstack(_win_rate_columns(rates))
    edge_table = edges.select(
        "position", "games", pl.col("edge").alias("mean edge"),
        pl.col("low").alias("simultaneous 95% low"), pl.col("high").alias("simultaneous 95% high"),
        "p_value", pl.col("p_adjusted").alias("p (Bonferroni)"))
    finding, words = turn_order_finding(run, win_matrix, rates)
    if words:
        text_lines.append(f"In the summary: {words}")
    return Section("Win rate by seat", "\n\n".join(text_lines),
                   [("Win rate by turn-order position, 95% intervals over games", table),
                    ("Per-game seat edges by position (win minus the game's mean win)", edge_table)],
                   [Plot("seat_win_rates", figure, "Left: win rate by turn-order position with 95% intervals over "
                         f"games; dashed line: {fair_label}. Right: each position's edge (win minus "
                         "the game's mean win) with simultaneous 95% intervals, on an axis scaled to the differences.")],
                   findings=finding)


def turn_order_finding(run: Run, win_matrix: np.ndarray, rates: pl.DataFrame) -> tuple[list[Finding], str]:
    """The turn-order finding of the summary, from the fairness verdict of analysis.fairness (every
    position's per-game edge, Bonferroni over the positions, simultaneous intervals; "fair" only
    within the seat margin, SEAT_MARGIN, by two one-sided tests). Nothing when nothing was shown:
    no edge and no equivalence is not a finding. Returns (findings, the same words for the section)."""
    from analysis.fairness import seat_family

    games, positions = win_matrix.shape
    if games < 2 or positions < 2:
        return [], ""
    if not run.manifest.get("rotate", True) and len(set(run.lineup)) > 1:
        # each position kept its policy: a position's edge is its policy's strength as much as its turn
        sentence = ("Seats did not rotate and the line-up mixes policies, so turn order cannot be told apart "
                    "from the policies' strength: no turn-order finding (rotate seats to measure it).")
        return [Finding(sentence, 85.0)], sentence
    edges = win_matrix - win_matrix.mean(axis=1, keepdims=True)
    values = pl.DataFrame({"game": np.repeat(np.arange(games), positions),
                           "key": [ordinal(p) for p in range(positions)] * games,
                           "value": edges.reshape(-1)})
    family = seat_family([values], margin=SEAT_MARGIN)
    by_position = {r["position"]: r for r in rates.iter_rows(named=True)}
    flagged = family.filter(pl.col("significant"))
    if flagged.height:
        worst = flagged.sort(pl.col("edge").abs(), descending=True).row(0, named=True)
        key = worst["key"]
        others = [r["win_rate"] for p, r in by_position.items() if p != key]
        scale = positions / (positions - 1)   # a position's edge over the game's mean -> its gap to the others
        gap, low, high = (scale * worst[c] for c in ("edge", "low", "high"))
        side = "ahead" if gap > 0 else "behind"
        if gap < 0:
            low, high = -high, -low
        sentence = (f"Turn order matters: the {key} player wins {pct(by_position[key]['win_rate'])}, the others "
                    f"{pct(float(np.mean(others)))} ({points(abs(gap))} {side}, 95% CI "
                    f"{interval_text(low, high, unit=' points', scale=100)}).")
        found = [Finding(sentence, 90.0)]
        if len(set(run.lineup)) > 1:
            found.append(Finding("This line-up mixes skill levels: check the skill ladder "
                                 f"(`skyline-lab ladder {run.game_id}`) before acting on seat findings.", 89.0))
        return found, sentence
    if bool(family["equivalent"].all()):
        sentence = (f"Turn order is fair within ±{points(SEAT_MARGIN)}: every position's win rate is shown to "
                    f"lie within {points(SEAT_MARGIN)} of the average seat's over {count_of(games, 'game')}.")
        return [Finding(sentence, 40.0)], sentence
    return [], ""


# --- numbers as a designer reads them ----------------------------------------------------

def points(gap: float) -> str:
    """A difference of two rates in percentage points: 0.026 -> '2.6 points'."""
    return f"{abs(100 * gap):.1f} points" if abs(100 * gap) != 1 else "1 point"


def count_of(n: int, word: str) -> str:
    """'1 game', '2 games', '1,000 games'."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def policy_win_rates(run: Run) -> Section:
    n_players = run.n_players
    rates = stats.win_rates(players_with_winners(run), "policy")
    games = run.scan("games").select("n_winners").collect()["n_winners"]
    winners = float(games.mean()) if games.len() else 1.0
    fair = winners / n_players   # the average seat's win rate: shared wins count for each sharer
    lines = [f"Each policy's rate is per player-game (a policy in two seats plays two player-games "
             f"per game), so the fair share is still the average seat's: mean winners per game / {n_players} = "
             f"{pct(fair)}. Its interval runs over "
             "games, not player-games: a policy's seats in one game are not independent.", ""]
    for row in rates.iter_rows(named=True):
        lines.append(f"- **{row['policy']}**: win rate {rate_with_interval(row['win_rate'], row['win_low'], row['win_high'])}, "
                     f"win share {rate_with_interval(row['share_rate'], row['share_low'], row['share_high'])} "
                     f"over {count_of(row['player_games'], 'player-game')} "
                     f"in {count_of(row['games'], 'game')} ({row['interval']})")
    figure = plots.rate_chart(
        rates["policy"].to_list(), rates["win_rate"], rates["win_low"], rates["win_high"],
        title="Win rate by policy", ylabel="win rate (shared wins count)",
        reference=fair, reference_label=f"fair share {winners:.3g} winners / {n_players}",
    )
    table = pl.DataFrame({"policy": rates["policy"]}).hstack(_win_rate_columns(rates))
    # a finding only where a policy's interval (over games) leaves the average seat's rate
    apart = [r for r in rates.sort("win_rate", descending=True).iter_rows(named=True)
             if math.isfinite(r["win_low"]) and (r["win_low"] > fair or r["win_high"] < fair)]
    findings = []
    if apart:
        described = [f"{r['policy']} wins {pct(r['win_rate'])} of its seats "
                     f"(95% CI {interval_text(r['win_low'], r['win_high'], clip=(0, 1))})"
                     for r in ([apart[0], apart[-1]] if len(apart) > 1 else apart)]
        findings.append(Finding(f"Policies differ: {'; '.join(described)}, against an average seat's "
                                f"{pct(fair)}.", 70.0))
    return Section("Win rate by policy", "\n".join(lines),
                   [("Win rate by policy, 95% intervals over games", table)],
                   [Plot("policy_win_rates", figure, "Win rate by policy with 95% intervals over games; "
                         f"dashed line: fair share (mean winners per game / {n_players}).")], findings=findings)


def _win_rate_columns(rates: pl.DataFrame) -> pl.DataFrame:
    return rates.select(
        pl.col("player_games").alias("player-games"), "games", "wins",
        pl.col("win_rate").alias("win rate"), pl.col("win_low").alias("95% low"),
        pl.col("win_high").alias("95% high"),
        pl.col("share_rate").alias("win share"), pl.col("share_low").alias("share 95% low"),
        pl.col("share_high").alias("share 95% high"), "interval",
    )


def score_distribution(run: Run) -> Section:
    players = scan_players(run)
    summary = stats.mean_table(players, "policy", "score", quantiles=QUANTILES)
    # The interval runs over games (a policy's seats in one game are not independent).
    by_game = stats.game_unit_rates(players, "policy", "score")
    summary = summary.with_columns(by_game["low"].alias("low"), by_game["high"].alias("high"))
    counts = stats.aggregate_by_units(players, ["policy", "score"], {"count": (pl.len(), "sum")})
    # One set of edges for all policies, so the outlines are comparable.
    edges = stats.integer_bin_edges(counts["score"].min(), counts["score"].max())
    series = {}
    for policy in summary["policy"].to_list():
        policy_counts = counts.filter(pl.col("policy") == policy)
        series[policy] = stats.histogram(policy_counts["score"].to_numpy(), edges,
                                         weights=policy_counts["count"].to_numpy())
    figure = plots.histogram_steps(series, title="Final score by policy", xlabel="final score")
    table = _rename_summary(summary)
    return Section("Score distribution by policy",
                   "Mean final score per policy with a 95% interval over games (cluster-robust by game), "
                   "and its quantiles over player-games.",
                   [("Final score by policy", table)],
                   [Plot("score_distribution", figure, "Final score by policy (share of player-games per score).")])


def victory_margins(run: Run) -> Section:
    games = run.scan("games")
    single = games.filter(pl.col("n_winners") == 1)
    # A constant label makes the whole column one group of mean_table.
    summary = stats.mean_table(single.with_columns(pl.lit("single winner").alias("games")), "games",
                               "margin", quantiles=QUANTILES)
    counts = single.group_by("margin").agg(pl.len().alias("count")).sort("margin").collect()
    if counts.height:
        hist = stats.value_counts_histogram(counts, "margin")
        figure = plots.histogram_steps({"margin": hist}, title="Victory margin", xlabel="winner's points "
                                       "minus the best other score")
        plot_list = [Plot("victory_margin", figure, "Victory margin in games with a single winner.")]
    else:
        plot_list = []
    zero = counts.filter(pl.col("margin") == 0)["count"].sum()
    total = counts["count"].sum()
    text = (f"Winner's points minus the best other score, over the {count_of(total, 'game')} with a single winner "
            f"(shared wins have margin 0 by definition and are left out). "
            f"{zero:,} of them were won level on points (margin 0), through a tie-break.")
    return Section("Victory margin", text, [("Victory margin", _rename_summary(summary))], plot_list)


def ties_and_shared_wins(run: Run) -> Section:
    games = run.scan("games")
    flags = games.with_columns(
        (pl.col("n_winners") > 1).cast(pl.Int8).alias("shared win"),
        pl.lit("all games").alias("games"),
    )
    rows = [("shared win (several winners)", "shared win")]
    # A game with a tie-break declares its columns (GameSpec.tie_break; Skyline 3000 does).
    tie_break = _tie_break(run)
    if tie_break is not None:
        rows.append(("top score level on points", tie_break.level_on_points))
        rows.append(("winner decided by tie-break", tie_break.decided))
    tables = []
    for label, column in rows:
        table = stats.proportion_table(flags, "games", column)
        tables.append(table.select(pl.lit(label).alias("event"), pl.col("n").alias("games"), "count",
                                   "rate", pl.col("low").alias("95% low"), pl.col("high").alias("95% high")))
    winners = games.group_by("n_winners").agg(pl.len().alias("games")).sort("n_winners").collect()
    return Section("Ties and shared wins", "Rates over all games, with 95% Wilson intervals.",
                   [("Tie and shared-win rates", pl.concat(tables, how="vertical_relaxed")),
                    ("Games by number of winners", winners.with_columns(pl.col("n_winners").cast(pl.Int64)))])


def game_length_and_stalls(run: Run) -> Section:
    games = run.scan("games").with_columns(pl.lit("all games").alias("games"))  # one group: all games
    length = stats.mean_table(games, "games", "decisions", quantiles=QUANTILES)
    stalls = stats.proportion_table(games, "games", "stalled")
    stall = stalls.row(0, named=True)
    counts = games.group_by("decisions").agg(pl.len().alias("count")).collect()
    figure = plots.histogram_steps({"decisions": stats.value_counts_histogram(counts, "decisions")},
                                   title="Game length", xlabel="decisions per game")
    text = (f"Stall rate (the turn cap ended the game): {pct(stall['rate'])} "
            f"(95% Wilson {interval_text(stall['low'], stall['high'], clip=(0, 1))}), "
            f"{int(stall['count']):,} of {count_of(stall['n'], 'game')}. "
            "Stalled games stay in every other figure.")
    findings = []
    if stall["count"] > 0:  # a stall rate of 0 is no finding
        findings.append(Finding(f"{pct(stall['rate'])} of games stalled: the turn cap ended them "
                                f"({count_of(int(stall['count']), 'game')} of {stall['n']:,}, 95% CI "
                                f"{interval_text(stall['low'], stall['high'], clip=(0, 1))}).", 60.0))
    return Section("Game length and stalls", text,
                   [("Decisions per game", _rename_summary(length)),
                    ("Stall rate", stalls.select(pl.col("n").alias("games"), pl.col("count").alias("stalled"),
                                                 "rate", pl.col("low").alias("95% low"),
                                                 pl.col("high").alias("95% high")))],
                   [Plot("game_length", figure, "Decisions per game.")], findings=findings)


def _rename_summary(summary: pl.DataFrame) -> pl.DataFrame:
    """mean_table output with report-friendly column names."""
    return summary.rename({"n": "count", "low": "95% low", "high": "95% high"})


# --- the game's own sections ------------------------------------------------------------

def _tie_break(run: Run):
    """The game's declared tie-break columns (None: no tie-break, or the game is not registered)."""
    spec = game_spec(run.game_id)
    return spec.tie_break if spec is not None else None


def game_sections(run: Run) -> list[Section]:
    module = game_module(run.game_id)
    if module is None or not hasattr(module, "sections"):
        return [Section("Game-specific sections",
                        f"Skipped: no report module `{game_module_name(run.game_id)}` for {run.game_id}.")]
    return list(module.sections(run))


# --- writing ---------------------------------------------------------------------------

def write_report(run: Run, sections: list[Section]) -> Path:
    """Write report.md, report.html and figures/*.png under run.report_dir.
    report.html is one self-contained file (figures embedded) that can be mailed."""
    report_dir = run.report_dir
    figures_dir = report_dir / "figures"
    figures_dir.mkdir(parents=True, exist_ok=True)
    for old in figures_dir.glob("*.png"):  # a rebuilt report must not show stale figures
        old.unlink()

    names = [plot.name for section in sections for plot in section.plots]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        raise ValueError(f"plot names must be unique within a report: {sorted(duplicates)}")
    for section in sections:
        for plot in section.plots:
            save_png(plot.figure, figures_dir / f"{plot.name}.png")

    title = f"{run.manifest.get('title', run.game_id)} run report: {run.manifest.get('run', run.path.name)}"
    sections = [summary_of_findings(run, sections), *sections]
    markdown_path = report_dir / "report.md"
    markdown_path.write_text(render_markdown(title, sections))
    (report_dir / "report.html").write_text(render_html(title, sections, figures_dir=figures_dir))
    return markdown_path


FIGURE_DPI = 110


def save_png(figure, path: Path, dpi: int = FIGURE_DPI) -> None:
    """A figure's PNG in ONE draw. `savefig` draws a figure that has a layout engine twice (a hidden
    draw to run the constrained layout, then the real one); the Agg canvas's print_png runs the layout
    inside its single draw. The same pixels (checked on every figure of a Skyline 3000 report), 28%
    less figure time."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure.set_dpi(dpi)
    FigureCanvasAgg(figure).print_png(path)


SUMMARY_TITLE = "Summary of findings"
MAX_SUMMARY_SENTENCES = 5
HOW_TO_READ = ("> **How to read.** Percentages are win rates or shares of games; positions count from 1st "
               "(the 1st player moves first); a gap is in percentage points. Every range is a 95% "
               "interval over games. A finding is listed only where a test found it; \"fair\" only where "
               "every seat was shown within a margin. Each section names its test and the evidence behind "
               "every sentence here; *How to read this report* lists the methods.")


def summary_of_findings(run: Run, sections: list[Section]) -> Section:
    """At most MAX_SUMMARY_SENTENCES plain sentences, built from the sections' computed findings
    (Section.findings, structured; never picked out of section text): what was played and by whom
    first, then the findings by importance. No test name or p-value (a short box says where they are)."""
    manifest = run.manifest
    variant = (manifest.get("variant") or {}).get("name", "?")
    n_games = manifest.get("n_games")
    partial = (f" (partial: {n_games:,} were asked for)" if isinstance(n_games, int) and run.games_done < n_games
               else "")
    lines = [f"{count_of(run.games_done, 'game')} of {manifest.get('title', run.game_id)} (variant {variant}, "
             f"{count_of(run.n_players, 'player')}){partial}, played by {_players_in_short(run)}: every number "
             "below comes from their play."]
    findings = sorted((f for section in sections for f in section.findings), key=lambda f: -f.importance)
    lines += [f.sentence for f in findings[:MAX_SUMMARY_SENTENCES - 1]]
    if not findings:
        lines.append("No test found an effect at this number of games (which does not show that the game is "
                     "balanced: the sections say how large an effect could still be).")
    return Section(SUMMARY_TITLE, "\n\n".join(lines + [HOW_TO_READ]))


def slug(title: str) -> str:
    """The anchor of a section heading (GitHub's rule for plain titles)."""
    text = re.sub(r"[^\w\- ]", "", title.lower()).strip()
    return re.sub(r" ", "-", text) or "section"


def _anchors(sections: list[Section]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for section in sections:
        base = slug(section.title)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.append(base if count == 0 else f"{base}-{count}")
    return out


def render_markdown(title: str, sections: list[Section]) -> str:
    parts = [f"# {title}", ""]
    anchors = _anchors(sections)
    for i, (section, anchor) in enumerate(zip(sections, anchors)):
        parts += [f"## {section.title}", ""]
        if section.text:
            parts += [section.text, ""]
        for caption, table in section.tables:
            parts += [f"*{caption}*", "", markdown_table(table), ""]
        for plot in section.plots:
            parts += [f"![{plot.caption}](figures/{plot.name}.png)", "", f"*{plot.caption}*", ""]
        if i == 0 and section.title == SUMMARY_TITLE and len(sections) > 1:  # contents after the summary
            parts += ["## Contents", ""]
            parts += [f"- [{s.title}](#{a})" for s, a in zip(sections[1:], anchors[1:])]
            parts += [""]
    return "\n".join(parts)


def markdown_table(table: pl.DataFrame) -> str:
    headers, rows, numeric = table_cells(table)
    header = "| " + " | ".join(_escape_cell(c) for c in headers) + " |"
    rule = "| " + " | ".join("---:" if is_num else "---" for is_num in numeric) + " |"
    lines = ["| " + " | ".join(_escape_cell(cell) for cell in row) + " |" for row in rows]
    return "\n".join([header, rule, *lines])


def table_cells(table: pl.DataFrame) -> tuple[list[str], list[list[str]], list[bool]]:
    """What a reader sees of a table, in report.md and report.html (which joins each interval's bounds,
    merge_intervals): plain headers
    (plain_header), rates and shares and their interval bounds as percentages (percent_columns),
    differences of rates (a seat's edge) and their bounds in percentage points (points_columns),
    other numbers by format_value; and which columns are numbers (right-aligned)."""
    numeric = [table[c].dtype.is_numeric() for c in table.columns]
    table = tidy_table(table)
    percent, points = percent_columns(table), points_columns(table)
    rows = [[(percent_cell(c, v) if c in percent else points_cell(c, v) if c in points else cell_text(c, v))
             for c, v in zip(table.columns, row)]
            for row in table.iter_rows()]
    return plain_headers(table.columns), rows, numeric


def _escape_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


HTML_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
.table-box { max-width: 100%; overflow-x: auto; margin: 0.5rem 0 1.5rem; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; overflow-wrap: normal; word-break: normal; }
th { white-space: normal; vertical-align: bottom; }   /* a header wraps between its words, never inside one */
td { min-width: 4rem; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
pre, code { white-space: pre-wrap; overflow-wrap: anywhere; }
blockquote { margin: 1rem 0; padding: 0.5rem 1rem; background: #f6f8fa; border-left: 4px solid #9ab; }
section#summary-of-findings p { font-size: 1.05rem; }
caption { caption-side: top; text-align: left; font-style: italic; padding-bottom: 0.3rem; }
figure { margin: 1rem 0 2rem; }
figure img { max-width: 100%; }
figcaption { font-style: italic; color: #555; }
code { background: #f5f5f5; padding: 0 0.2rem; }
"""


def render_html(title: str, sections: list[Section], figures_dir: Path | None = None) -> str:
    """One HTML file. Every piece of user text (titles, labels, variant names,
    an experiment's question) is escaped; section text is Markdown rendered
    with raw HTML disabled. With `figures_dir`, each figure is embedded as a
    base64 data URI, so the file stands alone (it can be mailed)."""
    anchors = _anchors(sections)
    body = [f"<h1>{html.escape(title)}</h1>"]
    for i, (section, anchor) in enumerate(zip(sections, anchors)):
        body.append(f'<section id="{html.escape(anchor)}">\n<h2>{html.escape(section.title)}</h2>')
        if section.text:
            body.append(markdown_to_html(section.text))
        for caption, table in section.tables:
            body.append(html_table(caption, table))
        for plot in section.plots:
            body.append(f'<figure><img src="{_figure_src(plot.name, figures_dir)}" alt="{html.escape(plot.caption)}">'
                        f"<figcaption>{html.escape(plot.caption)}</figcaption></figure>")
        body.append("</section>")
        if i == 0 and section.title == SUMMARY_TITLE and len(sections) > 1:
            items = "".join(f'<li><a href="#{html.escape(a)}">{html.escape(s.title)}</a></li>'
                            for s, a in zip(sections[1:], anchors[1:]))
            body.append(f'<nav id="contents">\n<h2>Contents</h2>\n<ol>{items}</ol>\n</nav>')
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{HTML_STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _figure_src(name: str, figures_dir: Path | None) -> str:
    path = figures_dir / f"{name}.png" if figures_dir is not None else None
    if path is not None and path.is_file():
        return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
    return html.escape(f"figures/{name}.png", quote=True)


def html_table(caption: str, table: pl.DataFrame) -> str:
    """A table in a box that scrolls sideways when it is wider than the page (the page never does);
    numbers never wrap, words wrap between words only."""
    headers, cell_rows, numeric = merge_intervals(*table_cells(table))
    head = "".join(f"<th>{html.escape(c)}</th>" for c in headers)
    rows = []
    for row in cell_rows:
        cells = "".join(f'<td class="num">{html.escape(cell)}</td>' if is_num else f"<td>{html.escape(cell)}</td>"
                        for cell, is_num in zip(row, numeric))
        rows.append(f"<tr>{cells}</tr>")
    return (f'<div class="table-box">\n<table>\n<caption>{html.escape(caption)}</caption>\n'
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>\n</div>")


def merge_intervals(headers: list[str], rows: list[list[str]], numeric: list[bool]
                    ) -> tuple[list[str], list[list[str]], list[bool]]:
    """For the page: each pair of bound columns ('95% low', '95% high'; 'share 95% low', 'share 95% high';
    'low', 'high') shown as one interval column ('95% interval': '16.5-25.6%', '-7.51 to -1.38'), so a
    table of rates fits a 1,280 px window (a seat table was 1,122 px in a 1,120 px page; the Card use
    table 3,066 px). report.md keeps the two columns (a table to read back by program)."""
    out_headers, out_numeric, pairs = [], [], []
    k = 0
    while k < len(headers):
        low = re.fullmatch(r"(.*?)(95% )?low", headers[k])
        if low and k + 1 < len(headers) and headers[k + 1] == f"{low.group(1)}{low.group(2) or ''}high":
            words = f"{low.group(1)}{low.group(2) or '95% '}".strip()
            out_headers.append(f"{words} interval")
            out_numeric.append(True)
            pairs.append((k, k + 1))
            k += 2
        else:
            out_headers.append(headers[k])
            out_numeric.append(numeric[k])
            pairs.append((k,))
            k += 1
    if len(pairs) == len(headers):
        return headers, rows, numeric
    return out_headers, [[_interval_cell(row[p[0]], row[p[1]]) if len(p) == 2 else row[p[0]] for p in pairs]
                         for row in rows], out_numeric


def _interval_cell(low: str, high: str) -> str:
    """'16.5%', '25.6%' -> '16.5-25.6%'; '-9.1 points', '+0.5 points' -> '-9.1 to +0.5 points';
    '-7.5097', '-1.3766' -> '-7.5097 to -1.3766'; undefined: 'too few games'."""
    if "too few games" in (low, high):
        return "too few games"
    if not low and not high:
        return ""
    if low.endswith("%") and high.endswith("%"):
        return f"{low[:-1]}-{high}"
    if low.endswith(" points") and high.endswith(" points"):
        return f"{low.removesuffix(' points')} to {high}"
    if low.startswith("-") or high.startswith("-"):
        return f"{low} to {high}"
    return f"{low}-{high}"


def markdown_to_html(text: str) -> str:
    """Section text is a little Markdown (paragraphs, lists, bold, code)."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:  # plain paragraphs are still readable
        return "\n".join(f"<p>{html.escape(p)}</p>" for p in text.split("\n\n"))
    # html=False: a `<script>` in a label or an experiment's question is shown, never run
    return MarkdownIt("commonmark", {"html": False}).render(text)


def format_value(value) -> str:
    """Numbers as a designer reads them: integers with thousands separators,
    whole floats (counts, quantiles of integer scores) without decimals,
    rates and intervals to 4 decimals, tiny values in scientific notation."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        if abs(value) < NOISE:  # float noise (5.55e-17 where 0 is meant), and -0.0
            return "0"
        if value.is_integer() and abs(value) < 1e15:  # counts and quantiles of whole numbers
            return f"{int(value):,}"
        if abs(value) >= 1000:
            return f"{value:,.1f}"
        if abs(value) < 1e-3:
            return f"{value:.2e}"
        return f"{value:.4f}"
    return str(value)


NOISE = 1e-14   # below this a float is rounding noise (p-values of 1e-13 stay)


def _is_bound(column: str) -> bool:
    return bool(re.search(r"(^|[ _])(low|high)$", column))


def cell_text(column: str, value) -> str:
    """format_value, with an interval bound that is undefined (NaN: fewer than 2 games, or nothing
    varied) shown as 'too few games', never 'nan' or 'n/a'."""
    if _is_bound(column) and isinstance(value, float) and math.isnan(value):
        return "too few games"
    return format_value(value)


def _estimate_of(columns: list[str], k: int) -> str | None:
    """The estimate bound `columns[k]` belongs to: the nearest column before it named like it
    (`played 95% low` -> `played share`, `win_low` -> `win_rate`), else the nearest column before it
    that is not a bound (`mean | low | high`)."""
    prefix = re.sub(r"[ _]*(95% )?(simultaneous )?(low|high)$", "", columns[k]).strip()
    before = [c for c in reversed(columns[:k]) if not _is_bound(c)]
    named = [c for c in before if prefix and c.startswith(prefix)]
    return (named or before or [None])[0]


def tidy_table(table: pl.DataFrame) -> pl.DataFrame:
    """Interval bounds of a share or a rate clipped to [0, 1] (a t or cluster-robust interval of a share
    near 0 printed -2.47e-05). A bound is clipped when its estimate (_estimate_of) is a rate or a share
    staying inside [0, 1]; other bounds (means, edges, differences, money) are left as they are, also
    in a table that holds shares beside them (a Cityline roof table's mean of 2.1 buildings was
    printed with the interval 1-1)."""
    clip = []
    for k, c in enumerate(table.columns):
        if not _is_bound(c) or not table[c].dtype.is_float():
            continue
        estimate = _estimate_of(table.columns, k)
        if (estimate is not None and re.search(r"(rate|share)", estimate) and table[estimate].dtype.is_float()
                and table[estimate].drop_nans().drop_nulls().is_between(0, 1).all()):
            clip.append(c)
    return table.with_columns(pl.col(c).clip(0.0, 1.0) for c in clip) if clip else table


def is_rate_name(column: str) -> bool:
    """A column named as a rate or a share ('win rate', 'share_rate', 'hit_rate', "Key Player's share",
    'played share', 'win rate when entered'), not a count of shares ('win_shares')."""
    return bool(re.search(r"(^|[ _'])(rate|share)($|[ _])", column))


def _estimates_and_bounds(table: pl.DataFrame, named, low: float, high: float) -> set[str]:
    """The float columns `named` says are of one kind whose values all lie in [low, high], and the
    interval bounds that belong to them (_estimate_of)."""
    estimates = {c for c in table.columns
                 if named(c) and table[c].dtype.is_float()
                 and table[c].drop_nans().drop_nulls().is_between(low, high).all()}
    bounds = {c for k, c in enumerate(table.columns)
              if _is_bound(c) and table[c].dtype.is_float() and _estimate_of(table.columns, k) in estimates}
    return estimates | bounds


def percent_columns(table: pl.DataFrame) -> set[str]:
    """The columns printed as percentages: a float column named as a rate or a share whose values all
    lie in [0, 1], and the interval bounds that belong to it (_estimate_of). Means, counts, money,
    edges, coefficients and p-values keep their own numbers."""
    return _estimates_and_bounds(table, is_rate_name, 0, 1)


def is_edge_name(column: str) -> bool:
    """A column named as a seat's edge, a difference of win rates ('mean edge', 'edge')."""
    return bool(re.search(r"(^|[ _])edge$", column))


def points_columns(table: pl.DataFrame) -> set[str]:
    """The columns printed in percentage points (points_cell): a float column named as an edge
    (is_edge_name) whose values all lie in [-1, 1], a difference of two rates, and the interval bounds
    that belong to it (_estimate_of). An edge of a score, leaving [-1, 1], keeps its number."""
    return _estimates_and_bounds(table, is_edge_name, -1, 1)


def points_cell(column: str, value) -> str:
    """A difference of two rates in a table in percentage points, signed: -0.0433 -> '-4.3 points',
    0.0267 -> '+2.7 points', below 0.05 point '0.0 points'; an undefined bound is 'too few games'."""
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return cell_text(column, value)
    points = 100 * float(value)
    return "0.0 points" if abs(points) < 0.05 else f"{points:+.1f} points"


def percent_cell(column: str, value) -> str:
    """A rate or share in a table as a percentage: 0.2135 -> '21.4%', 0 -> '0%', 1 -> '100%', a rate below
    0.1% with two significant digits ('0.042%'); an undefined bound is 'too few games'."""
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return cell_text(column, value)
    percent = 100 * float(value)
    if abs(percent) < 100 * NOISE:
        return "0%"
    if percent == 100:
        return "100%"
    if abs(percent) < 0.1:
        return f"{percent:.2g}%"
    return f"{percent:.1f}%"


# snake_case column names of the game sections, as a designer reads them (a bound keeps its estimate's
# word and says that it is a 95% interval, as the generic tables do)
PLAIN_HEADERS = {
    "player_games": "player-games", "win_rate": "win rate", "win_low": "95% low", "win_high": "95% high",
    "win_shares": "wins (ties split)", "share_rate": "win share", "share_low": "share 95% low",
    "share_high": "share 95% high", "p_value": "p-value", "n_winners": "winners",
    "per_player_game": "per player-game",
}


def plain_header(column: str) -> str:
    """'win_rate' -> 'win rate', 'hit_low' -> 'hit 95% low', 'dead_roofs low' -> 'dead roofs 95% low';
    a header without an underscore is left as it is (a policy's label, '95% low', 'q50')."""
    if column in PLAIN_HEADERS:
        return PLAIN_HEADERS[column]
    if "_" not in column and not re.search(r"(?<!95%) (low|high)$", column):
        return column
    text = column.replace("_", " ")
    return re.sub(r"(?<!95%) (low|high)$", r" 95% \1", text)


def plain_headers(columns: list[str]) -> list[str]:
    """plain_header of every column; a column whose plain header another column already has keeps its
    own name (a table never shows two columns under one header)."""
    out: list[str] = []
    for column in columns:
        header = plain_header(column)
        out.append(header if header not in out and header not in columns[len(out) + 1:] else column)
    return out


def _format_count(count) -> str:
    return f"{count:,}" if isinstance(count, int) else ("?" if count is None else str(count))


def _format_seconds(seconds) -> str:
    if seconds is None:
        return "?"
    return f"{seconds:,.1f} s" if seconds < 120 else f"{seconds / 60:,.1f} min"


def _flatten(values: dict, prefix: str = ""):
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _flatten(value, name + ".")
        else:
            yield name, value


def _format_variant_value(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)

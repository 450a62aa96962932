"""`skyline-lab ladder GAME`: play a game's skill ladder and report it.

The rungs are the game's declaration (GameSpec.ladder, weakest first: random, greedy,
heuristic, search at two budgets ...). The command plays

  * the rating tables: every combination of P distinct rungs at a P-seat table (rungs with
    repeats when there are fewer rungs than seats), `games` games each, seats rotating so each
    rung sits in each seat equally often; all tables share the run seed (common random numbers);
  * the findings runs: each rung in self-play (every seat the rung), `findings_games` games,
    for the balance figures per rung (seat edges in turn order and the game's own headline
    figures, analysis/<game>.py LADDER_FINDINGS);

each as an ordinary resumable run folder under the ladder folder (an interrupted ladder resumes
where it stopped), then fits the ratings (analysis.ladder) and writes ladder.md, ladder.png
and the tables as Parquet. A missing or unfinished run is an error, never a smaller ladder.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from analysis.ladder import (TableGames, concat_findings, declared_margins, fit_ladder, is_strong, ladder_verdicts,
                             rung_findings, strong_policies)
from analysis.metrics import RunData, get_metric
from analysis.run import Run
from analysis.plugins import game_module
from engines.core.lineup import parse_policy
from engines.registry import get_game
from experiments.runner import DifferentRunError, RunError, rules_text, run_batch
from experiments.user_presets import with_user_presets

DEFAULT_FINDINGS = ("seat_edge",)
MAX_LADDER_GAMES = 100_000_000
# what a ladder folder holds: nothing else in a folder is ours to write over
LADDER_FILES = {"tables", "self_play", "ladder.md", "ladder.png", "ratings.parquet", "steps.parquet",
                "findings.parquet", "verdicts.parquet"}


@dataclass(frozen=True)
class LadderPlan:
    game: str
    players: int
    rungs: tuple[str, ...]
    tables: tuple[tuple[str, ...], ...]
    games: int                 # per rating table
    findings_games: int        # per rung in self-play (0: no findings)
    seed: int = 0
    variant: str | None = None
    findings: tuple[str, ...] = field(default=DEFAULT_FINDINGS)
    margins: tuple[tuple[str, float], ...] = ()   # equivalence margins overriding the metrics' own
    overrides: tuple[tuple[str, object], ...] = ()   # rule changes on top of the variant (--set), sorted

    def rules(self) -> str:
        """The rules the ladder plays, in words: the variant and the changes on top of it."""
        return rules_text(self.variant, self.overrides)

    def why_enough(self, pair_games: int, half: float | None = None) -> str:
        """What the game counts buy: the widest measured 95% half-width of an adjacent head-to-head share
        (clustered by game index: the tables share their deals, so games at different tables are not
        independent); without it the independent-games bound, said to be a lower bound."""
        if half is None or math.isnan(half):
            half = 1.96 * 0.5 / math.sqrt(max(pair_games, 1))
            how = "at best: games at different tables share their deals, so the real interval is wider"
        else:
            how = "the widest adjacent interval, clustered by game index (every table plays game g on one deal)"
        return (f"{self.games:,} games per table; two adjacent rungs meet in {pair_games:,} games, so a "
                f"head-to-head share is known to within ±{half:.3f} (95%, {how}): "
                "enough to separate rungs whose head-to-head share differs from 1/2 by more than that; the "
                "ratings' own bootstrap intervals below say how far each rating is pinned down")


def ladder_tables(rungs: tuple[str, ...], players: int) -> tuple[tuple[str, ...], ...]:
    if len(rungs) >= players:
        return tuple(itertools.combinations(rungs, players))
    return tuple(itertools.combinations_with_replacement(rungs, players))


def tables_how(plan: "LadderPlan") -> str:
    """How the rating tables were drawn (ladder_tables), in words."""
    if len(plan.rungs) >= plan.players:
        return f"every {plan.players} of the {len(plan.rungs)} rungs"
    return f"every way to fill {plan.players} seats from the {len(plan.rungs)} rungs, repeats allowed"


def default_findings(game: str) -> tuple[str, ...]:
    """The figures reported per rung: seat edges in turn order plus the game's own headline
    figures (LADDER_FINDINGS in analysis/<game>.py); an experiment's [ladder] uses them too."""
    module = game_module(game)
    return tuple(DEFAULT_FINDINGS) + tuple(getattr(module, "LADDER_FINDINGS", ()) if module else ())


def plan_ladder(game: str, *, games: int | None = None, findings_games: int | None = None,
                players: int | None = None, rungs: list[str] | None = None, seed: int = 0,
                variant: str | None = None, margins: dict[str, float] | None = None,
                overrides: dict | None = None) -> LadderPlan:
    try:
        spec = with_user_presets(get_game(game))
    except KeyError as exc:
        raise RunError(exc.args[0]) from None
    # the rules first: a bad variant or --set is refused (VariantError: the key and the reason)
    # before any game, and a variant made for a number of players sets the tables' size
    variant_players = spec.variants.load(variant, overrides or {}).values.get("players")
    # every count is checked before any game (0 used to mean "the default" and played 160 games)
    if games is not None and not 1 <= games <= MAX_LADDER_GAMES:
        raise RunError(f"--games must be between 1 and {MAX_LADDER_GAMES:,} games per table, not {games}")
    if findings_games is not None and not 0 <= findings_games <= MAX_LADDER_GAMES:
        raise RunError(f"--findings-games must be between 0 (no findings) and {MAX_LADDER_GAMES:,}, not {findings_games}")
    if not 0 <= seed < 2**63:
        raise RunError(f"--seed must be between 0 and 2**63-1, not {seed}")
    if players is not None and not max(2, spec.min_players) <= players <= spec.max_players:
        raise RunError(f"a {spec.title} ladder needs tables of {max(2, spec.min_players)}-{spec.max_players} "
                       f"players, not {players}")
    if rungs is not None and len(rungs) == 1:
        raise RunError(f"a ladder compares rungs: give --rung at least twice (one given: {rungs[0]})")
    # canonical labels (the runner's): "search(iterations=400)" is "search" when 400 is the default
    rungs_t = tuple(parse_policy(spec, r).label for r in (rungs or spec.ladder))
    if len(set(rungs_t)) < len(rungs_t):
        raise RunError(f"the ladder names a rung twice: {', '.join(rungs_t)}")
    if len(rungs_t) < 2:
        raise RunError(f"{game} declares no ladder (GameSpec.ladder); give --rung at least twice")
    p = int(players or variant_players or spec.ladder_players or spec.default_players)
    if p < 2:
        raise RunError("a ladder needs tables of at least 2 players")
    findings = default_findings(game)
    g = int(games or spec.ladder_games)
    g = int(math.ceil(g / p) * p)  # whole rotations: every rung in every seat equally often
    fg = spec.ladder_findings_games if findings_games is None else int(findings_games)
    fg = int(math.ceil(fg / p) * p)
    return LadderPlan(game, p, rungs_t, ladder_tables(rungs_t, p), g, fg, seed, variant, findings,
                      tuple(sorted((margins or {}).items())), tuple(sorted((overrides or {}).items())))


def _chunk(games: int, lineup: tuple[str, ...]) -> int:
    """Small chunks when a search seat plays (slow games: progress and resume stay fine-grained)."""
    if any(is_strong(r) for r in lineup):
        return max(1, min(games, 8))
    return max(1, min(games, 250))


def run_ladder(plan: LadderPlan, out: Path, workers: int = 1, progress: bool = True) -> "LadderResult":
    out = Path(out)
    if workers < 1:
        raise RunError(f"workers must be positive, not {workers}")
    if out.exists() and not out.is_dir():
        raise RunError(f"cannot write the ladder to {out}: it is a file")
    if out.is_dir():
        # a file the user knows first (a run folder's manifest.json, not its hidden .lock)
        strange = sorted((p.name for p in out.iterdir() if p.name not in LADDER_FILES),
                         key=lambda name: (name.startswith("."), name))
        if strange:
            raise RunError(f"{out} is not a ladder folder of skyline-lab (it holds {strange[0]}); nothing was "
                           "written: choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    def play(lineup: tuple[str, ...], games: int, seed: int, path: Path) -> Path:
        try:
            run_batch(plan.game, variant=plan.variant, overrides=dict(plan.overrides), players=plan.players,
                      policies=list(lineup), rotate=True, n_games=games, seed=seed, out=path, workers=workers,
                      chunk_size=_chunk(games, lineup), progress=progress)
        except DifferentRunError:   # the ladder has no --fresh: its folder is another ladder's
            raise RunError(f"{out} holds a ladder of other settings ({path.relative_to(out)} was played with "
                           "other rules, rungs (or rung weights), seats or seed); nothing was changed: "
                           "choose another --out") from None
        return path

    table_paths = [play(lineup, plan.games, plan.seed, out / "tables" / f"table{i:02d}")
                   for i, lineup in enumerate(plan.tables)]
    self_paths = []
    if plan.findings_games > 0:
        self_paths = [play((rung,) * plan.players, plan.findings_games, plan.seed + 1,
                           out / "self_play" / f"rung{i:02d}") for i, rung in enumerate(plan.rungs)]
    result = analyse_ladder(plan, table_paths, self_paths)
    result.seconds = time.perf_counter() - t0
    write_ladder(result, out)
    return result


@dataclass
class LadderResult:
    plan: LadderPlan
    ratings: pl.DataFrame
    steps: pl.DataFrame
    ordered: bool
    separated: bool
    games: int
    findings: pl.DataFrame       # analysis.ladder.FINDINGS_SCHEMA: estimates and what the verdict judges
    verdicts: pl.DataFrame       # metric, key, verdict
    seconds: float = 0.0


def _complete(path: Path, want: int) -> Run:
    run = Run.open(path)
    if run.games_done < want:
        raise RunError(f"{path} holds {run.games_done:,} of {want:,} games: run the ladder again to finish it")
    return run


def analyse_ladder(plan: LadderPlan, table_paths: list[Path], self_paths: list[Path]) -> LadderResult:
    tables = []
    for lineup, path in zip(plan.tables, table_paths):
        run = _complete(path, plan.games)
        players = run.scan("players").filter(pl.col("game") < plan.games).select(
            "game", "lineup_slot", "rank").collect()
        tables.append(TableGames(tuple(run.lineup), players))
        if tuple(run.lineup) != tuple(lineup):
            raise RunError(f"{path} holds the line-up {run.lineup}, not {list(lineup)}")
    ladder = fit_ladder(list(plan.rungs), tables, seed=plan.seed)
    frames = []
    for rung, path in zip(plan.rungs, self_paths):
        _complete(path, plan.findings_games)
        data = RunData(path, plan.findings_games)
        for name in plan.findings:
            metric = get_metric(plan.game, name)
            if plan.players < metric.min_players:
                continue
            ref = metric.reference(data) if metric.reference else math.nan
            frames.append(rung_findings(name, metric, metric.compute(data), ref, rung))
    found = concat_findings(frames)
    margins = declared_margins(plan.game, plan.findings, dict(plan.margins))
    verdicts_df = ladder_verdicts(found, list(plan.rungs), margins, strong=strong_policies(plan.game))
    return LadderResult(plan, ladder.ratings, ladder.steps, ladder.ordered, ladder.separated, ladder.games,
                        found.findings, verdicts_df)


LADDER_VERDICTS_METHOD = (
    "Verdicts (analysis.ladder.row_verdict): every rung plays game g on the same seed, so rungs are compared game "
    "by game. An effect is claimed only from a test on the per-game values (exact binomial for a win and a loss, "
    "else t) at 5% family-wise over every rung x "
    "finding of this ladder plus, per finding, the pooled mean over the rungs and the paired weak - strong "
    "contrast (Bonferroni; the search rungs are strong, and the policies the game declares strong). \"Holds at "
    "every rung\": every rung shows it; \"changes sign\": rungs show both signs "
    "(always reported); \"appears only for weak play\": the paired contrast shows it larger at the weak rungs "
    "and every strong rung is shown within the metric's equivalence margin (else \"larger for weak play\", strong "
    "play undetermined); \"no effect\" only inside the margin (TOST at every rung), otherwise \"undetermined at "
    "n games\", with the games that would settle it.")


def _widest_half(steps: pl.DataFrame) -> float:
    if not steps.height:
        return math.nan
    half = ((steps["h2h_high"] - steps["h2h_low"]) / 2).drop_nans().drop_nulls()
    return float(half.max()) if half.len() else math.nan


def _fmt(x: float, digits: int = 3) -> str:
    return "NaN" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:+.{digits}f}"


def ladder_text(result: LadderResult) -> str:
    """The ladder as plain text (the command prints it; ladder.md holds the same)."""
    plan = result.plan
    pair_games = int(result.steps["h2h_games"].min()) if result.steps.height else 0
    lines = [f"# Skill ladder: {plan.game}, {plan.players} players, seed {plan.seed}", "",
             f"Rules: {plan.rules()}.", "",
             f"{len(plan.tables)} rating tables ({tables_how(plan)}), "
             f"{result.games:,} games in all; {plan.why_enough(pair_games, _widest_half(result.steps))}.", "",
             "Rating: Plackett-Luce log-strength on finishing order (choix), centred on the rungs' mean (0); "
             "95% percentile bootstrap intervals over game indices, resampled jointly across tables (every "
             "table plays game g on the same deal).", "",
             "| rung | rating | 95% low | 95% high | games |", "|---|---:|---:|---:|---:|"]
    for r in result.ratings.iter_rows(named=True):
        lines.append(f"| {r['rung']} | {r['rating']:.3f} | {r['low']:.3f} | {r['high']:.3f} | {r['games']:,} |")
    lines += ["", "Adjacent rungs (higher minus lower; head-to-head: share of shared games the higher rung "
              "finished ahead, a tie half, 95% cluster-robust by game index):", "",
              "| lower | higher | rating difference [95%] | head-to-head [95%] (games) | verdict |",
              "|---|---|---|---|---|"]
    for s in result.steps.iter_rows(named=True):
        lines.append(f"| {s['lower']} | {s['higher']} | {s['difference']:.3f} [{s['low']:.3f}, {s['high']:.3f}] | "
                     f"{s['h2h_share']:.3f} [{s['h2h_low']:.3f}, {s['h2h_high']:.3f}] ({s['h2h_games']:,}) | "
                     f"{s['verdict']} |")
    verdict = ("**ordered, adjacent intervals apart**" if result.separated else
               "**ordered** (every adjacent difference above 0), but some adjacent intervals overlap"
               if result.ordered else "**NOT ordered**: see the verdicts above")
    lines += ["", f"Ladder: {verdict}.", ""]
    if result.findings.height:
        lines += [f"## Findings per rung (self-play, {plan.findings_games:,} games per rung)", "",
                  "Each figure from the rung playing every seat, shown as the quantity the verdict judges: "
                  "the figure minus what it is judged against (its fair value, e.g. 0 for a seat edge, or "
                  "the average of the keys, e.g. the average roof type), 95% intervals over games. A finding "
                  "that differs between rungs describes the players, not the game.", "",
                  LADDER_VERDICTS_METHOD, "",
                  "| metric | key | judged against | " + " | ".join(plan.rungs) + " | verdict |",
                  "|---|---|---|" + "---|" * len(plan.rungs) + "---|"]
        for v in result.verdicts.iter_rows(named=True):
            cells, against = [], ""
            for rung in plan.rungs:
                row = result.findings.filter((pl.col("metric") == v["metric"]) & (pl.col("key") == v["key"])
                                             & (pl.col("rung") == rung))
                if row.height:
                    r = row.row(0, named=True)
                    against = r["judged_against"] or against
                    ref = r["effect_reference"]
                    ref = 0.0 if ref is None or math.isnan(ref) else ref   # nothing to judge against: the figure
                    cells.append(f"{_fmt(r['effect'] - ref)} [{_fmt(r['effect_low'] - ref)}, "
                                 f"{_fmt(r['effect_high'] - ref)}]")
                else:
                    cells.append("—")
            lines.append(f"| {v['metric']} | {v['key']} | {against} | " + " | ".join(cells) + f" | {v['verdict']} |")
        lines.append("")
    lines.append(f"Played and fitted in {result.seconds:,.0f} s.")
    return "\n".join(lines)


def write_ladder(result: LadderResult, out: Path) -> Path:
    from analysis import plots

    result.ratings.write_parquet(out / "ratings.parquet")
    result.steps.write_parquet(out / "steps.parquet")
    result.findings.write_parquet(out / "findings.parquet")
    result.verdicts.write_parquet(out / "verdicts.parquet")
    figure, (axes,) = plots.new_figure(1)
    r = result.ratings
    plots.rate_chart(r["rung"].to_list(), r["rating"], r["low"], r["high"],
                     title=f"{result.plan.game}: skill ladder ({result.plan.players} players)",
                     ylabel="Plackett-Luce rating (mean of the rungs = 0)", reference=0.0,
                     reference_label="mean of the rungs",
                     axes=axes, from_zero=False, point_label="rating, 95% bootstrap interval over games")
    figure.savefig(out / "ladder.png", dpi=110, bbox_inches="tight")
    text = ladder_text(result) + "\n\n![ladder](ladder.png)\n"
    path = out / "ladder.md"
    path.write_text(text)
    return path

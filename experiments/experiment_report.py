"""An experiment's report: the question, a one-paragraph answer, the combined
table, plots with intervals, paired differences with adjusted tests, a
balance summary, and which interval and test each number came from.

    results/<experiment>/report.md, report.html, figures/*.png
    results/<experiment>/manifest.json      the file, its digest, every batch and its run folder
    results/<experiment>/estimates.csv      one row per batch, metric and key
    results/<experiment>/comparisons.csv    paired differences (sweeps and comparisons)
    results/<experiment>/balance.csv        largest seat edge and dominance per batch
    results/<experiment>/fairness.csv       the fairness matrix (fairness experiments)
    results/<experiment>/power.csv          games needed per effect ([power])
    results/<experiment>/ladder.csv, .parquet   every figure per rung and its verdict ([ladder])
"""
from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path
from typing import Any

import polars as pl

from analysis import compare as C
from analysis import runfolder
from analysis import fairness as F
from analysis import ladder as L
from analysis import sweep as S
from analysis.report import render_html, render_markdown
from analysis.sections import Plot, Section
from analysis import metrics as M

# This module is the experiment's reporting layer: experiments/experiment.py
# imports it, never the reverse (no import cycle). `result` below is an
# experiments.experiment.ExperimentResult, `experiment` an Experiment and
# `analysis` an Analysis, used only through their attributes.
ExperimentResult = Any


def _num(x: float, ref: float | None = None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    scale = abs(ref) if ref is not None else abs(x)
    return f"{x:.3f}" if scale < 2 else f"{x:.2f}"


def _interval(x: float, low: float, high: float, signed: bool = False) -> str:
    fmt = (lambda v: ("+" if v >= 0 else "") + _num(v, x)) if signed else (lambda v: _num(v, x))
    return f"{fmt(x)} [{fmt(low)}, {fmt(high)}]"


def _p(p: float) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "n/a"
    return f"{p:.1e}" if p < 1e-3 else f"{p:.3f}"


# --- summaries ------------------------------------------------------------------------------

def balance_table(result: "ExperimentResult") -> pl.DataFrame:
    """Per batch: the largest seat edge (simultaneous interval, Bonferroni over every seat of every batch) and,
    for each metric whose keys compete (policies, roof types), whether one dominates."""
    exp, analysis = result.experiment, result.analysis
    # One family for every seat of every batch, as in the fairness matrix: one seat, one adjusted p.
    cells = [i for i in range(len(exp.plans)) if (i, "seat_edge") in analysis.values]
    family = F.seat_family([analysis.values[(i, "seat_edge")] for i in cells], exp.confidence, exp.margin)
    rows = []
    for i, plan in enumerate(exp.plans):
        row = {"batch": plan.label, "players": plan.players}
        if (i, "seat_edge") in analysis.values:
            seats = family.filter(pl.col("cell") == cells.index(i))
            worst = seats.sort(pl.col("edge").abs(), descending=True).row(0, named=True)
            row.update({"largest seat edge": f"{worst['key']} {_interval(worst['edge'], worst['low'], worst['high'], True)}",
                        "edge": worst["edge"], "edge low": worst["low"], "edge high": worst["high"],
                        "seat edge real": bool(worst["significant"]), "p (adjusted)": _p(worst["p_adjusted"])})
            if exp.margin is not None:
                row["fair within margin"] = bool(seats["equivalent"].all())
        notes = []
        for name, metric in M.metrics_for(exp.game).items():
            if not metric.dominance or (i, name) not in analysis.values:
                continue
            est = analysis.estimates.filter((pl.col("plan_index") == i) & (pl.col("metric") == name))
            if est.height < 2:
                continue
            ranked = est.sort("estimate", descending=True)
            top = ranked.row(0, named=True)
            spread = f"; spread of the means {_num(top['estimate'] - ranked['estimate'][-1])}"
            dom = C.dominance(analysis.values[(i, name)], top["key"], exp.confidence)
            if dom["dominates"]:
                notes.append(f"{name}: {top['key']} dominates (paired on games, beats every other key; closest "
                             f"{dom['closest']} by {_interval(dom['difference'], dom['low'], dom['high'], True)}{spread})")
            else:
                notes.append(f"{name}: nothing dominates (best {top['key']} vs {dom['closest']}, paired on games: "
                             f"{_interval(dom['difference'], dom['low'], dom['high'], True)}{spread})")
        row["dominance"] = "; ".join(notes) if notes else "—"
        rows.append(row)
    return pl.DataFrame(rows)


def fairness_cells(result: "ExperimentResult") -> list[F.Cell]:
    exp, analysis = result.experiment, result.analysis
    cells = []
    for i, plan in enumerate(exp.plans):
        rates = analysis.estimates.filter((pl.col("plan_index") == i) & (pl.col("metric") == "seat_win_rate"))
        cells.append(F.Cell(plan.params["policy"], plan.players, rates, analysis.values[(i, "seat_edge")]))
    return cells


def summarise(result: "ExperimentResult") -> None:
    """Fill in the balance, fairness and power tables and the answer paragraph."""
    exp = result.experiment
    result.balance = balance_table(result) if max(p.players for p in exp.plans) > 1 else pl.DataFrame()
    if exp.kind == "fairness":
        result.fairness = F.fairness_matrix(fairness_cells(result), exp.confidence, exp.margin,
                                            L.strong_policies(exp.game))
    if exp.power:
        result.power = power_table(exp, result.analysis)
    result.fairness_change = fairness_change_table(result)
    if exp.kind == "ladder":
        result.ladder = ladder_table(result)
    result.answer = answer(result)


# --- across the ladder ------------------------------------------------------------------------

def _ladder_metrics(exp) -> list[str]:
    return list(dict.fromkeys(exp.metrics + exp.answer))


def ladder_table(result: "ExperimentResult") -> pl.DataFrame:
    """One row per metric, key and rung (weakest first): the estimate and interval, what the verdict
    judges (analysis.ladder.key_effects) and the verdict of the metric and key across the rungs."""
    exp, analysis = result.experiment, result.analysis
    frames = []
    for i, plan in enumerate(exp.plans):
        for name in _ladder_metrics(exp):
            if (i, name) not in analysis.values:
                continue
            est = analysis.estimates.filter((pl.col("plan_index") == i) & (pl.col("metric") == name))
            reference = est["reference"].drop_nulls()
            ref = float(reference[0]) if reference.len() else math.nan
            frames.append(L.rung_findings(name, M.get_metric(exp.game, name), analysis.values[(i, name)], ref,
                                          plan.label, exp.confidence))
    found = L.concat_findings(frames)
    findings = found.findings
    seat = {} if exp.margin is None else {n: exp.margin for n in ("seat_edge", "seat_win_rate")}
    verdicts = L.ladder_verdicts(found, exp.rungs, L.declared_margins(exp.game, _ladder_metrics(exp), seat),
                                 strong=L.strong_policies(exp.game)).drop("kind")
    order = {rung: i for i, rung in enumerate(exp.rungs)}
    return (findings.join(verdicts, on=["metric", "key"], how="left")
            .with_columns(pl.col("rung").replace_strict(order, return_dtype=pl.Int64).alias("rung_index"))
            .select("metric", "key", "rung_index", *[c for c in L.FINDINGS_SCHEMA if c not in ("metric", "key")],
                    "verdict"))


def _judged_against(group: pl.DataFrame) -> str:
    against = group["judged_against"].drop_nulls()
    kind = against[0] if against.len() else L.NO_FAIR_VALUE
    if kind != L.FAIR_VALUE:
        return kind
    refs = [float(r) for r in group["effect_reference"].drop_nulls()]
    if refs and max(refs) - min(refs) < 1e-9:
        return f"fair value {_num(refs[0])}"
    return "fair value per rung: " + ", ".join(f"{r['rung']} {_num(r['effect_reference'])}"
                                               for r in group.iter_rows(named=True))


def _ladder_cell(row: dict | None) -> str:
    if row is None or row["estimate"] is None or math.isnan(row["estimate"]):
        return "n/a"
    cell = _interval(row["estimate"], row["low"], row["high"])
    if row["judged_against"] == L.KEY_MEAN:  # the verdict's own numbers, next to the figure
        cell += f"; vs mean {_interval(row['effect'], row['effect_low'], row['effect_high'], True)}"
    return cell


def ladder_view(exp, table: pl.DataFrame) -> pl.DataFrame:
    """The long ladder table side by side: one row per metric and key, one column per rung."""
    rows = []
    for (metric, key), group in table.group_by(["metric", "key"], maintain_order=True):
        by_rung = {r["rung"]: r for r in group.iter_rows(named=True)}
        row = {"metric": metric, "key": key}
        row.update({rung: _ladder_cell(by_rung.get(rung)) for rung in exp.rungs})
        row.update({"judged against": _judged_against(group), "verdict": group["verdict"][0]})
        rows.append(row)
    return pl.DataFrame(rows)


def _ladder_answer(exp, table: pl.DataFrame) -> str:
    verdicts = (table.filter(pl.col("metric").is_in(exp.answer)).select("metric", "key", "verdict")
                .unique(maintain_order=True))
    parts = [f"**{r['metric']}**" + ("" if r["key"] == M.ALL else f" ({r['key']})") + f": {r['verdict']}"
             for r in verdicts.head(MAX_LISTED).iter_rows(named=True)]
    more = f" ({verdicts.height - MAX_LISTED} more in the Across the ladder table)" if verdicts.height > MAX_LISTED else ""
    return (f"Across the ladder ({', '.join(exp.rungs)}; each rung plays every seat itself): "
            + "; ".join(parts) + f".{more}")


def fairness_change_table(result: "ExperimentResult") -> pl.DataFrame | None:
    """For each compared pair (same player count): each seat's edge in both batches and its paired change,
    simultaneous intervals over every seat of every pair (analysis.fairness.seat_edge_changes)."""
    exp, values = result.experiment, result.analysis.values
    pairs = []
    for a, b in exp.pairs_to_compare():
        if (a, "seat_edge") not in values or (b, "seat_edge") not in values:
            continue
        if exp.plans[a].players != exp.plans[b].players:
            continue
        pairs.append((exp.plans[a].label, exp.plans[b].label, values[(a, "seat_edge")], values[(b, "seat_edge")]))
    return F.seat_edge_changes(pairs, exp.confidence) if pairs else None


def _describe_estimates(exp, est: pl.DataFrame, metric: str) -> list[str]:
    lines = []
    sub = est.filter(pl.col("metric") == metric)
    keys = list(dict.fromkeys(sub["key"].to_list()))
    for key in keys[:6]:
        rows = sub.filter(pl.col("key") == key).sort("plan_index")
        parts = []
        for r in rows.iter_rows(named=True):
            mark = " (baseline)" if exp.kind in ("sweep", "compare") and r["plan_index"] == exp.baseline else ""
            parts.append(f"{_interval(r['estimate'], r['low'], r['high'])} at {r['plan']}{mark}")
        name = metric if key == M.ALL else f"{metric} ({key})"
        lines.append(f"**{name}**: " + "; ".join(parts) + ".")
    ref = sub["reference"].drop_nulls()
    if ref.len():
        lines.append(f"The fair value of {metric} is {_num(float(ref.mean()))}.")
    return lines


def _describe_differences(exp, comparisons: pl.DataFrame, metric: str) -> list[str]:
    sub = comparisons.filter(pl.col("metric") == metric)
    if sub.height == 0:
        return []
    lines = []
    for r in sub.iter_rows(named=True):
        name = "" if r["key"] == M.ALL else f" ({r['key']})"
        verdict = ("a real difference" if r["significant"]
                   else "not distinguishable from noise at these games")
        if r["family"] == C.UNTESTED:
            verdict = "identical in every game"
        dup = f"; the same contrast as {r['duplicate_of']}" if r.get("duplicate_of") else ""
        lines.append(f"{r['arm_b']} vs {r['arm_a']}{name}: "
                     f"{_interval(r['difference'], r['low'], r['high'], True)} "
                     f"({r['interval_level']:.1%} interval, {r['test']}, {r['family']} family, adjusted "
                     f"p = {_p(r['p_adjusted'])}{dup}): {verdict}.")
    return lines


MAX_LISTED = 6


def _key_balance(exp, estimates: pl.DataFrame, metric: str) -> str:
    """Competing keys (roof types, policies): per batch, the best and worst key, the spread, any dominance."""
    parts, spreads = [], []
    for i, plan in enumerate(exp.plans):
        sub = estimates.filter((pl.col("plan_index") == i) & (pl.col("metric") == metric)).sort(
            "estimate", descending=True)
        if sub.height < 2:
            continue
        top, low = sub.row(0, named=True), sub.row(sub.height - 1, named=True)
        spread = top["estimate"] - low["estimate"]
        spreads.append((spread, plan.label))
        dominates = top["low"] > sub["high"][1:].max()
        parts.append(f"{plan.label}: best {top['key']} {_interval(top['estimate'], top['low'], top['high'])}, "
                     f"worst {low['key']} {_interval(low['estimate'], low['low'], low['high'])}, "
                     f"spread {_num(spread)}" + (f" ({top['key']} dominates)" if dominates else ""))
    if not parts:
        return ""
    text = f"Across the {metric} keys — " + "; ".join(parts) + "."
    if len(spreads) > 1:
        best = min(spreads)
        text += f" The most even is **{best[1]}** (spread {_num(best[0])})."
    return text


def _answer_metric(exp, analysis, metric: str) -> str:
    sub = analysis.estimates.filter(pl.col("metric") == metric)
    keys = list(dict.fromkeys(sub["key"].to_list()))
    definition = M.metrics_for(exp.game)[metric]
    if len(keys) <= 3 or len(exp.plans) == 1:
        text = " ".join(_describe_estimates(exp, analysis.estimates, metric))
    else:
        text = f"**{metric}** for {len(keys)} keys in {len(exp.plans)} batches: see the Results table."
    if len(keys) > 1 and not definition.per_seat:
        balance = _key_balance(exp, analysis.estimates, metric)
        if balance:
            text += " " + balance
    diffs = _describe_differences(exp, analysis.comparisons, metric) if analysis.comparisons.height else []
    if diffs:
        comp = analysis.comparisons.filter(pl.col("metric") == metric)
        real = comp.filter(pl.col("significant").fill_null(False))
        text += (f" Paired on the same seeds, {real.height} of {comp.height} differences from the baseline are real "
                 f"after the correction for multiple comparisons")
        if len(diffs) <= MAX_LISTED:
            text += ": " + " ".join(diffs)
        else:
            top = real.sort(pl.col("difference").abs(), descending=True).head(MAX_LISTED)
            listed = [f"{r['arm_b']} vs {r['arm_a']}" + ("" if r["key"] == M.ALL else f" ({r['key']})") + ": "
                      + _interval(r["difference"], r["low"], r["high"], True) for r in top.iter_rows(named=True)]
            text += (f"; the largest: " + "; ".join(listed) + " (all of them in the Differences table).")
    return text


def answer(result: "ExperimentResult") -> str:
    exp, analysis = result.experiment, result.analysis
    paragraphs = []
    if exp.kind == "fairness" and result.fairness is not None:
        paragraphs.append(F.fairness_conclusion(result.fairness, exp.fairness_policies))
    else:
        for metric in exp.answer:
            paragraphs.append(_answer_metric(exp, analysis, metric))
        if result.ladder is not None and result.ladder.height:
            paragraphs.append(_ladder_answer(exp, result.ladder))
        if result.fairness_change is not None:
            changed = result.fairness_change.filter(pl.col("changed"))
            parts = [f"{r['arm_b']} vs {r['arm_a']}, {r['seat']} seat: edge {_num(r['edge_a'])} → {_num(r['edge_b'])}, "
                     f"change {_interval(r['change'], r['low'], r['high'], True)}"
                     for r in changed.iter_rows(named=True)]
            paragraphs.append("Seat edges between compared batches (paired on the game, simultaneous intervals over "
                              "every seat of every pair): " + ("; ".join(parts) if parts else
                                                              "no seat's edge changed detectably") + ".")
        if result.balance is not None and result.balance.height and "largest seat edge" in result.balance.columns:
            parts = []
            for r in result.balance.iter_rows(named=True):
                if r.get("largest seat edge"):
                    real = "real" if r["seat edge real"] else "within noise"
                    parts.append(f"{r['batch']}: {r['largest seat edge']} ({real})")
            paragraphs.append("Largest seat edge (win rate minus the average seat's; the largest of several "
                              "estimates, so biased upward, shown with its simultaneous interval): "
                              + "; ".join(parts) + ".")
            if exp.margin is not None and "fair within margin" in result.balance.columns:
                fair = [r["batch"] for r in result.balance.iter_rows(named=True) if r.get("fair within margin")]
                paragraphs.append(f"Fair within +-{exp.margin:g} (every seat's edge, equivalence test): "
                                  + (", ".join(fair) if fair else "no batch") + ".")
    if result.precision_log:
        last = result.precision_log[-1]
        p = exp.precision
        state = (f"reached at {last['games']:,} games" if last["reached"]
                 else f"not reached: stopped at the cap of {last['games']:,} games")
        paragraphs.append(f"Precision: the target half-width {p.half_width:g} on {', '.join(p.metrics)} "
                          f"({p.on}) was {state} (widest half-width {_num(last['widest_half_width'])}).")
    paragraphs.append(f"All intervals are {exp.confidence:.0%} intervals on {analysis.n_games:,} games per batch.")
    return "\n\n".join(paragraphs)


# --- the report -------------------------------------------------------------------------------

def _methods(result: "ExperimentResult") -> str:
    exp = result.experiment
    items = [
        f"Intervals ({exp.confidence:.0%}): {M.INTERVALS[M.WILSON]}; {M.INTERVALS[M.T]}. "
        "The `interval` column of each table names the one used.",
    ]
    if exp.kind in ("sweep", "compare"):
        items += [
            "Every batch is played on the same seed, so game i of every batch has the same deals and dice "
            "wherever the rules allow (common random numbers). Differences are paired on the game index.",
            f"Tests: {C.METHODS[C.PAIRED_T]}; {C.METHODS[C.MCNEMAR]}. The `test` column names the one used; "
            "`unpaired_half_width` is what the interval would be without pairing (Welch).",
            f"Multiple comparisons: {C.BONFERRONI}; {C.FDR}. Rows whose per-game differences are all 0 are "
            f"not tested. `significant` means adjusted p < {1 - exp.confidence:.2g}; `interval_level` is the "
            "level of each row's interval.",
        ]
    if exp.kind == "fairness" or any(p.players > 1 for p in exp.plans):
        items.append(f"Seat edges: {F.EDGE_TEST}. Largest seat edge: {F.SELECTED}.")
        items.append(f"Fairness: {F.EQUIVALENCE}"
                     + (f" Margin here: {exp.margin:g}." if exp.margin is not None else " No margin was set."))
    if result.fairness_change is not None:
        items.append(f"Seat edges between batches: {F.UNFAIRNESS}.")
    if exp.kind == "ladder":
        items.append(LADDER_METHOD)
    items.append(f"A policy, roof type or card \"dominates\": {C.DOMINANCE}.")
    if exp.precision:
        items.append(f"Precision: games are added (to every batch alike) until the widest {exp.confidence:.0%} "
                     f"half-width of {', '.join(exp.precision.metrics)} ({exp.precision.on}) is at most "
                     f"{exp.precision.half_width:g}, capped at {exp.precision.max_games:,} games; each step asks "
                     "for n·(width/target)²·1.1 games.")
    if exp.power:
        from analysis.power import METHOD_FAMILY, METHOD_MEAN, METHOD_TWO

        items.append(f"Games needed: {METHOD_MEAN}; unpaired: {METHOD_TWO}; {METHOD_FAMILY}.")
    return "\n".join(f"- {item}" for item in items)


LADDER_METHOD = (
    "Across the ladder: each rung is one batch in self-play (every seat the rung's policy), all on the same seed, "
    "so rungs are compared game by game. A figure is judged against the metric's fair value (a seat edge: 0; a win "
    "rate: the fair share), or, for competing keys without one (roof types), the key's per-game difference from "
    "the mean of the keys in the same games. An effect is claimed only from a test on the per-game values (exact "
    "binomial for a win and a loss, else t) at "
    "5% family-wise over every rung x figure plus, per figure, the pooled mean over the rungs and the paired "
    "weak - strong contrast (Bonferroni; rungs named search... count as strong play, and the policies the game "
    "declares strong, GameSpec.strong_policies). Verdicts "
    "(analysis.ladder.row_verdict): changes sign (always reported: it describes the players, not the game); holds "
    "at every rung; appears only for weak play (the paired contrast shows it larger at the weak rungs and "
    "every strong rung is shown within the metric's equivalence margin, seat_margin for seat figures), else "
    "larger for weak play with strong play undetermined; shows at some rungs; present on average over the rungs; "
    "no effect at any rung (only inside the margin: two one-sided tests at every rung); undetermined at n games "
    "(with the games per rung that would settle it), or undetermined for a NaN or a figure with no fair value. "
    "The intervals in the table are each at 95% on their own.")


def _setup_table(result: "ExperimentResult") -> pl.DataFrame:
    exp = result.experiment
    base = exp.plans[exp.baseline] if exp.kind in ("sweep", "compare") else exp.plans[0]
    rows = [
        ("experiment file", str(exp.path)), ("file digest", exp.digest), ("kind", exp.kind),
        ("game", f"{exp.title} ({exp.game}), engine {base.engine_version}"),
        ("games per batch", f"{result.analysis.n_games:,} (file: {exp.games:,})"), ("seed", str(exp.seed)),
        ("metrics", ", ".join(exp.metrics)),
        ("batches", str(len(exp.plans))),
        ("games simulated this time", f"{result.games_simulated:,}"),
        ("wall time", f"{result.seconds:,.1f} s"),
    ]
    if exp.kind == "sweep":
        rows.insert(4, ("swept", ", ".join(exp.sweep_keys)))
    if exp.kind == "ladder":
        rows.insert(4, ("rungs (weakest first, each in self-play)", ", ".join(exp.rungs)))
    return pl.DataFrame({"setting": [r[0] for r in rows], "value": [r[1] for r in rows]})


def _batches_table(result: "ExperimentResult") -> pl.DataFrame:
    rows = []
    for rec in result.records:
        plan = rec.plan
        changes = {k: v for k, v in plan.overrides.items()}
        rows.append({"batch": plan.label, "variant": plan.config.variant.name, "players": plan.players,
                     "line-up": ", ".join(plan.policies),
                     "overrides": ", ".join(f"{k}={json.dumps(v)}" for k, v in changes.items()) or "—",
                     "run folder": rec.path.name, "games simulated now": rec.games_simulated})
    return pl.DataFrame(rows)


def lineup_text(policies: list[str]) -> str:
    """Whose play a batch is: "heuristic in every seat", or the line-up by slot."""
    if len(set(policies)) == 1:
        return f"{policies[0]} in every seat" if len(policies) > 1 else policies[0]
    return ", ".join(policies)


def _estimates_view(exp, table: pl.DataFrame, metrics: list[str]) -> pl.DataFrame:
    """The estimates with the line-up that produced each (the batch label alone may not say)."""
    sub = table.filter(pl.col("metric").is_in(metrics))
    lineups = {i: lineup_text(p.policies) for i, p in enumerate(exp.plans)}
    sub = sub.with_columns(pl.col("plan_index").replace_strict(lineups, return_dtype=pl.Utf8).alias("line-up"))
    return sub.select("plan", "line-up", "metric", "key", "estimate", "low", "high", "n", "interval")


def sections(result: "ExperimentResult") -> list[Section]:
    exp, analysis = result.experiment, result.analysis
    out = [Section("Question", f"> {exp.question or '(no question written in the file)'}"),
           Section("Answer", result.answer),
           Section("Set-up", tables=[("experiment", _setup_table(result)), ("batches", _batches_table(result))]),
           Section("Method", _methods(result))]

    if analysis.estimates.height:
        params = [p.params for p in exp.plans]
        if exp.kind == "sweep":
            table = S.sweep_table(analysis.estimates, params, exp.sweep_keys).filter(
                pl.col("metric").is_in(exp.metrics)).drop("plan", "reference")
            plots = [Plot(f"sweep_{m}", S.metric_vs_parameter(analysis.estimates, params, exp.sweep_keys, m,
                                                               confidence=exp.confidence),
                          f"{m} against {exp.sweep_keys[0]}, {exp.confidence:.0%} intervals")
                     for m in exp.metrics]
            out.append(Section("Results", "One row per sweep point, metric and key.",
                               tables=[("combined table", table)], plots=plots))
        else:
            table = _estimates_view(exp, analysis.estimates, exp.metrics)
            plots = []
            if exp.kind == "compare":
                arms = [p.label for p in exp.plans]
                plots = [Plot(f"arms_{m}", S.arms_plot(analysis.estimates, arms, m, exp.confidence),
                              f"{m} by arm, {exp.confidence:.0%} intervals") for m in exp.metrics]
            if exp.kind == "ladder":
                plots = [Plot(f"rungs_{m}", S.arms_plot(analysis.estimates, exp.rungs, m, exp.confidence, by="rung"),
                              f"{m} by rung, weakest first ({', '.join(exp.rungs)}), each rung in self-play; "
                              f"{exp.confidence:.0%} intervals") for m in exp.metrics]
            if exp.kind == "fairness":
                cells = [(p.params["policy"], p.players, i) for i, p in enumerate(exp.plans)]
                plots = [Plot("fairness_seat_win_rates",
                              S.fairness_plot(analysis.estimates, cells, exp.fairness_policies, exp.confidence),
                              "seat win rates by player count and policy, with the fair share")]
            out.append(Section("Results", "One row per batch, metric and key.", tables=[("estimates", table)],
                               plots=plots))

    if analysis.comparisons.height:
        asked = analysis.comparisons.filter(pl.col("metric").is_in(exp.metrics + exp.answer))
        view = asked.select("metric", "key", "arm_a", "arm_b", "difference", "low", "high", "interval_level",
                            "unpaired_half_width", "test", "p_value", "family", "p_adjusted", "significant", "n")
        plots = [Plot(f"differences_{m}", S.differences_plot(asked, m, exp.confidence),
                      f"{m}: paired differences from the baseline with {exp.confidence:.0%} intervals")
                 for m in exp.answer if asked.filter(pl.col("metric") == m).height]
        gains = (asked.filter(pl.col("pairing_gain").is_finite()).group_by("metric", maintain_order=True)
                 .agg(pl.col("pairing_gain").median()))
        gain = ""
        if gains.height:
            gain = (" Pairing on the same seeds narrowed the intervals, per metric (median over keys and pairs, "
                    "unpaired half-width / paired half-width at the same level): "
                    + "; ".join(f"{r['metric']} {r['pairing_gain']:.1f}x" for r in gains.iter_rows(named=True))
                    + ".")
        out.append(Section("Differences", f"{view.height} comparisons: the primary family corrected by Bonferroni, "
                           f"the others by Benjamini-Hochberg.{gain}",
                           tables=[("paired differences (b − a)", view)], plots=plots))

    if result.ladder is not None and result.ladder.height:
        out.append(Section("Across the ladder",
                           f"Every figure at each rung, weakest first ({', '.join(exp.rungs)}); each rung is a "
                           f"self-play batch, every seat its policy, {analysis.n_games:,} games on the same seed. "
                           f"Estimates with {exp.confidence:.0%} intervals; the verdict is read across the rungs "
                           "(Method says how).",
                           tables=[("figures per rung and their verdict", ladder_view(exp, result.ladder))]))
    if result.fairness is not None:
        out.append(Section("Fairness matrix", F.fairness_conclusion(result.fairness, exp.fairness_policies),
                           tables=[("seat win rates and the largest seat edge per cell", result.fairness)]))
    if result.balance is not None and result.balance.height:
        cols = [c for c in ("batch", "players", "largest seat edge", "seat edge real", "p (adjusted)",
                            "fair within margin", "dominance")
                if c in result.balance.columns]
        out.append(Section("Balance at a glance", "Largest seat edge: the seat whose win rate is furthest from the "
                           "average seat's, with its simultaneous interval; real = significant after Bonferroni over every seat "
                           "of every batch (the same family as the fairness matrix).",
                           tables=[("balance", result.balance.select(cols))]))
    if result.fairness_change is not None:
        out.append(Section("Seat edges between batches", f"{F.UNFAIRNESS[0].upper()}{F.UNFAIRNESS[1:]}.",
                           tables=[("each seat's edge per batch and its paired change", result.fairness_change)]))
    if result.precision_log:
        out.append(Section("Precision", tables=[("games added until the target", pl.DataFrame(result.precision_log))]))
    if result.power is not None and result.power.height:
        out.append(Section("Games needed", "How many games per batch a two-sided test needs to detect each effect "
                           f"with power {exp.power.power:g} at alpha {exp.power.alpha:g}, from the sds measured here, "
                           "inside the family it is tested in (`family` tests: each at alpha/family); "
                           "`detectable_now` is the smallest effect these games detect.",
                           tables=[("power", result.power)]))
    return out


def manifest(result: "ExperimentResult") -> dict:
    exp = result.experiment
    return {
        "experiment": exp.name, "file": str(exp.path), "digest": exp.digest, "question": exp.question,
        "kind": exp.kind, "game": exp.game, "rungs": exp.rungs, "seed": exp.seed, "games_requested": exp.games,
        "games_analysed": result.analysis.n_games, "confidence": exp.confidence, "metrics": exp.metrics,
        "cache": str(result.cache),
        "batches": [{"label": r.plan.label, "params": r.plan.params, "variant": r.plan.config.variant.name,
                     "variant_digest": r.plan.config.variant.digest, "overrides": r.plan.overrides,
                     "players": r.plan.players, "lineup": r.plan.policies, "rotate": r.plan.rotate,
                     "engine_version": r.plan.engine_version,
                     "source_digest": r.plan.config.source_digest, "run": str(r.path),
                     "games_in_run": runfolder.contiguous_games(r.path), "games_simulated_now": r.games_simulated,
                     "seconds_now": round(r.seconds, 3)} for r in result.records],
        "precision_log": result.precision_log,
        "methods": {"intervals": M.INTERVALS, "tests": C.METHODS, "multiple_comparisons": C.FAMILIES,
                    "seat_edges": F.EDGE_TEST, "unfairness": F.UNFAIRNESS},
        "seconds": round(result.seconds, 3),
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }


def write(result: "ExperimentResult") -> Path:
    """Write the tables, figures and report; return the path of report.md."""
    out = result.out
    figures = out / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    for old in figures.glob("*.png"):
        old.unlink()
    secs = sections(result)
    for section in secs:
        for plot in section.plots:
            plot.figure.savefig(figures / f"{plot.name}.png", dpi=110)
    title = f"Experiment {result.experiment.name}: {result.experiment.title}"
    (out / "report.md").write_text(render_markdown(title, secs))
    (out / "report.html").write_text(render_html(title, secs, figures_dir=figures))  # self-contained
    analysis = result.analysis
    analysis.estimates.write_csv(out / "estimates.csv")
    for name, table in (("comparisons", analysis.comparisons), ("balance", result.balance), ("ladder", result.ladder),
                        ("fairness_change", result.fairness_change),
                        ("fairness", result.fairness), ("power", result.power)):
        path = out / f"{name}.csv"
        if table is not None and table.height:
            table.write_csv(path)
        elif path.exists():
            path.unlink()
    ladder_parquet = out / "ladder.parquet"  # the figures per rung for notebooks, as the ladder command writes them
    if result.ladder is not None and result.ladder.height:
        result.ladder.write_parquet(ladder_parquet)
    elif ladder_parquet.exists():
        ladder_parquet.unlink()
    (out / "manifest.json").write_text(json.dumps(manifest(result), indent=2, default=str))
    return out / "report.md"


def power_table(experiment: Any, analysis: Any, effects: dict[str, float] | None = None,
                power: float | None = None, alpha: float | None = None) -> pl.DataFrame:
    """Games needed to detect each effect, with the sds measured in `analysis`.

    Every experiment: an effect against the metric's reference in one batch
    (a seat edge against 0), from the sd of the per-game values. Sweeps and
    comparisons also: the paired difference between two batches (sd of the
    per-game differences) next to what unpaired batches would need.
    """
    from analysis.power import detectable_effect, games_for_mean, games_for_two_means

    spec = experiment.power
    effects = effects if effects is not None else (spec.effects if spec else {})
    level = power if power is not None else (spec.power if spec else 0.8)
    alpha = alpha if alpha is not None else (spec.alpha if spec else 1 - experiment.confidence)
    comparisons = analysis.comparisons
    if comparisons.height and "family" in comparisons.columns:
        tested = comparisons.filter((pl.col("family") != "untested") & pl.col("duplicate_of").is_null())
        family_sizes = dict(tested.group_by("family").len().iter_rows())
    else:
        family_sizes = {}
    known = M.metrics_for(experiment.game)
    seat_family = (analysis.estimates.filter(pl.col("metric") == "seat_edge").height
                   if analysis.estimates.height else 0)
    rows = []
    for metric, effect in effects.items():
        est = analysis.estimates.filter(pl.col("metric") == metric) if analysis.estimates.height else pl.DataFrame()
        if est.height == 0:
            continue
        # One batch: the metric's keys in every batch are tested together (seat edges: every seat of
        # every batch, the balance family), so size at alpha / that many tests.
        m_one = max(1, seat_family if known[metric].per_seat and seat_family else est.height)
        sd_values = float(est["sd"].fill_nan(None).max() or 0.0)
        rows.append({"metric": metric, "effect": effect, "question": "one batch: effect against the reference value",
                     "sd": sd_values, "family": m_one,
                     "games_needed": games_for_mean(effect, sd_values, alpha, level, m_one),
                     "games_needed_unpaired": None,
                     "detectable_now": detectable_effect(analysis.n_games, sd_values, alpha, level, m_one)})
        comp = analysis.comparisons.filter(pl.col("metric") == metric) if analysis.comparisons.height else pl.DataFrame()
        if comp.height:
            name = "primary" if metric in experiment.answer else "secondary"
            m_two = max(1, family_sizes.get(name, comp.height))
            sd_diff = float(comp["sd"].fill_nan(None).max() or 0.0)
            rows.append({"metric": metric, "effect": effect, "question": "two batches: paired difference",
                         "sd": sd_diff, "family": m_two,
                         "games_needed": games_for_mean(effect, sd_diff, alpha, level, m_two),
                         "games_needed_unpaired": games_for_two_means(effect, sd_values, alpha, level, m_two),
                         "detectable_now": detectable_effect(analysis.n_games, sd_diff, alpha, level, m_two)})
    schema = {"metric": pl.Utf8, "effect": pl.Float64, "question": pl.Utf8, "sd": pl.Float64, "family": pl.Int64,
              "games_needed": pl.Int64, "games_needed_unpaired": pl.Int64, "detectable_now": pl.Float64}
    table = pl.DataFrame(rows, schema=schema)
    return table.with_columns(pl.lit(level).alias("power"), pl.lit(alpha).alias("alpha"))

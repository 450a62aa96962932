"""Ladder ratings (analysis.ladder): a known strength order is recovered with intervals over games,
ties and a NaN are handled honestly, and the per-rung verdicts say what they mean."""
import itertools
import math

import numpy as np
import polars as pl
import pytest

from analysis.ladder import KEY_MEAN, TableGames, fit_ladder, key_effects, row_verdict, weak_rungs


def synthetic_tables(strength: dict[str, float], tables: list[tuple[str, ...]], games: int, seed: int = 1):
    """Plackett-Luce games with known log-strengths: each table's finishing order drawn game by game."""
    rng = np.random.default_rng(seed)
    out = []
    for rungs in tables:
        rows = []
        for g in range(games):
            left = list(range(len(rungs)))
            place = 1
            while left:
                w = np.exp([strength[rungs[i]] for i in left])
                i = left[rng.choice(len(left), p=w / w.sum())]
                rows.append({"game": g, "lineup_slot": i, "rank": place})
                left.remove(i)
                place += 1
        out.append(TableGames(rungs, pl.DataFrame(rows)))
    return out


def test_known_order_is_recovered_with_intervals_that_cover_the_truth():
    truth = {"a": 0.0, "b": 1.0, "c": 2.5}
    tables = synthetic_tables(truth, [("a", "b", "c"), ("c", "a", "b")], 300)
    ladder = fit_ladder(["a", "b", "c"], tables, seed=3, replicates=100)
    r = {row["rung"]: row for row in ladder.ratings.iter_rows(named=True)}
    centre = np.mean(list(truth.values()))   # ratings are centred on the rungs' mean
    for rung, value in truth.items():
        assert r[rung]["low"] - 1e-9 <= value - centre <= r[rung]["high"] + 1e-9
    assert ladder.ordered and ladder.separated
    assert ladder.steps["h2h_share"].to_list()[0] > 0.6


def test_a_rung_that_almost_never_wins_does_not_blur_the_others():
    # Skyline 3000's measured ladder: random is almost never ahead, so its strength is pinned
    # loosely; anchored on it, that spread entered every interval and clear steps "overlapped"
    truth = {"random": 0.0, "greedy": 4.0, "heuristic": 5.1, "s20": 6.15, "s100": 6.75}
    rungs = list(truth)
    tables = synthetic_tables(truth, list(itertools.combinations(rungs, 4)), 160, seed=5)
    ladder = fit_ladder(rungs, tables, seed=2, replicates=100)
    assert ladder.ordered and ladder.separated
    assert abs(ladder.ratings["rating"].sum()) < 1e-9


def test_a_misordered_ladder_is_reported_as_such():
    truth = {"a": 0.0, "b": 1.5, "c": 0.7}
    ladder = fit_ladder(["a", "b", "c"], synthetic_tables(truth, [("a", "b", "c")], 400), replicates=60)
    assert not ladder.ordered
    assert ladder.steps["verdict"].to_list()[1].startswith("NOT ordered")


def test_equal_rungs_are_not_separated():
    truth = {"a": 0.0, "b": 0.0}
    ladder = fit_ladder(["a", "b"], synthetic_tables(truth, [("a", "b")], 200), replicates=60)
    assert not ladder.separated


def test_shared_places_count_half_each_way():
    rows = [{"game": g, "lineup_slot": s, "rank": 1} for g in range(100) for s in range(2)]
    ladder = fit_ladder(["a", "b"], [TableGames(("a", "b"), pl.DataFrame(rows))], replicates=40)
    assert ladder.steps["h2h_share"][0] == pytest.approx(0.5)
    assert abs(ladder.ratings["rating"][1]) < 0.5


RUNGS = ["random", "heuristic", "search"]


def _effects(first_rates, games=200, seed=0):
    """Per-game seat-1 edges (win minus 1/4, four seats) at each rung with the given win rate."""
    rng = np.random.default_rng(seed)
    return {r: (rng.random(games) < p).astype(float) - 0.25 for r, p in zip(RUNGS, first_rates)}


def _verdict(first_rates, margin=0.02, games=200, seed=0):
    return row_verdict(_effects(first_rates, games, seed), RUNGS, weak_rungs(RUNGS), tests=len(RUNGS) + 2, rows=1,
                       margin=margin)


@pytest.mark.parametrize("rates, kind, text", [
    ((.5, .5, .5), "holds", "holds at every rung (+)"),
    ((.5, .5, .25), "larger_weak", "larger for weak play"),
    ((.6, .6, .05), "changes_sign", "changes sign between rungs: + at random, heuristic, - at search"),
    ((.25, .25, .25), "undetermined", "undetermined at 200 games per rung: no effect shown and ±0.02 not shown"),
])
def test_rung_verdicts(rates, kind, text):
    v = _verdict(rates)
    assert v.kind == kind and v.text.startswith(text), v


def test_no_effect_needs_the_margin_shown_and_only_weak_play_needs_the_strong_rungs_inside_it():
    # 4,000 games: +-0.05 is shown at every rung of a fair world; only a margin makes "no effect" sayable
    v = _verdict((.25, .25, .25), margin=0.05, games=4000)
    assert v.kind == "no_effect" and v.within == tuple(RUNGS)
    assert _verdict((.25, .25, .25), margin=None, games=4000).text.startswith("undetermined at 4,000 games per rung: "
                                                                               "no effect shown")
    only = _verdict((.5, .5, .25), margin=0.05, games=4000)
    assert only.kind == "only_weak" and only.within == ("search",) and only.contrast == 1
    # with fewer games the strong rung is not shown inside the margin: larger for weak play, no more
    assert _verdict((.5, .5, .25), margin=0.05, games=200).kind == "larger_weak"


def test_few_games_or_a_constant_sample_claim_nothing():
    # three games all won by the first seat: no verdict (the old code said p = 0 and "holds")
    effects = {r: np.full(3, 0.75) for r in RUNGS}
    v = row_verdict(effects, RUNGS, weak_rungs(RUNGS), tests=5, rows=1, margin=0.02)
    assert v.kind == "undetermined" and "fewer than" in v.text
    assert weak_rungs(["random", "greedy", "search(iterations=50)"]) == {"random", "greedy"}


def test_a_policy_the_game_declares_strong_counts_as_strong_play():
    """A game's strong_policies (Project Skyline's expert, measured above search(100)) join the search
    rungs: an effect the expert shows is then no longer "only for weak play"."""
    from analysis.ladder import strong_policies

    rungs = ["heuristic", "expert", "search"]
    assert weak_rungs(rungs) == {"heuristic", "expert"}
    assert weak_rungs(rungs + ["expert(samples=4)"], ("expert",)) == {"heuristic"}
    assert strong_policies("project_skyline") == ("expert",) and strong_policies("skyline_3000") == ()
    rng = np.random.default_rng(0)
    effects = {r: (rng.random(4000) < p).astype(float) - 0.25 for r, p in zip(rungs, (.5, .5, .25))}
    scripted = row_verdict(effects, rungs, weak_rungs(rungs), tests=5, rows=1, margin=0.05)
    assert scripted.kind == "only_weak" and scripted.within == ("search",)
    declared = row_verdict(effects, rungs, weak_rungs(rungs, ("expert",)), tests=5, rows=1, margin=0.05)
    assert declared.kind != "only_weak" and "only for weak play" not in declared.text, declared


def test_a_rare_outcome_is_tested_as_the_proportion_it_is():
    # 9 wins of 80 against a fair 20: the t-test says p = 2e-4, the exact binomial 5e-3
    from analysis.ladder import _p

    values = np.r_[np.full(9, 0.75), np.full(71, -0.25)]
    assert 2e-3 < _p(values) < 1e-2


def test_competing_keys_without_a_fair_value_are_judged_against_the_mean_key_of_the_same_games():
    from analysis.metrics import Metric

    roof = Metric("roof", "points per roof type", "mean", lambda run: None, dominance=True)
    rng = np.random.default_rng(5)
    games = np.repeat(np.arange(300), 3)
    keys = np.tile(["a", "b", "c"], 300)
    luck = np.repeat(rng.normal(0, 5, 300), 3)       # shared by the keys of one game: cancels when paired
    values = pl.DataFrame({"game": games, "key": keys,
                           "value": luck + np.where(keys == "a", 1.0, 0.0) + rng.normal(0, 0.3, 900)})
    effects = {r["key"]: r for r in key_effects(roof, values, math.nan).iter_rows(named=True)}
    assert effects["a"]["effect"] == pytest.approx(2 / 3, abs=0.1) and effects["a"]["effect_low"] > 0
    assert effects["b"]["effect_high"] < 0 and effects["a"]["judged_against"] == KEY_MEAN
    plain = Metric("length", "decisions", "mean", lambda run: None)
    assert math.isnan(key_effects(plain, values, math.nan)["effect_reference"][0])


def test_a_finding_that_repeats_another_is_one_contrast_and_shares_its_verdict():
    """first_builder_edge repeats seat_edge[1st] (Skyline 3000): one contrast, tested once."""
    from analysis import ladder as L
    from analysis.metrics import GENERIC

    rng = np.random.default_rng(2)
    parts = []
    for rung in RUNGS:
        winner = rng.integers(0, 4, 300)
        seat = np.tile(np.arange(4), 300)
        win = (np.repeat(winner, 4) == seat).astype(float)
        values = pl.DataFrame({"game": np.repeat(np.arange(300), 4), "key": np.array(["1st", "2nd", "3rd", "4th"])[seat],
                               "value": win - 0.25})
        parts.append(L.rung_findings("seat_edge", GENERIC["seat_edge"], values, 0.0, rung))
        first = values.filter(pl.col("key") == "1st").with_columns(pl.lit("first builder").alias("key"))
        parts.append(L.rung_findings("first_builder_edge", GENERIC["seat_edge"], first, 0.0, rung))
    rows = {(m, k): v for m, k, v in L.ladder_row_verdicts(L.concat_findings(parts), RUNGS, {"seat_edge": 0.02,
                                                                                              "first_builder_edge": 0.02})}
    assert rows[("first_builder_edge", "first builder")] is rows[("seat_edge", "1st")]

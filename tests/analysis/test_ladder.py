"""Ladder ratings (analysis.ladder): a known strength order is recovered with intervals over games,
ties and a NaN are handled honestly, and the per-rung verdicts say what they mean."""
import itertools
import math

import numpy as np
import polars as pl
import pytest

from analysis.ladder import KEY_MEAN, TableGames, fit_ladder, key_effects, rung_verdict, weak_rungs


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


def _rows(values):
    return [{"rung": r, "estimate": e, "low": lo, "high": hi, "reference": 0.0} for r, e, lo, hi in values]


@pytest.mark.parametrize("values, verdict", [
    ([("random", .1, .05, .15), ("search", .1, .04, .16)], "holds at every rung"),
    ([("random", .1, .05, .15), ("search", .0, -.04, .05)], "appears only for weak play"),
    ([("random", .1, .05, .15), ("search", -.1, -.2, -.05)], "changes sign"),
    ([("random", .0, -.05, .05), ("search", .0, -.04, .05)], "no rung shows an effect beyond noise"),
    ([("random", math.nan, math.nan, math.nan), ("search", .1, .05, .2)], "undetermined"),
])
def test_rung_verdicts(values, verdict):
    assert rung_verdict(_rows(values), weak={"random"}).startswith(verdict)


def test_weak_play_needs_a_search_rung_and_a_missing_fair_value_is_undetermined():
    # an effect at random only, with no search rung: nothing is known about strong play
    rows = _rows([("random", .1, .05, .15), ("heuristic", .0, -.04, .05)])
    assert rung_verdict(rows, weak={"random", "heuristic"}).startswith("appears at some rungs only: random")
    no_reference = [dict(r, reference=math.nan) for r in _rows([("random", 5., 4., 6.), ("search", 5., 4., 6.)])]
    assert rung_verdict(no_reference, weak={"random"}).startswith("undetermined")
    assert weak_rungs(["random", "greedy", "search(iterations=50)"]) == {"random", "greedy"}


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

"""`skyline-lab gap`: where a better policy's moves gain over a base policy's, by kind of decision
(experiments/search_gap.py). Its verdicts are checked in worlds of known truth: per-game paired
differences drawn with a known mean (the verdict's error rate and power), and the toy game Coin
(tests/experiments/coingame.py), where only the Key Player's coin turns can gain."""
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.search_gap import GapError, GapPlan, action_kind, gain_interval, gap_text, play_arm, run_gap, verdict

cli = CliRunner()


def _heavy_margins(rng, n, mean):
    """Per-game differences like a board game's margins: skewed, heavy-tailed, mostly small."""
    x = rng.standard_t(3, n) * 4 + rng.exponential(3, n) - 3
    return x + mean


@pytest.mark.parametrize("n", [30, 300])
def test_a_gain_is_claimed_wrongly_at_most_5_percent_of_the_time(n):
    """Where the true gain is 0, "gains" or "loses" is printed in at most 5% of 2,000 worlds (plus
    Monte Carlo slack)."""
    rng = np.random.default_rng(n)
    wrong = sum(verdict(*gain_interval(_heavy_margins(rng, n, 0.0))[1:]) != "not separated" for _ in range(2000))
    assert wrong / 2000 <= 0.065, wrong / 2000


def test_a_gain_big_enough_for_the_games_is_found():
    """A true gain of 2 points over 300 games (about a third of the margins' spread) is found in
    most worlds, and a loss as a loss; never the other way round."""
    rng = np.random.default_rng(1)
    found = [verdict(*gain_interval(_heavy_margins(rng, 300, 2.0))[1:]) for _ in range(500)]
    lost = [verdict(*gain_interval(_heavy_margins(rng, 300, -2.0))[1:]) for _ in range(500)]
    assert found.count("gains") / 500 > 0.8 and "loses" not in found
    assert lost.count("loses") / 500 > 0.8 and "gains" not in lost


def test_a_nan_or_a_single_game_is_no_verdict():
    assert verdict(*gain_interval(np.array([1.0, math.nan, 2.0]))[1:]) == "no interval"
    assert verdict(*gain_interval(np.array([3.0]))[1:]) == "no interval"
    assert verdict(0.0, 0.0) == "not separated"   # identical play: no gain is claimed


def test_in_coin_only_the_coin_turns_gain():
    """Coin: a strong Key Player keeps both coins, a random one gives them away at random; every
    later turn is a pass. So strong play gains at the coin turns (the Key Player's seat keeps 2 x 2
    points: 4/3 a game on average for the seat that changes) and nowhere else."""
    plan = GapPlan("coin", base="random", better="strong", games=300, seed=3)
    result = run_gap(plan, workers=1)
    rows = {r["arm"]: r for r in result["rows"]}
    assert set(rows) == {"all", "coin", "pass"}
    assert rows["coin"]["verdict"] == "gains" and rows["all"]["verdict"] == "gains"
    assert rows["coin"]["low"] < 4 / 3 < rows["coin"]["high"]
    assert rows["pass"]["verdict"] == "not separated" and rows["pass"]["gain"] == 0
    text = gap_text(result)
    assert "| coin |" in text and "not 'no gain'" in text and "strong" in text and "random" in text


def test_the_seat_that_moves_first_changes_with_seat_first():
    """Coin's Key Player moves first. With seat="first" the seat that changes is the Key in every
    game, so strong play at its coin turns gains the Key's whole 4 points (against 4/3 when the seat
    rotates over 3 seats), and nowhere else; the table says which seat it was."""
    plan = GapPlan("coin", base="random", better="strong", games=300, seed=3, seat="first")
    result = run_gap(plan, workers=1)
    rows = {r["arm"]: r for r in result["rows"]}
    assert rows["coin"]["verdict"] == "gains" and 4 / 3 < rows["coin"]["low"] < 4 < rows["coin"]["high"]
    assert rows["pass"]["gain"] == 0 and rows["pass"]["verdict"] == "not separated"
    assert "The seat that moves first" in gap_text(result)
    assert "game index mod" in gap_text(run_gap(GapPlan("coin", base="random", better="strong", games=20), workers=1))
    res = cli.invoke(app, ["gap", "coin", "--seat", "last", "-n", "10", "-j", "1"])
    assert res.exit_code != 0 and "seat must be one of rotate, first, not 'last'" in res.output
    assert "Traceback" not in res.output


def test_by_action_the_coins_kept_gain_and_the_passes_do_not():
    """By action a kind is what the better policy's move does: strong Key Players keep their coins
    (a coin to a seat, their own), and only that kind gains; the passes are the same moves."""
    plan = GapPlan("coin", base="random", better="strong", games=300, seed=3, by="action")
    rows = {r["arm"]: r for r in run_gap(plan, workers=1)["rows"]}
    assert set(rows) == {"all", "coin: coin to seat", "pass: pass"}, set(rows)
    assert rows["coin: coin to seat"]["verdict"] == "gains"
    assert rows["pass: pass"]["verdict"] == "not separated"
    with pytest.raises(GapError, match="by must be"):
        GapPlan("coin", by="card").check()


def test_a_variant_changes_the_truth_it_finds():
    """Coin with key_bonus 0: a coin is worth nothing, so keeping it gains nothing (every arm's
    gain is exactly 0); the table names the rule change."""
    plan = GapPlan("coin", base="random", better="strong", games=100, seed=3, sets=("scoring.key_bonus=0",))
    result = run_gap(plan, workers=1)
    assert all(r["gain"] == 0 and r["verdict"] == "not separated" for r in result["rows"])
    assert "--set scoring.key_bonus=0" in gap_text(result)
    with pytest.raises(Exception, match="key_bonus"):
        GapPlan("coin", sets=("scoring.key_bonus=99",)).check()


def test_game_i_is_the_same_whatever_the_workers():
    plan = GapPlan("cityline", base="random", better="heuristic", games=40, seed=5)   # workers know the shipped games
    one = run_gap(plan, workers=1)["rows"]
    two = run_gap(plan, workers=2)["rows"]
    assert one == two
    part = play_arm(plan, "roof", start=10, count=5).margins
    assert np.array_equal(part, play_arm(plan, "roof").margins[10:15])


def test_a_bad_plan_is_refused_in_one_line():
    with pytest.raises(GapError, match="players"):
        GapPlan("coin", players=9).check()
    with pytest.raises(GapError, match="at least 2"):
        GapPlan("coin", games=1).check()
    res = cli.invoke(app, ["gap", "coin", "--base", "random", "--better", "nosuch", "-n", "10", "-j", "1"])
    assert res.exit_code != 0 and "nosuch" in res.output and "Traceback" not in res.output
    res = cli.invoke(app, ["gap", "coin", "--base", "random", "--better", "strong", "-n", "30", "-j", "1"])
    assert res.exit_code == 0, res.output
    assert "| coin |" in res.output


def test_a_kind_says_what_the_move_does_without_its_place_or_amount():
    """action_kind on the shipped games' own move names: numbers and brackets dropped, four words
    at most, never ending on a word that leads into a place or an amount; Skyline 3000's three
    decks are three kinds (three words merged them as "draw from the")."""
    class Named:
        def __init__(self, phase, name):
            self._phase, self._name = phase, name

        def phase(self):
            return self._phase

        def action_name(self, action):
            return self._name

    expected = {
        ("draw", "draw from the Roof deck"): "draw: draw from the Roof",
        ("construction", "play Contract(Red) 5 to install a building"): "construction: play Contract to install",
        ("construction", "place a billboard in Blue block 2, paying with Floor 3"): "construction: place a billboard",
        ("install", "install 2-floor curved building on own billboard in Red block 1"):
            "install: install curved building",
        ("bid", "bid nothing (STOP first) = 0"): "bid: bid nothing",
        ("bid", "bid Floor 3 = 3"): "bid: bid Floor",
        ("build", "build Skyline floor on [3, 4]"): "build: build Skyline floor",
        ("invest", "buy a 2M floor"): "invest: buy a floor",
        ("buy", "neither buy nor upgrade"): "buy: neither buy nor upgrade",
        ("coin", "coin to seat 1"): "coin: coin to seat",
        ("construction", "pass"): "construction: pass",
    }
    for (phase, name), kind in expected.items():
        assert action_kind(Named(phase, name), 0) == kind, name
    from engines.registry import get_game
    g = get_game("skyline_3000").new_game(n_players=4, seed=1)
    while g.phase() != "draw":
        g.apply(g.policy_action("heuristic"))
    assert len({action_kind(g, a) for a in g.legal_actions()}) == len(g.legal_actions()) == 3

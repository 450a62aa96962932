"""The per-rung verdicts (analysis.ladder.row_verdict / ladder_row_verdicts) in synthetic ladders of known
truth (null_worlds.py: 4 seats, 5 rungs, 80 games per rung on the same seeds): the false-claim rate is at
most 5% family-wise in every world, and the right verdict comes out at least 80% of the time where the
effect is large enough for 80 games. Before issue 24 (verdicts from each rung's own 95% interval) the
no-effect world claimed an effect in 69.5% of ladders and "appears only for weak play" in 44%."""
import numpy as np
import pytest

import null_worlds as nw

NULL = "no effect anywhere"
LARGE = "same large effect at every rung (+0.30)"
WEAK = "effect at weak rungs only (+0.30)"
FLIP = "sign flip (+0.25 weak, -0.20 search)"
MODERATE = "same moderate effect at every rung (+0.10)"


def test_the_direct_harness_gives_the_verdicts_of_the_full_path():
    """row_verdict on arrays (the fast harness) and rung_findings -> ladder_row_verdicts (what the ladder
    command runs) give the same verdict, claim by claim, on the same games."""
    from analysis import ladder

    rng = np.random.default_rng(7)
    for name in (NULL, LARGE, WEAK, FLIP):
        for _ in range(6):
            winners = nw.simulate_winners(nw.SCENARIOS[name], nw.GAMES, rng)
            assert nw.verdict_rows(ladder, winners, 0.02) == nw.verdict_rows_direct(winners, 0.02)


@pytest.mark.parametrize("name, replicates", [(NULL, 150), (LARGE, 60), (FLIP, 60)])
def test_null_worlds_quick(name, replicates):
    f = nw.run_scenario(name, replicates, "direct", seed=11)
    assert f.false_claim <= 0.09, f
    assert f.right >= 0.8, f


def test_a_rung_declared_strong_is_judged_as_strong_play():
    """The scripts' effect world with its third scripted rung declared strong (as Project Skyline declares
    its expert, GameSpec.strong_policies), 2,000 games a rung and a 0.05 margin: that rung shows the
    effect, so "appears only for weak play" is false there and is not said (false claims within 5% + the
    simulation's noise); the same world without the declaration says it, rightly."""
    declared = nw.run_scenario(WEAK, 150, "direct", seed=11, games=2000, margin=0.05, strong=("heuristic",))
    assert declared.false_claim <= 0.09, declared
    assert declared.first_row.get("only_weak", 0.0) == 0.0 and declared.first_row.get("some", 0.0) >= 0.8, declared
    scripted = nw.run_scenario(WEAK, 60, "direct", seed=11, games=2000, margin=0.05)
    assert scripted.first_row.get("only_weak", 0.0) >= 0.8, scripted


@pytest.mark.slow
@pytest.mark.parametrize("name", list(nw.SCENARIOS))
def test_null_worlds_400_ladders(name):
    """400 ladders per world: false claims <= 5% (+2% for the simulation's own noise); the right verdict
    >= 80% where the effect is large enough for 80 games per rung (nw.RIGHT)."""
    f = nw.run_scenario(name, 400, "direct", seed=1)
    print(f)
    assert f.false_claim <= 0.07, f
    if nw.RIGHT[name] is not None or name == NULL:
        assert f.right >= 0.8, f


@pytest.mark.slow
def test_full_path_null_world():
    """The no-effect world through rung_findings and ladder_row_verdicts themselves (the project's path)."""
    f = nw.run_scenario(NULL, 100, None, seed=3)
    assert f.false_claim <= 0.08, f

"""How many games a question needs, asked before the games are played.

"How many games to detect a 2-point seat edge?" is a power calculation: the
number of games at which a two-sided test at level `alpha` finds an effect of
that size with probability `power`. The answers come from statsmodels:

    games_for_mean          one-sample / paired t-test (TTestPower): a seat's
                            edge against zero, or the paired difference of two
                            arms played on the same seeds; the sd is that of
                            the per-game values (or per-game differences),
                            measured on a pilot run
    games_for_two_means     two independent arms (TTestIndPower), games per arm
    games_for_proportion    one rate against a reference, e.g. a seat's win
                            rate against its fair share (NormalIndPower with
                            ratio=0 on Cohen's h, proportion_effectsize)

Every test is sized for the family it is actually tested in: a comparison
inside a family of m tests corrected by Bonferroni or Holm (or the first step
of Benjamini-Hochberg) must reach p < alpha/m when the other m - 1 hypotheses
are null, so `family=m` sizes at level alpha/m. Sized at alpha alone, one real
effect planned at power 0.80 in a family of 27 is found 38% of the time.

Pairing shows up as a smaller sd: the sd of b_i - a_i is
sqrt(sd_a^2 + sd_b^2 - 2 cov), so common random numbers cut the games needed
by the factor sd_paired^2 / (2 sd^2).
"""
from __future__ import annotations

import math

from statsmodels.stats.power import NormalIndPower, TTestIndPower, TTestPower
from statsmodels.stats.proportion import proportion_effectsize

ALPHA = 0.05
POWER = 0.8
METHOD_MEAN = "statsmodels TTestPower (one-sample / paired t-test, two-sided), sd from the pilot games"
METHOD_TWO = "statsmodels TTestIndPower (two independent samples, two-sided), games per arm"
METHOD_PROPORTION = "statsmodels NormalIndPower (one-sample, ratio=0) on Cohen's h (proportion_effectsize)"
METHOD_FAMILY = ("sized for the family each test belongs to: level alpha/m for a family of m tests (Bonferroni, "
                 "Holm's and Benjamini-Hochberg's first step), so a single real effect is found with the stated power")


def _games(raw: float) -> int:
    return int(math.ceil(raw - 1e-9))


def games_for_mean(effect: float, sd: float, alpha: float = ALPHA, power: float = POWER, family: int = 1) -> int:
    """Games needed for a one-sample or paired t-test to detect a mean `effect`
    when the per-game values (or differences) have standard deviation `sd`.
    effect 0.5, sd 1 -> 34 (Cohen's d = 0.5 at alpha 0.05, power 0.8)."""
    if effect == 0:
        raise ValueError("the effect to detect must not be zero")
    if sd <= 0:
        return 2
    raw = TTestPower().solve_power(effect_size=abs(effect) / sd, alpha=alpha / family, power=power,
                                   alternative="two-sided")
    return max(2, _games(raw))


def games_for_two_means(effect: float, sd: float, alpha: float = ALPHA, power: float = POWER,
                        family: int = 1) -> int:
    """Games per arm for Welch/Student two-sample t-test (unpaired arms).
    effect 0.5, sd 1 -> 64 per arm."""
    if effect == 0:
        raise ValueError("the effect to detect must not be zero")
    if sd <= 0:
        return 2
    raw = TTestIndPower().solve_power(effect_size=abs(effect) / sd, alpha=alpha / family, power=power, ratio=1.0,
                                      alternative="two-sided")
    return max(2, _games(raw))


def games_for_proportion(p0: float, p1: float, alpha: float = ALPHA, power: float = POWER, family: int = 1) -> int:
    """Games for a one-sample test to tell a rate p1 from a reference p0 (e.g.
    a seat winning 27% against a fair 25%: 3775 games)."""
    if p0 == p1:
        raise ValueError("the two rates must differ")
    h = proportion_effectsize(p1, p0)
    raw = NormalIndPower().solve_power(effect_size=abs(h), alpha=alpha / family, power=power, ratio=0,
                                       alternative="two-sided")
    return max(2, _games(raw))


def detectable_effect(n: int, sd: float, alpha: float = ALPHA, power: float = POWER, family: int = 1) -> float:
    """The smallest mean effect a one-sample / paired t-test on n games finds
    with probability `power` (the inverse of games_for_mean)."""
    if n < 2:
        return float("inf")
    d = TTestPower().solve_power(effect_size=None, nobs=n, alpha=alpha / family, power=power, alternative="two-sided")
    return float(d) * sd

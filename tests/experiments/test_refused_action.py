"""A policy whose action the rules refuse stops the batch run with an error, not an endless loop.

An action the rules refuse leaves the state as it was (Skyline 3000's apply does so), so the same
seat decides again; a policy that keeps choosing it would loop for ever. The core's batch loop
(engines.core.adapter) stops a game past the engine's max_decisions and simulate raises, naming
the game and the seat. Shown on the toy game Coin with a broken decision: its `greedy` seat answers
an action no rule knows, which the step refuses. So that the test fails (instead of hanging) without
the guard, the step gives in after REFUSALS refusals and plays a pass: unguarded, the run would end
normally."""
import dataclasses

import numpy as np
import pytest

import coingame
from coingame import GREEDY, PASS
from coingame import decide_nb as coin_decide_nb
from coingame import state_size as coin_state_size
from coingame import step_nb as coin_step_nb
from engines.core.kernel import kernel

REFUSALS = 1000     # refused actions before the broken step gives in (far past the cap below)
MAX_DECISIONS = 60  # a Coin game takes at most 2 + 19 decisions


@kernel
def stubborn_decide_nb(d, cfg, aux, pid, w, prng, legal, scratch):
    """Coin's decision, but the greedy seat answers an action no rule knows."""
    if pid == GREEDY:
        return np.int64(PASS + 1)
    return coin_decide_nb(d, cfg, aux, pid, w, prng, legal, scratch)


@kernel
def refusing_step_nb(d, rng, cfg, a, rec, wide, row):
    """Coin's step, refusing an unknown action (the state unchanged but for the refusal count in
    the extra last slot) until REFUSALS of them, then playing a pass instead."""
    if a > PASS:
        last = d.shape[0] - 1
        if d[last] < REFUSALS:
            d[last] += 1
            return row
        a = np.int64(PASS)
    return coin_step_nb(d, rng, cfg, a, rec, wide, row)


REFUSING = dataclasses.replace(
    coingame.ENGINE, name="coin_refusing", game_file=__file__, module=__name__, max_decisions=MAX_DECISIONS,
    state_size=lambda P: coin_state_size(P) + 1,   # the refusal count (reset_nb zeroes the whole vector)
    kernels=dict(coingame.ENGINE.kernels, decide_nb=stubborn_decide_nb, decide_scripted_nb=stubborn_decide_nb,
                 step_nb=refusing_step_nb))


def _run(engine, count=4):
    kp = coingame.kernel_params(None, 3)
    ids = np.array([coingame.STRONG, GREEDY, coingame.RANDOM], np.int64)
    w = np.zeros((3, 8))
    w[:, 0] = 0.5
    return engine.simulate(kp, ids, w, True, 7, 0, count)


def test_a_refused_action_stops_the_run_naming_game_and_seat():
    # game 0 seats line-up slot s at seat s: the greedy seat is seat 1; its first pass is refused
    with pytest.raises(RuntimeError, match=r"coin_refusing: game 0 of run 7 still running after 60 decisions, "
                                           r"seat 1 \(greedy\) to move"):
        _run(REFUSING)


def test_the_cap_is_the_engines_declared_maximum():
    # with room for every refusal the broken step gives in and the games end: the cap alone raised above
    roomy = dataclasses.replace(REFUSING, name="coin_refusing_roomy", max_decisions=10 * REFUSALS)
    games = _run(roomy)["games"]
    assert (games["decisions"] > REFUSALS).all()

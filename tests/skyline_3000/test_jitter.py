"""Seeded jitter for the scripted policies (greedy, heuristic): jitter=0 plays exactly the games
they played before the weight existed; the default jitter breaks ties at random, from the seat's
own policy stream, so identical scripts no longer play identical games."""
import dataclasses
import hashlib
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from engines.core.lineup import make_lineup
from engines.core.rng import new_stream
from engines.skyline_3000 import SPEC, simulate
from engines.skyline_3000.engine import new_game
from engines.skyline_3000.params import VARIANTS, kernel_params
from engines.skyline_3000.policies import EXPERT, JITTER, SEARCH

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _regen():
    name = "golden_regenerate"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, GOLDEN / "regenerate.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # dataclasses look their module up there
        spec.loader.exec_module(mod)
    return sys.modules[name]


# what a batch's play shows (columns added later do not change the digest)
PINNED_COLUMNS = [("players", c) for c in ("seat", "lineup_slot", "score", "rank", "win", "cards_left",
                                           "hand_value_left", "buildings_built", "buildings_placed",
                                           "floors_placed", "billboards_placed", "improvements_won", "spent")] + \
    [("auctions", c) for c in ("bid_0", "bid_1", "bid_2", "bid_3", "winner", "price", "block")] + \
    [("games", c) for c in ("decisions", "construction_turns", "margin")]


def _seats(seats, suffix):
    return tuple(s + suffix if s in ("greedy", "heuristic") else s for s in seats)


def recipe_digest(r, suffix=""):
    """sha256 of a Skyline 3000 golden recipe's moves (a playthrough, without its '#' header) or
    tables (a batch), with `suffix` after each scripted seat's name (e.g. "(jitter=0)")."""
    h = hashlib.sha256()
    seats = _seats(r.seats, suffix)
    regen = _regen()
    if isinstance(r, regen.Play):
        text = regen.play_text(dataclasses.replace(r, seats=seats))
        h.update("\n".join(l for l in text.splitlines() if not l.startswith("#")).encode())
    else:
        kp = kernel_params(VARIANTS.load(r.variant), r.n_players)
        ln = make_lineup(SPEC, list(seats), r.n_players, r.rotate)
        tables = simulate(kp, ln.policy_ids(), ln.weight_rows(SPEC.max_weights), r.rotate, r.seed, r.start,
                          r.count)
        for t, c in PINNED_COLUMNS:
            h.update(f"{t}.{c}".encode())
            h.update(np.ascontiguousarray(tables[t][c]).tobytes())
    return h.hexdigest()[:16]


def skyline_recipes():
    return [r for r in _regen().RECIPES if r.game == "skyline_3000"]


# recipe_digest of every Skyline 3000 golden recipe, computed with main's code just before the jitter
# weight was merged (the 7-platform board; plain seat names). Print them again with
# `PYTHONPATH=. python tests/skyline_3000/test_jitter.py` (only to pin a change you mean).
BEFORE_JITTER = {
    "play_4p_mixed_policies": "ff00653d8d0c0d34",
    "play_2p_heuristic_vs_random": "7654c955e98a5bd1",
    "play_2p_index": "6cdcacf227e243d3",
    "play_4p_megamall_triple_index_vs_greedy": "200515f839efa86d",
    "batch_4p": "11bb9187460e810f",
    "batch_4p_six_platforms": "b1f612c7564687ab",   # = the old board's batch_4p before either change
    "batch_2p_no_tiebreak": "899553bd384af1c3",
    "batch_3p_5_platforms": "4cd5eaafbd375791",
}


@pytest.mark.parametrize("name", sorted(BEFORE_JITTER))
def test_jitter_zero_plays_the_games_played_before_the_weight(name):
    r = next(r for r in skyline_recipes() if r.name == name)
    assert recipe_digest(r, "(jitter=0)") == BEFORE_JITTER[name]


def _history(policy, stream_seed):
    g = new_game(n_players=4, seed=1, game_index=2)
    for s in range(4):
        g._prngs[s] = new_stream(stream_seed, 0, s)
    history = []
    while not g.is_over():
        history.append(g.policy_action(policy))
        g.apply(history[-1])
    return history


@pytest.mark.parametrize("policy", ["greedy", "heuristic"])
def test_jitter_breaks_ties_from_the_seat_stream(policy):
    # the same deal played by four copies of one script, with two sets of policy streams
    assert _history(f"{policy}(jitter=0)", 1) == _history(f"{policy}(jitter=0)", 2)
    assert _history(policy, 1) != _history(policy, 2)          # the default jitter
    assert _history(policy, 1) == _history(policy, 1)          # and still reproducible


def test_jitter_is_a_documented_weight_of_both_scripts():
    for name in ("greedy", "heuristic"):
        assert SPEC.policies[name].weights["jitter"] == JITTER > 0
    # the scripts' rows fit max_weights; the search's and the expert's rows (and their presets') are as
    # wide as they need
    assert SPEC.max_weights >= max(len(p.weights) for p in SPEC.policies.values()
                                   if p.policy_id not in (SEARCH, EXPERT))


if __name__ == "__main__":
    for r in skyline_recipes():
        print(f'    "{r.name}": "{recipe_digest(r)}",')

"""Skyline 3000 on the core's engine adapter (engines.core.adapter): the batch loop, the search
glue and their lifetimes are the core's, built from ENGINE below over this game's kernels
(search.py: how a seat decides, what the search tries and cannot see, the scores; columns.py: the
result columns). The package imports this module on first use (engines.skyline_3000.ENGINE), so
that SPEC stays cheap to build.
"""
from __future__ import annotations

from engines.core.adapter import Engine
from engines.skyline_3000 import columns, search
from engines.skyline_3000.params import VARIANTS, kernel_params
from engines.skyline_3000.policies import POLICIES, SEARCH
from engines.skyline_3000.state import C_PHASE, D_NPLAYERS, MAX_P, state_size
from engines.skyline_3000.tables import DTYPES, TABLES

PHASE_NAMES = ("construction", "place floor", "roof", "install", "bid", "place item", "draw", "over")


def _views(data):
    """The ctrl row of a state vector (for the phase's name)."""
    return data[1:].view("int32")


def _own_step_api():
    raise NotImplementedError("Skyline 3000's step API is still its own: engines.skyline_3000.game.new_game")


ENGINE = Engine(
    name="skyline_3000", game_file=__file__, module=__name__, tables=TABLES, dtypes=DTYPES, records="auctions",
    wide=(), policies=POLICIES, search_id=SEARCH, lookahead_ids=(SEARCH,), max_actions=search.MAX_ACTIONS,
    max_players=MAX_P, work_width=search.WORK_WIDTH, n_players_slot=D_NPLAYERS, variants=VARIANTS,
    kernel_params=kernel_params, default_players=4, weight_width=1, state_size=state_size,
    rows_per_game=columns.rows_per_game, side="rounds", side_rows_per_game=columns.rounds_per_game,
    acc_shape=columns.card_use_shape, chunk_tables=columns.card_use_table,
    phase=lambda data: PHASE_NAMES[int(_views(data)[C_PHASE])],
    action_name=lambda g, a: _own_step_api(), render=lambda g: _own_step_api(),
    observe=lambda kp, st, p: _own_step_api(),
    kernels=dict(reset_nb=search.reset_nb, legal_nb=search.legal_nb, apply_nb=search.apply_nb,
                 to_move_nb=search.to_move_nb, decide_nb=search.decide_nb, decide_scripted_nb=search.decide_nb,
                 decide_listed_nb=search.decide_listed_nb, search_actions_nb=search.search_actions_nb,
                 determinize_nb=search.determinize_nb, outcome_nb=search.outcome_nb,
                 copy_state_nb=search.copy_state_nb, step_nb=columns.step_nb, side_nb=columns.side_nb,
                 finish_nb=columns.finish_nb, accumulate_nb=columns.accumulate_nb))
simulate = ENGINE.simulate

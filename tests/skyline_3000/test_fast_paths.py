"""The random player's construction fast path gives exactly what the listed
legal actions give."""
import numpy as np
import pytest

from engines.skyline_3000 import rules as R
from engines.skyline_3000.engine import new_game
from engines.skyline_3000.state import A_SHIFT, C_CUR, C_PHASE, ACT_BILLBOARD, ACT_NOACT, PH_MAIN


@pytest.mark.parametrize("bb_costs_card", [False, True])
def test_kind_counts_and_picks_follow_legal_actions(bb_costs_card):
    seen = 0
    for seed, n_players in ((1, 4), (2, 3), (3, 2)):
        g = new_game(n_players=n_players, seed=seed,
                     overrides={"construction.billboard_costs_card": bb_costs_card})
        legal = np.zeros(g.kp.max_actions, np.int64)
        while not g.is_over():
            pub, hands = g.state.pub, g.state.hands
            if pub[C_PHASE] == PH_MAIN:
                p = pub[C_CUR]
                n = R.legal_actions_nb(pub, hands, legal)
                acts = legal[:n].copy()
                counts, okd = R.main_kind_counts_nb(pub, hands[p], p, legal)
                for kind in range(ACT_NOACT + 1):
                    of_kind = [a for a in acts if a >> A_SHIFT == kind]
                    count = (counts >> (8 * kind)) & 255
                    if kind == ACT_BILLBOARD:   # counted in blocks, each with billboard_choices_nb actions
                        count *= R.billboard_choices_nb(pub, p)
                    assert count == len(of_kind)
                    for j, a in enumerate(of_kind):
                        assert R.main_kind_action_nb(pub, hands[p], p, kind, j, okd) == a
                seen += 1
            g.apply(g.policy_action("random"))
    assert seen > 100


def test_random_player_spreads_billboards_over_blocks_and_cards():
    # with construction.billboard_costs_card the random player's billboard is uniform over
    # block x hand card (the kind first, then one of its actions, as legal_actions_nb lists them)
    g = new_game(n_players=2, seed=1, overrides={"construction.billboard_costs_card": True})
    pub, hands = g.state.pub, g.state.hands
    p = int(pub[C_CUR])
    legal = np.zeros(g.kp.max_actions, np.int64)
    n = R.legal_actions_nb(pub, hands, legal)
    listed = {int(a) for a in legal[:n] if a >> A_SHIFT == ACT_BILLBOARD}
    counts, okd = R.main_kind_counts_nb(pub, hands[p], p, legal)
    per = R.billboard_choices_nb(pub, p)
    picked = {int(R.main_kind_action_nb(pub, hands[p], p, ACT_BILLBOARD, j, okd))
              for j in range(((counts >> (8 * ACT_BILLBOARD)) & 255) * per)}
    assert per == 8 and picked == listed and len(listed) == 8 * g.kp.n_blocks


@pytest.mark.parametrize("bb_costs_card", [False, True])
def test_legality_and_effect_agree(bb_costs_card):
    """Every action legal_actions_nb lists is accepted by apply_action_nb (the
    do_* kernel of its kind), and a target the listing leaves out is refused
    with the state untouched: both sides call the same rule kernels."""
    from engines.skyline_3000.state import (
        BB_CARD_SHIFT, ACT_BILLBOARD, ACT_DRAW, ACT_FLOOR_TARGET, ACT_INSTALL, ACT_PLACE, ACT_ROOF_TARGET, PH_BID, copy_state,
    )
    # a billboard's card field too: no card, a card in hand, a card elsewhere
    bb_dets = list(range(64)) + [k | (c + 1) << BB_CARD_SHIFT for k in (0, 4, 8, 9) for c in range(0, 62, 3)]
    probe_kind = {ACT_FLOOR_TARGET, ACT_ROOF_TARGET, ACT_INSTALL, ACT_PLACE, ACT_DRAW, ACT_BILLBOARD}
    checked = refused = 0
    for seed, n_players in ((5, 4), (6, 2)):
        g = new_game(n_players=n_players, seed=seed,
                     overrides={"construction.billboard_costs_card": bb_costs_card})
        legal = np.zeros(g.kp.max_actions, np.int64)
        while not g.is_over():
            st = g.state
            if st.pub[C_PHASE] != PH_BID:
                n = R.legal_actions_nb(st.pub, st.hands, legal)
                acts = set(legal[:n].tolist())
                for a in acts:
                    c = copy_state(st)
                    assert R.apply_action_nb(c.pub, c.hands, c.sec, np.int64(a)), a
                    checked += 1
                kinds = {a >> A_SHIFT for a in acts} & probe_kind
                for kind in kinds:  # details the listing leaves out, up to a bound
                    for det in bb_dets if kind == ACT_BILLBOARD else range(64):
                        a = (kind << A_SHIFT) | det
                        if a in acts:
                            continue
                        c = copy_state(st)
                        ok = R.apply_action_nb(c.pub, c.hands, c.sec, np.int64(a))
                        assert not ok, (kind, det)
                        assert (c.pub == st.pub).all() and (c.hands == st.hands).all()
                        refused += 1
            g.apply(g.policy_action("random"))
    assert checked > 300 and refused > 1000

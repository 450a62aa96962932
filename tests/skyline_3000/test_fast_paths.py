"""The random player's construction fast path gives exactly what the listed
legal actions give."""
import numpy as np

from engines.skyline_3000 import rules as R
from engines.skyline_3000.game import new_game
from engines.skyline_3000.state import A_SHIFT, C_CUR, C_PHASE, K_NOACT, PH_MAIN


def test_kind_counts_and_picks_follow_legal_actions():
    seen = 0
    for seed, n_players in ((1, 4), (2, 3), (3, 2)):
        g = new_game(n_players=n_players, seed=seed)
        legal = np.zeros(g.kp.max_actions, np.int64)
        while not g.is_terminal():
            pub, hands = g.state.pub, g.state.hands
            if pub[C_PHASE] == PH_MAIN:
                p = pub[C_CUR]
                n = R.legal_actions_nb(pub, hands, legal)
                acts = legal[:n].copy()
                counts, okd = R.main_kind_counts_nb(pub, hands[p], p, legal)
                for kind in range(K_NOACT + 1):
                    of_kind = [a for a in acts if a >> A_SHIFT == kind]
                    assert (counts >> (8 * kind)) & 255 == len(of_kind)
                    for j, a in enumerate(of_kind):
                        assert R.main_kind_action_nb(pub, hands[p], p, kind, j, okd) == a
                seen += 1
            g.apply_action(g.policy_action("random"))
    assert seen > 100

"""What a seat of Skyline 3000 cannot see, for the conformance suite's hidden-information test
(tests/test_conformance.py runs it for every registered game): POLICIES (every declared policy,
search at small budgets), states() (the decision states to check them at), scramble(g, rng)
(everything the seat to move cannot see, changed: written from the rulebook, not from the
engine's determinization) and check_states(states) (the states reach the situations that matter)."""
import numpy as np

from engines.skyline_3000.engine import new_game
from engines.skyline_3000.state import (
    C_BIDDER, C_KEY, P_NHAND, PH_BID, PI_DECK, PI_DISC, PI_DISCARDS, PI_TOP, S_BIDS,
)

POLICIES = ["expert", "expert_waits", "expert_waits_roofs", "search(iterations=8, rollout=expert)", "random", "greedy",
            "heuristic", "search(iterations=16)", "search(iterations=8, rollout=heuristic)",
            "search(iterations=8, rollout=greedy)", "search(iterations=16, halving=0)",
            "search(iterations=8, rollout=heuristic, halving=0)"]


def decision_states(n_games=2, step=9):
    """States met in mixed games (heuristic, greedy, random, heuristic), every `step`-th decision,
    plus every bid made after another seat's sealed bid."""
    out = []
    names = ["heuristic", "greedy", "random", "heuristic"]
    for gi in range(n_games):
        g = new_game(n_players=4, seed=2, game_index=gi)
        k = 0
        while not g.is_over():
            if k % step == 0 or (g.state.phase == PH_BID and g.state.ctrl[C_BIDDER] > 0):
                out.append(g.clone())
            g.apply(g.policy_action(names[g.current_player()]))
            k += 1
    g = new_game(n_players=2, seed=3)
    k = 0
    while not g.is_over():
        if k % step == 0:
            out.append(g.clone())
        g.apply(g.policy_action("heuristic"))
        k += 1
    return out


_decision_states = decision_states


_STATES = []


def states() -> list:
    """The decision states the hidden-information test checks every policy at (built once)."""
    if not _STATES:
        _STATES.extend(_decision_states())
    return _STATES


def _earlier_bidders(g):
    st, p = g.state, g.current_player()
    P = g.n_players
    return [q for q in ((st.ctrl[C_KEY] + j) % P for j in range(st.ctrl[C_BIDDER]))
            if q != p and st.players[q, P_NHAND] > 0]

def _same_observation(a, b):
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def scramble(g, rng):
    """Everything the seat to move cannot see, changed (written from the rulebook, not from the
    engine's determinization): which hidden cards are in the other hands (their sizes are public)
    and in the face-up stacks below the visible top (each stack keeps its card type), the sealed
    bids already made in this auction, and the chance stream."""
    st, kp = g.state, g.kp
    p = g.current_player()
    types = kp.card_types()
    seen = set(st.hands[p, :st.players[p, P_NHAND]].tolist())
    for t in range(3):
        seen |= set(st.piles[t, PI_DISCARDS:PI_DISCARDS + st.piles[t, PI_DISC]].tolist())
        if st.piles[t, PI_TOP] >= 0:
            seen.add(int(st.piles[t, PI_TOP]))
    hidden = [c for c in range(kp.n_cards) if c not in seen]
    rng.shuffle(hidden)
    for t in range(3):
        below_top = max(int(st.piles[t, PI_DECK]) - 1, 0)
        pick = [c for c in hidden if types[c] == t][:below_top]
        st.decks[t, :below_top] = pick
        hidden = [c for c in hidden if c not in pick]
    for q in range(g.n_players):
        if q != p:
            n = int(st.players[q, P_NHAND])
            st.hands[q, :n] = hidden[:n]
            hidden = hidden[n:]
    assert not hidden
    for q in _earlier_bidders(g) if g.state.phase == PH_BID else []:
        hand = st.hands[q, :st.players[q, P_NHAND]]
        st.sec[S_BIDS + q] = sum(1 << int(c) for c in hand if rng.random() < 0.5)
    st.sec[:4] = rng.integers(1, 2**63, 4, dtype=np.uint64)


def check_states(states) -> None:
    assert sum(g.state.phase == PH_BID and bool(_earlier_bidders(g)) for g in states) >= 5

"""What a seat of Skyline of the World cannot see, for the conformance suite's hidden-information test
(tests/test_conformance.py runs it for every registered game): POLICIES (every declared policy,
search at small budgets), states() (the decision states to check them at), scramble(g, rng)
(everything the seat to move cannot see, changed: written from the rulebook, not from the
engine's determinization) and check_states(states) (the states reach the situations that matter)."""
import numpy as np

from engines.skyline_of_the_world import new_game
from engines.skyline_of_the_world.params import N_STOCK
from engines.skyline_of_the_world.state import (
    DECK, M_BANK_NET, M_DECK_POS, M_NPLAYERS, MISSIONS, P_BOUGHT, P_CAP_LOST, P_CASH, P_CASHED_VALUE,
    P_FEES_BANK, P_FEES_PAID, P_FEES_RECV, P_GOT_SELL, P_HAND, P_INCOME_SUM, P_MISSION, P_SOLD, P_SPENT_BUY,
    P_STOCK, PB, PBASE,
)

COVERED = {"rules.covered": True}

POLICIES = ["random", "greedy", "heuristic", "search(iterations=16)", "search(iterations=8, rollout=heuristic)",
            "search(iterations=16, rollout=random)", "search(iterations=8, rollout=heuristic, halving=0)",
            "heuristic_tuned",   # the shipped preset (engines/skyline_of_the_world/presets.toml)
            "expert", "search(iterations=8, rollout=expert)"]   # the learned expert (expert.toml), and rolled out


def decision_states(n_players, overrides=None, n_games=2, seed=2, every=7):
    """States met in games of mixed scripted players, every `every`-th decision."""
    out = []
    lineup = ["heuristic", "random", "greedy", "random"]
    for gi in range(n_games):
        g = new_game(n_players=n_players, seed=seed, game_index=gi, overrides=overrides)
        k = 0
        while not g.is_over():
            if k % every == 0:
                out.append(g.clone())
            g.apply(g.policy_action(lineup[(g.current_player() + gi) % 4]))
            k += 1
    return out


_decision_states = decision_states


_STATES = []


def states() -> list:
    """The decision states the hidden-information test checks every policy at (built once)."""
    if not _STATES:
        _STATES.extend([g for overrides in (None, COVERED)   # cash and stock open, and covered
                   for g in _decision_states(3, overrides, n_games=1, every=9)
                   + _decision_states(2, overrides, n_games=1, every=9)])
    return _STATES


def scramble(g, rng):
    """Everything the seat to move cannot see, changed (written from the rulebook, not from the
    engine's determinization): the order of the face-down pile, which of the unseen cards the others
    hold (a hand keeps its size: cards in hand are counted on the table), the others' missions
    and the unused ones, the record of drawn cards, the chance stream; covered: the others' cash,
    how the floors in their stocks are split between them (the bank's supply and the board are on
    the table, so the total per kind is known), their money counters and the bank's balance."""
    d = g.state.data
    kp = g.kp
    P = int(d[M_NPLAYERS])
    me = g.current_player()
    others = [q for q in range(P) if q != me]
    g.state.rng[:] = rng.integers(1, 2**63, 4, dtype=np.uint64)
    nc, pos = int(kp.n_cards), int(d[M_DECK_POS])
    # cards: the face-down pile and the others' hands
    hands = {q: [c for c in range(nc) if (int(d[PBASE + q * PB + P_HAND]) >> c) & 1] for q in others}
    unseen = list(d[DECK + pos:DECK + nc]) + [c for q in others for c in hands[q]]
    unseen = [int(x) for x in rng.permutation(unseen)]
    for q in others:
        take, unseen = unseen[:len(hands[q])], unseen[len(hands[q]):]
        d[PBASE + q * PB + P_HAND] = sum(1 << c for c in take)
    d[DECK + pos:DECK + nc] = unseen
    d[DECK:DECK + pos] = rng.integers(0, nc, pos)           # nobody reads the record of drawn cards
    # missions: mine stays; the others' and the unused ones are reshuffled
    nm = int(kp.n_missions)
    mine = int(d[PBASE + me * PB + P_MISSION])
    rest = [int(x) for x in rng.permutation([m for m in range(nm) if m != mine])]
    for q in others:
        d[PBASE + q * PB + P_MISSION] = rest.pop()
    deal = [int(d[PBASE + q * PB + P_MISSION]) for q in range(P)] + rest
    d[MISSIONS:MISSIONS + nm] = deal
    if kp.covered:
        for k in range(N_STOCK):
            total = sum(int(d[PBASE + q * PB + P_STOCK + k]) for q in others)
            split = rng.multinomial(total, [1 / len(others)] * len(others))
            for q, n in zip(others, split):
                d[PBASE + q * PB + P_STOCK + k] = n
        for q in others:
            b = PBASE + q * PB
            d[b + P_CASH] = rng.integers(0, 41)
            for f in (P_INCOME_SUM, P_FEES_PAID, P_FEES_RECV, P_FEES_BANK, P_CAP_LOST, P_CASHED_VALUE,
                      P_SPENT_BUY, P_GOT_SELL):
                d[b + f] = rng.integers(0, 200)
            d[b + P_BOUGHT:b + P_BOUGHT + N_STOCK] = rng.integers(0, 9, N_STOCK)
            d[b + P_SOLD:b + P_SOLD + N_STOCK] = rng.integers(0, 9, N_STOCK)
        d[M_BANK_NET] = rng.integers(-300, 300)


def check_states(states) -> None:
    assert any(g.kp.covered for g in states) and not all(g.kp.covered for g in states)
    rng = np.random.default_rng(1)
    for g in states:   # the scramble changes something at every state
        h = g.clone()
        scramble(h, rng)
        assert not np.array_equal(h.state.data, g.state.data)

"""Skyline 3000 whole games: conservation invariants under every policy and
player count, step API == batch kernel, determinism, hidden information."""
import numpy as np
import pytest

from engines.skyline_3000 import SPEC
from engines.skyline_3000 import rules as R
from engines.core.search import N_STATS
from engines.skyline_3000 import simulate
from engines.skyline_3000.engine import ENGINE, new_game, play
from engines.skyline_3000.render import result
from engines.skyline_3000.params import VARIANTS, kernel_params
from engines.skyline_3000.policies import POLICIES, choose_action_nb
from engines.skyline_3000.state import (
    A_WINNER, B_BB, B_BLDO, B_FLOORS, B_NBLD, B_ROOF, BID_FLAG, C_DECISIONS, C_N_AUC, C_PHASE, C_STALLED, C_STOCK,
    PI_DISCARDS, P_BILLBOARDS, P_EV_BILLBOARD, P_EV_BUILDOVER, P_EV_FIRST, P_EV_SECOND, P_NBUILD,
    P_NHAND, P_ROOFS, P_SCORE, P_ST_BB_OVER, PH_BID, PH_OVER, PI_DECK, PI_DISC, PL_H, PL_R, State,
)


def play_game(st, kp, ids, w, seed, gi):
    """Game gi of run `seed` on st by the core's scripted game loop (the batch's; no search seat):
    returns (decisions with more than one legal action, legal actions summed)."""
    P, n, k = kp.n_players, ENGINE.max_actions, ENGINE.built
    aux = kp.aux
    sctx = (kp.cfg, aux, np.zeros(n, np.int64), np.zeros(n), np.zeros((P, ENGINE.work_width), np.int64))
    rec = np.zeros((len(SPEC.tables["auctions"].names), kp.n_auctions), np.int64)
    side = np.zeros((len(SPEC.tables["rounds"].names), P * kp.rounds), np.int64)
    _, _, _, choices, sum_legal = k.play_game_scripted_nb(
        st.data, st.rng, kp.cfg, aux, np.uint64(seed), np.int64(gi), np.asarray(ids, np.int64), w,
        np.zeros((P, 4), np.uint64), np.zeros(n, np.int64), np.zeros(n), rec, np.zeros((1, kp.n_auctions), np.int64),
        np.int64(0), sctx, np.zeros(N_STATS, np.int64), side, np.int64(0), np.int64(0))
    return choices, sum_legal


def weight_rows(names, width=SPEC.max_weights):
    rows = np.zeros((len(names), width))
    for i, n in enumerate(names):
        w = list(POLICIES[n].weights.values())
        rows[i, : len(w)] = w
    return rows


def check_invariants(st, kp):
    """Conservation of floors, roofs, billboards, cards; legal final board; score ledger."""
    P = kp.n_players
    ctrl, board, plants, players, piles = st.ctrl, st.board, st.plants, st.players, st.piles
    assert ctrl[C_PHASE] == PH_OVER and ctrl[C_STALLED] == 0
    # floors: stock + Plants + board
    plant_floors = sum(int(plants[p, PL_H, : players[p, P_NBUILD]].sum()) for p in range(P))
    assert ctrl[C_STOCK] + plant_floors + board[:, B_FLOORS:B_FLOORS + P].sum() == kp.floor_stock
    # roofs, per player and type: supply + roofed Plant buildings + buildings on the board
    for p in range(P):
        nb = players[p, P_NBUILD]
        for r in (1, 2):
            on_board = sum(int((board[k, B_BLDO:B_BLDO + board[k, B_NBLD]] == p).sum())
                           for k in range(kp.n_blocks) if board[k, B_ROOF] == r)
            in_plant = int((plants[p, PL_R, :nb] == r).sum())
            total = kp.curved_roofs if r == 1 else kp.pointed_roofs
            assert players[p, P_ROOFS + r] + in_plant + on_board == total
        # billboards: supply + on the board + removed by building over them
        assert players[p, P_BILLBOARDS] + board[:, B_BB + p].sum() + players[p, P_ST_BB_OVER] == kp.billboards
        # score == start + every scoring event
        ev = players[p, [P_EV_FIRST, P_EV_SECOND, P_EV_BILLBOARD, P_EV_BUILDOVER]].sum()
        assert players[p, P_SCORE] == kp.start_score + ev
    # cards: decks + discards + hands hold every card exactly once
    ids = []
    for t in range(3):
        ids += st.decks[t, : piles[t, PI_DECK]].tolist()
        ids += piles[t, PI_DISCARDS: PI_DISCARDS + piles[t, PI_DISC]].tolist()
    for p in range(P):
        ids += st.hands[p, : players[p, P_NHAND]].tolist()
    assert sorted(ids) == list(range(kp.n_cards))
    # the final board obeys roof uniformity, the district rule, the height rule, the platforms
    assert R.block_check_nb(st.pub) == -1


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("policy", ["random", "greedy", "heuristic"])
def test_invariants_over_many_games(players, policy):
    kp = kernel_params(VARIANTS.load(None), players)
    st = State.empty(kp)
    mix = [policy] + ["random"] * (players - 1) if policy != "random" else ["random"] * players
    ids = np.array([POLICIES[n].policy_id for n in mix], np.int64)
    w = weight_rows(mix)
    n_games = 1500 if policy == "random" else 600
    for i in range(n_games):
        choices, sum_legal = play_game(st, kp, ids, w, 17, i)
        check_invariants(st, kp)
        assert st.ctrl[C_N_AUC] == 12
        # choices counted: every decision has at least one legal action
        assert 0 < choices <= st.ctrl[C_DECISIONS] <= sum_legal


def test_invariants_on_other_variants():
    for name in ("megamall_triple", "three_player_5_platforms", "no_tiebreak"):
        v = VARIANTS.load(name)
        kp = kernel_params(v)
        P = kp.n_players
        st = State.empty(kp)
        names = ["heuristic", "greedy"] + ["random"] * (P - 2)
        for i in range(300):
            play_game(st, kp, [POLICIES[n].policy_id for n in names], weight_rows(names), 3, i)
            check_invariants(st, kp)


def test_step_api_reproduces_the_batch_game():
    names = ["heuristic", "random", "greedy", "random"]
    kp = kernel_params(VARIANTS.load(None), 4)
    ids = np.array([POLICIES[n].policy_id for n in names])
    tables = simulate(kp, ids, weight_rows(names), False, 21, 0, 5)
    for i in range(5):
        g = new_game(seed=21, game_index=i)
        while not g.is_over():
            g.apply(g.policy_action(names[g.current_player()]))
        rows = tables["players"]["game"] == i
        assert g.scores().tolist() == tables["players"]["score"][rows].tolist()
        au = tables["auctions"]["game"] == i
        assert g.state.alog[: g.state.ctrl[C_N_AUC], A_WINNER].tolist() == tables["auctions"]["winner"][au].tolist()
        assert g.state.ctrl[17] == tables["games"]["decisions"][i]


def test_simulate_is_deterministic_and_chunk_independent():
    kp = kernel_params(VARIANTS.load(None), 4)
    names = ["heuristic", "random", "greedy", "random"]
    ids = np.array([POLICIES[n].policy_id for n in names])
    w = weight_rows(names)
    whole = simulate(kp, ids, w, True, 5, 0, 100)
    again = simulate(kp, ids, w, True, 5, 0, 100)
    a = simulate(kp, ids, w, True, 5, 0, 50)
    b = simulate(kp, ids, w, True, 5, 50, 50)
    for table in ("players", "auctions", "games"):
        assert list(whole[table]) == SPEC.tables[table].names
        for col in whole[table]:
            assert np.array_equal(whole[table][col], again[table][col])
            assert np.array_equal(whole[table][col], np.concatenate([a[table][col], b[table][col]])), (table, col)
    cu_whole = whole["card_use"]
    for col in ("played", "bid", "kept"):
        assert cu_whole[col].sum() == a["card_use"][col].sum() + b["card_use"][col].sum()
    assert list(cu_whole) == SPEC.tables["card_use"].names
    # rotation: game i seats line-up slot (seat + i) % P at seat `seat`
    pl = whole["players"]
    assert np.array_equal(pl["lineup_slot"], (pl["seat"] + pl["game"]) % 4)


def test_the_same_seed_deals_the_same_cards_whatever_the_policies():
    a = new_game(seed=8, game_index=3)
    b = new_game(seed=8, game_index=3)
    assert np.array_equal(a.state.hands, b.state.hands) and np.array_equal(a.state.decks, b.state.decks)
    play(a, ["random"] * 4)
    play(b, ["heuristic"] * 4)
    assert result(a)["scores"] != result(b)["scores"] or not np.array_equal(a.state.pub, b.state.pub)


def test_observation_hides_other_hands_deck_order_and_pending_bids():
    g = new_game(seed=4)
    while g.state.ctrl[C_PHASE] != PH_BID:
        g.apply(g.policy_action("random"))
    g.apply(g.policy_action("random"))  # the first sealed bid is pending
    p = g.current_player()
    obs = g.observation(p)
    assert set(obs) == {"ctrl", "board", "plants", "players", "piles", "alog", "hand", "seat"}
    before = {k: np.array(v) for k, v in obs.items()}
    other = (p + 1) % 4
    g.state.hands[other, :] = g.state.hands[other, ::-1].copy()   # an opponent's hand changes
    g.state.decks[:] = g.state.decks[:, ::-1].copy()              # the deck order changes
    g.state.secret[4:] = np.uint64(12345)                          # pending bids change
    after = g.observation(p)
    for k in before:
        assert np.array_equal(before[k], after[k]), k
    assert not after["hand"].flags.writeable


@pytest.mark.parametrize("policy", ["random", "greedy", "heuristic"])
def test_policies_never_see_deck_order_or_other_hands(policy):
    g = new_game(seed=6)
    kp = g.kp
    w = weight_rows([policy])[0]
    legal = np.zeros(kp.max_actions, np.int64)
    for step in range(400):
        if g.is_over():
            break
        p = g.current_player()
        n = R.legal_actions_nb(g.state.pub, g.state.hands, legal)
        rng = g._prngs[p].copy()
        a1 = choose_action_nb(POLICIES[policy].policy_id, g.state.pub, g.state.hands[p], legal, n, w, rng)
        shuffled = g.clone()
        shuffled.state.decks[:] = np.roll(shuffled.state.decks, 3, axis=1)
        for q in range(4):
            if q != p:
                shuffled.state.hands[q, : shuffled.state.players[q, P_NHAND]] = (
                    shuffled.state.hands[q, : shuffled.state.players[q, P_NHAND]][::-1])
        rng2 = g._prngs[p].copy()
        a2 = choose_action_nb(POLICIES[policy].policy_id, shuffled.state.pub, shuffled.state.hands[p], legal, n, w,
                              rng2)
        assert a1 == a2
        g.apply(g.policy_action(policy))


def test_python_function_policies_and_readable_strings():
    def first_legal(obs, legal):
        if hasattr(legal, "bid"):
            return legal.bid(obs["hand"][:1])
        return legal[0]

    g = new_game(n_players=2, seed=1)
    res = play(g, [first_legal, "greedy"])
    assert res["winners"] and len(res["ranks"]) == 2
    g = new_game(seed=2)
    strings = {g.action_name(a) for a in g.legal_actions()}
    assert "pass" in strings and any(s.startswith("play Floor") for s in strings)
    assert "Red district" in str(g)
    space = None
    while space is None:
        acts = g.legal_actions()
        if hasattr(acts, "bid"):
            space = acts
        else:
            g.apply(g.policy_action("random"))
    a = space.bid(space.cards[:2])
    s = g.action_name(a)
    assert s.startswith("bid ") and "=" in s and a in space and (a & BID_FLAG)


def test_heuristic_beats_random_and_greedy():
    kp = kernel_params(VARIANTS.load(None), 4)
    for rival, floor in (("random", 0.8), ("greedy", 0.5)):
        names = ["heuristic"] + [rival] * 3
        t = simulate(kp, np.array([POLICIES[n].policy_id for n in names]), weight_rows(names), True, 99, 0, 400)
        pl = t["players"]
        rate = pl["win"][pl["lineup_slot"] == 0].mean()
        assert rate > floor, (rival, rate)


# ---------------------------------------------------------------- a billboard that costs a card
BB_ON = {"construction.billboard_costs_card": True}


@pytest.mark.parametrize("players", [2, 4])
def test_invariants_when_a_billboard_costs_a_card(players):
    # every scripted player plays legal moves to the end, the cards are all accounted for, and each
    # places billboards (paying for them) at this rule too
    kp = kernel_params(VARIANTS.load(None, BB_ON), players)
    st = State.empty(kp)
    names = ["heuristic", "greedy", "random", "random"][:players] if players == 4 else ["heuristic", "random"]
    ids = np.array([POLICIES[n].policy_id for n in names], np.int64)
    placed = np.zeros(players, np.int64)
    for i in range(300):
        play_game(st, kp, ids, weight_rows(names), 23, i)
        assert st.ctrl[C_PHASE] == PH_OVER
        check_invariants(st, kp)
        placed += -st.players[:, P_EV_BILLBOARD] // kp.billboard_cost
    assert (placed > 0).all(), placed


def test_random_play_through_the_step_api_when_a_billboard_costs_a_card():
    paid = 0
    for players in (2, 3, 4):
        for gi in range(3):
            g = new_game(n_players=players, seed=5, game_index=gi, overrides=BB_ON)
            while not g.is_over():
                a = g.policy_action("random")
                if g.state.phase != PH_BID:
                    assert a in g.legal_actions()
                if a >> 16 == 4 and (a & 0xFFFF) >> 6:   # ACT_BILLBOARD with its card
                    p = g.current_player()
                    c = ((a & 0xFFFF) >> 6) - 1
                    assert c in g.state.hands[p, :g.state.players[p, P_NHAND]].tolist()
                    assert "paying with" in g.action_name(a)
                    paid += 1
                g.apply(a)
            check_invariants(g.state, g.kp)
    assert paid > 20


@pytest.mark.parametrize("over", [{}, BB_ON], ids=["free", "costs_card"])
def test_step_api_reproduces_the_batch_game_either_way(over):
    names = ["heuristic", "random", "greedy", "search(iterations=6, rollout=heuristic)"]
    from engines.core.lineup import make_lineup
    ln = make_lineup(SPEC, names, 4, False)
    kp = kernel_params(VARIANTS.load(None, over), 4)
    tables = simulate(kp, ln.policy_ids(), ln.weight_rows(SPEC.max_weights), False, 21, 0, 2)
    for i in range(2):
        g = new_game(seed=21, game_index=i, overrides=over or None)
        while not g.is_over():
            g.apply(g.policy_action(names[g.current_player()]))
        rows = tables["players"]["game"] == i
        assert g.scores().tolist() == tables["players"]["score"][rows].tolist()
        assert g.state.ctrl[17] == tables["games"]["decisions"][i]


@pytest.mark.parametrize("policy", ["random", "greedy", "heuristic"])
def test_policies_pay_for_billboards_from_their_own_hand_only(policy):
    # with the card in the action, the choice of card must still depend on the seat's own hand alone
    g = new_game(seed=6, overrides=BB_ON)
    w = weight_rows([policy])[0]
    legal = np.zeros(g.kp.max_actions, np.int64)
    for _ in range(400):
        if g.is_over():
            break
        p = g.current_player()
        n = R.legal_actions_nb(g.state.pub, g.state.hands, legal)
        a1 = choose_action_nb(POLICIES[policy].policy_id, g.state.pub, g.state.hands[p], legal, n, w, g._prngs[p].copy())
        shuffled = g.clone()
        shuffled.state.decks[:] = np.roll(shuffled.state.decks, 3, axis=1)
        for q in range(4):
            if q != p:
                nq = shuffled.state.players[q, P_NHAND]
                shuffled.state.hands[q, :nq] = shuffled.state.hands[q, :nq][::-1]
        a2 = choose_action_nb(POLICIES[policy].policy_id, shuffled.state.pub, shuffled.state.hands[p], legal, n, w,
                              g._prngs[p].copy())
        assert a1 == a2
        g.apply(g.policy_action(policy))

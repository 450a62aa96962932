"""The learned expert in Skyline of the World (engines/core/expert.py,
engines/skyline_of_the_world/features.py): its features read only what the seat sees and add up to
the score at the end, it plays legal complete games, the shipped model beats the untrained one, its
model file round-trips and refuses other features, and the trainer records this game's tables
reproducibly."""
import numpy as np
import pytest

from engines.skyline_of_the_world import SPEC, new_game
from engines.skyline_of_the_world.features import FEATURES, features_nb
from tests import expert_tools
from tests.expert_tools import play, zero_expert
from tests.skyline_of_the_world.hidden import scramble, states

ZERO = zero_expert(SPEC)
IX = {f: i for i, f in enumerate(FEATURES)}


def features_of(g, p):
    return expert_tools.features_of(SPEC, features_nb, g, p, g.kp.cfg)


def test_features_read_only_what_the_seat_sees():
    """Scrambling everything the seat to move cannot see (the pile, the others' hands and missions;
    covered: their cash and stock) leaves its features as they were, open and covered alike."""
    rng = np.random.default_rng(5)
    checked = 0
    for g in states():
        p = g.current_player()
        h = g.clone()
        scramble(h, rng)
        assert np.array_equal(features_of(h, p), features_of(g, p)), g.phase()
        checked += 1
    assert checked > 20


def test_expert_choice_ignores_what_the_seat_cannot_see():
    """The shipped expert (a trained model: its choice is not the first listed action) chooses the
    same move after the scramble, from the same policy stream."""
    rng = np.random.default_rng(6)
    differs = 0
    for g in states():
        a = g.clone().policy_action("expert")
        differs += a != g.legal_actions()[0]
        h = g.clone()
        scramble(h, rng)
        assert h.policy_action("expert") == a, g.phase()
    assert differs > 0


def test_features_of_a_finished_game_add_up_to_its_score():
    """At the end the public prestige and the mission are the score, to the point."""
    for gi in range(4):
        g = new_game(n_players=4, seed=4, game_index=gi)
        while not g.is_over():
            g.apply(g.policy_action("heuristic"))
        for p, score in enumerate(g.scores()):
            f = features_of(g, p)
            assert f[IX["public"]] + f[IX["mission_done"]] == score
            assert f[IX["lead"]] == score - max(features_of(g, q)[IX["public"]] for q in range(4) if q != p)


def test_expert_plays_legal_complete_games():
    """Step by step every expert move is legal and the game ends; in the batch loop 100 four-player
    games against the heuristic all finish with a winner."""
    for gi in range(2):
        g = new_game(n_players=4, seed=9, game_index=gi)
        moves = 0
        while not g.is_over():
            a = g.policy_action("expert")
            assert a in g.legal_actions()
            g.apply(a)
            moves += 1
        assert moves > 20 and len(g.scores()) == 4
    t = play(SPEC, ["expert", "heuristic", "expert", "heuristic"], 4, 100)
    win = np.asarray(t["players"]["win"]).reshape(100, 4)
    assert (win.sum(1) >= 1).all()


def test_shipped_model_beats_the_untrained_one():
    """Two shipped experts against two zero-weight experts (which play the first listed action)."""
    t = play(SPEC, ["expert", ZERO, "expert", ZERO], 4, 400)["players"]
    slot, win = np.asarray(t["lineup_slot"]), np.asarray(t["win"], float)
    trained, untrained = win[slot % 2 == 0].mean(), win[slot % 2 == 1].mean()
    assert trained > untrained + 0.1, (trained, untrained)


def _race_states():
    """Every decision of four heuristic-played games at 4 seats (penthouses are built late)."""
    for gi in range(4):
        g = new_game(n_players=4, seed=12, game_index=gi)
        while not g.is_over():
            yield g
            g.apply(g.policy_action("heuristic"))


def test_the_race_features_read_the_next_penthouse():
    """pent_site is 1 whenever the seat may build its penthouse now; pent_ready (held, fee paid after
    the next income) and pent_afford (not held, price and fee paid) need a site and exclude each
    other; a penthouse the seat may build now with its cash is ready."""
    from engines.skyline_of_the_world.params import LEVELS, MAX_CELLS
    from engines.skyline_of_the_world.state import BH, M_PHASE, PH_BUILD, STOP
    seen = {"site": 0, "ready": 0, "afford": 0, "legal": 0}
    for g in _race_states():
        p = g.current_player()
        f = features_of(g, p)
        site, ready, afford = f[IX["pent_site"]], f[IX["pent_ready"]], f[IX["pent_afford"]]
        assert {site, ready, afford} <= {0.0, 1.0}
        assert ready <= site and afford <= site and ready + afford <= 1
        d = g.state.data
        pent_builds = [a for a in g.legal_actions() if a < STOP and a // MAX_CELLS == 0
                       and d[BH + a % MAX_CELLS] == LEVELS - 1]
        if d[M_PHASE] == PH_BUILD and pent_builds:
            assert site == 1 and ready == 1, g.phase()
            seen["legal"] += 1
        seen["site"] += site
        seen["ready"] += ready
        seen["afford"] += afford
    assert min(seen.values()) > 0, seen


def test_a_trade_in_begun_is_scored_complete():
    """The expert scores the first card of a trade-in as the whole trade (search.settle_nb): the
    candidate's afterstate holds trade_in cards fewer and trade_value more cash, not one card lost."""
    from engines.core.rng import new_stream
    from engines.skyline_of_the_world.params import K_CAP, K_TRADE_IN, K_TRADE_VALUE
    from engines.skyline_of_the_world.state import BUY_BASE, M_PHASE, PH_TRADE, TRADE_BASE
    checked = 0
    for g in _race_states():
        legal = g.legal_actions()
        trades = [i for i, a in enumerate(legal) if TRADE_BASE <= a < BUY_BASE]
        if not trades or g.state.data[M_PHASE] == PH_TRADE:
            continue
        p, cfg = g.current_player(), g.kp.cfg
        now = features_of(g, p)
        if now[IX["cash"]] + cfg[K_TRADE_VALUE] > cfg[K_CAP] or now[IX["cards_done"]] > 0:
            continue
        listed, feats = SPEC.expert.choices(g, new_stream(np.uint64(0), np.int64(0), 1000))
        for a, row in zip(listed, feats):
            if TRADE_BASE <= a < BUY_BASE:
                assert row[IX["cash"]] == now[IX["cash"]] + cfg[K_TRADE_VALUE]
                assert row[IX["cards_open"]] == now[IX["cards_open"]] - cfg[K_TRADE_IN]
                checked += 1
    assert checked > 3

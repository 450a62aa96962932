"""The learned expert in Skyline 3000 (engines/core/expert.py, engines/skyline_3000/features.py):
its features read only what the seat sees and hold the score at the end, it plays legal complete
games (bids among them: its candidates are the search's bid rules, played as the bids they stand
for), a sealed bid is scored once its auction is over, the shipped model beats the untrained one,
the scripted line-ups never compile it, and the conformance suite checks its training tables."""
import numpy as np
import pytest

from engines.core.expert import KEPT_MARK
from engines.skyline_3000 import SPEC
from engines.skyline_3000.engine import ENGINE, new_game
from engines.skyline_3000.features import FEATURES, MEMO_SIZE, N_FEATURES, block_stamp_nb, features_nb, note_board_nb
from engines.skyline_3000.policies import EXPERT, SEARCH, heuristic_item_value_nb
from engines.skyline_3000.search import (
    HEURISTIC_W, SEALED_AHEAD, apply_nb, auction_key_nb, expert_nb, expert_sample_nb, item_value_memo_nb, settle_nb,
)
from engines.skyline_3000.state import (
    BID_FLAG, C_N_AUC, D_BID_BUF, D_PUB, D_SEC, N_ITEM_MEMO, P_NHAND, PH_BID, PH_DRAW, PH_FLOOR, PH_INSTALL, PH_MAIN, PH_OVER, PH_PLACE,
    PH_ROOF, S_BIDS,
)
from tests import expert_tools
from tests.expert_tools import play, zero_expert
from tests.skyline_3000 import hidden

ZERO = zero_expert(SPEC)
IX = {f: i for i, f in enumerate(FEATURES)}


def stamps_of(g, data):
    """Every block's stamp of a state vector of game g."""
    pub = data[D_PUB:D_SEC].view(np.int32)
    return np.array([block_stamp_nb(pub, np.int64(k)) for k in range(g.kp.n_blocks)])


def features_of(g, p):
    return expert_tools.features_of(SPEC, features_nb, g, p, g.kp.aux)


def test_features_read_only_what_the_seat_sees():
    """Scrambling everything the seat to move cannot see (the other hands, the decks below their
    tops, the sealed bids) leaves its features as they were."""
    rng = np.random.default_rng(5)
    checked = 0
    for g in hidden.states():
        p = g.current_player()
        h = g.clone()
        hidden.scramble(h, rng)
        assert np.array_equal(features_of(h, p), features_of(g, p)), g.phase()
        checked += 1
    assert checked > 20


def test_features_of_a_finished_game_hold_its_score():
    """At the end nothing is left to score: the score is the score, the board pays for no more
    scorings, and the lead is the score minus the best other's."""
    for gi in range(3):
        g = new_game(n_players=4, seed=4, game_index=gi)
        while not g.is_over():
            g.apply(g.policy_action("heuristic"))
        scores = g.scores()
        for p in range(4):
            f = features_of(g, p)
            assert f[IX["score"]] == scores[p]
            assert f[IX["board"]] == 0 and f[IX["ports"]] == 0 and f[IX["ready"]] == 0
            assert f[IX["lead_final"]] == scores[p] - max(scores[q] for q in range(4) if q != p)
            assert f[IX["rival"]] == max(scores[q] for q in range(4) if q != p)


@pytest.mark.parametrize("variant", ["default", "megamall_triple", "six_platforms", "three_player_5_platforms"])
def test_a_blocks_stamp_rises_with_every_change_of_the_block(variant):
    """block_stamp_nb is the key of the expert's memo: a move that changes a block (a Billboard,
    an item, a building, one covering a Billboard) raises its stamp, and the stamp of a block it
    leaves as it was stays, in games of every policy kind (random play reaches the odd moves)."""
    n_players = 3 if variant.startswith("three") else 4
    changed = kept = 0
    for gi, names in enumerate((["random"] * 4, ["heuristic", "greedy", "random", "heuristic"])):
        g = new_game(variant, n_players=n_players, seed=11, game_index=gi)
        while not g.is_over():
            board, before = g.state.board.copy(), stamps_of(g, g.state.data)
            g.apply(g.policy_action(names[g.current_player()]))
            after = stamps_of(g, g.state.data)
            same = (board == g.state.board).all(axis=1)
            assert (after[same] == before[same]).all(), g.phase()
            assert (after[~same] > before[~same]).all(), g.phase()
            changed += int((~same).sum())
            kept += int(same.all())
    assert changed > 20 and kept > 100


def larger_board_states(step=4):
    """Decision states of two mixed 3-seat games on a board of 3 districts of 6 blocks (the memo's
    blocks and districts past the default 3 x 3)."""
    out = []
    for gi in range(2):
        g = new_game(n_players=3, seed=5, game_index=gi, overrides={"board.blocks_per_district": 6})
        k = 0
        while not g.is_over():
            if k % step == 0 or g.state.phase == PH_BID:
                out.append(g.clone())
            g.apply(g.policy_action("expert" if g.current_player() % 2 else "random"))
            k += 1
    return out


@pytest.mark.parametrize("board", ["default", "3 x 6"])
def test_the_memo_gives_the_features_valued_afresh(board):
    """The expert's candidates share a memo of what the sample's board pays, block by block
    (note_board_nb); every candidate's features through it are, to the bit, those valued afresh,
    and the memo is read whole (some candidates leave the board as it was) and in part (others
    change a block)."""
    apply_nb = ENGINE.kernels["apply_nb"]
    reused = fresh = 0
    for g in (hidden.states() if board == "default" else larger_board_states()):
        me = np.int64(g.current_player())
        legal, _ = SPEC.expert.choices(g, np.array([1, 2, 3, 4], np.uint64))
        base = g.state.data
        memo = np.zeros(N_FEATURES + MEMO_SIZE)
        note_board_nb(base, g.kp.cfg, g.kp.aux, me, memo)
        buf = np.zeros(ENGINE.max_actions, np.int64)
        for a in legal:
            sim, rng = base.copy(), g.state.rng.copy()
            apply_nb(sim, rng, g.kp.cfg, np.int64(a))
            settle_nb(sim, rng, g.kp.cfg, g.kp.aux, me, buf, memo)   # its heuristic shares the memo
            alone = np.zeros(N_FEATURES)
            features_nb(sim, g.kp.cfg, g.kp.aux, me, alone)
            features_nb(sim, g.kp.cfg, g.kp.aux, me, memo)
            assert np.array_equal(memo[:N_FEATURES], alone), (g.phase(), int(a))
            same = (stamps_of(g, sim) == stamps_of(g, base)).all()
            reused += same
            fresh += not same
    assert reused > 50 and fresh > 50, (reused, fresh)


def test_a_sealed_bid_is_scored_once_its_auction_is_over():
    """settle_nb plays the other seats' bids of the auction the seat bid in, and the placement:
    after it the auction log has one more row and no seat is left to bid in that auction."""
    seen = 0
    for g in hidden.states():
        if g.state.phase != PH_BID:
            continue
        me = g.current_player()
        h = g.clone()
        before = int(h.state.ctrl[C_N_AUC])
        h.apply(BID_FLAG)                      # the seat bids nothing
        buf = np.zeros(ENGINE.max_actions, np.int64)
        settle_nb(h.state.data, h.state.rng, h.kp.cfg, h.kp.aux, np.int64(me), buf, np.empty(0))
        assert int(h.state.ctrl[C_N_AUC]) == before + 1
        assert h.state.phase != PH_PLACE
        seen += 1
    assert seen >= 3


def test_the_bids_a_sample_seals_ahead_are_the_ones_the_later_bidders_make():
    """expert_sample_nb seals the later bidders' bids when the sample is drawn, and settle_nb plays
    them: after any bid of the seat's, the auction ends as it does when each later bidder decides
    at its turn (the same sample with the sealed bids cleared), to the last place of the state.
    Seen with bids of nothing, of the whole hand and of the cheapest card."""
    sealed = compared = 0
    for gi, g in enumerate(hidden.states()):
        if g.state.phase != PH_BID:
            continue
        me = np.int64(g.current_player())
        sample = g.state.data.copy()
        buf = np.zeros(ENGINE.max_actions, np.int64)
        expert_sample_nb(sample, np.zeros(4, np.uint64), g.kp.cfg, me, np.array([gi, 1, 2, 3], np.uint64), buf)
        bids = sample[D_SEC:D_BID_BUF].view(np.uint64)[S_BIDS:S_BIDS + g.n_players]
        ahead = (bids & SEALED_AHEAD) != 0
        sealed += int(ahead.any())
        cleared = sample.copy()
        cleared[D_SEC:D_BID_BUF].view(np.uint64)[S_BIDS:S_BIDS + g.n_players][ahead] = 0
        hand = g.state.hands[me, :g.state.players[me, P_NHAND]]
        for mask in (0, sum(1 << int(c) for c in hand), 1 << int(hand[0]) if len(hand) else 0):
            after = []
            for start in (sample, cleared):
                sim = start.copy()
                rng = np.zeros(4, np.uint64)
                apply_nb(sim, rng, g.kp.cfg, np.int64(BID_FLAG | mask))
                settle_nb(sim, rng, g.kp.cfg, g.kp.aux, me, buf, np.empty(0))
                after.append(sim)
            assert np.array_equal(after[0], after[1]), (gi, mask)
            compared += 1
    assert sealed >= 3 and compared >= 9


def test_the_experts_public_decisions_read_nothing_hidden():
    """search.public_decision_nb's claim, on which the expert scores every decision but a sealed
    bid without a determinization (engines.core.expert's public_nb): scrambling what the seat to
    move cannot see leaves every candidate's features as they were, to the bit, in every phase
    but the bids (a bid's auction is settled on the later bidders' hands)."""
    rng = np.random.default_rng(8)
    phases = set()
    for g in hidden.states():
        if g.state.phase == PH_BID:
            continue
        prng = np.array([5, 6, 7, 8], np.uint64)
        legal, feats = SPEC.expert.choices(g, prng.copy())
        h = g.clone()
        hidden.scramble(h, rng)
        legal_h, feats_h = SPEC.expert.choices(h, prng.copy())
        assert np.array_equal(legal, legal_h) and np.array_equal(feats, feats_h), g.phase()
        phases.add(int(g.state.phase))
    assert phases >= {PH_MAIN, PH_FLOOR, PH_ROOF, PH_INSTALL, PH_PLACE, PH_DRAW}, phases


def test_the_scripts_leave_the_decision_scratch_to_the_expert():
    """make_expert(kept_state=True)'s condition: no scripted policy of the game reads or writes the
    decision's scratch (the expert keeps a state in it between decisions), in any phase."""
    scripted = [name for name, info in SPEC.policies.items() if info.policy_id not in (EXPERT, SEARCH)]
    assert {"random", "greedy", "heuristic"} <= set(scripted)
    phases = set()
    for g in hidden.states():
        for name in scripted:
            h = g.clone()
            h._scratch[:] = 7.25
            h.policy_action(name)
            assert (h._scratch == 7.25).all(), (name, g.phase())
        phases.add(int(g.state.phase))
    assert len(phases) >= 6, phases


@pytest.mark.parametrize("size", ["one state", "two states"])
def test_the_kept_state_gives_the_choices_of_a_fresh_copy(size):
    """The expert's candidates (a bid's too) are played on a state it keeps in the scratch from
    one decision to the next, and a bid's sample on a second one when the scratch holds two (the
    game loop's scratch, ENGINE.scratch_size), each refreshed by copy_state_nb (the used places
    only): over every decision of three expert games in a row, one scratch gives the choice a
    fresh scratch too short to keep a state gives (whole copies), and the state decided on is
    left as it was."""
    w = np.array(list(SPEC.policies["expert"].weights.values()))
    width = new_game(n_players=4, seed=6).state.data.shape[0]
    assert ENGINE.scratch_size > 2 * width
    kept = np.zeros(ENGINE.scratch_size if size == "two states" else width + 1)
    legal = np.empty(ENGINE.max_actions, np.int64)
    decisions = 0
    for gi in range(3):
        g = new_game(n_players=4, seed=6, game_index=gi)
        while not g.is_over():
            d = g.state.data.copy()
            prng = np.array([gi, decisions, 3, 4], np.uint64)
            a = expert_nb(d, g.kp.cfg, g.kp.aux, w, prng.copy(), legal, kept)
            assert np.array_equal(d, g.state.data)
            assert a == expert_nb(d, g.kp.cfg, g.kp.aux, w, prng.copy(), legal, np.zeros(width))
            g.apply(a)
            decisions += 1
    assert kept.view(np.int64)[-1] == KEPT_MARK and decisions > 600


def test_expert_plays_legal_complete_games():
    """Step by step every expert move is legal (bids too) and the game ends; in the batch loop 40
    four-player games against the heuristic all finish with a winner."""
    for gi in range(2):
        g = new_game(n_players=4, seed=9, game_index=gi)
        bids = 0
        while not g.is_over():
            a = g.policy_action("expert")
            space = g.legal_actions()
            assert a in space
            bids += g.state.phase == PH_BID
            g.apply(a)
        assert bids > 10 and g.state.phase == PH_OVER
    t = play(SPEC, ["expert", "heuristic", "expert", "heuristic"], 4, 40)
    win = np.asarray(t["players"]["win"]).reshape(40, 4)
    assert (win.sum(1) >= 1).all()


def test_shipped_model_beats_the_untrained_one():
    """Two shipped experts against two zero-weight experts (which play the first listed action)."""
    t = play(SPEC, ["expert", ZERO, "expert", ZERO], 4, 200)["players"]
    slot, win = np.asarray(t["lineup_slot"]), np.asarray(t["win"], float)
    trained, untrained = win[slot % 2 == 0].mean(), win[slot % 2 == 1].mean()
    assert trained > untrained + 0.2, (trained, untrained)


def test_scripted_line_ups_compile_no_expert():
    """The expert is a look-ahead policy here (it plays the rules forward): a line-up without it
    or the search runs the scripted loop, so `skyline-lab run`'s first compile pays nothing for it."""
    assert EXPERT in ENGINE.lookahead_ids
    assert "expert_nb" not in ENGINE.kernels["decide_scripted_nb"].py_func.__code__.co_names


def test_the_prior_marks_the_heuristics_own_pick():
    """Feature heuristic_pick is 1 for one candidate at most, and that candidate is the heuristic's
    own move (another Floor or Roof card of the same value counts as the same move); the
    heuristic's move is among the candidates at nearly every decision."""
    from engines.skyline_3000.search import same_move_nb
    j = IX["heuristic_pick"]
    marked = total = 0
    for g in hidden.states():
        legal, feats = SPEC.expert.choices(g, np.array([1, 2, 3, 4], np.uint64))
        col = feats[:, j]
        assert set(np.unique(col)) <= {0.0, 1.0} and col.sum() <= 1
        pick = g.policy_action("heuristic(jitter=0)")
        total += 1
        if col.sum() == 1:
            marked += 1
            assert same_move_nb(g.state.data, np.int64(legal[int(np.argmax(col))]), np.int64(pick)), g.phase()
    assert marked >= 0.9 * total, (marked, total)


@pytest.mark.jit_off
def test_the_expert_decides_in_plain_python_as_compiled():
    """A few expert decisions of one game, step by step: each a legal move, in both modes (CI's
    plain-Python step runs the same rules uncompiled; there the heuristic's pick, the prior, came
    back as a numpy int32 and the prior's bid-flag test overflowed it)."""
    g = new_game(n_players=3, seed=2, game_index=0)
    decided = 0
    while not g.is_over() and decided < 12:
        if decided % 3 == 0 or g.state.phase == PH_BID:
            a = g.policy_action("expert")
            assert a in g.legal_actions()
            decided += 1
        else:
            a = g.policy_action("heuristic")
        g.apply(a)
    assert decided == 12


def test_exposed_counts_the_rivals_who_may_still_answer_an_install_in_round_1():
    """`exposed`: in round 1, the seat's installed buildings x the rivals who have installed none,
    have not passed and hold a complete building. Nobody has installed at the start; the first
    install is exposed to every such rival, each rival's own install takes one off, and from
    round 2 on it is 0."""
    from engines.skyline_3000.state import C_PHASE, C_ROUND, N_PROW, P_ST_PLACED, PLAYERS
    g = new_game(n_players=4, seed=3, game_index=0)
    pub = lambda: g.state.data[D_PUB:D_SEC].view(np.int32)
    assert all(features_of(g, p)[IX["exposed"]] == 0 for p in range(4))
    seen_first = seen_drop = seen_later = False
    first = None
    while not g.is_over():
        placed = [int(pub()[PLAYERS + q * N_PROW + P_ST_PLACED]) for q in range(4)]
        if first is None and sum(placed) == 1:
            first = placed.index(1)
        if pub()[C_ROUND] == 0 and pub()[C_PHASE] in (PH_MAIN, PH_FLOOR, PH_ROOF) and first is not None:
            answered = sum(1 for q in range(4) if q != first and placed[q] > 0)
            e = features_of(g, first)[IX["exposed"]]
            if answered == 0 and placed[first] == 1:
                seen_first = True
                assert e == 3           # every rival starts with complete buildings, none passed yet
            elif answered >= 1:
                seen_drop = True
                assert e == placed[first] * (3 - answered)   # nobody passes this early in this deal
        if pub()[C_ROUND] >= 1:
            seen_later = True
            assert all(features_of(g, p)[IX["exposed"]] == 0 for p in range(4))
            break
        g.apply(g.policy_action("heuristic"))
    assert seen_first and seen_drop and seen_later


def test_roofable_is_the_roofs_the_hand_can_pay_for():
    """`roofable`: min(the seat's incomplete buildings, its Roof cards), counted here from the
    seat's observation (its Plant and hand) at every decision of heuristic games; both sides of
    the min bind somewhere (a Roof card short, a building short)."""
    from engines.skyline_3000.state import P_NBUILD, PL_R, ROOF
    short_of = {"roofs": 0, "buildings": 0}
    for gi in range(2):
        g = new_game(n_players=3, seed=8, game_index=gi)
        types = g.kp.card_types()
        while not g.is_over():
            for p in range(3):
                o = g.observation(p)
                incomplete = sum(1 for i in range(int(o["players"][p, P_NBUILD])) if o["plants"][p, PL_R, i] == 0)
                roofs = sum(1 for c in o["hand"] if types[c] == ROOF)
                assert features_of(g, p)[IX["roofable"]] == min(incomplete, roofs)
                short_of["roofs"] += roofs < incomplete
                short_of["buildings"] += incomplete < roofs
            g.apply(g.policy_action("heuristic"))
    assert short_of["roofs"] > 0 and short_of["buildings"] > 0


def test_the_item_memo_gives_the_heuristics_value_of_each_auction():
    """search.item_value_memo_nb remembers, for the auction under way, the heuristic's value of
    the item for each seat (the expert's listing, prior, sealed bids and placements read it): one
    memo carried through whole games, from the first bid of each auction to its placement and on
    to the next auction (as the expert's sample carries it), gives, for every seat, the value
    worked out afresh. A memo whose key missed a new auction would give the last one's values."""
    hw = HEURISTIC_W.copy()
    checked = auctions = 0
    for gi in range(4):
        g = new_game(n_players=4, seed=9, game_index=gi)
        memo = np.zeros(N_ITEM_MEMO)
        crng = np.zeros(4, np.uint64)
        last_key = 0.0
        while not g.is_over():
            if g.state.phase in (PH_BID, PH_PLACE):
                pub = g.state.pub
                key = auction_key_nb(pub)
                auctions += key != last_key
                last_key = key
                for q in range(g.n_players):
                    fresh = heuristic_item_value_nb(pub, np.int64(q), hw, crng)
                    assert item_value_memo_nb(pub, np.int64(q), hw, crng, memo) == fresh, (gi, q)
                    checked += 1
            g.apply(g.policy_action("heuristic"))
    assert auctions >= 40 and checked >= 400


@pytest.mark.parametrize("bb_card", [False, True])
def test_the_experts_heuristic_is_the_heuristic(bb_card):
    """The heuristic as the expert asks it (search.heuristic_pick_nb, its prior, and
    search.heuristic_step_nb, its settle's floors, roofs and installs) reads the expert's own
    list instead of listing the rules' actions again, places floors and installs without a list,
    and values the potentials it reads through the memo the candidates' features share. On
    every decision of whole mixed games, with and without Billboards that cost a card, it picks
    what the heuristic picks from the rules' own list with a memo of its own: with no memo, with
    the memo noted on the state itself, and with one noted on the seat's board earlier in the
    round (its changed districts valued afresh). A construction list that dropped a Contract card
    or the heuristic's Billboard, or a memo read for a district the board has changed, would not."""
    from engines.skyline_3000.search import decide_scripted_nb, expert_actions_nb, heuristic_pick_nb, heuristic_step_nb
    from engines.skyline_3000.state import C_ROUND
    names = ["heuristic", "greedy", "expert", "heuristic(jitter=0.5)"]
    extra = {"construction.billboard_costs_card": True} if bb_card else {}
    cap = ENGINE.max_actions
    width = N_FEATURES + MEMO_SIZE
    checked = {}
    stale = 0
    for gi in range(3):
        g = new_game(n_players=4, seed=11, game_index=gi, overrides=extra or None)
        earlier = {}             # (seat, round) -> a memo noted at the seat's first decision of the round
        while not g.is_over():
            d = g.state.data.copy()
            cfg, aux = g.kp.cfg, g.kp.aux
            phase = int(g.state.phase)
            p = g.current_player()
            if phase != PH_BID:
                legal = np.empty(cap, np.int64)
                n = expert_actions_nb(d, cfg, legal)
                rules = decide_scripted_nb(d, cfg, aux, np.int64(2), HEURISTIC_W.copy(), np.zeros(4, np.uint64),
                                           np.empty(cap, np.int64), np.empty(cap, np.int64))
                noted = np.empty(width)
                note_board_nb(d, cfg, aux, np.int64(p), noted)
                key = (p, int(g.state.ctrl[C_ROUND]))
                if key not in earlier:
                    earlier[key] = noted.copy()
                rows = [np.empty(0), noted, earlier[key]]
                for f in rows:
                    assert heuristic_pick_nb(d, cfg, aux, np.zeros(4, np.uint64), np.empty(cap, np.int64), legal, n,
                                             f) == rules, (phase, len(f))
                    assert heuristic_step_nb(d, cfg, aux, np.zeros(4, np.uint64), np.empty(cap, np.int64), f) == rules
                stale += phase in (PH_MAIN, PH_FLOOR, PH_ROOF) and not np.array_equal(
                    stamps_of(g, d), earlier[key][N_FEATURES + 1:N_FEATURES + 1 + len(stamps_of(g, d))])
                assert np.array_equal(d, g.state.data)
                checked[phase] = checked.get(phase, 0) + 1
            g.apply(g.policy_action(names[p]))
    assert {PH_MAIN, PH_FLOOR, PH_ROOF, PH_INSTALL, PH_DRAW, PH_PLACE} <= set(checked), checked
    assert checked[PH_MAIN] >= 100 and stale >= 50, (checked, stale)


@pytest.mark.parametrize("tie", ["highest_card_then_key", "key"])
def test_a_bid_that_does_not_win_ends_where_every_such_bid_ends(tie):
    """search.bid_lost_nb, the expert's shared_outcome_nb: on the expert's sample of every sealed
    bid of whole mixed games (under both auction tie rules), it says which candidate bids do not
    win, before any is played. Each candidate played out (settle_nb: the later bids, the auction,
    the item placed) shows it right: the auction log names another winner (or none) exactly when
    it said so. And every bid it names leaves the same features, to the bit (the expert scores
    the first and gives its features to the rest). Besides the expert's candidates, every bid of
    one card is asked too, so that bids tied with the best other bid, which the tie rule settles,
    come up often."""
    from engines.skyline_3000.search import bid_lost_nb, expert_actions_nb, real_action_nb
    from engines.skyline_3000.state import A_BID, A_WINNER, ALOG, N_ALOG
    names = ["expert", "heuristic", "greedy", "heuristic(jitter=0.5)"]
    cap = ENGINE.max_actions
    lost = won = shared_samples = ties = 0
    for gi in range(2):
        g = new_game(n_players=4, seed=12, game_index=gi, overrides={"auction.tie": tie})
        while not g.is_over():
            p = g.current_player()
            if int(g.state.phase) == PH_BID:
                d = g.state.data
                cfg, aux = g.kp.cfg, g.kp.aux
                legal = np.empty(cap, np.int64)
                n = expert_actions_nb(d, cfg, legal)
                buf = np.empty(cap, np.int64)
                base, brng = d.copy(), np.zeros(4, np.uint64)
                expert_sample_nb(base, brng, cfg, np.int64(p), np.array([gi, n, 5, 7], np.uint64), buf)
                f = np.empty(N_FEATURES + MEMO_SIZE)
                note_board_nb(base, cfg, aux, np.int64(p), f)
                row = ALOG + base[D_PUB:D_SEC].view(np.int32)[C_N_AUC] * N_ALOG
                features = []
                singles = [BID_FLAG | (1 << int(c)) for c in g.state.hands[p, :g.state.players[p, P_NHAND]]]
                for a in [real_action_nb(base, cfg, legal[i]) for i in range(n)] + singles:
                    said = bid_lost_nb(base, cfg, np.int64(p), np.int64(a))
                    sim, srng = base.copy(), brng.copy()
                    apply_nb(sim, srng, cfg, np.int64(a))
                    settle_nb(sim, srng, cfg, aux, np.int64(p), buf, f)
                    log = sim[D_PUB:D_SEC].view(np.int32)[row:row + N_ALOG]
                    assert (log[A_WINNER] != p) == said
                    ties += log[A_BID + p] > 0 and (log[A_BID:A_BID + g.n_players] == log[A_BID + p]).sum() > 1
                    if said:
                        features_nb(sim, cfg, aux, np.int64(p), f)
                        features.append(f[:N_FEATURES].copy())
                    lost += said
                    won += not said
                assert all(np.array_equal(x, features[0]) for x in features)
                shared_samples += len(features) > 1
            g.apply(g.policy_action(names[p]))
    assert lost >= 60 and won >= 60 and shared_samples >= 20 and ties >= 20, (lost, won, shared_samples, ties)

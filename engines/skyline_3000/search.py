"""Skyline 3000's side of the engine adapter (engines.core.adapter): how a seat decides, what the
search tries, what a seat cannot see, and the final scores. Every kernel takes the state vector
`d` and its buffers as views (state.pub_nb, hands_nb, sec_nb); the search's candidate bids read
greedy's and heuristic's default weight rows (GREEDY_W, HEURISTIC_W) and the two small buffers
kept in d for them (state.D_BID_BUF, D_BID_RNG).

Hidden from seat p (everything but what game.observation(p) shows: the public buffer and p's
own hand): the other seats' hand contents (their sizes are public), each deck's order below its
visible top card, the sealed bids already made in the current auction and the chance stream.
determinize_nb redraws them all from the searcher's policy stream:

  - the hidden cards (not in p's hand, not in a discard pile, not a visible top) are taken in
    card-id order, so the sample depends only on what p sees and on the stream; each deck's
    hidden places get cards of the deck's own type, the rest are dealt into the other hands
    (sizes kept), uniformly: every arrangement the observation allows is equally likely. (A
    seat with perfect recall knows more: a drawn card was the visible top. The search samples
    from the observation, as the policies see it.)
  - each earlier bidder's sealed bid: one of the bid candidate rules below, drawn uniformly,
    applied to that seat's new hand;
  - the chance stream (the reshuffles to come): reseeded.

Actions: the rules' legal list (rules.legal_actions_nb), with two exceptions. In construction
(construction_actions_nb) a Floor or Roof card played to act is listed once per card value (cards
of one type and value are interchangeable: Contracts are unique by district and value anyway),
and "play a card without acting" once, with the cheapest card (it is a way to stay in the phase,
passing is final; which card it costs matters little, and ten copies of it would take most of a
small budget). A billboard that costs a card (construction.billboard_costs_card) is listed once
per block, paid with the cheapest card, as the scripted players pay (cheapest_card_nb: one copy per
hand card would multiply the billboards by the hand size). A sealed bid may be any subset of the hand. There the search tries at most N_BID_CANDIDATES bids, as codes
BID_CODE | j (not BID_FLAG | mask: the bidder's hand changes from one determinization to the
next, and the code names the same rule in each, so the tree shares its statistics). Rule j on
the bidder's hand (bid_to_target: its cheapest cards until their values reach the target):

    0  bid nothing (STOP card on top)
    1  what greedy bids (default weights, no jitter)
    2  what heuristic bids (default weights, no jitter)
    3  the cheapest card alone
    4  bid_to_target of half heuristic's target (item value x bid_fraction)
    5  bid_to_target of twice heuristic's target
    6  bid_to_target of a quarter of the hand's value
    7  bid_to_target of half the hand's value
    8  the whole hand

A rule whose bid equals an earlier rule's is left out (so "nothing" is code 0, always listed).
A chosen code is played as its bid on the real hand (real_action_nb, the engine's chosen_nb: the core
translates the search's choice before apply_nb, which takes legal actions only).

Speed: the heuristic's value of the item on auction, which rules 2, 4 and 5 read, is worked out
once a listing, and once a seat and auction in the expert's and the search's own copies of a state
(item_value_memo_nb, the state's item memo); the heuristic the expert asks for its prior and plays
in its settle reads the expert's list, lists nothing to place floors or install, and values its
potentials once with the candidates' features (heuristic_step_nb: 12% fewer instructions a
decision); the search copies only the parts of the buffers a game can have written (copy_state_nb);
the rollout's decision and the rules' step are inlined; the random rollout skips the listing
where the batch loop skips it (bids, the random player's construction turns).
"""
from __future__ import annotations

import numpy as np

from engines.core.expert import make_expert, prior_row
from engines.core.kernel import inline_kernel, ir_inline_kernel, kernel
from engines.core.lowlevel import copy_words, section_view, writable_view
from engines.core.rng import below, next_u64, seed_into
from engines.skyline_3000.features import (
    F_HEURISTIC_PICK, MEMO_SIZE, N_FEATURES, features_nb, note_board_nb, sample_memo_changed_nb,
)
from engines.skyline_3000.policies import (
    EXPERT, POLICIES, RANDOM, W_BID, bid_to_target_nb, cheapest_card_nb, choose_action_nb, heuristic_bid_nb,
    heuristic_item_value_nb, heuristic_move_nb, policy_greedy_nb,
)
from engines.skyline_3000.rules import (
    apply_action_nb, auction_winner_nb, billboard_card_nb, hand_value_nb, legal_actions_nb, n_legal_nb,
    reset_state_nb,
)
from engines.skyline_3000.state import (
    A_SHIFT, ALOG, BB_BLOCK_MASK, BID_FLAG, ACT_BILLBOARD, ACT_PLACE, BOARD, C_BIDDER, C_CUR, C_KEY, C_N_AUC, C_PHASE, C_ROUND,
    C_STACK, C_STACK_POS, DETAIL_MASK, ACT_BID, ACT_FLOOR, ACT_NOACT, ACT_ROOF, D_BID_BUF, D_BID_RNG, D_ITEM_MEMO, D_NPLAYERS,
    D_PUB, D_SEC, MAX_ACTIONS, MAX_CARDS, MAX_ROUNDS, MAX_STACK_ITEMS, MAX_STACKS, N_ALOG, N_BID_BUF, N_ITEM_MEMO,
    N_BOARD, N_PIROW, N_PLROW, N_PROW, N_TYPES, P_NBUILD, P_NHAND, P_SCORE, PH_BID, PH_FLOOR, PH_INSTALL, PH_MAIN, PH_OVER, PH_PLACE, PH_ROOF, PI_DECK, PI_DISC,
    PH_DRAW, PI_DISCARDS, PI_TOP, PILES, PLAYERS, PLH, PLR, S_BIDS, S_DECKS, K_FINAL_TIE, K_ROUNDS, K_N_BLOCKS, K_N_CARDS, K_N_PLAYERS,
    K_TYPE, K_VALUE, TAB, hands_nb, pub_nb, sec_nb,
)

N_BID_CANDIDATES = 9
assert MAX_CARDS < 256 and 8 * N_TYPES < 63   # redraw_hidden_nb packs a count per type into 8 bits of one int64
BID_CODE = ACT_BID << A_SHIFT          # a bid candidate's action in the search: BID_CODE | rule


# greedy's and heuristic's default weights with no jitter: a bid candidate is the same bid in
# every determinization (and in actions_nb and apply_nb), as is the expert's prior
GREEDY_W = prior_row(POLICIES["greedy"], 8)
HEURISTIC_W = prior_row(POLICIES["heuristic"], 8)


# a seat's row of the adapter's work matrix: its hand value (the final tie-break, players.hand_value_left)
W_HAND_VALUE = 0
WORK_WIDTH = 1


@ir_inline_kernel
def buffers_nb(d):
    """(pub, hands, sec): the three buffers of a started game, views of d."""
    pub = pub_nb(d)
    return pub, hands_nb(d, pub[TAB + K_N_PLAYERS], pub[TAB + K_N_CARDS]), sec_nb(d)


@ir_inline_kernel
def pub_hands_nb(d):
    """(pub, hands): buffers_nb without the hidden buffer (each view a kernel builds is IR that
    numba types again in every loop the kernel is copied into: the cold compile)."""
    pub = pub_nb(d)
    return pub, hands_nb(d, pub[TAB + K_N_PLAYERS], pub[TAB + K_N_CARDS])


# the bid candidates' action buffer and stream as views of d (not d[...].view(np.uint64): numba's
# view compiles its compatibility checks, ~0.2 s cold)
_bid_buf_nb = section_view(D_BID_BUF, D_BID_BUF + N_BID_BUF, np.int64)
_bid_rng_nb = section_view(D_BID_RNG, D_BID_RNG + 4, np.uint64)


@ir_inline_kernel
def bid_buffers_nb(d):
    """The bid candidates' action buffer and stream (state.D_BID_BUF, D_BID_RNG), views of d."""
    return _bid_buf_nb(d), _bid_rng_nb(d)


# the item memo (state.D_ITEM_MEMO), float64 words
item_memo_nb = section_view(D_ITEM_MEMO, D_ITEM_MEMO + N_ITEM_MEMO, np.float64)
NOT_VALUED = -2     # an item memo's block, and bid_mask_nb's, before the item is valued
assert MAX_STACKS < 64 and MAX_STACK_ITEMS < 4096 and MAX_ROUNDS * 64 * 4096 < 2 ** 52


@inline_kernel
def auction_key_nb(pub):
    """A number >= 1 naming the auction under way (in PH_BID or PH_PLACE): its round, stack and
    place in the stack, the same from its first bid to its placement and different for every
    auction of a game (a stack's next place only grows). The board does not change in between."""
    s = pub[C_STACK]
    return float(1 + (pub[C_ROUND] * 64 + s) * 4096 + pub[C_STACK_POS + s])


@kernel
def item_value_memo_nb(pub, q, hw, crng, memo):
    """heuristic_item_value_nb for seat q with heuristic's default weights hw (no jitter: crng
    is never drawn from), remembered in `memo` (the state's item memo, state.D_ITEM_MEMO) for
    the auction under way: the value reads the board, the item and the round only, so the
    bids, the sample's hands and the winner's payment leave it as it was. In one bid decision
    the expert values the item for its listing, its prior, the later bidders' sealed bids and
    each candidate's placement: once a seat with the memo."""
    key = auction_key_nb(pub)
    if memo[0] != key:
        memo[0] = key
        for i in range(1, memo.shape[0], 2):
            memo[i] = NOT_VALUED
    if memo[1 + 2 * q] == NOT_VALUED:
        k, v = heuristic_item_value_nb(pub, q, hw, crng)
        memo[1 + 2 * q] = k
        memo[2 + 2 * q] = v
    return np.int64(memo[1 + 2 * q]), memo[2 + 2 * q]


@kernel
def heuristic_auction_move_nb(d):
    """The heuristic's move (default weights, no jitter) for the seat to move in an auction, as
    policy_heuristic_nb decides it: its sealed bid (PH_BID) or the block it places the item it
    won on (PH_PLACE), its value of the item read from (or written to) d's item memo. For the
    expert's own copies of a state (its sample, the candidates' state): d is written."""
    pub, hands = pub_hands_nb(d)
    q = pub[C_CUR]
    buf, crng = bid_buffers_nb(d)
    hw = writable_view(HEURISTIC_W)
    k, v = item_value_memo_nb(pub, q, hw, crng, item_memo_nb(d))
    if pub[C_PHASE] == PH_PLACE:
        return (ACT_PLACE << A_SHIFT) | k
    return heuristic_bid_nb(pub, hands[q], pub[PLAYERS + q * N_PROW + P_NHAND], k, v, hw)


# ---------------------------------------------------------------- bid candidates

@inline_kernel
def _hand_value_nb(pub, hand, nh):
    v = 0
    for i in range(nh):
        v += pub[TAB + K_VALUE + hand[i]]
    return v


@inline_kernel
def values_item_nb(j):
    """Whether bid candidate rule j reads heuristic's value of the item (rules 2, 4 and 5)."""
    return j == 2 or j == 4 or j == 5


@kernel
def bid_mask_nb(pub, hand, j, gw, hw, buf, crng, k, v):
    """Bid candidate rule j (module docstring) for the seat to move, pub[C_CUR], whose hand row is
    `hand`: the card-id mask (without BID_FLAG). gw, hw: greedy's and heuristic's weight rows;
    buf, crng: an action buffer and a stream for their calls; (k, v): heuristic's value of the
    item for the seat (heuristic_item_value_nb), which rules 2, 4 and 5 read (k = NOT_VALUED:
    not worked out yet, worked out here)."""
    p = pub[C_CUR]
    nh = pub[PLAYERS + p * N_PROW + P_NHAND]
    if j == 0 or nh == 0:
        return np.int64(0)
    if j == 1:
        return policy_greedy_nb(pub, hand, buf, np.int64(0), gw, crng) ^ BID_FLAG
    if values_item_nb(j) and k == NOT_VALUED:
        k, v = heuristic_item_value_nb(pub, p, hw, crng)
    if j == 2:       # what policy_heuristic_nb bids
        return heuristic_bid_nb(pub, hand, nh, k, v, hw) ^ BID_FLAG
    target = 0.0
    if j == 3:
        target = 1.0
    elif j == 4 or j == 5:
        if k >= 0 and v > 0:
            target = v * hw[W_BID] * (0.5 if j == 4 else 2.0)
    elif j == 6 or j == 7:
        target = _hand_value_nb(pub, hand, nh) * (0.25 if j == 6 else 0.5)
    else:
        target = 1e9
    return bid_to_target_nb(pub, hand, nh, target) ^ BID_FLAG


@kernel
def construction_actions_nb(pub, hands, out):
    """The legal construction actions, out[:n], but a Floor or Roof card played to act only once
    per card value (cards of one type and value are interchangeable), a card played without
    acting only once, the cheapest (first in hand order among equals), and a billboard that costs
    a card only with that card: returns n."""
    n = legal_actions_nb(pub, hands, out)
    m = 0
    bb_card = -2              # the card a billboard is paid with, looked up at the first one

    seen = np.int64(0)        # bit (type * 16 + value) of a Floor / Roof card already listed
    noact = np.int64(-1)
    noact_v = 1 << 30
    for i in range(n):
        a = out[i]
        kind = a >> A_SHIFT
        if kind == ACT_NOACT:
            v = pub[TAB + K_VALUE + (a & DETAIL_MASK)]
            if v < noact_v:
                noact_v = v
                noact = a
            continue
        if kind == ACT_BILLBOARD:
            c = billboard_card_nb(a)
            if c >= 0:
                if bb_card == -2:
                    p = pub[C_CUR]
                    bb_card = cheapest_card_nb(pub, hands[p], pub[PLAYERS + p * N_PROW + P_NHAND], -1, -1)
                if c != bb_card:
                    continue
        if kind == ACT_FLOOR or kind == ACT_ROOF:
            bit = np.int64(1) << np.int64((kind - ACT_FLOOR) * 16 + pub[TAB + K_VALUE + (a & DETAIL_MASK)])
            if seen & bit:
                continue
            seen |= bit
        out[m] = a
        m += 1
    if noact >= 0:
        out[m] = noact
        m += 1
    return m


@kernel
def search_list_nb(pub, hands, out, masks, gw, hw, buf, crng):
    """The actions the search tries for the seat to move, out[:n]; returns n (module docstring).
    In a bid: the codes of the candidate rules, leaving out a rule whose bid repeats an earlier
    rule's (masks[j] holds rule j's mask)."""
    if pub[C_PHASE] == PH_MAIN:
        return construction_actions_nb(pub, hands, out)
    if pub[C_PHASE] != PH_BID:
        return legal_actions_nb(pub, hands, out)
    hand = hands[pub[C_CUR]]
    k, v = heuristic_item_value_nb(pub, pub[C_CUR], hw, crng)   # rules 2, 4 and 5 read it: valued once
    n = 0
    for j in range(N_BID_CANDIDATES):
        m = bid_mask_nb(pub, hand, j, gw, hw, buf, crng, k, v)
        masks[j] = m
        new = True
        for i in range(j):
            if masks[i] == m:
                new = False
                break
        if new:
            out[n] = BID_CODE | j
            n += 1
    return n


@kernel
def redraw_hidden_nb(pub, hands, sec, p, prng, scratch, gw, hw, buf, crng, memo):
    """determinize_nb's work (module docstring), on the three buffers (memo: the state's item
    memo, which the earlier bidders' bids read and write)."""
    P = pub[TAB + K_N_PLAYERS]
    NC = pub[TAB + K_N_CARDS]
    seed_into(sec, next_u64(prng))            # the chance stream, sec[0:4]
    # what p sees: its hand, the discards, the visible tops
    known = np.int64(0)
    for i in range(pub[PLAYERS + p * N_PROW + P_NHAND]):
        known |= np.int64(1) << np.int64(hands[p, i])
    for t in range(N_TYPES):
        o = PILES + t * N_PIROW
        for i in range(pub[o + PI_DISC]):
            known |= np.int64(1) << np.int64(pub[o + PI_DISCARDS + i])
        if pub[o + PI_TOP] >= 0:
            known |= np.int64(1) << np.int64(pub[o + PI_TOP])
    # each deck's hidden places (all but its top) from the hidden cards of its type, in id order:
    # a stable counting sort lays them out by type (one pass counts, one places), type t's at
    # scratch[first(t):first(t) + count(t)], instead of one pass over the cards per type. The counts
    # and positions are packed 8 bits a type into one int64 (a kernel allocates no arrays).
    count = np.int64(0)
    for c in range(NC):
        if not (known >> c) & 1:
            count += np.int64(1) << np.int64(8 * pub[TAB + K_TYPE + c])
    first = np.int64(0)       # where each type's cards start: the counts of the types before it
    start = np.int64(0)
    for t in range(N_TYPES):
        first |= start << np.int64(8 * t)
        start += (count >> np.int64(8 * t)) & 255
    fill = first
    for c in range(NC):
        if not (known >> c) & 1:
            sh = np.int64(8 * pub[TAB + K_TYPE + c])
            scratch[(fill >> sh) & 255] = c
            fill += np.int64(1) << sh
    n_rest = 0
    for t in range(N_TYPES):
        o = (first >> np.int64(8 * t)) & 255
        m = (count >> np.int64(8 * t)) & 255
        d = max(pub[PILES + t * N_PIROW + PI_DECK] - 1, 0)
        for i in range(m):
            if i < d:                         # partial Fisher-Yates: a uniform ordered draw
                k = o + i + below(prng, m - i)
                c = scratch[k]
                scratch[k] = scratch[o + i]
                scratch[o + i] = c
                sec[S_DECKS + t * MAX_CARDS + i] = c
            else:
                scratch[MAX_CARDS + n_rest] = scratch[o + i]
                n_rest += 1
    # the rest, shuffled, into the other hands
    for i in range(n_rest - 1, 0, -1):
        k = below(prng, i + 1)
        c = scratch[MAX_CARDS + k]
        scratch[MAX_CARDS + k] = scratch[MAX_CARDS + i]
        scratch[MAX_CARDS + i] = c
    r = 0
    for q in range(P):
        if q == p:
            continue
        for i in range(pub[PLAYERS + q * N_PROW + P_NHAND]):
            if r < n_rest:
                hands[q, i] = scratch[MAX_CARDS + r]
                r += 1
    # the sealed bids made before p's in this auction, on the bidders' new hands
    if pub[C_PHASE] == PH_BID:
        cur = pub[C_CUR]
        for j in range(pub[C_BIDDER]):
            q = (pub[C_KEY] + j) % P
            if q == p or pub[PLAYERS + q * N_PROW + P_NHAND] == 0:
                continue
            pub[C_CUR] = q                    # the candidate rules read the bidder from C_CUR
            rule = below(prng, N_BID_CANDIDATES)
            k, v = np.int64(NOT_VALUED), 0.0
            if values_item_nb(rule):
                k, v = item_value_memo_nb(pub, q, hw, crng, memo)
            sec[S_BIDS + q] = np.uint64(bid_mask_nb(pub, hands[q], rule, gw, hw, buf, crng, k, v))
        pub[C_CUR] = cur




# ---------------------------------------------------------------- the adapter's kernels (engines.core.adapter)
# The rollout's decision and the rules' step are inlined (a call boundary with its array arguments
# costs ~80 ns a decision); the rarer work (bid candidates, determinization) sits behind a call.
# reset_nb, legal_nb and apply_nb (and columns.step_nb / side_nb) are thin wrappers copied into
# their callers by numba (ir_inline_kernel): as kernels of their own, each was one more level that
# LLVM optimised with the whole rules' code below it (compile events, one cold scripted game: step_nb
# 7.5 s inclusive of which apply_nb 6.3 s and apply_action_nb 5.4 s; legal_nb 4.8 s over n_legal_nb 4.3 s).

@ir_inline_kernel
def reset_nb(d, rng, cfg, seed, gi):
    """Game gi of run `seed` (its chance stream is sec's; the adapter's `rng` is not read)."""
    P = cfg[K_N_PLAYERS]
    d[D_NPLAYERS] = P
    reset_state_nb(pub_nb(d), hands_nb(d, P, cfg[K_N_CARDS]), sec_nb(d), cfg, seed, gi)
    buf, crng = bid_buffers_nb(d)
    for i in range(buf.shape[0]):   # a loop: a slice fill compiles numba's broadcasting checks
        buf[i] = 0
    seed_into(crng, np.uint64(1))
    item_memo_nb(d)[0] = 0.0        # no auction's values: the last game's are not this one's


@ir_inline_kernel
def legal_nb(d, cfg, out):
    """The legal actions into out, or for a bid (any subset of the hand: not listed) their count,
    2^cards (rules.n_legal_nb): what the step API's legal_actions() holds."""
    pub, hands = pub_hands_nb(d)
    return n_legal_nb(pub, hands, out)


@inline_kernel
def real_action_nb(d, cfg, a):
    """The action a search's choice stands for: a bid code (BID_CODE | rule) is that rule's bid on
    the bidder's hand; any other action is itself."""
    if (a >> A_SHIFT) == ACT_BID and not (a & BID_FLAG):
        pub, hands = pub_hands_nb(d)
        buf, crng = bid_buffers_nb(d)
        return BID_FLAG | bid_mask_nb(pub, hands[pub[C_CUR]], a & DETAIL_MASK, writable_view(GREEDY_W),
                                      writable_view(HEURISTIC_W), buf, crng, np.int64(NOT_VALUED), 0.0)
    return a


@ir_inline_kernel
def apply_nb(d, rng, cfg, a):
    """Apply a legal action and run the automatic steps (a search's bid code is translated before:
    the core's search glue and batch loop call real_action_nb, so the scripted loop compiles no bid
    candidates)."""
    pub, hands, sec = buffers_nb(d)
    apply_action_nb(pub, hands, sec, a)


@inline_kernel
def to_move_nb(d):
    pub = pub_nb(d)
    return np.int64(-1) if pub[C_PHASE] == PH_OVER else np.int64(pub[C_CUR])


@ir_inline_kernel
def decide_scripted_listed_nb(d, cfg, aux, pid, w, prng, legal, n, scratch):
    """Policy `pid` (a scripted one: random, greedy, heuristic) decides for the seat to move over
    the n actions listed in `legal`; a bid and the random player's construction turn read no list
    (n = 0: policy_random_nb counts and picks without it)."""
    pub, hands = pub_hands_nb(d)
    phase = pub[C_PHASE]
    if phase == PH_BID or (pid == RANDOM and phase == PH_MAIN):
        n = 0
    return choose_action_nb(pid, pub, hands[pub[C_CUR]], legal, n, w, prng)


@ir_inline_kernel
def decide_scripted_nb(d, cfg, aux, pid, w, prng, legal, scratch):
    """decide_scripted_listed_nb, listing the actions first where the policy reads them."""
    pub, hands = pub_hands_nb(d)
    phase = pub[C_PHASE]
    n = 0
    if not (phase == PH_BID or (pid == RANDOM and phase == PH_MAIN)):
        n = legal_actions_nb(pub, hands, legal)
    return choose_action_nb(pid, pub, hands[pub[C_CUR]], legal, n, w, prng)


@ir_inline_kernel
def decide_listed_nb(d, cfg, aux, pid, w, prng, legal, n, scratch):
    """decide_scripted_listed_nb, and the learned expert (it reads the whole state, lists its own
    candidates and plays the rules forward: only the look-ahead loop compiles it, so the scripted
    line-ups' first run compiles none of it)."""
    if pid == EXPERT:
        return expert_nb(d, cfg, aux, w, prng, legal, scratch)
    return decide_scripted_listed_nb(d, cfg, aux, pid, w, prng, legal, n, scratch)


@ir_inline_kernel
def decide_nb(d, cfg, aux, pid, w, prng, legal, scratch):
    """decide_scripted_nb and the expert (the search's rollouts and the step API)."""
    if pid == EXPERT:
        return expert_nb(d, cfg, aux, w, prng, legal, scratch)
    return decide_scripted_nb(d, cfg, aux, pid, w, prng, legal, scratch)


@inline_kernel
def search_actions_nb(d, cfg, out):
    """The actions the search tries (module docstring); the bid candidates' masks are kept past
    the candidates, at the end of `out`."""
    pub, hands = pub_hands_nb(d)
    buf, crng = bid_buffers_nb(d)
    return search_list_nb(pub, hands, out, out[out.shape[0] - N_BID_CANDIDATES:], writable_view(GREEDY_W),
                          writable_view(HEURISTIC_W), buf, crng)


@inline_kernel
def expert_actions_nb(d, cfg, out):
    """search_actions_nb with each bid code replaced by its bid, read from the masks the listing
    keeps at out's end: the expert plays the actions themselves, and translating each code by
    real_action_nb would work each rule's bid out again (greedy's and heuristic's among them)."""
    n = search_actions_nb(d, cfg, out)
    if pub_nb(d)[C_PHASE] == PH_BID:
        masks = out[out.shape[0] - N_BID_CANDIDATES:]
        for i in range(n):
            out[i] = BID_FLAG | masks[out[i] & DETAIL_MASK]
    return n


@inline_kernel
def determinize_nb(d, rng, cfg, p, prng, buf):
    """Redraw, in place, everything seat p cannot see (module docstring) from the stream prng;
    buf (int64[>= 2 * MAX_CARDS]) is scratch."""
    pub, hands, sec = buffers_nb(d)
    bbuf, crng = bid_buffers_nb(d)
    redraw_hidden_nb(pub, hands, sec, p, prng, buf, writable_view(GREEDY_W), writable_view(HEURISTIC_W), bbuf, crng,
                     item_memo_nb(d))


@inline_kernel
def outcome_nb(d, cfg, work, score, key):
    """Scores, and the hand values the final tie-break reads (rules.final_result_nb); work[q]
    keeps the hand value."""
    pub, hands = pub_hands_nb(d)
    for q in range(pub[TAB + K_N_PLAYERS]):
        score[q] = pub[PLAYERS + q * N_PROW + P_SCORE]
        key[q] = hand_value_nb(hands, q, pub[PLAYERS + q * N_PROW + P_NHAND], pub)
        work[q, W_HAND_VALUE] = key[q]
    return pub[TAB + K_FINAL_TIE] == 0


@inline_kernel
def _copy_pub_nb(dst, src, a, b):
    """Copy pub[a:b] (int32 places) of state src into dst as the int64 words of d that hold them:
    a word loop runs at about twice the speed of an int32 loop over the views, and the half word
    it may copy past either end is a place copy_state_nb copies too or one equal in both states."""
    copy_words(dst, src, D_PUB + a // 2, D_PUB + (b + 1) // 2)


@inline_kernel
def copy_state_nb(dst, src):
    """dst = src, for two states of one game (same variant, same seats). Copies all of ctrl, the
    piles and everything after pub but the decks, and only the used places elsewhere: the board's
    and the players' rows past the variant's are never written, the table never changes, the
    auction log rows past both logs' ends hold -1 in both, and a plant's slots past its buildings
    and a deck's places past its count hold 0. (Measured on a mid-game 4-seat state: 0.77 us as
    int32 loops over pub views, 0.35 us for the whole vector.)"""
    d, s = pub_nb(dst), pub_nb(src)
    nb = s[TAB + K_N_BLOCKS]
    P = s[TAB + K_N_PLAYERS]
    # the plants, the log and the decks first: their used lengths are read from both before ctrl,
    # the players' rows and the piles are overwritten
    for t in range(N_TYPES):
        o = D_SEC + S_DECKS + t * MAX_CARDS
        copy_words(dst, src, o, o + max(d[PILES + t * N_PIROW + PI_DECK], s[PILES + t * N_PIROW + PI_DECK]))
    for q in range(P):
        n = max(d[PLAYERS + q * N_PROW + P_NBUILD], s[PLAYERS + q * N_PROW + P_NBUILD])
        if n > 0:
            _copy_pub_nb(dst, src, PLH + q * N_PLROW, PLH + q * N_PLROW + n)
            _copy_pub_nb(dst, src, PLR + q * N_PLROW, PLR + q * N_PLROW + n)
    na = max(d[C_N_AUC], s[C_N_AUC])
    if na > 0:
        _copy_pub_nb(dst, src, ALOG, ALOG + na * N_ALOG)
    _copy_pub_nb(dst, src, 0, TAB)
    _copy_pub_nb(dst, src, BOARD, BOARD + nb * N_BOARD)
    _copy_pub_nb(dst, src, PLAYERS, PLAYERS + P * N_PROW)
    _copy_pub_nb(dst, src, PILES, ALOG)
    copy_words(dst, src, D_SEC, D_SEC + S_DECKS)
    copy_words(dst, src, D_BID_BUF, dst.shape[0])


# ---------------------------------------------------------------- the learned expert (engines.core.expert)

SETTLE_CAP = 64   # decisions settle_nb plays at most (a 4-seat auction and its placement take 5)
SEALED_AHEAD = np.uint64(1) << np.uint64(63)   # a later bidder's bid sealed by the expert's sample
assert MAX_CARDS < 63


@inline_kernel
def heuristic_reads_list_nb(phase):
    """Whether policies.heuristic_move_nb reads the legal list in this phase: a construction
    turn, a roof and a draw do; placing floors, installing and the auction do not."""
    return phase == PH_MAIN or phase == PH_ROOF or phase == PH_DRAW


@inline_kernel
def heuristic_step_nb(d, cfg, aux, rng, buf, f):
    """The heuristic's move (default weights, no jitter) for the seat to move outside an auction,
    for the expert (its prior, its settle): the legal actions listed into buf only where it reads them (placing
    floors and installing, it looks at the seat's Plant and the board itself, and listing the
    installs would cost about as much as choosing one), and the potentials it reads shared with
    the candidates' features through the sample's memo (f: the expert's features row,
    features.sample_memo_changed_nb), the seat to move being the one the memo is noted for."""
    pub, hands = pub_hands_nb(d)
    phase = pub[C_PHASE]
    n = 0
    if heuristic_reads_list_nb(phase):
        n = legal_actions_nb(pub, hands, buf)
    return heuristic_listed_nb(d, rng, buf, n, f)


@inline_kernel
def heuristic_listed_nb(d, rng, legal, n, f):
    """policies.heuristic_move_nb (default weights, no jitter) for the seat to move over legal[:n],
    its potentials through the expert's features row f (heuristic_step_nb)."""
    pub, hands = pub_hands_nb(d)
    p = pub[C_CUR]
    changed = sample_memo_changed_nb(pub, f, pub[TAB + K_ROUNDS] - pub[C_ROUND])
    memo = f[N_FEATURES:N_FEATURES + MEMO_SIZE] if changed >= 0 else f[:0]
    return heuristic_move_nb(pub, hands[p], legal, n, writable_view(HEURISTIC_W), rng, memo, max(changed, 0))


@kernel
def settle_nb(d, rng, cfg, aux, me, buf, f):
    """Play on, in the expert's sample, what follows seat `me`'s decision before its outcome shows
    (engines.core.expert's settle hook), each seat deciding as the heuristic (default weights, no
    jitter) on what the sample gives it:

      - a sealed bid shows nothing until the auction is over: the seats still to bid in this
        auction bid, and the winner places the item (so the afterstate holds the item on the
        board and the winner's hand without the cards paid);
      - a card played to build or install shows nothing until its floors, roof or building are
        placed: `me` places them;
      - an item `me` won is placed.

    The other seats' construction turns and draws are not played: a choice is scored as it leaves
    the board and the seat's own Plant and hand.

    The later bidders' bids in the auction the sample was drawn in are the ones it sealed for them
    in advance (expert_sample_nb, marked SEALED_AHEAD): a seat's sealed bid cannot depend on the
    bid before it, so every candidate bid of one sample meets the same bids, worked out once a
    sample instead of once a candidate. (A later auction settle_nb reaches, when `me` has no cards
    left to bid, starts with every bid cleared: its bidders decide as they come.)"""
    pub = pub_nb(d)
    P = pub[TAB + K_N_PLAYERS]
    for _ in range(SETTLE_CAP):
        phase = pub[C_PHASE]
        q = pub[C_CUR]
        own_step = q == me and (phase == PH_FLOOR or phase == PH_ROOF or phase == PH_INSTALL)
        # the others' bids in an auction `me` has bid in (bidders go from the Key clockwise)
        auction = phase == PH_BID and q != me and (me - pub[C_KEY] + P) % P < pub[C_BIDDER]
        if auction and sec_nb(d)[S_BIDS + q] & SEALED_AHEAD:
            apply_nb(d, rng, cfg, BID_FLAG | np.int64(sec_nb(d)[S_BIDS + q] ^ SEALED_AHEAD))
        elif own_step:
            apply_nb(d, rng, cfg, heuristic_step_nb(d, cfg, aux, rng, buf, f))
        elif auction or phase == PH_PLACE:
            apply_nb(d, rng, cfg, heuristic_auction_move_nb(d))
        else:
            return


@inline_kernel
def expert_sample_nb(d, rng, cfg, p, prng, buf):
    """The expert's sample of what seat p cannot see (engines.core.expert's determinize hook):
    determinize_nb, and in an auction, the bids of the seats after p sealed now, each the
    heuristic's (default weights, no jitter) on its sampled hand, as settle_nb plays them. A
    sealed bid reads the public state and its bidder's hand, which p's bid leaves as they were
    (the rules' do_bid_nb writes only the hidden bid and the bidder count; the heuristic reads
    neither), so these are the bids those seats would make after any bid of p's. Each is marked
    SEALED_AHEAD (a bit no card mask has) until its seat bids: the rules then write the bid itself."""
    determinize_nb(d, rng, cfg, p, prng, buf)
    pub, sec = pub_nb(d), sec_nb(d)
    if pub[C_PHASE] != PH_BID:
        return
    P = pub[TAB + K_N_PLAYERS]
    for j in range(pub[C_BIDDER] + 1, P):
        q = (pub[C_KEY] + j) % P
        if pub[PLAYERS + q * N_PROW + P_NHAND] == 0:
            continue                      # an empty hand bids nothing, without a decision
        pub[C_CUR] = q                    # the heuristic bids for the seat to move
        sec[S_BIDS + q] = SEALED_AHEAD | np.uint64(heuristic_auction_move_nb(d) ^ BID_FLAG)
    pub[C_CUR] = p


@inline_kernel
def bid_lost_nb(d, cfg, me, a):
    """Whether seat me's sealed bid a (BID_FLAG | mask), in the expert's sample, does not win the
    auction (engines.core.expert's shared_outcome_nb). The sample holds every other bid of the
    auction (the earlier bidders' drawn, the later bidders' sealed ahead by expert_sample_nb, which
    settle_nb plays whatever me bids), so the rules' own choice of the winner
    (rules.auction_winner_nb) tells it now. A bid that does not win goes back to the hand: every
    such bid of one sample leaves the same state once settle_nb has played the auction out and
    the winner placed the item, but for the auction log, which no feature reads
    (tests/skyline_3000/test_expert.py plays them out and compares)."""
    pub, hands = pub_hands_nb(d)
    if pub[C_PHASE] != PH_BID or not (a & BID_FLAG):
        return False
    return auction_winner_nb(pub, hands, sec_nb(d), me, a ^ BID_FLAG) != me


@kernel
def heuristic_pick_nb(d, cfg, aux, rng, buf, legal, n, f):
    """The heuristic's action (default weights, no jitter) for the seat to move: the expert's
    prior (features.F_HEURISTIC_PICK). An int64 as every listed action (the pure-Python rules,
    NUMBA_DISABLE_JIT, may return a numpy int32, and same_move_nb's BID_FLAG test would overflow it).
    A bid is a hidden decision, whose prior the expert asks on its sample: the bid reads (and
    writes) the sample's item memo, which the sample's later bidders and placements read too.
    Elsewhere the heuristic reads the expert's list, legal[:n] (n >= 0), instead of listing the
    rules' actions again: the search's list (construction_actions_nb) keeps of a construction
    turn every Contract card, every Billboard the heuristic would pay for and at least one Floor
    and one Roof card, in the rules' order, so the heuristic picks from it what it picks from the
    rules' list (tests/skyline_3000/test_expert.py checks it on every decision of whole games)."""
    phase = pub_nb(d)[C_PHASE]
    if phase == PH_BID:
        return np.int64(heuristic_auction_move_nb(d))
    if n >= 0 and heuristic_reads_list_nb(phase):
        return np.int64(heuristic_listed_nb(d, rng, legal, n, f))
    return np.int64(heuristic_step_nb(d, cfg, aux, rng, buf, f))


@inline_kernel
def same_move_nb(d, a, b):
    """Whether actions a and b are the same move: equal, or a Floor or Roof card of one value
    (the search lists one per value), a card played without acting (any card), a billboard on
    one block (paid with the cheapest card)."""
    if a == b:
        return True
    kind = a >> A_SHIFT
    if kind != (b >> A_SHIFT) or (a & BID_FLAG) or (b & BID_FLAG):
        return False
    if kind == ACT_FLOOR or kind == ACT_ROOF:
        pub = pub_nb(d)
        return pub[TAB + K_VALUE + (a & DETAIL_MASK)] == pub[TAB + K_VALUE + (b & DETAIL_MASK)]
    if kind == ACT_NOACT:
        return True
    if kind == ACT_BILLBOARD:
        return (a & BB_BLOCK_MASK) == (b & BB_BLOCK_MASK)
    return False


@inline_kernel
def public_decision_nb(d, cfg, p):
    """Whether seat p's decision is public for the expert (engines.core.expert's public_nb): every
    decision but a sealed bid. A bid's candidates are settled on the later bidders' hands, which p
    cannot see. Any other candidate, settled (settle_nb), is p's own move and the placements it
    pays for, read from p's own hand; and the features read the board, p's Plant and hand and the
    public counts (features.py), never a deck below its top, so a draw's next top (redrawn by a
    determinization) is not read either. tests/skyline_3000/test_expert.py scrambles what p cannot
    see and finds every candidate's features as they were."""
    return pub_nb(d)[C_PHASE] != PH_BID


expert_nb, afterstate_nb, choices_nb = make_expert(apply_nb, expert_sample_nb, expert_actions_nb, to_move_nb, features_nb,
                                                   N_FEATURES, MAX_ACTIONS, chosen_nb=real_action_nb,
                                                   copy_state_nb=copy_state_nb, settle_nb=settle_nb,
                                                   prior_nb=heuristic_pick_nb, prior_feature=F_HEURISTIC_PICK,
                                                   same_nb=same_move_nb, note_nb=note_board_nb, memo_size=MEMO_SIZE,
                                                   public_nb=public_decision_nb, kept_state=True,
                                                   shared_outcome_nb=bid_lost_nb)

"""The learned expert, written once for every vector-state game: a linear evaluation of what
the deciding seat can see, learned from the search player's games (experiments/train.py), used
without search at decision time.

At each decision the expert

  1. copies the state and *determinizes* the copy as the search does (the game's
     determinize_nb: a fresh chance stream drawn from the seat's own policy stream, everything
     else the seat cannot see redrawn), so nothing it computes depends on hidden information;
  2. applies each candidate action (the search's list, search_actions_nb) to a copy of that
     sample, every candidate under the same sample (common random numbers, as the search's
     sequential halving), and scores the result with `features_nb(d, cfg, aux, seat, out)`
     dotted with the model's weights;
  3. averages over `samples` samples and plays the best candidate (ties: the first listed).

A decision whose candidates, played and scored, read nothing the seat cannot see (the game's
`public_nb` says which: Skyline 3000's every decision but a sealed bid) skips step 1: its
candidates are played on copies of the state itself, once, since every sample would score them
alike. The choice is the same; it only saves the sample's copy and redraw. A game whose scripts
never touch the decision's float scratch may let the expert keep there, between decisions, the
state its candidates are played on and the sample (`kept_state`): each candidate then refreshes
the first from the state or the sample, and each hidden decision the sample from the state, with
the game's copy_state_nb (the used places) instead of allocating a whole copy (a scratch too short
for two states keeps the first only, and a hidden decision copies d whole for its sample).

A game declares `features_nb` next to its rules (what the seat sees: its own sheet or hand and
the public state; a state after its own decision, with its pending choice taken as made) and
the names of its features; the weights are data in the game's package (`expert.toml`, with the
command that made them), loaded into the policy's weight row: the policy `expert` is a scripted
policy like any other (a line-up seat, a ladder rung, the search's rollout policy).

Weights (the expert's row): samples, then one weight per feature (`w_<feature>`).
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from engines.core.kernel import KERNEL_OPTIONS, REFCOUNTS
from engines.core.lowlevel import slice_as
from engines.core.spec import PolicyInfo

W_SAMPLES = 0
EXPERT_HEAD = 1            # the model's weights start here
EXPERT_FILE = "expert.toml"
EXPERT_DESCRIPTION = ("Learned evaluation (linear in features of what the seat sees) of each action's outcome "
                      "under `samples` determinized samples; no search. Trained by `skyline-lab train GAME`.")
_OPTIONS = dict({k: v for k, v in KERNEL_OPTIONS.items() if k != "cache"}, **REFCOUNTS)


class ExpertError(ValueError):
    pass


@dataclass(frozen=True)
class ExpertModel:
    """A fitted model: feature names and weights, and how it was made."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    samples: int = 1
    command: str = ""        # the command that made it (empty: untrained)
    fit: str = ""            # its fit quality, in words

    def row(self) -> np.ndarray:
        """The policy's weight row (samples, then the weights)."""
        return np.array([float(self.samples), *self.weights])


def zero_model(features: tuple[str, ...]) -> ExpertModel:
    """The untrained model (every weight 0: plays the first listed candidate)."""
    return ExpertModel(tuple(features), (0.0,) * len(features))


def load_model(path: str | Path, features: tuple[str, ...]) -> ExpertModel:
    """The model of `path` (a zero model when the file does not exist); refuses a file whose
    features are not the game's, in the game's order."""
    path = Path(path)
    if not path.is_file():
        return zero_model(features)
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    model = data.get("model", {})
    names = tuple(model.get("features", ()))
    if names != tuple(features):
        raise ExpertError(f"{path}: model.features {list(names)} are not the game's features {list(features)}")
    weights = tuple(float(x) for x in model.get("weights", ()))
    if len(weights) != len(names) or not all(math.isfinite(x) for x in weights):
        raise ExpertError(f"{path}: model.weights must be {len(names)} finite numbers")
    return ExpertModel(names, weights, int(model.get("samples", 1)), str(model.get("command", "")),
                       str(model.get("fit", "")))


def model_text(model: ExpertModel) -> str:
    """`model` as the engine package's expert.toml."""
    def q(s: str) -> str:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    lines = ["# The learned expert's model (engines/core/expert.py): written by `skyline-lab train`, not by hand.",
             f"# made by: {model.command or '(untrained)'}", "[model]",
             f"command = {q(model.command)}", f"fit = {q(model.fit)}", f"samples = {int(model.samples)}",
             "features = [" + ", ".join(q(f) for f in model.features) + "]",
             "weights = [" + ", ".join(repr(float(w)) for w in model.weights) + "]"]
    return "\n".join(lines) + "\n"


def model_weights(model: ExpertModel) -> dict[str, float]:
    """The model as the expert policy's named weights: samples, then `w_<feature>` per feature."""
    return {"samples": float(model.samples), **{f"w_{f}": w for f, w in zip(model.features, model.weights)}}


def expert_policy(policy_id: int, model: ExpertModel) -> PolicyInfo:
    """The expert as one of a game's named policies: `expert`, `expert(samples=4)`."""
    return PolicyInfo("expert", policy_id, EXPERT_DESCRIPTION, model_weights(model),
                      weight_ranges={"samples": (1, 1000)})


PRIOR_FEATURE = "heuristic_pick"   # the name a game gives its prior's feature (make_expert's prior_nb)


def prior_row(info: PolicyInfo, width: int = 0) -> np.ndarray:
    """A scripted policy's default weight row with its jitter at 0, for the expert's prior: the
    pick is the same in every sample, so a candidate's prior feature is a property of the
    candidate, not of a draw. At least `width` wide (zeros after the weights)."""
    weights = dict(info.weights)
    if "jitter" in weights:
        weights["jitter"] = 0.0
    row = np.zeros(max(width, len(weights)))
    row[:len(weights)] = list(weights.values())
    return row


@numba.njit(inline="always", **_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
def _same_action_nb(d, cfg, a):
    """No stand-ins: a listed candidate is the action itself."""
    return a


@numba.njit(inline="always", **_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
def _copy_all_nb(dst, src):
    """dst = src, element by element (no slice temporaries)."""
    for k in range(src.shape[0]):
        dst[k] = src[k]


@numba.njit(inline="always", **_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
def _settled_nb(d, rng, cfg, aux, p, buf, f):
    """Nothing to play on: the afterstate is scored as it is."""
    return


@numba.njit(inline="always", **_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
def _no_note_nb(d, cfg, aux, p, out):
    """Nothing for the candidates' features to reuse."""
    return


@numba.njit(inline="always", **_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
def _no_prior_nb(d, cfg, aux, rng, buf, legal, n, f):
    """No scripted pick to mark."""
    return np.int64(-1)


@numba.njit(inline="always", **_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
def _never_shared_nb(d, cfg, me, a):
    """Every candidate is played and scored."""
    return False


@numba.njit(inline="always", **_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
def _same_nb(d, a, b):
    return a == b


KEPT_MARK = 0x6B657074   # the scratch's last int64 word once it holds a kept state ("kept")


@numba.njit(inline="always", **_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
def _never_public_nb(d, cfg, p):
    """Every decision is scored on determinized samples."""
    return False


def make_expert(apply_nb, determinize_nb, actions_nb, to_move_nb, features_nb, n_features: int,
                max_actions: int, chosen_nb=None, copy_state_nb=None, settle_nb=None, prior_nb=None,
                prior_feature: int = -1, same_nb=None, note_nb=None, memo_size: int = 0, public_nb=None,
                kept_state: bool = False, shared_outcome_nb=None):
    """(expert_nb, afterstate_nb, choices_nb) over a vector-state game's kernels:

    expert_nb(d, cfg, aux, w, prng, legal, scratch) -> action
                                                       the expert's choice for the seat to move
                                                       (scratch: the decision's float scratch)
    afterstate_nb(d, cfg, aux, a, prng, out)           the features the expert scores for action a
                                                       (one sample: the training tables' rows)
    choices_nb(d, cfg, aux, prng, legal, out) -> n      every candidate's features (out[:n]) under
                                                       one sample, candidates in legal[:n]

    Optional hooks, for a game whose search lists stand-ins or whose afterstate says little:
    chosen_nb(d, cfg, a) -> a         the legal action a listed candidate stands for (the adapter's
                                      hook: Skyline 3000's bid rules); the expert plays, and
                                      choices_nb lists, the actions themselves
    copy_state_nb(dst, src)           the adapter's copy of one state into another of the same game
    settle_nb(d, rng, cfg, aux, p, buf, f)
                                      play on, in the sample, what follows seat p's decision before
                                      its outcome can be scored (Skyline 3000: the rest of a sealed
                                      auction; Project Skyline: the rest of the seat's turn, which
                                      lifted its expert above search(20)); buf is an
                                      int64[max_actions] scratch, f the features row with the
                                      sample's memo (note_nb), which the scripts it plays may
                                      share with the features
    prior_nb(d, cfg, aux, rng, buf, legal, n, f) -> a
                                      a scripted policy's pick for the seat to move (on what the
                                      seat sees), given the candidates legal[:n] the expert
                                      listed (the actions themselves; n < 0: none listed), which
                                      a script that reads the rules' list may read instead of
                                      listing again when they give it the same pick, and f, the
                                      features row with d's memo noted (note_nb), or f[:0] (none
                                      noted: a hidden decision's prior comes before its samples);
                                      feature `prior_feature` of a candidate is 1 when
                                      it is that pick (same_nb(d, a, b): the game's "same move",
                                      e.g. another card of one value), else 0 (features_nb leaves
                                      it alone). The model learns how far to trust the script.
    note_nb(d, cfg, aux, p, out), memo_size
                                      what the candidates of one sample may share: features_nb is
                                      given out = float64[n_features + memo_size], and note_nb, called
                                      on each sample's state before its candidates are scored, notes
                                      in out[n_features:] what a candidate's features may reuse
                                      (Skyline 3000: what the board pays, when a candidate leaves
                                      the board as the sample holds it). The features must be the
                                      same as without the memo, to the bit.
    shared_outcome_nb(d, cfg, me, a) -> bool
                                      on a hidden decision's sample d, before any candidate is
                                      played: whether candidate a, played and settled, ends where
                                      every other candidate it says this of ends, in everything
                                      features_nb reads (Skyline 3000: a sealed bid that does not
                                      win, whose cards go back to the hand). The first such
                                      candidate of a sample is played and scored; the others take
                                      its features (their own prior's mark apart), the same to the
                                      bit, without being played.

    Closures over the game's kernels (like engines.core.search.make_search): compiled into the
    cached kernels that call them."""
    jit = numba.njit(**_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
    # the per-candidate steps, inlined where they are called (a call layer on the hot path cost ~3%)
    inline = numba.njit(inline="always", **_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
    nf = int(n_features)
    cap = int(max_actions)
    chosen = _same_action_nb if chosen_nb is None else chosen_nb
    copy_state = _copy_all_nb if copy_state_nb is None else copy_state_nb
    settle = _settled_nb if settle_nb is None else settle_nb
    prior = _no_prior_nb if prior_nb is None else prior_nb
    same = _same_nb if same_nb is None else same_nb
    note = _no_note_nb if note_nb is None else note_nb
    public = _never_public_nb if public_nb is None else public_nb
    shares = _never_shared_nb if shared_outcome_nb is None else shared_outcome_nb
    sharing = shared_outcome_nb is not None
    keep = bool(kept_state)
    width = nf + int(memo_size)
    pj = int(prior_feature)
    if (prior_nb is None) != (pj < 0) or pj >= nf:
        raise ValueError("make_expert: a prior_nb needs its feature's index (prior_feature), and only it")

    @inline
    def candidate_features_nb(d, sim, srng, cfg, aux, me, a, pick, f, buf):
        """f[:nf]: the features of seat me's action a, played on sim (a copy of d or of its sample)
        with the sample's stream srng and settled; the prior's feature marks the scripts' pick."""
        apply_nb(sim, srng, cfg, a)
        settle(sim, srng, cfg, aux, me, buf, f)
        features_nb(sim, cfg, aux, me, f)
        if pj >= 0:
            f[pj] = 1.0 if same(d, a, pick) else 0.0

    @inline
    def value_nb(w, f):
        """The model's value of the features f[:nf]."""
        v = 0.0
        for j in range(nf):
            v += w[EXPERT_HEAD + j] * f[j]
        return v

    @inline
    def candidate_value_nb(d, sim, srng, cfg, aux, w, me, a, pick, f, buf):
        """The model's value of candidate_features_nb's features."""
        candidate_features_nb(d, sim, srng, cfg, aux, me, a, pick, f, buf)
        return value_nb(w, f)

    @jit
    def sample_nb(d, sample, rng, cfg, me, prng, buf):
        """Make `sample` (a copy of d) the sample seat me scores its candidates on, and rng its
        stream: a determinization drawn from prng, or, for a public decision, d as it is with a
        stream the candidates do not read (prng's, left as it was)."""
        if public(d, cfg, me):
            rng[:] = prng
        else:
            determinize_nb(sample, rng, cfg, me, prng, buf)

    @jit
    def public_totals_nb(d, sim, cfg, aux, w, prng, me, legal, n, pick, f, buf, total, srng):
        """total[i]: candidate i's value, each played on sim, a copy of d itself (a public
        decision; f: noted for d); sim is refreshed from d between candidates (srng: room for the
        candidates' stream)."""
        for i in range(n):
            if i > 0:
                copy_state(sim, d)
            for k in range(4):       # a stream the candidates do not read (public_nb), left as it was
                srng[k] = prng[k]
            total[i] = candidate_value_nb(d, sim, srng, cfg, aux, w, me, legal[i], pick, f, buf)

    @jit
    def sampled_totals_nb(d, base, sim, cfg, aux, w, prng, me, legal, n, f, buf, total, srng, brng, shared):
        """total[i]: candidate i's value summed over `samples` determinized samples of d (a hidden
        decision). base (a copy of d) holds each sample in turn; each candidate is played on sim,
        a state of this game refreshed from the sample by copy_state (sim is base: none yet, a
        whole copy of the sample at the first candidate), but the last candidate of the last
        sample, played on the sample itself (nothing reads it after). srng, brng: room for the
        candidates' and the sample's streams; shared: room for the features of the candidates
        that share an outcome (shared_outcome_nb)."""
        samples = max(1, int(w[W_SAMPLES]))
        for k in range(4):
            srng[k] = prng[k]
        pick = prior(base, cfg, aux, srng, buf, legal, n, f[:0])
        for s in range(samples):
            if s > 0:
                copy_state(base, d)
            determinize_nb(base, brng, cfg, me, prng, buf)
            note(base, cfg, aux, me, f)
            scored = False      # the shared outcome's features are in `shared`
            for i in range(n):
                one_of_many = sharing and shares(base, cfg, me, legal[i])
                if one_of_many and scored:
                    for j in range(nf):
                        f[j] = shared[j]
                    if pj >= 0:
                        f[pj] = 1.0 if same(d, legal[i], pick) else 0.0
                    total[i] += value_nb(w, f)
                    continue
                if i == n - 1 and s == samples - 1:
                    play = base
                elif sim is base:
                    sim = base.copy()
                    play = sim
                else:
                    copy_state(sim, base)
                    play = sim
                for k in range(4):
                    srng[k] = brng[k]
                total[i] += candidate_value_nb(d, play, srng, cfg, aux, w, me, legal[i], pick, f, buf)
                if one_of_many:
                    for j in range(nf):
                        shared[j] = f[j]
                    scored = True

    @jit
    def expert_nb(d, cfg, aux, w, prng, legal, scratch):
        me = to_move_nb(d)
        n = actions_nb(d, cfg, legal)
        if n == 1:
            return chosen(d, cfg, legal[0])
        # the decision's buffers, in one allocation (five of them cost about 5% of the instructions of a
        # Skyline 3000 draw decision): the hooks' int64 scratch, the features and memo, the totals, two
        # streams and a shared outcome's features
        work = np.empty(cap + width + n + 8 + nf)
        buf = slice_as(work, 0, cap, np.int64)
        f = slice_as(work, cap, cap + width, np.float64)
        total = slice_as(work, cap + width, cap + width + n, np.float64)
        for i in range(n):
            total[i] = 0.0
        srng = slice_as(work, cap + width + n, cap + width + n + 4, np.uint64)
        brng = slice_as(work, cap + width + n + 4, cap + width + n + 8, np.uint64)
        shared = slice_as(work, cap + width + n + 8, cap + width + n + 8 + nf, np.float64)
        hidden = not public(d, cfg, me)
        # the copies, the expert's main cost after the features: a hidden decision copies d
        # (base: the sample), and the candidates are played on a second copy. When the game lets
        # the expert keep states in the scratch, both are kept there from one decision to the next
        # (refreshed by copy_state: the used places; the sample's room only when the scratch holds
        # two states); else base is a whole copy of d, and sim a fresh whole copy
        words = d.shape[0]
        kept = keep and scratch.shape[0] > words
        if kept:
            room = scratch.view(np.int64)
            two = room.shape[0] > 2 * words
            sim = room[:words]
            if room[room.shape[0] - 1] != KEPT_MARK:   # the owner's first decision: whole copies
                _copy_all_nb(sim, d)
                if two:
                    _copy_all_nb(room[words:2 * words], d)
                room[room.shape[0] - 1] = KEPT_MARK
            elif not hidden:
                copy_state(sim, d)                     # a state of this game: its used places are enough
            if hidden and two:
                base = room[words:2 * words]
                copy_state(base, d)
            else:
                base = d.copy() if hidden else d
        else:
            base = d.copy() if hidden else d
            sim = base if hidden else d.copy()   # sim is base: a hidden decision copies its sample at need
        # the actions themselves, and the prior, on d or its copy (d stays as it is)
        for i in range(n):
            legal[i] = chosen(base, cfg, legal[i])
        if hidden:
            sampled_totals_nb(d, base, sim, cfg, aux, w, prng, me, legal, n, f, buf, total, srng, brng, shared)
        else:
            for k in range(4):       # the prior's stream: a copy of prng (it draws nothing from prng itself)
                brng[k] = prng[k]
            note(d, cfg, aux, me, f)    # before the prior, which may share the memo
            public_totals_nb(d, sim, cfg, aux, w, prng, me, legal, n, prior(d, cfg, aux, brng, buf, legal, n, f),
                             f, buf, total, srng)
        best = 0
        for i in range(1, n):
            if total[i] > total[best]:
                best = i
        return legal[best]

    @jit
    def afterstate_nb(d, cfg, aux, a, prng, out):
        me = to_move_nb(d)
        sim = d.copy()
        srng = np.empty(4, np.uint64)
        buf = np.empty(cap, np.int64)
        a = chosen(sim, cfg, a)
        f = np.empty(width)
        pick = prior(sim, cfg, aux, prng.copy(), buf, buf, np.int64(-1), f[:0])   # no list, no memo
        sample_nb(d, sim, srng, cfg, me, prng, buf)
        note(sim, cfg, aux, me, f)
        candidate_features_nb(d, sim, srng, cfg, aux, me, a, pick, f, buf)
        for j in range(nf):
            out[j] = f[j]

    @jit
    def choices_nb(d, cfg, aux, prng, legal, out):
        """Every candidate's features under one sample, as expert_nb scores them: out[i] for
        legal[i] (the action itself, a stand-in translated); returns the number of candidates
        (the trainer's choice tables)."""
        me = to_move_nb(d)
        n = actions_nb(d, cfg, legal)
        base = d.copy()
        sim = d.copy()
        brng = np.empty(4, np.uint64)
        srng = np.empty(4, np.uint64)
        buf = np.empty(cap, np.int64)
        for i in range(n):
            legal[i] = chosen(sim, cfg, legal[i])
        f = np.empty(width)
        pick = prior(sim, cfg, aux, prng.copy(), buf, legal, n, f[:0])
        sample_nb(d, base, brng, cfg, me, prng, buf)
        note(base, cfg, aux, me, f)
        for i in range(n):
            copy_state(sim, base)
            srng[:] = brng
            candidate_features_nb(d, sim, srng, cfg, aux, me, legal[i], pick, f, buf)
            for j in range(nf):
                out[i, j] = f[j]
        return n

    return expert_nb, afterstate_nb, choices_nb


@dataclass(frozen=True)
class ExpertSpec:
    """What a game declares for its expert: the policy's name, its feature names, the model file
    and the afterstate kernel the trainer records (engines.core.expert.make_expert)."""

    features: tuple[str, ...]
    model_file: Path
    afterstate_nb: object
    choices_nb: object
    max_actions: int
    policy: str = "expert"

    def features_after(self, game, action: int, prng: np.ndarray) -> np.ndarray:
        """The features the expert scores for `action` of the seat to move in `game` (a step
        API game of engines.core.adapter), on one sample drawn from `prng`."""
        out = np.zeros(len(self.features))
        self.afterstate_nb(game.state.data, game.kp.cfg, getattr(game.kp, game.engine.aux), np.int64(action),
                           prng, out)
        return out

    def choices(self, game, prng: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(candidate actions, their features [n, F]) for the seat to move, one sample from `prng`."""
        legal = np.empty(self.max_actions, np.int64)
        out = np.zeros((self.max_actions, len(self.features)))
        n = self.choices_nb(game.state.data, game.kp.cfg, getattr(game.kp, game.engine.aux), prng, legal, out)
        return legal[:n].copy(), out[:n].copy()

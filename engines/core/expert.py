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


def expert_policy(policy_id: int, model: ExpertModel) -> PolicyInfo:
    """The expert as one of a game's named policies: `expert`, `expert(samples=4)`."""
    weights = {"samples": float(model.samples), **{f"w_{f}": w for f, w in zip(model.features, model.weights)}}
    return PolicyInfo("expert", policy_id, EXPERT_DESCRIPTION, weights,
                      weight_ranges={"samples": (1, 1000)})


def make_expert(apply_nb, determinize_nb, actions_nb, to_move_nb, features_nb, n_features: int,
                max_actions: int):
    """(expert_nb, afterstate_nb, choices_nb) over a vector-state game's kernels:

    expert_nb(d, cfg, aux, w, prng, legal) -> action   the expert's choice for the seat to move
    afterstate_nb(d, cfg, aux, a, prng, out)           the features the expert scores for action a
                                                       (one sample: the training tables' rows)
    choices_nb(d, cfg, aux, prng, legal, out) -> n      every candidate's features (out[:n]) under
                                                       one sample, candidates in legal[:n]

    Closures over the game's kernels (like engines.core.search.make_search): compiled into the
    cached kernels that call them."""
    jit = numba.njit(**_OPTIONS) if not numba.config.DISABLE_JIT else (lambda f: f)
    nf = int(n_features)
    cap = int(max_actions)

    @jit
    def expert_nb(d, cfg, aux, w, prng, legal):
        me = to_move_nb(d)
        n = actions_nb(d, cfg, legal)
        if n == 1:
            return legal[0]
        samples = max(1, int(w[W_SAMPLES]))
        base = np.empty_like(d)
        sim = np.empty_like(d)
        brng = np.empty(4, np.uint64)
        srng = np.empty(4, np.uint64)
        buf = np.empty(cap, np.int64)
        f = np.empty(nf)
        total = np.zeros(n)
        for _ in range(samples):
            for k in range(d.shape[0]):
                base[k] = d[k]
            determinize_nb(base, brng, cfg, me, prng, buf)
            for i in range(n):
                for k in range(d.shape[0]):
                    sim[k] = base[k]
                for k in range(4):
                    srng[k] = brng[k]
                apply_nb(sim, srng, cfg, legal[i])
                features_nb(sim, cfg, aux, me, f)
                v = 0.0
                for j in range(nf):
                    v += w[EXPERT_HEAD + j] * f[j]
                total[i] += v
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
        determinize_nb(sim, srng, cfg, me, prng, np.empty(cap, np.int64))
        apply_nb(sim, srng, cfg, a)
        features_nb(sim, cfg, aux, me, out)

    @jit
    def choices_nb(d, cfg, aux, prng, legal, out):
        """Every candidate's features under one sample, as expert_nb scores them: out[i] for
        legal[i]; returns the number of candidates (the trainer's choice tables)."""
        me = to_move_nb(d)
        n = actions_nb(d, cfg, legal)
        base = d.copy()
        sim = np.empty_like(d)
        brng = np.empty(4, np.uint64)
        srng = np.empty(4, np.uint64)
        determinize_nb(base, brng, cfg, me, prng, np.empty(cap, np.int64))
        for i in range(n):
            sim[:] = base
            srng[:] = brng
            apply_nb(sim, srng, cfg, legal[i])
            features_nb(sim, cfg, aux, me, out[i])
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

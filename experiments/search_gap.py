"""`skyline-lab gap GAME`: where a stronger policy's moves are worth more than a base policy's, one
kind of decision at a time (the phase the decision is taken in).

Why: a learned expert is trained to play as the search does; knowing *which* decisions the search
still plays better says where its features fall short. Averages of agreement do not say it: the
expert may disagree with the search at most bids and lose nothing, and agree at most construction
turns yet lose a game's worth of points at the few where it does not.

How (every game's seat s = game index mod seats is the seat that changes, or with `seat="first"`
the seat that moves first in that game; the other seats play the base policy throughout):

    arm "none"   seat s plays the base policy at every decision;
    arm "all"    seat s plays the better policy at every decision;
    arm K        seat s plays the better policy at the decisions of kind K, the base policy
                 elsewhere. By phase (the default) K is the game's phase name there (Game.phase());
                 by action (`by="action"`) K is the phase and what the better policy's move does
                 there: its name (Game.action_name) without numbers or brackets, four words at
                 most and never ending on a word that leads into a place or an amount
                 ("construction: place a billboard", "draw: draw from the Roof", "invest: buy a
                 floor"). By action the
                 better policy is asked at every decision of seat s and its move played only
                 when of kind K (a move of the base policy is then drawn after it: the same
                 policy, other draws).

Every arm plays the same games (game i: the run seed's deal i, whatever the arm), so an arm's gain
is the mean over games of its seat's margin (score minus the other seats' mean) minus that game's
margin in arm "none": paired by game, the game the unit. Its 95% interval is the Student t interval of
that mean (the games are independent; the seats of one game are not, hence one margin a game). A
kind is played as an arm when the better policy met it at least `min_per_game` times a game in arm
"all" (rarer kinds are left out of the table, not judged).

Verdicts, per arm: "gains" when the interval lies above 0, "loses" when below, else "not separated"
-- which is not "no gain": an absence needs an equivalence margin, and none is claimed here. Each
row's verdict is wrong at most 5% of the time on its own (tests/experiments/test_search_gap.py), so
among twenty rows of kinds that gain nothing one may read "gains" by chance. The gains of several
arms need not add up: a move's worth depends on the moves around it.

The games are played with the step API (engines.core.adapter Game), one decision at a time.
Measured, 300 games of Skyline 3000 with search(iterations=20) as the better policy: by phase its
9 arms take 50 s on one core; by action its 26 arms (each asking the search at every decision of
the seat) take 4 minutes on two.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from analysis.stats import mean_t_interval
from engines.core.lineup import policy_row
from engines.core.variant import parse_override
from engines.registry import get_game

NONE, ALL = "none", "all"
BY = ("phase", "action")
# which seat changes: every seat in turn (game index mod seats), or the one that moves first
# (Skyline 3000's first builder, whose finding flips with the rung)
SEATS = ("rotate", "first")


class GapError(ValueError):
    pass


@dataclass(frozen=True)
class GapPlan:
    game: str
    base: str = "expert"
    better: str = "search(iterations=20, rollout=heuristic)"
    games: int = 300
    players: int | None = None     # None: the game's default
    seed: int = 0
    min_per_game: float = 0.1      # a kind is an arm when met this often a game in arm "all"
    by: str = "phase"              # what a kind of decision is: "phase" or "action" (module docstring)
    variant: str | None = None     # the rules (a variant name or file; None: the default), as `run --variant`
    sets: tuple[str, ...] = ()     # rule changes on top (--set KEY=VALUE), as `run --set`
    seat: str = "rotate"           # the seat that changes (SEATS)

    def rules(self):
        """The variant every game plays (loaded and checked: a bad key is refused with its reason)."""
        return get_game(self.game).variants.load(self.variant, dict(parse_override(x) for x in self.sets))

    def check(self) -> None:
        if self.by not in BY:
            raise GapError(f"by must be one of {', '.join(BY)}, not '{self.by}'")
        if self.seat not in SEATS:
            raise GapError(f"seat must be one of {', '.join(SEATS)}, not '{self.seat}'")
        spec = get_game(self.game)
        p = self.seats
        self.rules()
        if not spec.min_players <= p <= spec.max_players:
            raise GapError(f"{spec.title} is for {spec.min_players}-{spec.max_players} players, not {p}")
        if self.games < 2:
            raise GapError(f"games must be at least 2 (an interval needs two games), not {self.games}")
        if not 0 <= self.seed < 2**63:
            raise GapError(f"seed must be between 0 and 2**63-1, not {self.seed}")
        for name in (self.base, self.better):
            policy_row(spec.policies, name)   # the step API's parse: an unknown policy or weight, with its reason

    @property
    def seats(self) -> int:
        return get_game(self.game).default_players if self.players is None else self.players


@dataclass
class ArmResult:
    arm: str
    margins: np.ndarray                  # per game: seat s's score minus the other seats' mean
    taken: int                           # decisions where the better policy's move was played
    kinds: dict = field(default_factory=dict)   # arm "all": decisions per kind (the better policy's)


# A kind never ends on these: they lead into what the kind leaves out, a place ("in Blue block 2",
# "on [3, 4]") or an amount ("= 7"); cut there, "place a billboard in" reads "place a billboard".
KIND_WORDS = 4
LEADING_ON = frozenset({"a", "an", "the", "to", "in", "on", "into", "of", "from", "with", "as", "at", "and",
                        "=", "+"})


def action_kind(game, action: int) -> str:
    """What a move does, in a few words: its phase and its name without numbers or brackets,
    KIND_WORDS words at most, trailing LEADING_ON words dropped ("construction: place a
    billboard", "construction: play Contract to install", "draw: draw from the Roof"). Four words
    say what three left out: which of Skyline 3000's decks a draw takes (three words merged them
    as "draw from the") and what a card is played to do ("play Contract to")."""
    name = re.sub(r"\([^)]*\)", "", game.action_name(action))
    words = [w for w in name.split() if not re.search(r"\d", w)][:KIND_WORDS]
    while len(words) > 1 and words[-1].strip(",") in LEADING_ON:
        words.pop()
    return f"{game.phase()}: {' '.join(words)}"


def play_arm(plan: GapPlan, arm: str, start: int = 0, count: int | None = None) -> ArmResult:
    """Games [start, start + count) of the plan in one arm."""
    spec = get_game(plan.game)
    P = plan.seats
    variant = plan.rules()
    count = plan.games - start if count is None else count
    margins = np.zeros(count)
    taken = 0
    kinds: dict[str, int] = {}
    for j in range(count):
        gi = start + j
        g = spec.new_game(variant, P, plan.seed, gi)
        s = g.current_player() if plan.seat == "first" else gi % P
        while not g.is_over():
            p = g.current_player()
            a = None
            if p == s and arm != NONE:
                if plan.by == "action":
                    b = g.policy_action(plan.better)
                    kind = action_kind(g, b)
                else:
                    b, kind = None, g.phase()
                if arm == ALL or arm == kind:
                    a = g.policy_action(plan.better) if b is None else b
                    taken += 1
                    kinds[kind] = kinds.get(kind, 0) + 1
            if a is None:
                a = g.policy_action(plan.base)
            g.apply(a)
        score = np.asarray(g.scores(), np.float64)
        margins[j] = score[s] - np.delete(score, s).mean()
    return ArmResult(arm, margins, taken, kinds)


def gain_interval(diff: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the mean of the paired per-game differences and its 95% Student t
    interval (analysis.stats.mean_t_interval: NaN bounds with fewer than two games or a NaN
    difference, never a verdict; identical play, every difference 0, is [0, 0])."""
    est = mean_t_interval(np.asarray(diff, np.float64))
    return est.value, est.low, est.high


def verdict(low: float, high: float) -> str:
    """What an arm's interval allows one to say (a NaN says nothing)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "no interval"
    if low > 0:
        return "gains"
    if high < 0:
        return "loses"
    return "not separated"


def run_gap(plan: GapPlan, workers: int = 1, progress: bool = False) -> dict:
    """Play arms "none" and "all", then one arm per kind met often enough; returns {"plan", "rows":
    [{arm, decisions_per_game, gain, low, high, verdict}], "kinds", "none_margin"}."""
    from joblib import Parallel, delayed

    plan.check()
    first = Parallel(n_jobs=min(workers, 2))(delayed(play_arm)(plan, a) for a in (NONE, ALL))
    none, every = first
    kinds = sorted((k for k, n in every.kinds.items() if n >= plan.min_per_game * plan.games),
                   key=lambda k: -every.kinds[k])
    arms = [every]
    if len(kinds) > 1:   # one kind only: its arm is arm "all"
        done = Parallel(n_jobs=workers, return_as="generator")(delayed(play_arm)(plan, k) for k in kinds)
        if progress:
            from tqdm import tqdm
            done = tqdm(done, total=len(kinds), desc="arms by kind", unit="arm")
        arms += list(done)
    rows = []
    for r in arms:
        m, lo, hi = gain_interval(r.margins - none.margins)
        rows.append({"arm": r.arm, "decisions_per_game": r.taken / plan.games, "gain": m, "low": lo, "high": hi,
                     "verdict": verdict(lo, hi)})
    return {"plan": plan, "rows": rows, "kinds": dict(every.kinds), "none_margin": float(none.margins.mean())}


def gap_text(result: dict) -> str:
    """The result as a Markdown table, with what produced it."""
    plan: GapPlan = result["plan"]
    what = ("the game's phase" if plan.by == "phase" else
            f"the phase and what {plan.better}'s move does there")
    rules = (plan.variant or "default variant") + "".join(f", --set {x}" for x in plan.sets)
    lines = [f"# Where {plan.better} gains over {plan.base}: {plan.game} ({rules}), {plan.seats} players, "
             f"{plan.games} games, seed {plan.seed}", "",
             (f"Seat (game index mod {plan.seats})" if plan.seat == "rotate" else
              "The seat that moves first in each game") +
             f" plays {plan.better} at the decisions of one kind ({what}), "
             f"{plan.base} elsewhere; the other seats play {plan.base}. Gain: that seat's margin (score "
             "minus the others' mean) minus its margin when it plays "
             f"{plan.base} throughout, on the same games; 95% interval over games.", "",
             "| decisions of | taken a game | gain (points) | 95% interval | verdict |", "|---|---:|---:|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['arm']} | {r['decisions_per_game']:.1f} | {r['gain']:+.2f} | "
                     f"[{r['low']:+.2f}, {r['high']:+.2f}] | {r['verdict']} |")
    lines += ["", "'not separated' is not 'no gain' (no equivalence margin is claimed). Each row's verdict is "
              "wrong at most 5% of the time on its own: among many rows, one may read 'gains' by chance. The "
              "kinds' gains need not add up to the gain at every decision."]
    return "\n".join(lines)

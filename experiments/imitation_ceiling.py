"""How far imitating the search can go: at every decision of the search's own games, how often
the search agrees with itself when asked again on an independent stream, and how often each
compared policy (the heuristic, the learned expert) picks the search's move (printed, never
asserted).

    .venv/bin/python -m experiments.imitation_ceiling skyline_3000 --games 60
    .venv/bin/python -m experiments.imitation_ceiling skyline_3000 --games 30 --asks 8
    .venv/bin/python -m experiments.imitation_ceiling skyline_of_the_world -p 4 --games 40 \\
        --teacher "search(iterations=100, rollout=heuristic)" --policy heuristic --policy expert

`skyline-lab train` fits the expert to the search's choices (--target choice): a decision's row
is the search's one move. When the search, asked again with other samples and other rollout luck,
plays another move at a third of the decisions, its move is a noisy label. At a decision where it
plays move a with probability p(a), two asks agree with probability sum p(a)^2, and the best any
model can do is rank its most likely move first, max p(a): at least that agreement and at most its
square root. So the agreement with itself (S) bounds what imitation can reach: between S and
sqrt(S) of the decisions ranked first. With `--asks K` the script also asks the teacher K more
times at each decision and counts the decisions where its move is the most frequent of those K
answers (ties: the first answer given): what a model that knew the search's most likely move
would rank first, the ceiling itself (from below: K answers find the mode less often than
infinitely many). The teacher's games are the games `train` records (the
same decisions: more than one candidate, the search's move among them once); every extra ask
draws from a stream of its own (Game.policy_action's `stream`), so the games themselves are the
search's batch games, decision for decision.

A second table says how often each plays each kind of move (experiments.search_gap.action_kind:
"construction: place a billboard"), of its phase's decisions: where a script's share differs from
the search's own, and the search asked again matches it, the search departs from the script
there by design, not by noise.

The agreement is an exact match of actions, as the training tables match them. Its interval has
the game as the unit (decisions of one game are not independent): analysis.stats'
cluster_share, clustered by game.
"""
from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from analysis.stats import cluster_share
from engines.core.rng import new_stream
from engines.registry import get_game
from experiments.search_gap import action_kind
from experiments.train import RECORD_STREAM, labelled_row   # the decisions and sample the training records

ASIDE_STREAM = 2_000    # the extra asks' streams (game index x decision): never a seat's or the recorder's
MODE_STREAM = 2_001     # --asks: the streams of the answers whose most frequent one is the mode
DEFAULT_TEACHER = "search(iterations=20, rollout=heuristic)"


@dataclass
class Ceiling:
    """What experiments.imitation_ceiling measured: per-game counts (arrays over the games).

    phases: {phase: {"decisions": decisions, "again": the teacher asked again agreeing, policy: it
             agreeing, "mode": the teacher's move the most frequent of `asks` more answers (with
             asks > 0)}} ("all" sums the phases)
    kinds:  {kind of move (search_gap.action_kind): {"teacher": the teacher's moves of that kind,
             "again": the teacher's asked again, policy: its}} (each over its phase's decisions)"""

    phases: dict
    kinds: dict


def agreement(game: str, players: int = 4, games: int = 20, seed: int = 0, teacher: str = DEFAULT_TEACHER,
              policies: tuple[str, ...] = ("heuristic", "expert"), variant: str = "default",
              asks: int = 0) -> Ceiling:
    """The agreements over `games` games the teacher plays at every seat (Ceiling)."""
    spec = get_game(game)

    def counts():
        return defaultdict(lambda: np.zeros(games, np.int64))
    phases: dict = defaultdict(counts)
    kinds: dict = defaultdict(counts)
    for gi in range(games):
        g = spec.new_game(variant, players, seed, gi)
        rec = new_stream(np.uint64(seed), np.int64(gi), RECORD_STREAM)
        k = 0
        while not g.is_over():
            label = g.policy_action(teacher)
            legal, _ = spec.expert.choices(g, rec)
            if labelled_row(legal, label) is not None:
                picks = {"teacher": label, "again": g.policy_action(teacher, stream=_aside(seed, gi, k, 0))}
                for j, name in enumerate(policies, 1):
                    picks[name] = g.policy_action(name, stream=_aside(seed, gi, k, j))
                mode = None
                if asks > 0:
                    answers = [g.policy_action(teacher, stream=new_stream(np.uint64(seed),
                                                                          np.int64((gi * 1_000_000 + k) * 64 + r),
                                                                          MODE_STREAM))
                               for r in range(asks)]
                    mode = Counter(answers).most_common(1)[0][0]
                for phase in (g.phase(), "all"):
                    row = phases[phase]
                    row["decisions"][gi] += 1
                    for name, a in picks.items():
                        if name != "teacher":
                            row[name][gi] += int(a == label)
                    if mode is not None:
                        row["mode"][gi] += int(mode == label)
                for name, a in picks.items():
                    kinds[action_kind(g, a)][name][gi] += 1
            k += 1
            g.apply(label)
    return Ceiling({p: dict(r) for p, r in phases.items()}, {c: dict(r) for c, r in kinds.items()})


def _aside(seed: int, gi: int, k: int, j: int) -> np.ndarray:
    """The stream of extra ask j at decision k of game gi."""
    return new_stream(np.uint64(seed), np.int64(gi * 1_000_000 + k * 16 + j), ASIDE_STREAM)


def rate(agree: np.ndarray, decisions: np.ndarray) -> tuple[float, float, float]:
    """The share of decisions agreeing, with its 95% interval clustered by game (the games with
    decisions of the kind counted)."""
    played = decisions > 0
    return cluster_share(agree[played], decisions[played])


def _cell(r: float, lo: float, hi: float) -> str:
    return f"{r:.3f} [{lo:.3f}, {hi:.3f}]".rjust(22)


_TITLES = {"again": "teacher again", "mode": "teacher's mode"}


def report(ceiling: Ceiling, policies: tuple[str, ...]) -> str:
    """The agreement per phase, then how often each plays each kind of move."""
    phases = ceiling.phases
    if not phases:
        return "no decision with more than one candidate"
    names = ("again", *policies)
    first = names + (("mode",) if "mode" in phases["all"] else ())
    lines = [f"{'phase':14s} {'decisions':>9s}  "
             + "  ".join(f"{_TITLES.get(n, n):>22s}" for n in first)]
    for phase in sorted(phases, key=lambda p: (p == "all", p)):
        row = phases[phase]
        lines.append(f"{phase:14s} {int(row['decisions'].sum()):9d}  "
                     + "  ".join(_cell(*rate(row[n], row["decisions"])) for n in first))
    lines += ["", "how often each plays a kind of move, of its phase's decisions:",
              f"{'kind':40s} " + "  ".join(f"{_TITLES.get(n, n):>22s}" for n in ("teacher", *names))]
    zero = np.zeros_like(phases["all"]["decisions"])
    for kind in sorted(ceiling.kinds):
        row = ceiling.kinds[kind]
        decisions = phases[kind.split(":")[0]]["decisions"]
        lines.append(f"{kind[:40]:40s} " + "  ".join(_cell(*rate(row.get(n, zero), decisions))
                                                      for n in ("teacher", *names)))
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("-p", "--players", type=int, default=4)
    ap.add_argument("-n", "--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-V", "--variant", default="default")
    ap.add_argument("--teacher", default=DEFAULT_TEACHER, help="the policy whose moves are imitated")
    ap.add_argument("--policy", action="append", help="a policy compared with it (repeatable; default heuristic, expert)")
    ap.add_argument("--asks", type=int, default=0,
                    help="ask the teacher this many more times per decision: how often its move is the most frequent answer")
    args = ap.parse_args(argv)
    policies = tuple(args.policy or ("heuristic", "expert"))
    ceiling = agreement(args.game, args.players, args.games, args.seed, args.teacher, policies, args.variant,
                        args.asks)
    print(f"{args.game}, {args.players} players, {args.games} games of {args.teacher} at every seat (seed {args.seed}): "
          f"the share of its decisions where each picks its move (95% interval, the game the unit)")
    print(report(ceiling, policies))


if __name__ == "__main__":
    main()

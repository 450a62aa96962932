"""Where Skyline 3000's learned expert spends its time: one decision's cost, whole and with one
part of it taken out, on the same decision states (printed, never asserted).

    .venv/bin/python -m experiments.skyline_3000_expert_profile            # 20 four-player expert games
    .venv/bin/python -m experiments.skyline_3000_expert_profile --games 5 --part full --part no_settle
    .venv/bin/python -m experiments.skyline_3000_expert_profile --instructions --games 3
        # instructions a decision, counted by valgrind (needs valgrind, its headers and a C compiler)

The states are every decision of `--games` four-player expert self-play games. Each state is timed
hot (the expert decides on it `--repeats` times in a row, as a game's loop finds its state in the
cache), per phase of the game. The expert's variants are engines.core.expert.make_expert over the
shipped hooks (engines/skyline_3000/search.py) with one hook swapped for a no-op ("full" is the
shipped kernel, search.expert_nb, itself):

  full         the shipped expert
  no_settle    no settle_nb (a sealed bid scored before the others bid; a card before its floors)
  no_prior     no heuristic pick (the prior feature left at 0)
  no_features  features_nb writes nothing (the dot product still runs)
  no_note      no memo of the sample's board (every candidate values the board afresh)

and, apart, the pieces every decision pays: a whole-state copy, the expert's sample (its
determinization and a bid's sealed later bids, with the copy_state it needs to start from the
state), the action listing, and each candidate's copy_state and rule step. A variant plays other
moves than the shipped one would, but on these fixed states each decides once per state, so the
difference in time is the part's cost. The numbers say where a faster expert must save (the
benchmark, experiments/benchmark.py, times whole games).

`--instructions` counts instead of timing: the shipped expert decides once on every state, under
valgrind's callgrind, which counts the instructions of each phase's decisions alone (a tiny C
helper, compiled at the run, switches the count on and off around them). A count is the same in
every run, so a change of 1-2% shows, where this machine's timings move by 10-20% within an hour.
Copies (memcpy) are counted apart: valgrind counts a `rep movsb` copy one instruction a byte, so
the whole-state copy of a bid (31 KB) would outweigh work that takes far longer.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

PARTS = ("full", "no_settle", "no_prior", "no_features", "no_note")
PIECES = ("copy", "determinize", "actions", "candidates")
PHASE_NAMES = ("construction", "floor", "roof", "install", "bid", "place", "draw")


def decision_states(games: int, seed: int = 3):
    """(states [n, width], phase of each) of `games` four-player expert self-play games, and the
    game's (cfg, aux)."""
    from engines.skyline_3000.engine import new_game

    states, phases = [], []
    for gi in range(games):
        g = new_game(n_players=4, seed=seed, game_index=gi)
        while not g.is_over():
            states.append(g.state.data.copy())
            phases.append(int(g.state.phase))
            g.apply(g.policy_action("expert"))
    return np.stack(states), np.array(phases), g.kp.cfg, g.kp.aux


def expert_variant(part: str):
    """The expert's decision kernel with one part swapped out (module docstring)."""
    from engines.core.expert import make_expert
    from engines.skyline_3000 import search as S
    from engines.skyline_3000.features import F_HEURISTIC_PICK, MEMO_SIZE, N_FEATURES, features_nb, note_board_nb

    @numba.njit
    def no_features_nb(d, cfg, aux, p, out):
        out[0] = 0.0

    @numba.njit
    def no_settle_nb(d, rng, cfg, aux, me, buf, f):
        return

    if part == "full":          # the shipped kernel itself: the baseline is what games play
        return S.expert_nb
    hooks = dict(chosen_nb=S.real_action_nb, copy_state_nb=S.copy_state_nb, settle_nb=S.settle_nb,
                 prior_nb=S.heuristic_pick_nb, prior_feature=F_HEURISTIC_PICK, same_nb=S.same_move_nb,
                 note_nb=note_board_nb, memo_size=MEMO_SIZE, public_nb=S.public_decision_nb,
                 kept_state=True, shared_outcome_nb=S.bid_lost_nb)
    features = features_nb
    if part == "no_settle":
        hooks["settle_nb"] = no_settle_nb
    elif part == "no_prior":
        hooks.update(prior_nb=None, prior_feature=-1)
    elif part == "no_features":
        features = no_features_nb
    elif part == "no_note":
        hooks.update(note_nb=None, memo_size=0)
    else:
        raise ValueError(f"part must be one of {', '.join(PARTS)}, not {part!r}")
    return make_expert(S.apply_nb, S.expert_sample_nb, S.expert_actions_nb, S.to_move_nb, features, N_FEATURES,
                       S.MAX_ACTIONS, **hooks)[0]


@numba.njit
def _decide_all(expert_nb, states, cfg, aux, w, repeats):
    legal = np.empty(512, np.int64)
    scratch = np.zeros(2 * states.shape[1] + 1)   # as the game loop's (zeroed): the expert keeps two states in it
    prng = np.array([1, 2, 3, 4], np.uint64)
    total = 0
    for i in range(states.shape[0]):
        d = states[i]               # the expert leaves the state it decides on as it was
        for _ in range(repeats):
            total += expert_nb(d, cfg, aux, w, prng, legal, scratch)
    return total


def _pieces_kernel():
    from engines.skyline_3000 import search as S

    @numba.njit
    def pieces(states, cfg, which, repeats):
        """Time-able pieces of a decision over every state (which: an index of PIECES)."""
        legal = np.empty(512, np.int64)
        buf = np.empty(512, np.int64)
        prng = np.array([1, 2, 3, 4], np.uint64)
        srng = np.empty(4, np.uint64)
        total = 0
        for i in range(states.shape[0]):
            base = states[i].copy()
            sim = base.copy()
            for _ in range(repeats):
                if which == 0:
                    c = base.copy()
                    total += c[0]
                elif which == 1:
                    S.copy_state_nb(sim, base)
                    S.expert_sample_nb(sim, srng, cfg, S.to_move_nb(sim), prng, buf)
                    total += sim[0]
                elif which == 2:
                    total += S.expert_actions_nb(base, cfg, legal)
                else:
                    n = S.expert_actions_nb(base, cfg, legal)
                    for j in range(n):
                        legal[j] = S.real_action_nb(base, cfg, legal[j])
                    for j in range(n):
                        S.copy_state_nb(sim, base)
                        S.apply_nb(sim, srng, cfg, legal[j])
                    total += n
        return total
    return pieces


def _timed(fn, states, phases, repeats: int) -> dict[int, float]:
    """Microseconds a decision, per phase (fn compiled first on two states)."""
    fn(states[:2], 1)
    out = {}
    for ph in sorted(set(phases.tolist())):
        sub = states[phases == ph]
        t0 = time.perf_counter()
        fn(sub, repeats)
        out[ph] = (time.perf_counter() - t0) / repeats / len(sub) * 1e6
    return out


_CALLGRIND_HELPER = """#include <valgrind/callgrind.h>
void count_on(void) { CALLGRIND_START_INSTRUMENTATION; CALLGRIND_ZERO_STATS; }
void count_off(const char *what) { CALLGRIND_DUMP_STATS_AT(what); CALLGRIND_STOP_INSTRUMENTATION; }
"""


def _counted_child(games: int, folder: Path) -> None:
    """Under callgrind: each phase's decisions, counted alone (one dump a phase, named by it)."""
    import ctypes

    from engines.registry import get_game
    from engines.skyline_3000 import search as S

    helper = ctypes.CDLL(str(folder / "helper.so"))
    states, phases, cfg, aux = decision_states(games)
    w = get_game("skyline_3000").policies["expert"]
    row = np.array([float(v) for v in w.weights.values()])
    _decide_all(S.expert_nb, states[:2], cfg, aux, row, 1)         # compiled before counting
    for ph in sorted(set(phases.tolist())):
        sub = np.ascontiguousarray(states[phases == ph])
        helper.count_on()
        _decide_all(S.expert_nb, sub, cfg, aux, row, 1)
        helper.count_off(f"{PHASE_NAMES[ph]} {len(sub)}".encode())


def _counted_figures(dump: Path) -> tuple[str, int, int, int]:
    """(phase, decisions, instructions but copies, copies' instructions) of one callgrind dump."""
    text = dump.read_text()
    name, n = re.search(r"^desc: Trigger: Client Request: (\w+) (\d+)", text, re.M).groups()
    total = int(re.search(r"^summary: (\d+)", text, re.M).group(1))
    listing = subprocess.run(["callgrind_annotate", str(dump)], capture_output=True, text=True, check=True).stdout
    copies = sum(int(line.split()[0].replace(",", "")) for line in listing.splitlines()
                 if line.strip()[:1].isdigit() and ("memcpy" in line or "memmove" in line))
    return name, int(n), total - copies, copies


def count_instructions(games: int) -> list[dict]:
    """Instructions a decision of the shipped expert, per phase, counted by callgrind (module
    docstring); refused in one line when valgrind, its header or a C compiler is missing."""
    cc = shutil.which("cc") or shutil.which("gcc")
    header = Path("/usr/include/valgrind/callgrind.h")
    if not (shutil.which("valgrind") and shutil.which("callgrind_annotate") and cc and header.is_file()):
        raise SystemExit("--instructions needs valgrind (with callgrind_annotate), its header "
                         f"{header} and a C compiler (cc)")
    # the kernels compiled and cached natively first: compiling under valgrind takes many minutes
    states, phases, cfg, aux = decision_states(1)
    from engines.registry import get_game
    from engines.skyline_3000 import search as S
    row = np.array([float(v) for v in get_game("skyline_3000").policies["expert"].weights.values()])
    _decide_all(S.expert_nb, states[:2], cfg, aux, row, 1)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "helper.c").write_text(_CALLGRIND_HELPER)
        subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(folder / "helper.so"), str(folder / "helper.c")],
                       check=True)
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                        f"--callgrind-out-file={folder / 'cg.out'}", sys.executable, "-m", __spec__.name,
                        "--games", str(games), "--counted-child", str(folder)],
                       check=True, capture_output=True, env=dict(os.environ, PYTHONHASHSEED="0"))
        dumps = sorted(folder.glob("cg.out.*"), key=lambda f: int(f.name.rsplit(".", 1)[1]))
        figures = [_counted_figures(f) for f in dumps]
    n_all = sum(f[1] for f in figures)
    print(f"instructions a decision (copies apart), every decision of {games} four-player expert games, "
          "each decided once under valgrind's callgrind")
    print(f"{'':14s}{'decisions':>10s}{'instructions':>14s}{'copies':>10s}")
    rows = []
    for name, n, work, copies in figures:
        rows.append({"phase": name, "decisions": n, "instructions": work / n, "copies": copies / n})
        print(f"{name:14s}{n:10,d}{work / n:14,.0f}{copies / n:10,.0f}")
    print(f"{'all':14s}{n_all:10,d}{sum(f[2] for f in figures) / n_all:14,.0f}"
          f"{sum(f[3] for f in figures) / n_all:10,.0f}")
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="four-player expert games whose decisions are timed")
    ap.add_argument("--repeats", type=int, default=10, help="decisions on each state in a row (hot cache)")
    ap.add_argument("--part", action="append", choices=PARTS, help="expert variants to time (default: all)")
    ap.add_argument("--no-pieces", action="store_true", help="skip the pieces (copy, determinize, ...)")
    ap.add_argument("--instructions", action="store_true",
                    help="count the shipped expert's instructions a decision under valgrind instead of timing")
    ap.add_argument("--counted-child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.counted_child is not None:
        _counted_child(args.games, args.counted_child)
        return []
    if args.instructions:
        return count_instructions(args.games)
    from engines.registry import get_game

    states, phases, cfg, aux = decision_states(args.games)
    counts = {ph: int((phases == ph).sum()) for ph in sorted(set(phases.tolist()))}
    w = get_game("skyline_3000").policies["expert"]
    row = np.array([float(v) for v in w.weights.values()])
    print(f"{len(states):,} decision states of {args.games} four-player expert games; per phase: "
          + ", ".join(f"{PHASE_NAMES[ph]} {n:,}" for ph, n in counts.items()))
    print(f"{'':14s}{'us/decision':>12s}  " + "  ".join(f"{PHASE_NAMES[ph]:>12s}" for ph in counts))
    rows = []

    def report(name: str, per_phase: dict[int, float]) -> None:
        mean = sum(per_phase[ph] * counts[ph] for ph in counts) / len(states)
        rows.append({"what": name, "us_per_decision": mean, **{PHASE_NAMES[ph]: v for ph, v in per_phase.items()}})
        print(f"{name:14s}{mean:12.2f}  " + "  ".join(f"{per_phase[ph]:12.2f}" for ph in counts), flush=True)

    for part in args.part or PARTS:
        ex = expert_variant(part)
        report(part, _timed(lambda s, r, ex=ex: _decide_all(ex, s, cfg, aux, row, r), states, phases,
                            args.repeats))
    if not args.no_pieces:
        pieces = _pieces_kernel()
        for k, name in enumerate(PIECES):
            report(name, _timed(lambda s, r, k=k: pieces(s, cfg, k, r), states, phases, args.repeats))
    return rows


if __name__ == "__main__":
    main()

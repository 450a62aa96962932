"""Regenerate the golden playthroughs: python -m tests.project_skyline.make_playthroughs
(review the diff: any change is a rule or policy change)."""
from pathlib import Path

from engines.project_skyline.game import new_game
from engines.project_skyline.state import M_ROUND

HERE = Path(__file__).parent / "playthroughs"
CASES = {
    "nyc_4p_seed3": dict(variant=None, n_players=4, seed=3, lineup=("heuristic", "greedy", "random", "heuristic")),
    "tokyo_2p_seed5": dict(variant="tokyo", n_players=2, seed=5, lineup=("heuristic", "random")),
    # jitter = 0: the scripts without noise (the heuristic seats' moves are those written before the
    # jitter weight existed; greedy's changed once, when it got its evaluation row, policies._GREEDY_EVAL)
    "nyc_4p_seed3_jitter0": dict(variant=None, n_players=4, seed=3,
                                 lineup=("heuristic(jitter=0)", "greedy(jitter=0)", "random", "heuristic(jitter=0)")),
    "tokyo_2p_seed5_jitter0": dict(variant="tokyo", n_players=2, seed=5, lineup=("heuristic(jitter=0)", "random")),
}


def playthrough(variant, n_players, seed, lineup) -> str:
    g = new_game(variant, n_players, seed, 0)
    lines = [g.render(), ""]
    while not g.is_over():
        p = g.current_player()
        a = g.policy_action(lineup[p])
        lines.append(f"r{int(g.state.data[M_ROUND]) + 1} seat {'ABCD'[p]} {g.phase():8s} {g.action_name(a)}")
        g.apply(a)
    lines += ["", g.render(), f"scores {g.scores()} cards {g.card_counts()}"]
    return "\n".join(lines) + "\n"


def main():
    HERE.mkdir(exist_ok=True)
    for name, case in CASES.items():
        (HERE / f"{name}.txt").write_text(playthrough(**case))


if __name__ == "__main__":
    main()

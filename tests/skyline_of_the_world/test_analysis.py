"""The report sections and experiment metrics read a real (small) run."""
import polars as pl

from analysis.run import Run
from experiments.runner import run_batch


def test_sections_and_metrics_on_a_small_run(tmp_path):
    result = run_batch("skyline_of_the_world", players=3, policies=["heuristic", "greedy", "random"], n_games=60,
                       seed=4, out=tmp_path / "run", workers=1, progress=False)
    run = Run.open(result.path)
    import analysis.skyline_of_the_world as A
    secs = A.sections(run)
    titles = [s.title for s in secs]
    assert titles[:3] == ["Turn order", "Who ends the game", "Income over the game"]
    quality = secs[titles.index("Game quality")]   # the race, from the rounds table
    assert "games lasted" in quality.text and "Comebacks:" in quality.text
    q = dict(quality.tables)["Game-quality metrics (per game, game as unit)"]
    assert {"lead_changes", "decided_round", "leader_wins", "comeback", "winner_deficit"} <= set(q["metric"])
    ended = secs[1]
    import re
    assert "95% Wilson" in ended.text and not re.search(r"\d\.\d{4}", ended.text)   # percentages, not 0.8644
    games = run.load("games")
    n_ended = int((games["trigger_seat"] >= 0).sum())
    assert f"In {n_ended} games" in ended.text
    order = secs[0].tables[0][1]
    assert order["games"].sum() == 3 * 60 and set(order["position"].to_list()) == {"1st", "2nd", "3rd"}

    class Data:  # the experiment layer's run data, as the metrics read it
        players_count = 3

        def table(self, name):
            return run.load(name)

    m = A.METRICS
    edge = m["end_trigger_edge"].compute(Data())
    assert edge.height == n_ended and edge["value"].is_between(-1, 1).all()
    wr = m["order_win_rate"].compute(Data())
    assert wr.height == 3 * 60 and set(wr["key"].unique().to_list()) == {"order 0", "order 1", "order 2"}
    assert m["turns"].compute(Data())["value"].to_list() == games["turns"].cast(pl.Float64).to_list()
    from analysis.frames import RunData
    data = RunData(run.path, run.games_done)   # as the experiment layer reads a run
    changes = m["lead_changes"].compute(data)
    assert changes.height == int((games["stalled"] == 0).sum()) and (changes["value"] >= 0).all()

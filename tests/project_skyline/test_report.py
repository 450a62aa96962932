"""The Project Skyline report sections on a real small run, and the shipped ps_* experiment
files (validated here; one run small end to end)."""
from pathlib import Path


from analysis.run import Run
from experiments.experiment import load_experiment, run_experiment

ROOT = Path(__file__).resolve().parents[2]


def test_cli_run_on_tokyo_writes_report_with_skyline_sections(tmp_path):
    from typer.testing import CliRunner

    from experiments.cli import app
    out = tmp_path / "tokyo"
    res = CliRunner().invoke(app, ["run", "project_skyline", "--games", "60", "--set", "map=tokyo", "--policy",
                                   "heuristic", "--policy", "random", "--players", "2", "--out", str(out), "--workers", "1",
                                   "--quiet"])
    assert res.exit_code == 0, res.output
    run = Run.open(out)
    games = run.load("games")
    assert set(games["map"].to_list()) == {1}                       # tokyo
    assert games["ending"].is_in([1, 2, 3]).all()
    ev = run.load("card_events")
    assert ev.height > 0 and ev["code"].str.len_chars().min() >= 4
    text = (out / "report" / "report.md").read_text()
    rounds = run.load("rounds")   # the money race per round: every round of every game, its last = the score
    assert rounds.height == int(games["rounds"].sum()) * 2
    assert "Comebacks:" in text and "games lasted" in text
    for title in ("Does the start player win more (by map)?", "Card value curves", "The market",
                  "Monument and area income", "How do games end", "Game quality"):
        assert title in text
    from analysis.project_skyline import acquisitions
    acq = acquisitions(run).collect()
    assert acq["bucket"].null_count() == 0 and acq.group_by(["game", "seat", "card"]).len()["len"].max() == 1
    # issue 25: no curve point from a handful of games (n=2 drew 0.09-0.91), and a money chart says money
    import polars as pl

    from analysis.project_skyline import MIN_CURVE_GAMES, card_value_curves, money_sources
    section = card_value_curves(run)
    tables = dict(section.tables)
    top = tables["win rate of acquirers, whole game"]["card"].to_list()[:6]
    rates = tables["win rate by acquisition turn"].filter(pl.col("card").is_in(top))
    assert rates.filter(pl.col("games") < MIN_CURVE_GAMES).height > 0   # this small run has such points
    drawn = sum(len(line.get_xdata()) for plot in section.plots for axes in plot.figure.axes
                for line in axes.lines if line.get_marker() == "o")
    assert drawn == rates.filter(pl.col("games") >= MIN_CURVE_GAMES).height
    money = money_sources(run).plots[0].figure.axes[0]
    assert money.get_ylabel() == "share of money"
    # issue 25: card names beside the codes, in every table of cards and the curves' legend
    from analysis.project_skyline import market_picks
    from engines.project_skyline.params import load_cards
    names = {c.base: c.name for c in load_cards("standard")}
    assert names["U-17"] == "Catch-up draw" and names["B-03"] == "Double anywhere"
    card_tables = list(tables.values()) + [t for _, t in market_picks(run).tables]
    for t in card_tables:
        assert t.columns[t.columns.index("card") + 1] == "name", t.columns
        assert t.height > 0 and all(n == names[c[:4]] for c, n in zip(t["card"], t["name"]))
    legend = [txt.get_text() for plot in section.plots for axes in plot.figure.axes
              if axes.get_legend() for txt in axes.get_legend().get_texts()]
    assert legend and all(lbl.split(" ", 1)[1] == names[lbl[:4]] for lbl in legend), legend
    assert "| name |" in text.replace("|name|", "| name |") or " name " in text


def test_ps_experiments_are_shipped_and_validate():
    paths = sorted((ROOT / "experiments").glob("ps_*.toml"))
    names = {p.stem for p in paths}
    assert {"ps_u17_catchup", "ps_nyc_vs_tokyo", "ps_upgrade_costs", "ps_forced_acquisition"} <= names
    for p in paths:
        exp = load_experiment(p)
        assert exp.question.endswith("?") and len(exp.plans) >= 2


def test_u17_experiment_runs_small(tmp_path):
    result = run_experiment(ROOT / "experiments" / "ps_u17_catchup.toml", results=tmp_path, games=60)
    assert "score_spread" in str(result.answer)


def test_area_tie_experiment_and_ending_metrics(tmp_path):
    """The tie readings as an experiment (scoring.area_tie), with the game's own ending metrics."""
    import polars as pl

    from analysis.metrics import metrics_for
    assert {"money_end_rate", "last_floor_end_rate", "rounds", "winner_money"} <= set(metrics_for("project_skyline"))
    result = run_experiment(ROOT / "experiments" / "ps_area_tie.toml", results=tmp_path, games=60)
    assert "margin" in str(result.answer)
    est = pl.read_csv(tmp_path / "ps_area_tie" / "estimates.csv")
    rates = est.filter(pl.col("metric").is_in(["money_end_rate", "last_floor_end_rate"]))
    assert rates.height == 4 and rates["estimate"].is_between(0, 1).all()
    ends = est.filter(pl.col("metric") == "money_end_rate")["estimate"]
    assert (ends > 0.5).all()   # calibrated: the money end is the usual one (4 heuristic players, NYC)

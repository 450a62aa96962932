"""Users' presets are data (issue 25, item 4): `tune --preset` writes the user's presets file,
outside every engine digest; a run that seats one records it by value; adding one never
invalidates an earlier run.

Before: `tune --preset` wrote engines/<game>/presets.toml, part of the engine's source digest,
so the next run recompiled, re-simulated into a new folder, and no old folder resumed.
"""
import json
import re
from pathlib import Path

from typer.testing import CliRunner

from engines.core.cache_guard import source_digest
from engines.registry import get_game
from experiments.cli import app

ROOT = Path(__file__).resolve().parents[2]
cli = CliRunner()


def _engine_files():
    folder = ROOT / "engines" / "cityline"
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_a_tuned_preset_is_user_data_and_an_old_run_still_resumes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SKYLINE_LAB_PRESETS", raising=False)
    engine_before = _engine_files()
    digest = source_digest(ROOT / "engines" / "cityline")
    old = ["run", "cityline", "-n", "20", "-p", "2", "--policy", "heuristic", "--out", "old", "--quiet",
           "--no-report", "-j", "1"]
    assert cli.invoke(app, old).exit_code == 0
    key = json.loads((tmp_path / "old" / "manifest.json").read_text())["config_key"]

    tuned = cli.invoke(app, ["tune", "cityline", "heuristic", "--against", "random", "--trials", "2", "-n", "4",
                             "--validate-games", "4", "--preset", "my_heuristic"])
    assert tuned.exit_code == 0, tuned.output
    user_file = tmp_path / "results" / "presets" / "cityline.toml"
    assert f"written to {Path('results') / 'presets' / 'cityline.toml'}" in tuned.output
    assert "[my_heuristic]" in user_file.read_text()
    # the engine is untouched: same files, same digest
    assert _engine_files() == engine_before
    assert source_digest(ROOT / "engines" / "cityline") == digest == get_game("cityline").source_digest

    # the old folder resumes as it was: nothing simulated again, the same key
    again = cli.invoke(app, old)
    assert again.exit_code == 0, again.output
    manifest = json.loads((tmp_path / "old" / "manifest.json").read_text())
    assert manifest["timings"]["games_this_session"] == 0 and manifest["config_key"] == key
    assert "user_presets" not in manifest

    # a run seating the preset records it by value, with its file
    new = ["run", "cityline", "-n", "20", "-p", "2", "--policy", "my_heuristic", "--policy", "random",
           "--out", "new", "--quiet", "--no-report", "-j", "1"]
    assert cli.invoke(app, new).exit_code == 0
    manifest = json.loads((tmp_path / "new" / "manifest.json").read_text())
    recorded = manifest["user_presets"]["my_heuristic"]
    assert recorded["base"] == "heuristic" and recorded["file"].endswith("cityline.toml")
    assert recorded["weights"] == manifest["policies"]["my_heuristic"]["weights"]
    assert manifest["config_key"]["user_presets"]["my_heuristic"]["weights"] == recorded["weights"]

    # the preset edited under the same name is another run: never mixed into the old games
    text = user_file.read_text()
    user_file.write_text(re.sub(r"weights = \{ ?(.*?) ?\}", lambda m: "weights = { " + ", ".join(
        filter(None, [m.group(1), "jitter = 0.5"])) + " }", text, count=1))
    changed = cli.invoke(app, new)
    assert changed.exit_code == 2 and "holds a different run" in changed.output, changed.output


def test_a_user_preset_can_live_where_the_user_says(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKYLINE_LAB_PRESETS", str(tmp_path / "mine"))
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "cityline.toml").write_text(
        '[cautious]\nbase = "heuristic"\ndescription = "mine"\nweights = { jitter = 0.25 }\n')
    listing = cli.invoke(app, ["policies", "cityline"])
    assert listing.exit_code == 0 and "cautious" in listing.output and "user preset" in listing.output
    run = cli.invoke(app, ["run", "cityline", "-n", "10", "--policy", "search(rollout=cautious, iterations=4)",
                           "--out", "r", "--quiet", "--no-report", "-j", "1"])
    assert run.exit_code == 0, run.output
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["user_presets"]["cautious"]["weights"]["jitter"] == 0.25
    (tmp_path / "mine" / "cityline.toml").write_text('[heuristic]\nbase = "heuristic"\n')
    bad = cli.invoke(app, ["run", "cityline", "-n", "10", "--out", "r2", "--quiet"])
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1 and "heuristic" in bad.output
    assert not (tmp_path / "r2").exists()


def test_tune_never_replaces_a_users_preset(tmp_path, monkeypatch):
    # `tune --preset NAME` with NAME already in the user's file tuned for minutes, then replaced the
    # user's preset without a word; now refused before any game, the file untouched
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKYLINE_LAB_PRESETS", str(tmp_path / "mine"))
    (tmp_path / "mine").mkdir()
    text = '# kept for a year\n[cautious]\nbase = "heuristic"\ndescription = "mine"\nweights = { jitter = 0.25 }\n'
    (tmp_path / "mine" / "cityline.toml").write_text(text)
    result = cli.invoke(app, ["tune", "cityline", "heuristic", "--against", "random", "--trials", "2", "-n", "4",
                              "--validate-games", "4", "--preset", "cautious"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "'cautious' is already one of your presets" in lines[0], result.output
    assert (tmp_path / "mine" / "cityline.toml").read_text() == text
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["cityline.toml", "mine"]


def test_a_trained_model_kept_as_a_preset_plays_its_own_weights_on_the_ladder(tmp_path, monkeypatch):
    """`train --preset NAME`: the best model becomes the user's preset NAME of the expert (every
    weight, the same row to the bit), played as a rung beside the shipped expert; the engine's
    files are untouched, and a name already taken is refused before any game is played."""
    from engines.core.expert import load_model
    from engines.core.lineup import parse_policy
    from experiments.user_presets import with_user_presets

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SKYLINE_LAB_PRESETS", raising=False)
    engine_before = _engine_files()
    train = ["train", "cityline", "--players", "2", "--seed", "3", "--iterations", "1", "--games", "2", "--budget", "2",
             "--eval-games", "20", "--tune-trials", "2"]
    done = cli.invoke(app, train + ["--out", "t", "--preset", "my_expert"])
    assert done.exit_code == 0, done.output
    assert "preset 'my_expert' written to results/presets/cityline.toml" in done.output
    # it says how to weigh the model against the search, not by its margin over the heuristic alone
    assert ("  skyline-lab ladder cityline -p 2 --rung heuristic --rung expert --rung my_expert "
            "--rung 'search(iterations=20, rollout=heuristic)'") in done.output
    assert _engine_files() == engine_before
    spec = get_game("cityline")
    model = load_model(tmp_path / "t" / "expert.toml", spec.expert.features)
    seat = parse_policy(with_user_presets(spec), "my_expert")
    assert seat.row == [float(model.samples), *model.weights]
    assert seat.row != parse_policy(spec, "expert").row     # not the shipped model
    lad = cli.invoke(app, ["ladder", "cityline", "--rung", "expert", "--rung", "my_expert", "-n", "6", "-p", "2",
                           "--findings-games", "0", "-o", "lad", "--quiet", "-j", "1"])
    assert lad.exit_code == 0, lad.output
    assert "my_expert" in (tmp_path / "lad" / "ladder.md").read_text()
    again = cli.invoke(app, train + ["--out", "t2", "--preset", "my_expert"])
    assert again.exit_code != 0 and "'my_expert' is already one of your presets" in again.output
    assert not (tmp_path / "t2").exists()

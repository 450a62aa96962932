"""The runner: determinism across workers and backends, resume, refusal."""
import json

import polars as pl
import pytest

from experiments import runner
from experiments.runner import RunError, run_batch

GAME = "skyline_3000"


def _tables(run):
    out = {}
    for name in run.tables():
        frame = run.load(name)
        keys = [c for c in ("game", "seat", "round", "stack", "lineup_slot", "card_type", "value") if c in frame.columns]
        out[name] = frame.sort(keys)
    return out


def _same(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].equals(b[name]), name


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory):
    out = tmp_path_factory.mktemp("w1") / "run"
    return run_batch(GAME, policies=["heuristic", "random", "greedy", "random"], n_games=600, seed=11,
                     chunk_size=150, out=out, workers=1, progress=False)


def test_two_workers_give_identical_tables(one_worker, tmp_path):
    two = run_batch(GAME, policies=["heuristic", "random", "greedy", "random"], n_games=600, seed=11,
                    chunk_size=150, out=tmp_path / "run", workers=2, progress=False)
    _same(_tables(one_worker), _tables(two))
    assert two.manifest["status"] == "complete" and two.manifest["games_done"] == 600


def test_tables_and_policy_labels(one_worker):
    players = one_worker.load("players")
    assert players.height == 600 * 4
    assert set(players["policy"].cast(pl.Utf8).unique()) == {"heuristic", "random", "greedy"}
    # rotation: every slot sits in every seat equally often
    counts = players.group_by(["seat", "lineup_slot"]).len()
    assert counts.height == 16 and counts["len"].unique().to_list() == [150]
    m = one_worker.manifest
    assert m["lineup"] == ["heuristic", "random", "greedy", "random"] and m["variant"]["values"]["players"] == 4


def test_resume_after_lost_chunk_and_extend(one_worker, tmp_path):
    out = tmp_path / "run"
    run_batch(GAME, policies=["heuristic", "random", "greedy", "random"], n_games=450, seed=11,
              chunk_size=150, out=out, progress=False)
    # a chunk interrupted before its marker: its parts do not count and are redone
    (out / "_done" / "000001").unlink()
    again = run_batch(GAME, policies=["heuristic", "random", "greedy", "random"], n_games=600, seed=11,
                      out=out, progress=False)  # chunk size comes from the folder
    assert again.manifest["timings"]["games_this_session"] == 300
    _same(_tables(one_worker), _tables(again))
    cached = run_batch(GAME, policies=["heuristic", "random", "greedy", "random"], n_games=600, seed=11,
                       out=out, progress=False)
    assert cached.manifest["timings"]["games_this_session"] == 0


def test_interrupt_keeps_finished_chunks(tmp_path, monkeypatch):
    real = runner._write_chunk
    calls = []

    def write_then_interrupt(*args):
        real(*args)
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(runner, "_write_chunk", write_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run_batch(GAME, n_games=1000, chunk_size=250, seed=2, out=tmp_path / "r", progress=False)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["games_done"] == 500
    assert not list((tmp_path / "r").rglob("*.tmp"))
    monkeypatch.setattr(runner, "_write_chunk", real)
    done = run_batch(GAME, n_games=1000, chunk_size=250, seed=2, out=tmp_path / "r", progress=False)
    assert done.manifest["timings"]["games_this_session"] == 500
    assert done.load("games").height == 1000


def test_other_config_in_same_folder_is_refused(one_worker):
    with pytest.raises(RunError, match="holds a different run"):
        run_batch(GAME, n_games=600, seed=12, out=one_worker.path, progress=False)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(game="nope"), "unknown game 'nope'"),
        (dict(n_games=0), "must be positive"),
        (dict(players=7), "2-4 players"),
        (dict(policies=["oracle"]), "unknown policy 'oracle'"),
        (dict(policies=["random", "random"]), "2 policies given for 4 players"),
        (dict(overrides={"scoring.nonsense": 1}), "unknown key"),
        # 0 players and an empty line-up were read as "the default" (4 players; heuristic, greedy, random,
        # random): an experiment file's `players = 0` or `policies = []` ran the default batch
        (dict(players=0), "2-4 players, not 0"),
        (dict(policies=[]), "no policy given"),
        (dict(chunk_size=0), "chunk size must be positive, not 0"),
    ],
)
def test_bad_requests_write_nothing(tmp_path, kwargs, message):
    kwargs = {"game": GAME, **kwargs}
    game = kwargs.pop("game")
    with pytest.raises(Exception, match=message):
        run_batch(game, out=tmp_path / "r", progress=False, **kwargs)
    assert not (tmp_path / "r").exists()


def test_unwritable_folder_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(RunError, match="is a file"):
        run_batch(GAME, n_games=10, out=tmp_path / "file" / "r", progress=False)
    with pytest.raises(RunError, match="cannot write"):
        run_batch(GAME, n_games=10, out="/proc/skyline-lab-run", progress=False)


def test_dask_backend_gives_the_same_games(one_worker, tmp_path):
    run = run_batch(GAME, policies=["heuristic", "random", "greedy", "random"], n_games=600, seed=11,
                    chunk_size=150, out=tmp_path / "d", workers=2, backend="dask", progress=False)
    _same(_tables(one_worker), _tables(run))


def test_an_edited_engine_never_reuses_a_run_folder(one_worker, monkeypatch):
    # The folder is keyed on the engine's source digest (engines.core.cache_guard), recorded in
    # the manifest; a rule edit changes the digest, so resuming into the old folder is refused.
    import dataclasses

    import engines.skyline_3000 as package

    assert one_worker.manifest["source_digest"] == package.SPEC.source_digest != ""
    assert one_worker.manifest["config_key"]["source_digest"] == package.SPEC.source_digest
    _, config = runner.prepare(GAME, policies=["heuristic", "random", "greedy", "random"], n_games=600, seed=11)
    name = runner.default_run_name(config)
    monkeypatch.setattr(package, "SPEC", dataclasses.replace(package.SPEC, source_digest="edited-rules"))
    _, edited = runner.prepare(GAME, policies=["heuristic", "random", "greedy", "random"], n_games=600, seed=11)
    assert runner.default_run_name(edited) != name  # the default folder of an edited engine is a new one
    with pytest.raises(RunError, match="holds a different run"):
        run_batch(GAME, policies=["heuristic", "random", "greedy", "random"], n_games=600, seed=11,
                  chunk_size=150, out=one_worker.path, progress=False)


def test_a_chunk_is_the_same_file_every_time(tmp_path):
    # a seeded run gives byte-identical Parquet parts, not only equal tables: a user may check a
    # run with sha256sum. Repeated labels (two random seats) once made the writer's dictionary
    # page come out in either of two byte orders, about half the time each.
    import hashlib

    import numpy as np

    from engines.registry import get_game

    spec = get_game(GAME)
    labels = ["random"] * 4
    rows = 1000
    tables = {name: {c: (np.arange(rows) % 4 if c == "lineup_slot" else np.arange(rows)).astype(np.int32)
                     for c in table.names}
              for name, table in spec.tables.items()}
    digests = set()
    for i in range(30):
        out = tmp_path / str(i)
        (out / "_done").mkdir(parents=True)
        runner._write_chunk(out, spec, labels, 0, rows, tables)
        digests.add(tuple(hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.rglob("*.parquet"))))
    assert len(digests) == 1
    policy = pl.read_parquet(next((tmp_path / "0" / "players").glob("*.parquet")))["policy"].cast(pl.Utf8)
    assert policy.to_list() == ["random"] * rows


def test_a_lineup_left_out_is_the_games_declared_one():
    # make_lineup(spec, None, ...) played random in every seat, GameSpec.default_lineup elsewhere
    from engines.core.lineup import make_lineup
    from engines.registry import get_game

    spec = get_game("cityline")
    assert list(make_lineup(spec, None, 4, True).labels) == ["heuristic", "greedy", "random", "random"]
    assert list(make_lineup(spec, None, 2, True).labels) == ["heuristic", "greedy"]

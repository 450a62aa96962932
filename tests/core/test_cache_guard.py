"""An edit anywhere in a game package drops its compiled kernels from numba's cache."""
from engines.core import cache_guard


def test_edit_drops_cached_kernels(tmp_path):
    (tmp_path / "rules.py").write_text("RULE = 1\n")
    (tmp_path / "batch.py").write_text("from rules import RULE\n")
    cache_guard.check(tmp_path)
    cached = tmp_path / "__pycache__" / "batch.play-1.py311.nbi"
    cached.write_text("compiled with RULE = 1")
    cache_guard.check(tmp_path)
    assert cached.exists(), "nothing changed: the cache must be kept"
    (tmp_path / "rules.py").write_text("RULE = 2\n")
    cache_guard.check(tmp_path)
    assert not cached.exists(), "rules.py changed: batch's cached kernel is stale"


def test_check_returns_the_source_digest_the_runner_keys_on(tmp_path):
    (tmp_path / "rules.py").write_text("RULE = 1\n")
    before = cache_guard.check(tmp_path)
    assert before == cache_guard.source_digest(tmp_path) and len(before) == 16
    assert cache_guard.check(tmp_path) == before          # unchanged source, same digest (cache kept)
    (tmp_path / "rules.py").write_text("RULE = 2\n")
    assert cache_guard.check(tmp_path) != before          # an edited rule is another engine


def test_an_edited_data_file_is_another_engine_but_keeps_the_compiled_kernels(tmp_path):
    # a map or card file decides the games as much as the rules do: a run folder keyed on the code
    # alone resumed games played on the old map (found calibrating Project Skyline's Tokyo)
    (tmp_path / "rules.py").write_text("RULE = 1\n")
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "tokyo.toml").write_text("areas = 20\n")
    before = cache_guard.check(tmp_path)
    cached = tmp_path / "__pycache__" / "batch.play-1.py311.nbi"
    cached.write_text("compiled kernel")
    (tmp_path / "maps" / "tokyo.toml").write_text("areas = 16\n")
    after = cache_guard.check(tmp_path)
    assert after != before, "an edited map must key new run folders"
    assert after == cache_guard.source_digest(tmp_path)
    assert cached.exists(), "data is not compiled in: the kernels stay cached"
    (tmp_path / "__pycache__" / "stale.toml").write_text("x = 1\n")
    assert cache_guard.check(tmp_path) == after, "nothing under __pycache__ is data"

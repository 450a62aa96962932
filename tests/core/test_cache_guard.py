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

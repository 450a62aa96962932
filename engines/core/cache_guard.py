"""Keep numba's on-disk cache honest for a game package.

numba keys a cached kernel on its own source file only: after an edit to a
game's rules.py, a cached batch kernel in batch.py that compiled the old
rules in would still load, and tests would pass against stale rules. Each
game package calls `check(its folder)` on import: it hashes the package's
source files (and the core kernel/RNG modules every kernel calls) and drops
the package's cache files when the hash changed.

`check` returns that digest: the game puts it on its GameSpec
(`source_digest`), and the runner keys run folders and cached experiment
batches on it, so an edit to a rule never reuses games played by the old
rules (the hand-bumped engine_version alone could not promise that).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

_CORE = Path(__file__).parent
# the core modules compiled into every game's kernels (the ones that do not exist
# in this checkout are skipped, so the list may name modules still to come)
_CORE_KERNEL_SOURCES = ("kernel.py", "rng.py", "lowlevel.py", "harness.py", "layout.py", "search.py")


def source_digest(package_dir: Path) -> str:
    h = hashlib.sha256()
    # presets.toml too: a preset's weights are a policy's defaults, and run folders are keyed on labels
    for path in sorted(Path(package_dir).glob("*.py")) + sorted(Path(package_dir).glob("presets.toml")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    for name in _CORE_KERNEL_SOURCES:
        path = _CORE / name
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def check(package_dir: str | Path) -> str:
    """Drop the package's stale numba cache files; return its source digest."""
    package_dir = Path(package_dir)
    cache = package_dir / "__pycache__"
    stamp = cache / "kernels.stamp"
    digest = source_digest(package_dir)
    try:
        if stamp.is_file() and stamp.read_text().strip() == digest:
            return digest
        cache.mkdir(exist_ok=True)
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only install: nothing to clean, numba recompiles in memory if needed
    return digest

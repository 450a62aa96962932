"""Keep numba's on-disk cache honest for a game package.

numba keys a cached kernel on its own source file only: after an edit to a
game's rules.py, a cached batch kernel in batch.py that compiled the old
rules in would still load, and tests would pass against stale rules. Each
game package calls `check(its folder)` on import: it hashes the package's
source files (and the core kernel/RNG modules every kernel calls) and drops
the package's cache files when the hash changed.

`check` returns the digest of the package's code and data (every .toml in it:
variants, maps, cards, shipped presets): the game puts it on its GameSpec
(`source_digest`), and the runner keys run folders and cached experiment
batches on it, so an edit to a rule or to a map never reuses games played
before it (the hand-bumped engine_version alone could not promise that). An
edit to data alone keeps the compiled kernels: they take data as arrays.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

_CORE = Path(__file__).parent
# the core modules compiled into every game's kernels (the ones that do not exist
# in this checkout are skipped, so the list may name modules still to come)
_CORE_KERNEL_SOURCES = ("kernel.py", "rng.py", "lowlevel.py", "harness.py", "layout.py", "search.py", "adapter.py",
                        "expert.py")


def _kernel_sources(package_dir: Path) -> list[Path]:
    """What numba compiles in: the package's Python files and the core kernel modules."""
    core = [_CORE / name for name in _CORE_KERNEL_SOURCES if (_CORE / name).is_file()]
    return sorted(Path(package_dir).glob("*.py")) + core


def _data_files(package_dir: Path) -> list[Path]:
    """The engine's data: variants, maps, cards, shipped presets (every .toml in the package).

    They never reach numba's cache (a kernel takes them as arrays), but they decide the games: a
    run folder played on yesterday's map must not resume on today's."""
    package_dir = Path(package_dir)
    return sorted(p for p in package_dir.rglob("*.toml") if "__pycache__" not in p.relative_to(package_dir).parts)


def _digest(paths: list[Path], root: Path) -> str:
    h = hashlib.sha256()
    for path in paths:
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else "core/" + path.name
        h.update(name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def kernel_digest(package_dir: Path) -> str:
    """Digest of the compiled code alone: when it changes, the package's numba cache is stale."""
    return _digest(_kernel_sources(package_dir), Path(package_dir))


def source_digest(package_dir: Path) -> str:
    """Digest of everything that decides a game, code and data: run folders are keyed on it."""
    package_dir = Path(package_dir)
    return _digest(_kernel_sources(package_dir) + _data_files(package_dir), package_dir)


def check(package_dir: str | Path) -> str:
    """Drop the package's stale numba cache files; return its source digest (code and data)."""
    package_dir = Path(package_dir)
    cache = package_dir / "__pycache__"
    stamp = cache / "kernels.stamp"
    kernels = kernel_digest(package_dir)
    try:
        if not (stamp.is_file() and stamp.read_text().strip() == kernels):
            cache.mkdir(exist_ok=True)
            for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
                f.unlink(missing_ok=True)
            stamp.write_text(kernels)
    except OSError:
        pass  # a read-only install: nothing to clean, numba recompiles in memory if needed
    return source_digest(package_dir)

"""Numba's on-disk cache keys a kernel on its own source file only: after an
edit to rules.py, a cached batch kernel that inlined the old rules would still
load. This guard hashes every source file of the package and drops the
package's numba cache files when the hash changes (run once per import)."""
from __future__ import annotations

import hashlib
from pathlib import Path

_HERE = Path(__file__).parent


def source_digest() -> str:
    h = hashlib.sha256()
    for path in sorted(_HERE.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    core = _HERE.parent / "core"
    for name in ("kernel.py", "rng.py"):
        if (core / name).is_file():
            h.update((core / name).read_bytes())
    return h.hexdigest()[:16]


def check() -> None:
    cache = _HERE / "__pycache__"
    stamp = cache / "kernels.stamp"
    digest = source_digest()
    try:
        if stamp.is_file() and stamp.read_text().strip() == digest:
            return
        cache.mkdir(exist_ok=True)
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            try:
                f.unlink()
            except FileNotFoundError:
                pass
        stamp.write_text(digest)
    except OSError:
        pass  # a read-only install: nothing to clean, numba recompiles in memory if needed

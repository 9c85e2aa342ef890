"""The disk cache every compiled thing lives in: generated semantics, native objects, bound programs.

The directory is ``$GPUBENCH_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/gpubench/semantics`` (default
``~/.cache/gpubench/semantics``); ``GPUBENCH_CACHE_DIR=off`` keeps everything in memory.

Entries are keyed by digests that cover gpubench's own sources, so every change of gpubench leaves
the previous entries unused: the cache is kept under ``$GPUBENCH_CACHE_MAX_MB`` (default 1024) by
removing the least recently used files (a read marks a file used), at most once an hour per cache,
by the first process that writes after that hour.
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

DEFAULT_MAX_MB = 1024
PRUNE_EVERY_SECONDS = 3600.0
PRUNE_TO = 0.8  # of the limit, so that the next pruning is not due at once
MARKER = ".pruned"  # its modification time: when the cache was last looked over
_checked: set[Path] = set()  # caches this process has looked at the marker of


def cache_dir() -> Path | None:
    configured = os.environ.get("GPUBENCH_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gpubench" / "semantics"


def max_bytes() -> int:
    return int(float(os.environ.get("GPUBENCH_CACHE_MAX_MB", DEFAULT_MAX_MB)) * (1 << 20))


def read(path: Path | None) -> bytes | None:
    """A cache file's bytes, marking it used; None if it is not there (or cannot be read)."""
    if path is None:
        return None
    try:
        data = path.read_bytes()
        os.utime(path)
    except OSError:
        return None
    return data


def write_atomically(path: Path, data: str | bytes) -> None:
    """Write a cache file so a concurrent reader sees the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    os.replace(tmp, path)
    root = cache_dir()
    if root is not None and root not in _checked:
        _checked.add(root)
        prune_if_due(root)


def prune_if_due(root: Path, now: float | None = None) -> None:
    marker = root / MARKER
    now = time.time() if now is None else now
    try:
        if now - marker.stat().st_mtime < PRUNE_EVERY_SECONDS:
            return
    except OSError:
        pass  # never pruned
    try:
        marker.touch()
    except OSError:
        return  # a read-only cache is not ours to prune
    prune(root, max_bytes())


def prune(root: Path, limit: int) -> int:
    """Remove the least recently used files until the cache holds at most PRUNE_TO of ``limit``
    bytes, if it holds more than ``limit``; returns the bytes removed."""
    files = []
    for directory, _, names in os.walk(root):
        for name in names:
            if name == MARKER:
                continue
            path = os.path.join(directory, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue  # removed meanwhile by another process
            files.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in files)
    if total <= limit:
        return 0
    removed = 0
    for _, size, path in sorted(files):
        if total - removed <= PRUNE_TO * limit:
            break
        try:
            os.remove(path)
        except OSError:
            continue
        removed += size
    return removed

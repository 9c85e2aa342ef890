"""The disk cache stays under its size limit by dropping the least recently used files, and a file
read counts as used (gpubench/compiler/diskcache.py)."""
import os
import time

from gpubench.compiler import diskcache


def _file(root, name: str, size: int, age: float):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def test_pruning_removes_the_least_recently_used_until_under_the_limit(tmp_path):
    old = [_file(tmp_path, f"native/programs/{i}.pickle", 1000, age=1000 - i) for i in range(10)]
    assert diskcache.prune(tmp_path, limit=20_000) == 0  # under the limit: nothing goes
    removed = diskcache.prune(tmp_path, limit=6250)
    assert removed == 5000  # down to 80 % of the limit, oldest first
    assert [p.exists() for p in old] == [False] * 5 + [True] * 5


def test_a_read_marks_a_file_used(tmp_path):
    first = _file(tmp_path, "a.o", 1000, age=500)
    second = _file(tmp_path, "b.o", 1000, age=100)
    assert diskcache.read(first) == b"x" * 1000
    diskcache.prune(tmp_path, limit=1500)
    assert first.exists() and not second.exists()


def test_pruning_runs_at_most_once_an_hour(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBENCH_CACHE_MAX_MB", str(1500 / (1 << 20)))
    files = [_file(tmp_path, f"{i}.py", 1000, age=10 - i) for i in range(2)]
    (tmp_path / diskcache.MARKER).touch()
    diskcache.prune_if_due(tmp_path)
    assert all(p.exists() for p in files)  # looked over less than an hour ago
    diskcache.prune_if_due(tmp_path, now=time.time() + diskcache.PRUNE_EVERY_SECONDS + 1)
    assert [p.exists() for p in files] == [False, True]


def test_a_missing_file_reads_as_none(tmp_path):
    assert diskcache.read(tmp_path / "gone.o") is None
    assert diskcache.read(None) is None

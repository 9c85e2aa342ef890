"""build.py compiles the codes a process has not seen in chunks (one object each, kept on disk with a
reference from each code to its chunk) and links each code's object, compiled now or read from the
disk cache, into one engine: every code gets its own working function, a code on disk is not compiled
again, a chunk read for one code gives its other members too, and a reference or chunk that is
missing or damaged means compiling again, never a crash."""
import ctypes

import pytest
from llvmlite import ir

from gpubench.emu.native import build

_made: list[build.Code] = []  # every code the tests make: each test starts with none of them in memory


def _returning(value: int) -> build.Code:
    """A handler-typed function returning ``value`` (its key names the value, so each is a new code)."""

    def define(module: ir.Module, name: str) -> None:
        fn = ir.Function(module, build.HANDLER_TYPE, name)
        ir.IRBuilder(fn.append_basic_block("entry")).ret(build.const(value, build.I32))

    _made.append(build.Code(f"test_native_build returns {value}", define))
    return _made[-1]


def _refusing() -> build.Code:
    def define(module: ir.Module, name: str) -> None:
        ir.Function(module, build.HANDLER_TYPE, name)  # half defined, then refused
        raise build.BackendUnsupported("refused by the test")

    _made.append(build.Code("test_native_build refuses", define))
    return _made[-1]


def _call(address: int) -> int:
    return ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)(address)(None, None)


def _forget(codes: list[build.Code]) -> None:
    """As in a new process: these codes only on disk."""
    for code in codes:
        build._addresses.pop(build.digest(code.key), None)
        build._refusals.pop(code.key, None)


def _counted(codes: list[build.Code]) -> tuple[list[int], dict[str, int]]:
    """What each code's function returns, and how many codes the call compiled, loaded and refused."""
    before = dict(build.STATS)
    found = build.addresses(codes)
    values = [_call(found[c.key]) if isinstance(found[c.key], int) else None for c in codes]
    return values, {name: build.STATS[name] - before[name] for name in before}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBENCH_CACHE_DIR", str(tmp_path))
    yield tmp_path / "native" / "engine"
    _forget(_made)


def test_a_batch_links_objects_from_the_disk_and_new_ones(cache):
    first, second = _returning(1234567), _returning(-7)
    build.addresses([first])
    assert (cache / f"{build.digest(first.key)}.ref").exists() and len(list(cache.glob("*.chunk"))) == 1
    _forget([first])
    values, counts = _counted([first, second])
    assert values == [1234567, -7]
    assert counts == dict(compiled=1, loaded=1, refused=0)


def test_a_chunk_read_for_one_code_gives_its_other_members(cache):
    codes = [_returning(v) for v in (11, 12, 13)]
    values, counts = _counted(codes)
    assert values == [11, 12, 13] and counts == dict(compiled=3, loaded=0, refused=0)
    assert len(list(cache.glob("*.chunk"))) == 1 and len(list(cache.glob("*.ref"))) == 3
    _forget(codes)
    assert _counted(codes[1:2]) == ([12], dict(compiled=0, loaded=1, refused=0))
    assert _counted(codes) == ([11, 12, 13], dict(compiled=0, loaded=0, refused=0))  # linked already


def test_a_batch_past_the_chunk_size_is_split_evenly_and_refusals_are_left_out(cache, monkeypatch):
    monkeypatch.setattr(build, "CHUNK", 2)
    codes = [_returning(v) for v in (21, 22, 23, 24, 25)] + [_refusing()]
    values, counts = _counted(codes)
    assert values == [21, 22, 23, 24, 25, None] and counts == dict(compiled=5, loaded=0, refused=1)
    sizes = sorted(len(build._read_chunk(cache, p.stem.encode())[0]) for p in cache.glob("*.chunk"))
    assert sizes == [1, 2, 2]  # 6 codes in 3 chunks of 2, one of them refused
    assert isinstance(build.addresses(codes)[codes[-1].key], build.BackendUnsupported)


@pytest.mark.parametrize("damage", ["object byte", "truncated", "reference", "no chunk"])
def test_a_damaged_cache_file_means_compiling_again(cache, damage):
    codes = [_returning(v) for v in (31, 32)]
    build.addresses(codes)
    chunk, = cache.glob("*.chunk")
    data = chunk.read_bytes()
    if damage == "object byte":  # the checksum catches it: LLVM would crash on the object
        chunk.write_bytes(data[:-100] + bytes([data[-100] ^ 0xFF]) + data[-99:])
    elif damage == "truncated":
        chunk.write_bytes(data[:len(data) // 2])
    elif damage == "reference":
        (cache / f"{build.digest(codes[0].key)}.ref").write_bytes(b"\0" * 5)
    else:
        chunk.unlink()
    _forget(codes)
    values, counts = _counted(codes)
    assert values == [31, 32]
    if damage == "reference":  # the other code's reference leads to the chunk, which holds both
        assert counts == dict(compiled=0, loaded=2, refused=0)
    else:
        assert counts == dict(compiled=2, loaded=0, refused=0)


def test_chunks_holding_the_same_code_link_together(cache):
    """Two processes may compile one code into different chunks: a later one links both."""
    a, b, c = (_returning(v) for v in (41, 42, 43))
    build.addresses([a, b])
    _forget([a, b])
    (cache / f"{build.digest(b.key)}.ref").unlink()  # pruned: the next process compiles b again, with c
    build.addresses([b, c])
    assert len(list(cache.glob("*.chunk"))) == 2
    _forget([a, b, c])
    assert _counted([a, b, c]) == ([41, 42, 43], dict(compiled=0, loaded=3, refused=0))

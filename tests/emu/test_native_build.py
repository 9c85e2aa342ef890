"""build.py links each code's object, compiled now or read from the disk cache, into one engine: a batch
mixing both gives every code its own working function, and a code on disk is not compiled again."""
import ctypes

from llvmlite import ir

from gpubench.emu.native import build


def _returning(value: int) -> build.Code:
    """A handler-typed function returning ``value`` (its key names the value, so each is a new code)."""

    def define(module: ir.Module, name: str) -> None:
        fn = ir.Function(module, build.HANDLER_TYPE, name)
        ir.IRBuilder(fn.append_basic_block("entry")).ret(build.const(value, build.I32))

    return build.Code(f"test_native_build returns {value}", define)


def _call(address: int) -> int:
    return ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)(address)(None, None)


def test_a_batch_links_objects_from_the_disk_and_new_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBENCH_CACHE_DIR", str(tmp_path))
    first, second = _returning(1234567), _returning(-7)
    before = dict(build.STATS)
    build.addresses([first])
    assert (tmp_path / "native" / "engine" / f"{build.digest(first.key)}.o").exists()
    del build._addresses[first.key]  # as in a new process: the object only on disk
    found = build.addresses([first, second])
    assert [_call(found[c.key]) for c in (first, second)] == [1234567, -7]
    assert build.STATS["compiled"] - before["compiled"] == 2 and build.STATS["loaded"] - before["loaded"] == 1

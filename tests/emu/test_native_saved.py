"""A program the native engine bound in one process is not bound again in the next (saved.py): the
later process loads the table and records from the disk cache and gets the same results; a saved
binding it cannot use (a handler object gone, a damaged file) is bound afresh, never half used."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PROGRAM = "v_add_nc_u32 v1, v0, 5\nv_mul_lo_u32 v1, v1, v0\ns_mov_b32 s2, 7\nv_add_nc_u32 v1, s2, v1"
SCRIPT = f"""
import json, sys
sys.path.insert(0, {str(TESTS)!r})
from asm_dispatch import CODE_BASE, Dispatch
from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.isa.asm import assemble

run = Dispatch("gfx1100", 32, vgprs=32)
run.vgpr[:, 0, :] = run.lane_ids()
run.device.alloc_at(CODE_BASE, assemble(run.isa, {PROGRAM!r} + "\\ns_endpgm\\n").data)
run.waves.pc[:] = CODE_BASE
binds = []
bind = engine.NativeProgram.bind
engine.NativeProgram.bind = lambda self, *args, **kwargs: binds.append(1) or bind(self, *args, **kwargs)
ctx = run.context()
engine.run(ctx, executor.Watchdog())
print(json.dumps(dict(v1=ctx.waves.vgpr[0, 1].tolist(), binds=len(binds),
                      reference=sum(ctx.stats.get("by_reference", {{}}).values()))))
"""
EXPECTED = [(lane + 5) * lane + 7 for lane in range(32)]


def _dispatch(cache: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True,
                         env=dict(os.environ, GPUBENCH_CACHE_DIR=str(cache)))
    return json.loads(out.stdout)


@pytest.fixture
def cache(tmp_path) -> Path:
    first = _dispatch(tmp_path)
    assert first["v1"] == EXPECTED and first["binds"] == 1 and first["reference"] == 0
    return tmp_path


def test_a_later_process_runs_the_saved_binding(cache):
    assert list((cache / "native" / "programs").glob("*.pickle"))
    again = _dispatch(cache)
    assert again == dict(v1=EXPECTED, binds=0, reference=0)


@pytest.mark.parametrize("files", ["*.chunk", "*.ref"])
def test_a_missing_handler_object_means_binding_afresh(cache, files):
    for path in (cache / "native" / "engine").glob(files):  # the objects, or each handler's reference to its object
        path.unlink()
    again = _dispatch(cache)
    assert again == dict(v1=EXPECTED, binds=1, reference=0)


def test_a_damaged_saved_program_means_binding_afresh(cache):
    for path in (cache / "native" / "programs").glob("*.pickle"):
        path.write_bytes(path.read_bytes()[:40])
    again = _dispatch(cache)
    assert again == dict(v1=EXPECTED, binds=1, reference=0)


def test_a_saved_program_holds_its_instructions_not_its_code_window(cache):
    saved, = (cache / "native" / "programs").glob("*.pickle")
    assert saved.stat().st_size < 2048  # 5 instructions; the table of the window around them is not saved whole

"""Why the native handlers may mark their frame and record arguments ``noalias`` (alu.new_handler).

LLVM takes ``noalias`` on an argument to mean: memory reached through it is not modified, while the
handler runs, through any pointer not based on it. That lets it hoist the record's operand words and
the frame's register-file pointers out of the lane loops and vectorize them. It holds because

- no handler writes through its frame or record: LLVM, optimising each handler, infers both
  arguments ``readonly`` or ``readnone`` (checked here on the handlers of a program of every kind of
  instruction the benchmarks run: VALU with a numpy loop call, SALU, VOPD, scalar and GLOBAL memory,
  LDS, a barrier);
- nothing a handler writes overlaps them: the frame is the loop's own stack slot (loop.py's alloca),
  and the records are an array of their own, apart from every array the dispatch block hands native
  code (wave registers and state, LDS, the status and coverage lists, the block itself) and from the
  host memory of every mapping (checked here on the dispatch block of each native call).
"""
import ctypes

import llvmlite.binding as llvm
import numpy as np
from asm_dispatch import CODE_BASE, Dispatch as Run
from llvmlite import ir

from gpubench.compiler.native.jit import optimise, target_machine
from gpubench.emu import executor
from gpubench.emu.native import build, engine
from gpubench.emu.native.layout import MAP_WORDS, RECORD_WORDS, Dispatch
from gpubench.emu.waves import SGPRS
from gpubench.isa.asm import assemble

PROGRAM = """
s_load_b64 s[4:5], s[0:1], 0x0
s_waitcnt lgkmcnt(0)
v_lshlrev_b32 v1, 2, v0
global_load_b32 v2, v1, s[4:5]
s_waitcnt vmcnt(0)
v_sin_f32 v3, v2
v_add_co_u32 v4, vcc_lo, v2, v3
v_add_co_ci_u32_e64 v5, null, 0, v2, vcc_lo
v_dual_mul_f32 v6, v2, v3 :: v_dual_add_f32 v7, v4, v5
ds_store_b32 v1, v6
s_barrier
ds_load_b32 v8, v1
s_add_u32 s6, s4, 0x100
s_addc_u32 s7, s5, 0
s_waitcnt lgkmcnt(0)
global_store_b32 v1, v8, s[6:7]
"""


def _regions(ctx, block: np.ndarray, records: int) -> dict[str, tuple[int, int]]:
    """[start, end) of everything native code may write, from the dispatch block (and the wave count)."""
    count, w = ctx.waves.count, ctx.waves
    sizes = {Dispatch.SGPR: count * SGPRS * 4, Dispatch.VGPR: count * int(block[Dispatch.VGPR_STRIDE]),
             Dispatch.PC: w.pc.nbytes, Dispatch.SCC: w.scc.nbytes, Dispatch.MODE: w.mode.nbytes,
             Dispatch.EXECUTED: w.executed.nbytes, Dispatch.LDS: ctx.lds.nbytes,
             Dispatch.STATUS_LIST: 4 * int(block[Dispatch.WAVE_COUNT]), Dispatch.REACHED: records}
    regions = {f"slot {slot}": (int(block[slot]), int(block[slot]) + size) for slot, size in sizes.items()}
    if block[Dispatch.TRAP_STATUS]:
        regions["trap status"] = (int(block[Dispatch.TRAP_STATUS]), int(block[Dispatch.TRAP_STATUS]) + 4 * count)
    maps = np.ctypeslib.as_array((ctypes.c_int64 * (MAP_WORDS * int(block[Dispatch.MAP_COUNT]))).from_address(
        int(block[Dispatch.MAPS]))).reshape(-1, MAP_WORDS)
    for k, (base, end, host, _) in enumerate(maps.tolist()):
        regions[f"mapping {k}"] = (host, host + end - base)
    regions["dispatch block"] = (block.ctypes.data, block.ctypes.data + block.nbytes)
    return regions


def test_no_handler_writes_where_its_frame_or_record_lives(monkeypatch):
    run = Run("gfx1100", 32, groups=2, waves_per_group=2, lds_bytes=512)
    run.vgpr[:, 0, :] = run.lane_ids()
    data = run.buffer(np.linspace(-3, 3, 512, dtype=np.float32))
    kernargs = run.buffer(np.array([data.address], np.uint64))
    run.sgpr_pair(0, kernargs.address)
    run.device.alloc_at(CODE_BASE, assemble(run.isa, PROGRAM + "s_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    checked = []
    real_loop = engine._loop

    def checking_loop(wave_size, release_gil):
        loop = real_loop(wave_size, release_gil)

        def call(block_address):
            block = np.ctypeslib.as_array((ctypes.c_int64 * int(Dispatch.SLOTS)).from_address(block_address))
            table = np.ctypeslib.as_array((ctypes.c_int32 * int(block[Dispatch.TABLE_LENGTH])).from_address(
                int(block[Dispatch.TABLE])))
            count = int(table.max()) + 1
            records = int(block[Dispatch.RECORDS])
            end = records + 8 * RECORD_WORDS * count
            for name, (start, stop) in _regions(ctx, block, count).items():
                assert stop <= records or start >= end, f"{name} overlaps the records"
            checked.append(block[Dispatch.WAVE_COUNT])
            loop(block_address)
        return call

    monkeypatch.setattr(engine, "_loop", checking_loop)
    engine.run(ctx, executor.Watchdog())
    assert checked, "the native loop never ran"
    assert not ctx.stats.get("by_reference"), ctx.stats["by_reference"]


def test_every_handler_leaves_its_frame_and_record_unwritten():
    run = Run("gfx1100", 32, groups=2, waves_per_group=2, lds_bytes=512)
    ctx = run.context()
    code = assemble(run.isa, PROGRAM + "s_endpgm\n").data
    run.device.alloc_at(CODE_BASE, code)
    run.waves.pc[:] = CODE_BASE
    program = engine.NativeProgram(ctx, CODE_BASE, np.frombuffer(code, np.uint8))
    program.bind(ctx, executor.Runner(ctx, executor.Watchdog()).program, [CODE_BASE], forward=True)
    keys = set(program.keys)
    codes = {b.code.key: b.code for b in engine._bindings.values() if b is not None and b.code.key in keys}
    assert len(codes) == len(keys) >= 12
    for key, handler in codes.items():
        module = ir.Module(name="handler")
        module.triple = llvm.get_process_triple()
        module.data_layout = str(target_machine().target_data)
        handler.define(module, build.symbol(key))
        parsed = llvm.parse_assembly(str(module))
        optimise(parsed)
        arguments = [b" ".join(a.attributes) for a in parsed.get_function(build.symbol(key)).arguments]
        unwritten = all(b"noalias" in a and (b"readonly" in a or b"readnone" in a) for a in arguments)
        assert len(arguments) == 2 and unwritten, (key, arguments)

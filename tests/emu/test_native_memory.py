"""The native engine's GLOBAL and SMEM handlers (gpubench/emu/native/memory.py) against the reference
engine, bit for bit: every width (sub-dword, D16 halves), SGPR-base and 64-bit-VGPR addresses, EXEC
partly off, lanes storing to one address (the later lane wins); and a lane outside every mapping, which
must be the same GPUPageFault (address, lane, PC) with nothing written. And that they run natively."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.asm import assemble

BUFFER_BYTES = 4096
LINES = [
    "global_load_b32 v3, v1, s[2:3]", "global_load_b32 v3, v[4:5], off offset:-8", "global_load_b64 v[6:7], v1, s[2:3] offset:12",
    "global_load_b96 v[6:8], v1, s[2:3]", "global_load_b128 v[6:9], v[4:5], off offset:64",
    "global_load_u8 v3, v1, s[2:3] offset:3", "global_load_i8 v3, v1, s[2:3]", "global_load_u16 v3, v1, s[2:3] offset:2",
    "global_load_i16 v3, v1, s[2:3]", "global_load_d16_b16 v3, v1, s[2:3]", "global_load_d16_hi_b16 v3, v1, s[2:3]",
    "global_load_d16_u8 v3, v1, s[2:3]", "global_load_d16_hi_i8 v3, v1, s[2:3] offset:1",
    "global_store_b32 v1, v3, s[2:3]", "global_store_b64 v[4:5], v[6:7], off offset:16",
    "global_store_b96 v1, v[6:8], s[2:3]", "global_store_b128 v1, v[6:9], s[2:3] offset:-16",
    "global_store_b8 v1, v3, s[2:3] offset:1", "global_store_b16 v1, v3, s[2:3]",
    "global_store_d16_hi_b16 v1, v3, s[2:3]", "global_store_d16_hi_b8 v1, v3, s[2:3]",
    "s_load_b32 s8, s[2:3], 0x10", "s_load_b64 s[8:9], s[2:3], 0x8", "s_load_b128 s[8:11], s[2:3], 0x0",
    "s_load_b256 s[8:15], s[2:3], 0x20", "s_load_b512 s[16:31], s[2:3], 0x40", "s_load_b32 s8, s[2:3], s5",
]


def _run(line: str, seed: int, native: bool, fault: bool = False):
    rng = np.random.default_rng(seed)
    run = Dispatch("gfx1100", 32, vgprs=16)
    data = run.device.to_device(rng.integers(0, 256, BUFFER_BYTES, dtype=np.uint8))
    base = data.address + 512
    run.vgpr[0] = rng.integers(0, 1 << 32, run.vgpr.shape[1:], dtype=np.uint64).astype(np.uint32)
    run.vgpr[0, 1] = rng.integers(0, 256, 32) * 4 + rng.integers(0, 4, 32) * (1 - line.startswith("global_load_b"))
    run.vgpr[0, 1, 5] = run.vgpr[0, 1, 6]  # two lanes at one address
    addresses = base + run.vgpr[0, 1].astype(np.uint64)
    if fault:
        addresses[9] = 0x7000_0000_0000  # one lane outside every mapping
    run.vgpr[0, 4], run.vgpr[0, 5] = addresses & 0xFFFFFFFF, addresses >> 32
    if fault:
        run.vgpr[0, 1, 9] = 0xFFFF_0000
    run.sgpr_pair(2, base)
    run.sgpr[0, 5] = 4 * rng.integers(0, 16)
    run.sgpr[0, EXEC_LO] = 0xFF7F_FEFF
    run.device.alloc_at(CODE_BASE, assemble(run.isa, line + "\ns_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    try:
        (engine.run if native else executor.run)(ctx, executor.Watchdog())
        error = None
    except executor.GPUPageFault as err:
        error = (err.fault.address, err.fault.write, err.fault.lane, err.fault.context.get("pc"))
    memory = run.device.to_host(data, np.uint8)
    return error, run.vgpr.copy(), run.sgpr.copy(), run.waves.pc.copy(), memory, ctx.stats["wave_instructions"]


@pytest.mark.parametrize("line", LINES)
def test_an_access_gives_the_reference_engines_bits(line):
    for seed in range(3):
        expected, got = _run(line, seed, native=False), _run(line, seed, native=True)
        for what, a, b in zip(("fault", "vgpr", "sgpr", "pc", "memory", "wave-instructions"), expected, got, strict=True):
            assert np.array_equal(a, b) if what != "fault" else a == b, f"{line} seed {seed}: {what} differs"


@pytest.mark.parametrize("line", [line for line in LINES if line.startswith("global")])
def test_a_lane_outside_every_mapping_faults_as_on_the_reference_engine(line):
    expected, got = _run(line, 0, native=False, fault=True), _run(line, 0, native=True, fault=True)
    assert expected[0] is not None and expected[0][2] == 9
    assert got[0] == expected[0]
    assert np.array_equal(got[4], expected[4]), "nothing is written"


def test_every_access_runs_natively():
    run = Dispatch("gfx1100", 32, vgprs=32)
    code = assemble(run.isa, "\n".join(LINES) + "\ns_endpgm\n").data
    run.device.alloc_at(CODE_BASE, code)
    ctx = run.context()
    program = engine.NativeProgram(ctx, CODE_BASE, ctx.memory.find(CODE_BASE).data[:len(code)])
    program.bind(ctx, executor.Program(ctx), [CODE_BASE], forward=True)
    assert program.bound == len(LINES) + 1

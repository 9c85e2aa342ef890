"""The native engine's DS handlers (gpubench/emu/native/lds.py) against the reference engine, bit for
bit: one instruction at a time on random registers and LDS, three workgroups of one wave (waves of
one workgroup run one after the other natively, so they may race on LDS within an instruction: the
last test runs several waves per workgroup, race-free, with barriers), EXEC partly off, addresses reaching past the workgroup's LDS (reads 0, writes dropped, byte by byte), unaligned
ones and lanes colliding on one address (atomics serialize them); on every target. And that they are
bound natively, not left to the reference engine."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.asm import assemble

LDS_BYTES = 256
TARGETS = [("gfx1100", 32), ("gfx1100", 64), ("gfx1201", 32), ("gfx942", 64), ("gfx950", 64)]

COMMON = [  # the same text on every target
    "ds_nop", "ds_add_u32 v1, v2", "ds_add_rtn_u32 v3, v1, v2 offset:4", "ds_sub_rtn_u32 v3, v1, v2",
    "ds_rsub_rtn_u64 v[4:5], v1, v[2:3]", "ds_inc_rtn_u32 v3, v1, v2", "ds_dec_rtn_u64 v[4:5], v1, v[2:3]",
    "ds_min_rtn_i32 v3, v1, v2", "ds_max_rtn_u32 v3, v1, v2", "ds_max_rtn_i64 v[4:5], v1, v[2:3]",
    "ds_min_u64 v1, v[2:3]", "ds_and_rtn_b32 v3, v1, v2", "ds_or_b64 v1, v[2:3]", "ds_xor_rtn_b32 v3, v1, v2",
    "ds_mskor_rtn_b32 v3, v1, v2, v4", "ds_append v3 offset:4", "ds_consume v3",
    "ds_bpermute_b32 v3, v1, v2", "ds_bpermute_b32 v1, v1, v1 offset:8", "ds_permute_b32 v3, v1, v2 offset:4",
    "ds_swizzle_b32 v3, v1 offset:swizzle(QUAD_PERM,1,0,3,2)", "ds_swizzle_b32 v3, v1 offset:swizzle(BITMASK_PERM,\"01pi0\")",
]
RDNA = COMMON + [
    "ds_load_b32 v3, v1", "ds_load_b32 v1, v1 offset:40", "ds_load_b64 v[4:5], v1 offset:3",
    "ds_load_b96 v[4:6], v1", "ds_load_b128 v[4:7], v1 offset:200",
    "ds_load_u8 v3, v1", "ds_load_i8 v3, v1 offset:1", "ds_load_u16 v3, v1", "ds_load_i16 v3, v1 offset:250",
    "ds_load_u8_d16 v3, v1", "ds_load_i8_d16_hi v3, v1", "ds_load_u16_d16_hi v3, v1 offset:7",
    "ds_store_b32 v1, v2", "ds_store_b32 v1, v2 offset:254", "ds_store_b64 v1, v[2:3] offset:5",
    "ds_store_b96 v1, v[4:6]", "ds_store_b128 v1, v[4:7] offset:100", "ds_store_b8 v1, v2",
    "ds_store_b16 v1, v2 offset:1", "ds_store_b8_d16_hi v1, v2", "ds_store_b16_d16_hi v1, v2",
    "ds_load_2addr_b32 v[4:5], v1 offset0:1 offset1:60", "ds_load_2addr_b64 v[4:7], v1 offset0:3 offset1:30",
    "ds_load_2addr_stride64_b32 v[4:5], v1 offset0:0 offset1:1",
    "ds_load_2addr_stride64_b64 v[4:7], v1 offset1:1",
    "ds_store_2addr_b32 v1, v2, v3 offset0:0 offset1:1", "ds_store_2addr_b64 v1, v[2:3], v[4:5] offset0:1 offset1:9",
    "ds_store_2addr_stride64_b32 v1, v2, v3 offset0:1 offset1:0",
    "ds_store_2addr_stride64_b64 v1, v[2:3], v[4:5] offset1:1",
    "ds_load_addtid_b32 v3 offset:8", "ds_store_addtid_b32 v3 offset:120",
    "ds_storexchg_rtn_b32 v3, v1, v2", "ds_storexchg_rtn_b64 v[4:5], v1, v[2:3]",
    "ds_cmpstore_rtn_b32 v3, v1, v2, v4", "ds_cmpstore_b64 v1, v[2:3], v[4:5]",
]
CDNA_NAMES = {  # RDNA's mnemonic prefixes -> CDNA's (gfx942/gfx950 keep the older names)
    "ds_load_2addr_stride64_": "ds_read2st64_", "ds_store_2addr_stride64_": "ds_write2st64_",
    "ds_load_2addr_": "ds_read2_", "ds_store_2addr_": "ds_write2_", "ds_load_": "ds_read_", "ds_store_": "ds_write_",
    "ds_storexchg_": "ds_wrxchg_", "ds_cmpstore_": "ds_cmpst_",
}


def _cdna(line: str) -> str:
    prefix = next((p for p in CDNA_NAMES if line.startswith(p)), "")
    return CDNA_NAMES.get(prefix, "") + line[len(prefix):]


CDNA = [_cdna(line) for line in RDNA]
LINES = {"gfx1100": RDNA, "gfx1201": RDNA + ["ds_bpermute_fi_b32 v3, v1, v2"], "gfx942": CDNA, "gfx950": CDNA}
CASES = [(target, wave, line) for target, wave in TARGETS for line in LINES[target]]


def _dispatch(target: str, wave: int, text: str, seed: int, aligned: bool) -> Dispatch:
    rng = np.random.default_rng(seed)
    run = Dispatch(target, wave, groups=3, waves_per_group=1, lds_bytes=LDS_BYTES, vgprs=16)
    run.vgpr[:] = rng.integers(0, 1 << 32, run.vgpr.shape, dtype=np.uint64).astype(np.uint32)
    address = rng.integers(0, LDS_BYTES + 48, run.vgpr[:, 1, :].shape)  # some past the end
    address = np.where(rng.random(address.shape) < 0.2, rng.integers(0, 4, address.shape) * 8, address)  # collide
    run.vgpr[:, 1, :] = address & ~7 if aligned else address
    run.vgpr[:, 4, :] = np.where(rng.random(address.shape) < 0.5, run.vgpr[:, 2, :], run.vgpr[:, 4, :])  # cmpst equal
    run.lds[:] = rng.integers(0, 256, run.lds.shape)
    run.sgpr[:, 124:126] = rng.integers(0, 1 << 16, (run.waves.count, 2)) & 0xFF  # M0 (s124 CDNA, s125 RDNA)
    off = rng.random(run.vgpr[:, 0, :].shape) < 0.25
    off[0] = False  # one wave with every lane on
    run.waves.write_mask(EXEC_LO, np.arange(run.waves.count), ~off)
    run.device.alloc_at(CODE_BASE, assemble(run.isa, text + "\ns_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    return run


def _run(target: str, wave: int, text: str, seed: int, aligned: bool, native: bool) -> tuple:
    run = _dispatch(target, wave, text, seed, aligned)
    ctx = run.context()
    (engine.run if native else executor.run)(ctx, executor.Watchdog())
    w = ctx.waves
    return (w.vgpr.copy(), w.sgpr.copy(), ctx.lds.copy(), w.pc.copy(), w.state.copy(),
            ctx.stats["wave_instructions"], ctx.stats["lane_operations"])


@pytest.mark.parametrize("target,wave,line", CASES)
def test_a_ds_instruction_gives_the_reference_engines_bits(target, wave, line):
    for seed in range(3):
        for aligned in (True, False):
            expected = _run(target, wave, line, seed, aligned, native=False)
            got = _run(target, wave, line, seed, aligned, native=True)
            for what, a, b in zip(("vgpr", "sgpr", "lds", "pc", "state", "wave-instructions", "lane-operations"),
                                  expected, got, strict=True):
                assert np.array_equal(a, b), f"{line} on {target} wave{wave}, seed {seed}, aligned={aligned}: {what}"


@pytest.mark.parametrize("target,wave", TARGETS)
def test_ds_instructions_are_bound_natively(target, wave):
    lines = LINES[target]
    run = _dispatch(target, wave, "\n".join(lines), 0, True)
    code = assemble(run.isa, "\n".join(lines) + "\ns_endpgm\n").data
    ctx = run.context()
    program = engine.NativeProgram(ctx, CODE_BASE, ctx.memory.find(CODE_BASE).data[:len(code)])
    program.bind(ctx, executor.Program(ctx), [CODE_BASE], forward=True)
    names = {name for record in program.names for name in record}
    unbound = [line for line in lines if line.split()[0].upper() not in names]
    assert not unbound and program.bound == len(lines) + 1


PROGRAM = [  # stores, a barrier, loads of the other waves' data, stores, loads reaching past LDS (1200 bytes)
    "v_lshlrev_b32 v1, 2, v0", "ds_store_b32 v1, v2", "s_barrier",
    "v_xor_b32 v5, 0x7c, v1", "ds_load_b32 v6, v5", "ds_load_2addr_b32 v[8:9], v5 offset0:0 offset1:1",
    "ds_store_b32 v1, v6 offset:512", "ds_store_2addr_stride64_b32 v1, v8, v9 offset0:3 offset1:4", "s_barrier",
    "ds_load_b128 v[10:13], v1 offset:504", "ds_load_b64 v[14:15], v1 offset:1100",
]


def test_a_program_of_ds_instructions_runs_natively_across_workgroups():
    """PROGRAM on three workgroups of two waves: the same LDS and registers on both engines, and no
    instruction left to the reference engine."""
    results = []
    for native in (False, True):
        run = Dispatch("gfx1100", 32, groups=3, waves_per_group=2, lds_bytes=1200, vgprs=16)
        run.vgpr[:, 0, :] = run.lane_ids() + 32 * run.waves.wave_id[:, None].astype(np.uint32)
        run.vgpr[:, 2, :] = np.arange(run.vgpr[:, 2, :].size, dtype=np.uint32).reshape(run.vgpr[:, 2, :].shape)
        run.device.alloc_at(CODE_BASE, assemble(run.isa, "\n".join(PROGRAM) + "\ns_endpgm\n").data)
        run.waves.pc[:] = CODE_BASE
        ctx = run.context()
        (engine.run if native else executor.run)(ctx, executor.Watchdog())
        results.append((ctx.waves.vgpr.copy(), ctx.lds.copy(), ctx.stats["wave_instructions"]))
        if native:
            assert not ctx.stats.get("by_reference")
    for a, b in zip(*results, strict=True):
        assert np.array_equal(a, b)

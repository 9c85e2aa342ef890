"""Scalar ALU instructions on the emulator against an independent model (salu_model.py, written from the
RDNA3 ISA manual's descriptions), and scalar control flow (PC, branches, waits) on hand-made waves.

Each ALU test runs one gfx1100 instruction on many waves at once, every wave with its own random
sources, destination and SCC (edge values mixed in), and compares SDST, SCC and EXEC wave by wave.
"""
import numpy as np
import pytest
import salu_model as model
from asm_dispatch import CODE_BASE, run_program

from gpubench.isa.arch import ISA

WAVES = 64
SRC0, SRC1, DST = 2, 4, 8  # SGPRs of ssrc0, ssrc1 and sdst (pairs for 64-bit operands)
M0, EXEC = 125, 126
EDGES = (0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)
ISA_ = ISA.get("gfx1100")


def operand_bits(name: str) -> dict[str, int]:
    idef = next(d for d in ISA_.instructions if d.name == name.upper())
    return {op.field: op.bits for op in idef.operands}


def register(reg: int, bits: int) -> str:
    return f"s{reg}" if bits <= 32 else f"s[{reg}:{reg + bits // 32 - 1}]"


def random_dwords(rng, shape) -> np.ndarray:
    """Random dwords, a quarter of them edge values (0, sign bits, all ones ...)."""
    values = rng.integers(0, 1 << 32, shape, dtype=np.uint64)
    edges = rng.choice(np.array(EDGES, np.uint64), shape)
    return np.where(rng.random(shape) < 0.25, edges, values).astype(np.uint32)


def bit_field_sources(rng) -> np.ndarray:
    """S1 of s_bfe_*: offset in bits 5:0, width 0..32 in bits 22:16, random bits elsewhere."""
    noise = rng.integers(0, 1 << 32, WAVES, dtype=np.uint64) & ~np.uint64(0x7F003F)
    fields = rng.integers(0, 64, WAVES, dtype=np.uint64) | rng.integers(0, 33, WAVES, dtype=np.uint64) << 16
    return (noise | fields).astype(np.uint32)


def read(sgpr: np.ndarray, reg: int, bits: int) -> list[int]:
    value = sgpr[:, reg].astype(object)
    if bits > 32:
        value = value | sgpr[:, reg + 1].astype(object) << 32
    return list(value)


def run_salu(name: str, seed: int, wave_size: int = 32):
    """Run ``name`` once on WAVES waves with random registers: (state before, state after) as dicts of
    per-wave lists, and the instruction's operand widths."""
    bits = operand_bits(name)
    rng = np.random.default_rng(seed)
    sgpr = random_dwords(rng, (WAVES, 16))
    if name.startswith("s_bfe"):
        sgpr[:, SRC1] = bit_field_sources(rng)
    if rng.random() < 0.5:
        sgpr[::4, SRC1:SRC1 + 2] = sgpr[::4, SRC0:SRC0 + 2]  # equal sources: compares' equal case
    exec_mask = random_dwords(rng, (WAVES, 2))
    scc = rng.integers(0, 2, WAVES).astype(bool)
    simm16 = int(rng.integers(0, 1 << 16))

    def setup(ctx):
        w = ctx.waves
        w.sgpr[:, :16] = sgpr
        w.sgpr[:, EXEC:EXEC + 2] = exec_mask
        if wave_size == 32:
            w.sgpr[:, EXEC + 1] = 0
        w.scc[:] = scc

    operands = [register(reg, bits[field]) for field, reg in (("sdst", DST), ("ssrc0", SRC0), ("ssrc1", SRC1))
                if field in bits]
    if "simm16" in bits:
        operands.append(f"0x{simm16:x}")
    ctx = run_program(f"{name} {', '.join(operands)}", wave_size=wave_size, waves=WAVES, setup=setup)
    before = {"s0": read(sgpr, SRC0, bits.get("ssrc0", 32)), "s1": read(sgpr, SRC1, bits.get("ssrc1", 32)),
              "d": read(sgpr, DST, bits.get("sdst", 32)), "scc": [int(s) for s in scc],
              "exec": read(exec_mask, 0, wave_size), "simm16": [simm16] * WAVES}
    w = ctx.waves
    after = {"d": read(w.sgpr, DST, bits.get("sdst", 32)), "scc": [int(s) for s in w.scc],
             "exec": read(w.sgpr, EXEC, wave_size)}
    return before, after


def check(name: str, models: dict, wave_size: int = 32) -> None:
    for seed in range(3):
        before, after = run_salu(name, seed, wave_size)
        for wave in range(WAVES):
            inputs = {key: values[wave] for key, values in before.items()}
            want = models[name](**inputs)
            got = (after["d"][wave], after["scc"][wave], after["exec"][wave])
            expected = (inputs["d"] if want.d is None else want.d, inputs["scc"] if want.scc is None else want.scc,
                        inputs["exec"] if want.exec is None else want.exec)
            assert got == expected, f"{name} wave {wave} inputs {inputs}: (d, scc, exec) {got} != {expected}"


@pytest.mark.parametrize("name", sorted(model.SOP2))
def test_sop2_matches_model(name):
    check(name, model.SOP2)


@pytest.mark.parametrize("name", sorted(n for n in model.SOP1 if "exec_b64" not in n))
def test_sop1_matches_model(name):
    check(name, model.SOP1)


@pytest.mark.parametrize("name", sorted(n for n in model.SOP1 if "exec_b64" in n))
def test_exec_mask_b64_variants_match_model_in_wave64(name):
    check(name, model.SOP1, wave_size=64)


@pytest.mark.parametrize("name", sorted(model.SOPC))
def test_sopc_matches_model(name):
    check(name, model.SOPC)


@pytest.mark.parametrize("name", sorted(model.SOPK))
def test_sopk_matches_model(name):
    check(name, model.SOPK)


# -- program counter and branches ------------------------------------------------------------------


def sgpr64(ctx, reg: int) -> int:
    return int(ctx.waves.sgpr[0, reg]) | int(ctx.waves.sgpr[0, reg + 1]) << 32


def test_getpc_setpc_jump_over_instructions():
    # getpc gives the next instruction's address; +16 from there skips the add, addc, setpc and s10's mov
    ctx = run_program("s_getpc_b64 s[4:5]\n"          # CODE_BASE + 0
                      "s_add_u32 s4, s4, 16\n"         # + 4
                      "s_addc_u32 s5, s5, 0\n"         # + 8
                      "s_setpc_b64 s[4:5]\n"           # + 12
                      "s_mov_b32 s10, 1\n"             # + 16: skipped
                      "s_mov_b32 s11, 2")              # + 20
    assert sgpr64(ctx, 4) == CODE_BASE + 20
    assert ctx.waves.sgpr[0, 10] == 0 and ctx.waves.sgpr[0, 11] == 2


def test_swappc_saves_return_address_and_jumps():
    ctx = run_program("s_getpc_b64 s[4:5]\n"          # + 0
                      "s_add_u32 s4, s4, 16\n"         # + 4
                      "s_addc_u32 s5, s5, 0\n"         # + 8
                      "s_swappc_b64 s[6:7], s[4:5]\n"  # + 12: returns to + 16
                      "s_mov_b32 s10, 1\n"             # + 16: skipped
                      "s_mov_b32 s11, 2")              # + 20
    assert sgpr64(ctx, 6) == CODE_BASE + 16
    assert ctx.waves.sgpr[0, 10] == 0 and ctx.waves.sgpr[0, 11] == 2


def test_call_saves_return_address_and_branches_by_simm16_dwords():
    ctx = run_program("s_call_b64 s[6:7], 1\n"        # + 0: to (+ 4) + 1 * 4
                      "s_mov_b32 s10, 1\n"             # + 4: skipped
                      "s_mov_b32 s11, 2")              # + 8
    assert sgpr64(ctx, 6) == CODE_BASE + 4
    assert ctx.waves.sgpr[0, 10] == 0 and ctx.waves.sgpr[0, 11] == 2


@pytest.mark.parametrize("branch", ["s_cbranch_vccz", "s_cbranch_vccnz"])
def test_vcc_branches_per_wave(branch):
    """Two waves, VCC zero in wave 0 only: the waves part at the branch and each takes its own way."""
    def setup(ctx):
        ctx.waves.sgpr[:, 106] = [0, 0x10]
    ctx = run_program(f"{branch} 1\ns_mov_b32 s10, 1\ns_mov_b32 s11, 2", waves=2, setup=setup)
    taken = np.array([branch == "s_cbranch_vccz", branch == "s_cbranch_vccnz"])
    assert list(ctx.waves.sgpr[:, 10]) == list(np.where(taken, 0, 1))
    assert list(ctx.waves.sgpr[:, 11]) == [2, 2]


@pytest.mark.parametrize("branch", ["s_cbranch_cdbgsys", "s_cbranch_cdbguser", "s_cbranch_cdbgsys_or_user",
                                    "s_cbranch_cdbgsys_and_user"])
def test_conditional_debug_branches_fall_through_without_a_debugger(branch):
    ctx = run_program(f"{branch} 1\ns_mov_b32 s10, 1")
    assert ctx.waves.sgpr[0, 10] == 1


def test_movrelsd_2_offsets_source_and_destination_by_m0():
    """SGPR[dst + M0[25:16]] = SGPR[src + M0[9:0]]."""
    def setup(ctx):
        ctx.waves.sgpr[0, 20:30] = np.arange(100, 110)
    ctx = run_program(f"s_mov_b32 m0, {3 << 16 | 5}\ns_movrelsd_2_b32 s4, s20", setup=setup)
    assert ctx.waves.sgpr[0, 7] == 105
    assert list(ctx.waves.sgpr[0, 4:7]) == [0, 0, 0]


def test_waits_and_hints_change_no_state():
    """Memory completes at once in the emulator: waits, priorities, wakeups, prefetch and trace hints only advance."""
    def setup(ctx):
        ctx.waves.sgpr[0, :16] = np.arange(16) * 7
    hints = ("s_waitcnt_vmcnt null, 0\ns_waitcnt_expcnt null, 0\ns_waitcnt_lgkmcnt null, 0\n"
             "s_set_inst_prefetch_distance 1\ns_wait_idle\ns_wait_event 0\ns_setprio 2\ns_ttracedata\n"
             "s_ttracedata_imm 1\ns_icache_inv\ns_wakeup\ns_incperflevel 1\ns_decperflevel 1\n")
    ctx = run_program(hints + "s_mov_b32 s20, 1", setup=setup)
    assert list(ctx.waves.sgpr[0, :16]) == list(np.arange(16) * 7)
    assert ctx.waves.sgpr[0, 20] == 1
    assert ctx.stats["wave_instructions"] == 15  # the hints, the mov and s_endpgm


def test_endpgm_saved_ends_the_wave():
    ctx = run_program("s_endpgm_saved\ns_mov_b32 s10, 1")
    assert ctx.waves.sgpr[0, 10] == 0
    assert ctx.stats["wave_instructions"] == 1

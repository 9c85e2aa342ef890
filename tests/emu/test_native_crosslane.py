"""v_readlane_b32, v_readfirstlane_b32 (VOP1 and VOP3) and v_writelane_b32 run natively
(gpubench/emu/native/crosslane.py) on gfx1100 and gfx1201 in wave32 and wave64, gfx942 and gfx950:
registers, EXEC and the statistics bit for bit with the reference engine, and both against a lane
model written here. Random registers, lane selects from SGPRs, M0, EXEC, inline constants and
literals (out of range: taken modulo the wave size), EXEC all on, partly on, only the last lane on, and
zero (v_readfirstlane reads lane 0 then; v_writelane writes whatever EXEC says)."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.asm import assemble
from gpubench.isa.decoder import decode
from gpubench.isa.encoder import encode

TARGETS = [("gfx1100", 32), ("gfx1100", 64), ("gfx1201", 32), ("gfx1201", 64), ("gfx942", 64), ("gfx950", 64)]
# (move, destination, value, lane select): value a VGPR for the reads, an SGPR or constant for the write
CASES = [("read", "s8", "v3", "s5"), ("read", "s9", "v3", "m0"), ("read", "s8", "v6", "37"), ("read", "s8", "v3", "-1"),
         ("read", "vcc_lo", "v3", "exec_lo"), ("read", "exec_lo", "v3", "s5"), ("first", "s8", "v3", None),
         ("first", "m0", "v6", None), ("first_e64", "s8", "v3", None), ("write", "v3", "s8", "s5"),
         ("write", "v4", "7", "m0"), ("write", "v3", "s8", "33"), ("write", "v3", "exec_lo", "s6")]
RDNA_CASES = [("read", "null", "v3", "s5"), ("read", "s8", "v3", "0x12345"), ("write", "v3", "0x1234abcd", "s5"),
              ("write", "v5", "s8", "0x12345")]
MNEMONICS = {"read": "v_readlane_b32", "first": "v_readfirstlane_b32", "write": "v_writelane_b32"}
EXEC_PATTERNS = ["all", "partial", "last", "none"]
NAMED = {"vcc_lo": 106, "exec_lo": EXEC_LO}


def _m0(target: str) -> int:
    return 124 if target.startswith("gfx9") else 125


def _cases(target: str) -> list[tuple]:
    return CASES + (RDNA_CASES if not target.startswith("gfx9") else [])


def _code(target: str, wave_size: int, case: tuple) -> bytes:
    run = Dispatch(target, wave_size)
    move, dst, value, select = case
    if move == "first_e64":  # the VOP3 form, which LLVM does not assemble
        idef = next(d for d in run.isa.instructions if d.name == "V_READFIRSTLANE_B32_E64")
        fmt = "VOP3" if target.startswith("gfx9") else "VOP3_SDST"
        inst = encode(run.isa.formats[fmt], {"op": idef.opcode, "vdst": int(dst[1:]), "src0": 256 + int(value[1:])})
        assert decode(run.isa, inst).name == "V_READFIRSTLANE_B32_E64"
        return inst + assemble(run.isa, "s_endpgm").data
    operands = ", ".join(o for o in (dst, value, select) if o is not None)
    return assemble(run.isa, f"{MNEMONICS[move]} {operands}\ns_endpgm").data


def _exec_bits(pattern: str, wave_size: int, rng) -> np.ndarray:
    bits = {"all": np.ones(wave_size, bool), "none": np.zeros(wave_size, bool),
            "last": np.arange(wave_size) == wave_size - 1,
            "partial": rng.integers(0, 2, wave_size).astype(bool)}[pattern]
    if pattern == "partial":
        bits[0] = False
    return bits


def _setup(target: str, wave_size: int, seed: int, pattern: str) -> Dispatch:
    rng = np.random.default_rng(seed)
    run = Dispatch(target, wave_size, vgprs=8)
    run.vgpr[0] = rng.integers(0, 1 << 32, run.vgpr.shape[1:], dtype=np.uint64).astype(np.uint32)
    run.sgpr[0, :16] = rng.integers(0, 1 << 32, 16, dtype=np.uint64).astype(np.uint32)
    if seed % 2:  # a lane select in range (else a random word, mostly out of it)
        run.sgpr[0, 5] = rng.integers(0, wave_size)
    run.sgpr[0, _m0(target)] = rng.integers(0, 1 << 32, dtype=np.uint64)
    run.sgpr[0, 106:108] = rng.integers(0, 1 << 32, 2, dtype=np.uint64).astype(np.uint32)
    run.set_exec(_exec_bits(pattern, wave_size, rng))
    return run


def _run(target: str, wave_size: int, case: tuple, seed: int, pattern: str, native: bool):
    run = _setup(target, wave_size, seed, pattern)
    run.device.alloc_at(CODE_BASE, _code(target, wave_size, case))
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    (engine.run if native else executor.run)(ctx, executor.Watchdog())
    state = (run.sgpr.copy(), run.vgpr.copy(), run.waves.pc.copy(), ctx.stats["wave_instructions"],
             ctx.stats["lane_operations"])
    return state, sum(ctx.stats.get("by_reference", {}).values())


def _model(target: str, wave_size: int, case: tuple, seed: int, pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """The SGPRs and VGPRs after the move, worked out lane by lane from the registers before it."""
    before = _setup(target, wave_size, seed, pattern)
    sgpr, vgpr = before.sgpr[0].copy(), before.vgpr[0].copy()
    named = {**NAMED, "m0": _m0(target)}

    def scalar(name: str) -> int:
        if name in named:
            return int(sgpr[named[name]])
        return int(sgpr[int(name[1:])]) if name[0] == "s" else int(name, 0) & 0xFFFF_FFFF

    move, dst, value, select = case
    if move == "write":
        vgpr[int(dst[1:]), scalar(select) % wave_size] = scalar(value)
        return sgpr, vgpr
    if move == "read":
        lane = scalar(select) % wave_size
    else:
        exec_mask = int(sgpr[EXEC_LO]) | (int(sgpr[EXEC_LO + 1]) << 32 if wave_size == 64 else 0)
        lane = next((k for k in range(wave_size) if exec_mask >> k & 1), 0)
    if dst != "null":
        sgpr[named.get(dst) or int(dst[1:])] = vgpr[int(value[1:]), lane]
    return sgpr, vgpr


@pytest.mark.parametrize("pattern", EXEC_PATTERNS)
@pytest.mark.parametrize(("target", "wave_size"), TARGETS, ids=[f"{t}-w{w}" for t, w in TARGETS])
def test_a_lane_move_gives_the_reference_engines_bits_natively(target, wave_size, pattern):
    for case in _cases(target):
        for seed in range(3):
            (expected, _), (got, by_reference) = (_run(target, wave_size, case, seed, pattern, native)
                                                  for native in (False, True))
            for what, a, b in zip(("sgpr", "vgpr", "pc", "wave-instructions", "lane-ops"), expected, got, strict=True):
                assert np.array_equal(a, b), f"{case} seed {seed}: {what} differs"
            assert by_reference == 0, f"{case}: left to the reference engine"
            sgpr, vgpr = _model(target, wave_size, case, seed, pattern)
            assert np.array_equal(got[0][0], sgpr), f"{case} seed {seed}: SGPRs differ from the model"
            assert np.array_equal(got[1][0], vgpr), f"{case} seed {seed}: VGPRs differ from the model"


def test_the_cases_cover_every_form():
    names = {decode(Dispatch(t, w).isa, _code(t, w, case)).name for t, w in TARGETS for case in _cases(t)}
    assert names == {"V_READLANE_B32", "V_READFIRSTLANE_B32_E32", "V_READFIRSTLANE_B32_E64", "V_WRITELANE_B32"}

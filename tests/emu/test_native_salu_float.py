"""gfx12's scalar float instructions (SOP1/SOP2/SOPC/SOPK on f32 and f16) run natively, bit for bit
with the reference engine: random SGPRs with float specials (zeros, infinities, quiet and signaling
NaNs, denormals) in the sources, in the default float mode, where no wave-instruction goes to the
reference engine, and under a directed rounding with denormals flushed, where each goes to it and
still agrees. Registers, SCC, PC and the trap status (s_min/max_num raise INVALID) are compared. The
VALU's transcendentals of a scalar (v_s_*, an SGPR result) run natively too."""
import numpy as np
import pytest
from alu_sweep import Case
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.emu.ops import modes, valu
from gpubench.emu.ops import operands as opnd
from gpubench.isa.arch import ISA
from gpubench.isa.asm import assemble

TARGET = "gfx1201"
ISA_ = ISA.get(TARGET, 32)
SCALAR_FLOAT = sorted(d.name for d in ISA_.instructions if d.enum.startswith("SOP")
                      and any(opnd.float_kind(op.fmt) for op in d.operands if op.fmt))
SPECIALS = [0x0000_0000, 0x8000_0000, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0x7F80_0001, 0x0000_0001,
            0x807F_FFFF, 0x3F80_0000, 0xBF00_0000, 0x3C00, 0x7C00, 0x7E00, 0x7C01, 0x0001, 0x8400]
TOWARD_ZERO_FLUSHED = 0x3 | 0x3 << 2  # FP_ROUND: round toward zero for f32 and f16/f64; FP_DENORM: 0, flush


def _run(name: str, seed: int, native: bool, mode: int) -> tuple:
    idef = next(d for d in ISA_.instructions if d.name == name)
    case = Case.of(ISA_, idef)
    rng = np.random.default_rng(seed)
    run = Dispatch(TARGET, 32, vgprs=8)
    run.sgpr[0, :32] = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
    for reg in range(0, 32, 2):
        if rng.integers(0, 2):
            run.sgpr[0, reg] = SPECIALS[rng.integers(0, len(SPECIALS))]
    run.waves.scc[0] = rng.integers(0, 2)
    run.waves.mode[0] = mode
    run.device.alloc_at(CODE_BASE, case.inst_bytes() + assemble(run.isa, "s_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    (engine.run if native else executor.run)(ctx, executor.Watchdog())
    by_reference = sum(ctx.stats.get("by_reference", {}).values())
    return (run.sgpr.copy(), run.waves.scc.copy(), run.waves.pc.copy(), valu.trap_status(ctx).copy()), by_reference


def test_every_scalar_float_instruction_of_gfx12_is_checked():
    assert len(SCALAR_FLOAT) == 62


@pytest.mark.parametrize("mode", [modes.DEFAULT_FLOAT_MODE, TOWARD_ZERO_FLUSHED], ids=["default", "rtz-flush"])
@pytest.mark.parametrize("name", SCALAR_FLOAT)
def test_a_scalar_float_instruction_gives_the_reference_engines_bits(name, mode):
    for seed in range(4):
        (expected, _), (got, by_reference) = (_run(name, seed, native, mode) for native in (False, True))
        for what, a, b in zip(("sgpr", "scc", "pc", "trap status"), expected, got, strict=True):
            assert np.array_equal(a, b), f"{name} seed {seed}: {what} differs"
        # the s_endpgm runs natively either way; the float instruction only in the default mode
        assert by_reference == (0 if mode == modes.DEFAULT_FLOAT_MODE else 1)


PSEUDO_SCALAR = sorted(d.name for d in ISA_.instructions if d.name.startswith("V_S_"))


@pytest.mark.parametrize("exec_mask", [0xFFFF_FFFF, 0xFFFF_FFFE, 0], ids=["all", "lane0-off", "none"])
@pytest.mark.parametrize("name", PSEUDO_SCALAR)
def test_a_transcendental_of_a_scalar_gives_the_reference_engines_bits(name, exec_mask):
    """v_s_exp/log/rcp/rsq/sqrt write an SGPR whatever EXEC: natively, as on the reference engine."""
    text = f"{name.lower()} s20, s{{}}\nv_s_exp_f32 s21, -s{{}}"
    for reg in range(0, 16, 2):
        outcomes = []
        for native in (False, True):
            run = Dispatch(TARGET, 32, vgprs=8)
            run.sgpr[0, :16] = [SPECIALS[i % len(SPECIALS)] for i in range(16)]
            run.set_exec(np.array([(exec_mask >> lane) & 1 for lane in range(32)], bool))
            ctx = run(text.format(reg, reg + 1), "native" if native else "reference")
            outcomes.append((run.sgpr[0].copy(), sum(ctx.stats.get("by_reference", {}).values())))
        (expected, _), (got, by_reference) = outcomes
        assert np.array_equal(expected, got), f"{name} of s{reg}: SGPRs differ"
        assert by_reference == 0

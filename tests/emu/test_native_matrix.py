"""Dense float WMMA and MFMA on the native engine against the reference engine, bit for bit: random
register bits (so NaNs, infinities, denormals and signed zeros of every input type), with and without
NEG/NEG_HI and an inline C, D overlapping C; and that they are bound natively. A wave with lanes off
and a non-default MODE go to the reference engine, which decides them."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.context import ExecutionError
from gpubench.emu.native import engine
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.asm import assemble

CASES = [  # (target, wave size, instruction: D/C at v0, A at v16, B at v24)
    ("gfx1100", 32, "v_wmma_f32_16x16x16_f16 v[0:7], v[16:23], v[24:31], v[0:7]"),
    ("gfx1100", 32, "v_wmma_f32_16x16x16_bf16 v[0:7], v[16:23], v[24:31], v[0:7]"),
    ("gfx1100", 64, "v_wmma_f32_16x16x16_f16 v[0:3], v[16:23], v[24:31], v[0:3]"),
    ("gfx1100", 32, "v_wmma_f32_16x16x16_f16 v[0:7], v[16:23], v[24:31], v[0:7] neg_lo:[1,0,1] neg_hi:[0,1,1]"),
    ("gfx1100", 32, "v_wmma_f32_16x16x16_f16 v[0:7], v[16:23], v[24:31], 1.0"),
    ("gfx1201", 32, "v_wmma_f32_16x16x16_f16 v[0:7], v[16:19], v[24:27], v[0:7]"),
    ("gfx1201", 64, "v_wmma_f32_16x16x16_bf16 v[0:3], v[16:17], v[24:25], v[0:3]"),
    ("gfx942", 64, "v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[24:25], v[0:15]"),
    ("gfx942", 64, "v_mfma_f32_16x16x16_bf16 v[0:3], v[16:17], v[24:25], v[0:3]"),
    ("gfx942", 64, "v_mfma_f32_4x4x1_16b_f32 v[0:3], v16, v24, v[0:3]"),
    ("gfx942", 64, "v_mfma_f32_16x16x4_f32 v[0:3], v16, v24, 0"),
    ("gfx942", 64, "v_mfma_f64_16x16x4_f64 v[0:7], v[16:17], v[24:25], v[0:7] neg:[1,1,0]"),
    ("gfx942", 64, "v_mfma_f32_16x16x8_xf32 v[0:3], v[16:17], v[24:25], v[0:3]"),
    ("gfx950", 64, "v_mfma_f32_16x16x32_f16 v[0:3], v[16:19], v[24:27], v[0:3]"),
]


def _run(target: str, wave: int, text: str, seed: int, native: bool, exec_mask: int | None = None, mode=None):
    rng = np.random.default_rng(seed)
    run = Dispatch(target, wave, vgprs=40)
    run.vgpr[0] = rng.integers(0, 1 << 32, run.vgpr.shape[1:], dtype=np.uint64).astype(np.uint32)
    if seed % 2:  # finite values of every magnitude in most elements: sums that round
        run.vgpr[0] &= np.uint32(0xBFFFBFFF)
    if exec_mask is not None:
        run.sgpr[0, EXEC_LO] = exec_mask
    if mode is not None:
        run.waves.mode[0] = mode
    run.device.alloc_at(CODE_BASE, assemble(run.isa, text + "\ns_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    try:
        (engine.run if native else executor.run)(ctx, executor.Watchdog())
    except ExecutionError as error:
        return ctx, ("error", str(error))
    return ctx, (ctx.waves.vgpr.copy(), ctx.waves.pc.copy(), ctx.stats["wave_instructions"])


@pytest.mark.parametrize("target,wave,text", CASES)
def test_a_matrix_instruction_gives_the_reference_engines_bits_natively(target, wave, text):
    for seed in range(4):
        _, expected = _run(target, wave, text, seed, native=False)
        ctx, got = _run(target, wave, text, seed, native=True)
        for what, a, b in zip(("vgpr", "pc", "wave-instructions"), expected, got, strict=True):
            assert np.array_equal(a, b), f"{text} (seed {seed}): {what} differs"
        assert engine.NativeProgram.for_dispatch(ctx, CODE_BASE).table[0] >= 0, f"{text}: not bound natively"


def test_lanes_off_and_a_directed_round_mode_are_the_reference_engines():
    target, wave, text = CASES[0]
    _, expected = _run(target, wave, text, 0, native=False, exec_mask=0xFFFF_FFFE)
    _, got = _run(target, wave, text, 0, native=True, exec_mask=0xFFFF_FFFE)
    assert got == expected and "EXEC" in got[1]
    round_toward_zero = 0xF
    _, expected = _run(target, wave, text, 1, native=False, mode=round_toward_zero)
    _, got = _run(target, wave, text, 1, native=True, mode=round_toward_zero)
    assert np.array_equal(got[0], expected[0])

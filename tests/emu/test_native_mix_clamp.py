"""v_fma_mix_f32, v_fma_mixlo_f16 and v_fma_mixhi_f16 (gfx11, gfx12, CDNA) run natively with every
op_sel/op_sel_hi/neg/abs and clamp, and clamp of float results (f16, f32, f64, packed f16, the mix halves)
runs natively too (gpubench/emu/native/alu.py). Checked bit for bit against the reference engine on
random registers full of float specials, EXEC partly off, MODE.DX10_CLAMP on and off; and against models
written here: mixlo/mixhi are v_fma_mix_f32's result rounded to f16 by numpy, in the half they name with
the other half kept; clamp is the unclamped result saturated to [0, 1] (below 0: +0, -0 and NaN kept,
a NaN 0 under DX10_CLAMP)."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.emu.ops import modes
from gpubench.isa.asm import assemble

TARGETS = [("gfx1100", 32), ("gfx1100", 64), ("gfx1201", 32), ("gfx1201", 64), ("gfx942", 64), ("gfx950", 64)]
MIXES = ["v_fma_mix_f32", "v_fma_mixlo_f16", "v_fma_mixhi_f16"]
F16_SPECIALS = [0x0000, 0x8000, 0x3C00, 0xBC00, 0x3800, 0x3C01, 0x3BFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE01,
                0x0001, 0x8001, 0x03FF, 0x7BFF, 0x4000, 0xC100]
F32_SPECIALS = [0x0000_0000, 0x8000_0000, 0x3F80_0000, 0xBF80_0000, 0x3F00_0000, 0x3F80_0001, 0x3F7F_FFFF,
                0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0x7F80_0001, 0xFFC0_0001, 0x0000_0001, 0x8000_0001,
                0x007F_FFFF, 0x4000_0000, 0x3380_0000]
LANE_BITS = 0xF0F0_FF7E_6DB6_DB6D
SOURCES = ["v1", "v2", "v3", "s8", "0.5", "-2.0", "1.0"]


def _words(rng, shape) -> np.ndarray:
    """Register words: two f16 specials, an f32 special or random bits, drawn per word."""
    kind = rng.integers(0, 3, shape)
    f16 = np.array(F16_SPECIALS, np.uint32)
    halves = f16[rng.integers(0, len(f16), shape)] | f16[rng.integers(0, len(f16), shape)] << np.uint32(16)
    f32 = np.array(F32_SPECIALS, np.uint32)[rng.integers(0, len(F32_SPECIALS), shape)]
    noise = rng.integers(0, 1 << 32, shape, dtype=np.uint64).astype(np.uint32)
    return np.select([kind == 0, kind == 1], [halves, f32], noise)


def _run(target: str, wave_size: int, text: str, seed: int, native: bool, dx10: bool):
    rng = np.random.default_rng(seed)
    run = Dispatch(target, wave_size, vgprs=8)
    run.vgpr[0] = _words(rng, run.vgpr.shape[1:])
    run.sgpr[0, :16] = _words(rng, 16)
    run.set_exec(np.array([LANE_BITS >> lane & 1 for lane in range(wave_size)], bool))
    run.waves.mode[0] = modes.DEFAULT_FLOAT_MODE | (modes.DX10_CLAMP if dx10 else 0)
    run.device.alloc_at(CODE_BASE, assemble(run.isa, text + "\ns_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    (engine.run if native else executor.run)(ctx, executor.Watchdog())
    return run.vgpr[0].copy(), sum(ctx.stats.get("by_reference", {}).values())


def _mix_text(name: str, rng, clamp: bool) -> str:
    """``name`` with random sources and modifiers: op_sel, op_sel_hi, neg and abs per source."""
    sources = [SOURCES[0]] + [SOURCES[k] for k in rng.integers(0, len(SOURCES), 2)]
    for k, modifier in enumerate(rng.integers(0, 4, 3)):
        sources[k] = {0: sources[k], 1: f"-{sources[k]}", 2: f"|{sources[k]}|", 3: f"-|{sources[k]}|"}[modifier]
    op_sel, op_sel_hi = (",".join(str(bit) for bit in rng.integers(0, 2, 3)) for _ in range(2))
    return f"{name} v4, {', '.join(sources)} op_sel:[{op_sel}] op_sel_hi:[{op_sel_hi}]{' clamp' if clamp else ''}"


def _agree(target, wave_size, text, seed, dx10) -> np.ndarray:
    (expected, _), (got, by_reference) = (_run(target, wave_size, text, seed, native, dx10) for native in (False, True))
    assert np.array_equal(expected, got), f"{text} seed {seed}: VGPRs differ"
    assert by_reference == 0, f"{text}: left to the reference engine"
    return got


@pytest.mark.parametrize(("target", "wave_size"), TARGETS, ids=[f"{t}-w{w}" for t, w in TARGETS])
def test_a_mix_gives_the_reference_engines_bits_natively(target, wave_size):
    rng = np.random.default_rng(wave_size)
    for trial in range(12):
        for name in MIXES:
            text = _mix_text(name, rng, clamp=bool(trial % 3 == 0))
            _agree(target, wave_size, text, trial, dx10=bool(trial % 2))


@pytest.mark.parametrize(("target", "wave_size"), [("gfx1100", 32), ("gfx942", 64)])
def test_mixlo_and_mixhi_write_the_f32_mix_rounded_in_their_half(target, wave_size):
    rng = np.random.default_rng(7)
    exec_bits = np.array([LANE_BITS >> lane & 1 for lane in range(wave_size)], bool)
    for trial in range(8):
        text = _mix_text("v_fma_mix_f32", rng, clamp=False)
        wide, _ = _run(target, wave_size, text, trial, True, False)
        before, _ = _run(target, wave_size, "s_nop 0", trial, True, False)
        rounded = wide[4].view(np.float32).astype(np.float16).view(np.uint16).astype(np.uint32)
        number = ~np.isnan(wide[4].view(np.float32)) & exec_bits  # f32 NaNs: quieted as the pseudocode says
        for high in (False, True):
            got = _agree(target, wave_size, text.replace("v_fma_mix_f32", f"v_fma_mix{'hi' if high else 'lo'}_f16"),
                         trial, False)
            kept, written = (got[4] & 0xFFFF, got[4] >> 16) if high else (got[4] >> 16, got[4] & 0xFFFF)
            old_kept = before[4] & 0xFFFF if high else before[4] >> 16
            assert np.array_equal(kept, old_kept), f"{text}: the other half is not kept"
            assert np.array_equal(written[number], rounded[number]), f"{text}: the half is not the f32 mix rounded"
            assert np.array_equal(got[4][~exec_bits], before[4][~exec_bits])


CLAMPED = {  # (instruction without clamp, the float fields of v4: (bit offset, width))
    "gfx1100": [("v_add_f32_e64 v4, v1, v2", ((0, 32),)), ("v_mul_f32_e64 v4, -v1, s8", ((0, 32),)),
                ("v_add_f16_e64 v4.l, v1.l, v2.h", ((0, 16),)), ("v_fma_f16 v4.h, v1.h, v2.l, v3.l", ((16, 16),)),
                ("v_pk_add_f16 v4, v1, v2", ((0, 16), (16, 16))), ("v_pk_fma_f16 v4, v1, v2, v3 op_sel:[1,0,0]",
                                                                   ((0, 16), (16, 16))),
                ("v_fma_mixlo_f16 v4, v1, v2, v3 op_sel_hi:[1,1,1]", ((0, 16),)),
                ("v_fma_mixhi_f16 v4, v1, v2, v3", ((16, 16),)), ("v_fma_mix_f32 v4, v1, v2, v3 op_sel_hi:[0,1,1]",
                                                                  ((0, 32),))],
    "gfx942": [("v_add_f32_e64 v4, v1, v2", ((0, 32),)), ("v_fma_f64 v[4:5], v[1:2], v[2:3], v[6:7]", ((0, 64),)),
               ("v_pk_mul_f16 v4, v1, v2", ((0, 16), (16, 16))), ("v_fma_mixhi_f16 v4, v1, v2, v3", ((16, 16),))],
}
FLOAT = {16: (np.float16, np.uint16), 32: (np.float32, np.uint32), 64: (np.float64, np.uint64)}


def _clamped(value: np.ndarray, fields, dx10: bool) -> np.ndarray:
    """The model: each field saturated to [0, 1] by comparisons (a NaN kept, or 0 under DX10_CLAMP)."""
    value = value.astype(np.uint64)
    for shift, width in fields:
        ftype, itype = FLOAT[width]
        mask = np.uint64((1 << width) - 1)
        x = ((value >> np.uint64(shift)) & mask).astype(itype).view(ftype)
        nan = np.isnan(x)
        clipped = np.where(x < 0, ftype(0), np.where(x > 1, ftype(1), x)).astype(ftype)
        clipped = np.where(nan & dx10, ftype(0), clipped).astype(ftype)
        value = (value & ~(mask << np.uint64(shift))) | (clipped.view(itype).astype(np.uint64) << np.uint64(shift))
    return value


@pytest.mark.parametrize("dx10", [False, True], ids=["nan-kept", "dx10-clamp"])
@pytest.mark.parametrize("target", sorted(CLAMPED))
def test_clamp_saturates_a_float_result_natively(target, dx10):
    wave_size = 32 if target == "gfx1100" else 64
    for text, fields in CLAMPED[target]:
        for seed in range(4):
            plain, _ = _run(target, wave_size, text, seed, False, dx10)
            got = _agree(target, wave_size, f"{text} clamp", seed, dx10)
            wide = fields[0][1] == 64
            value = plain[4].astype(np.uint64) | (plain[5].astype(np.uint64) << np.uint64(32) if wide else 0)
            result = got[4].astype(np.uint64) | (got[5].astype(np.uint64) << np.uint64(32) if wide else 0)
            active = np.array([LANE_BITS >> lane & 1 for lane in range(wave_size)], bool)
            assert np.array_equal(result[active], _clamped(value, fields, dx10)[active]), f"{text} clamp seed {seed}"
            assert np.array_equal(result[~active], value[~active])

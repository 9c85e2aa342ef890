"""The native VALU handlers' lane loops (alu.py, vopd.py, lower.emit_lanes): vectorized as parallel loops,
numpy's float64 loop (transcendentals) called once over every lane of the wave, a disabled lane's VGPR
written back unchanged (a blend and a plain store, not a masked store). Checked bit for bit against the
reference engine on registers full of float specials (NaN, inf, denormals, huge sin/cos arguments) and
random bits, with a destination that is also a source, on EXEC all on, all off and partly on; and against
models written here: the disabled lanes keep their bits, v_exp_f32 is numpy's float64 power of 2 rounded,
v_sin_f32 the float64 sine of its input's fraction of a revolution, v_mul_f32 numpy's f32 product."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.isa.asm import assemble

F32_SPECIALS = [0x0000_0000, 0x8000_0000, 0x3F80_0000, 0xBF80_0000, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0000,
                0x7F80_0001, 0xFFC0_0001, 0x0000_0001, 0x8000_0001, 0x007F_FFFF, 0x7F7F_FFFF, 0xFF7F_FFFF,
                0x7149_F2CA, 0x5F80_0000, 0x4B00_0001, 0x42FE_0000, 0xC316_0000, 0x3E22_F983]  # 1e30, 2^64 ...
EXECS = {"all": (1 << 64) - 1, "none": 0, "part": 0xF0F0_FF7E_6DB6_DB6D, "last": 1 << 63}
WAVES = [("gfx1100", 32), ("gfx1100", 64), ("gfx1201", 32)]
LINES = [  # each writes a register it reads
    "v_sin_f32 v1, v1", "v_cos_f32 v2, v1", "v_exp_f32 v1, v1", "v_log_f32 v3, v3", "v_sin_f16 v1, v1",
    "v_exp_f16 v2, v1", "v_sin_f32_e64 v1, -|v1|", "v_mul_f32 v1, v1, v2", "v_fma_f32 v2, v1, v2, v3",
    "v_add_f64 v[2:3], v[2:3], v[4:5]", "v_lshlrev_b64 v[1:2], 3, v[1:2]", "v_add_co_u32 v1, vcc_lo, v1, v2",
    "v_add_co_ci_u32_e32 v2, vcc_lo, v1, v2, vcc_lo", "v_cmp_lt_f32_e32 vcc_lo, v1, v2",
    "v_dual_mul_f32 v1, v1, v2 :: v_dual_add_f32 v2, v3, v1",
]


def _words(rng, shape) -> np.ndarray:
    """An f32 special (or a neighbour of one) or random bits, drawn per word."""
    specials = np.array(F32_SPECIALS, np.int64)[rng.integers(0, len(F32_SPECIALS), shape)]
    near = (specials + rng.integers(-2, 3, shape)).astype(np.uint32)
    noise = rng.integers(0, 1 << 32, shape, dtype=np.uint64).astype(np.uint32)
    return np.where(rng.integers(0, 3, shape) == 0, noise, near)


def _run(target: str, wave_size: int, text: str, exec_bits: int, seed: int, native: bool):
    """``text`` on one wave: its VGPRs before and after, its VCC after, the wave-instructions left to the
    reference engine."""
    rng = np.random.default_rng(seed)
    run = Dispatch(target, wave_size, vgprs=8)
    run.vgpr[0] = _words(rng, run.vgpr.shape[1:])
    run.sgpr[0, :16] = _words(rng, 16)
    run.set_exec(np.array([exec_bits >> lane & 1 for lane in range(wave_size)], bool))
    before = run.vgpr[0].copy()
    if wave_size == 64:
        text = text.replace("vcc_lo", "vcc")
    run.device.alloc_at(CODE_BASE, assemble(run.isa, text + "\ns_endpgm\n").data)
    run.waves.pc[:] = CODE_BASE
    ctx = run.context()
    (engine.run if native else executor.run)(ctx, executor.Watchdog())
    vcc = run.sgpr[0, 106:108].copy()
    return before, run.vgpr[0].copy(), vcc, sum(ctx.stats.get("by_reference", {}).values())


def _f32(bits: np.ndarray) -> np.ndarray:
    return bits.astype(np.uint32).view(np.float32)


def _model(line: str, before: np.ndarray) -> tuple[int, np.ndarray] | None:
    """(destination VGPR, its value in every lane) for the lines modelled here; finite inputs only."""
    with np.errstate(all="ignore"):
        if line == "v_exp_f32 v1, v1":
            return 1, np.power(2.0, _f32(before[1]).astype(np.float64)).astype(np.float32)
        if line == "v_sin_f32 v1, v1":
            x = _f32(before[1])
            turn = (x - np.trunc(x)) * np.float32(2 * np.pi)  # the correction: revolutions first (f32)
            return 1, np.sin(turn.astype(np.float64)).astype(np.float32)
        if line == "v_mul_f32 v1, v1, v2":
            return 1, _f32(before[1]) * _f32(before[2])
    return None


@pytest.mark.parametrize("target,wave_size,line", [(t, w, line) for line in LINES for t, w in WAVES
                                                   if w == 32 or "::" not in line])  # VOPD: wave32 only
def test_a_lane_loop_gives_the_reference_engines_bits(target, wave_size, line):
    for seed, (name, bits) in enumerate(EXECS.items()):
        if wave_size == 32 and name == "last":
            continue
        before, expected, expected_vcc, _ = _run(target, wave_size, line, bits, seed, native=False)
        same_before, got, got_vcc, by_reference = _run(target, wave_size, line, bits, seed, native=True)
        assert np.array_equal(before, same_before)
        assert by_reference == 0, (line, "left to the reference engine")
        bad = np.argwhere(expected != got)
        assert not bad.size, (line, name, [(int(r), int(c), hex(before[r, c]), hex(expected[r, c]), hex(got[r, c]))
                                           for r, c in bad[:4]])
        if "vcc" in line:
            assert np.array_equal(expected_vcc, got_vcc), (line, name)
        enabled = np.array([bits >> lane & 1 for lane in range(wave_size)], bool)
        written = np.flatnonzero((got != before).any(axis=1))
        assert not (got[:, ~enabled] != before[:, ~enabled]).any(), (line, name, "a disabled lane changed")
        model = _model(line, before)
        if model is not None:
            register, value = model
            assert list(written) in ([], [register])
            finite = enabled & np.isfinite(value) & np.isfinite(_f32(before[register]))
            assert np.array_equal(got[register, finite], value[finite].view(np.uint32)), (line, name)

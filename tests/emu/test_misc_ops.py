"""Instructions without an effect on a compute wave (wave_hints.py): probes, the code-end marker and
s_setkill, checked against what the manual says: registers, memory and SCC untouched, the wave goes on
(or, for s_setkill 1, stops there)."""
import numpy as np
from asm_dispatch import Dispatch


def test_probes_and_code_end_do_nothing():
    rng = np.random.default_rng(1)
    run = Dispatch("gfx1100", 32, groups=1, waves_per_group=2)
    run.vgpr[:] = rng.integers(0, 1 << 32, run.vgpr.shape, dtype=np.uint64).astype(np.uint32)
    run.sgpr[:, :100] = rng.integers(0, 1 << 32, (2, 100), dtype=np.uint64).astype(np.uint32)
    vgpr, sgpr = run.vgpr.copy(), run.sgpr.copy()
    run("""
        s_atc_probe 7, s[4:5], 0x10
        s_atc_probe_buffer 7, s[4:7], 0x10
        s_code_end
        s_setkill 0
        v_mov_b32 v31, 5
    """)
    vgpr[:, 31, :] = 5
    np.testing.assert_array_equal(run.vgpr, vgpr)
    np.testing.assert_array_equal(run.sgpr[:, :100], sgpr[:, :100])


def test_setkill_with_bit_0_set_ends_the_wave():
    run = Dispatch("gfx1100", 32)
    run("""
        v_mov_b32 v1, 1
        s_setkill 3
        v_mov_b32 v1, 2
    """)
    np.testing.assert_array_equal(run.vgpr[0, 1], 1)


def _reference_pk(a: np.ndarray, b: np.ndarray, low: int, high: int) -> np.ndarray:
    """{b, a} each truncated toward zero, NaN to 0, saturated to [low, high] (the manual's float -> int rule)."""
    def one(x):
        x = np.nan_to_num(x.astype(np.float64), nan=0.0)
        return (np.clip(np.trunc(x), low, high).astype(np.int64) & 0xFFFF).astype(np.uint32)
    return one(a) | one(b) << 16


def test_cvt_pk_i16_u16_f32():
    rng = np.random.default_rng(4)
    values = (rng.standard_normal((2, 32)) * np.array([[1e5], [300]])).astype(np.float32)
    values[0, :6] = [np.nan, np.inf, -np.inf, -0.0, 32767.9, -32768.9]
    values[1, :6] = [65535.5, -1.5, 0.99, np.nan, 1e30, -1e30]
    run = Dispatch("gfx1100", 32)
    run.vgpr[0, 1:3, :] = values.view(np.uint32)
    run("v_cvt_pk_i16_f32 v3, v1, v2\n v_cvt_pk_u16_f32 v4, v1, v2")
    np.testing.assert_array_equal(run.vgpr[0, 3], _reference_pk(values[0], values[1], -32768, 32767))
    np.testing.assert_array_equal(run.vgpr[0, 4], _reference_pk(values[0], values[1], 0, 65535))

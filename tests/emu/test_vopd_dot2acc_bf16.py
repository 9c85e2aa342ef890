"""v_dual_dot2acc_f32_bf16 on gfx1100: RDNA3's manual gives it no pseudocode, so the emulator takes
RDNA4's for the same operation (ops/vopd.py). Checked against numpy: D += a.lo*b.lo + a.hi*b.hi."""
from __future__ import annotations

import numpy as np

from tests.emu.asm_dispatch import run_program


def bf16_pairs(values: np.ndarray) -> np.ndarray:
    bits = values.astype(np.float32).view(np.uint32) >> 16
    return bits[:, 0] | (bits[:, 1] << 16)


def test_dot2acc_bf16_accumulates_in_f32():
    rng = np.random.default_rng(5)
    a, b = (np.round(rng.uniform(-8, 8, (32, 2)), 1) for _ in range(2))
    a_bf, b_bf = (np.frombuffer((bf16_pairs(x) & 0xFFFF).astype(np.uint32) << 16, np.float32) for x in (a, b))
    a_hi, b_hi = (np.frombuffer(bf16_pairs(x) & 0xFFFF0000, np.float32) for x in (a, b))
    accumulator = rng.uniform(-4, 4, 32).astype(np.float32)

    def setup(ctx):
        ctx.waves.vgpr[0, 1, :], ctx.waves.vgpr[0, 2, :] = bf16_pairs(a), bf16_pairs(b)
        ctx.waves.vgpr[0, 4, :] = accumulator.view(np.uint32)
        ctx.waves.vgpr[0, 6, :] = 7
    ctx = run_program("v_dual_dot2acc_f32_bf16 v4, v1, v2 :: v_dual_mov_b32 v5, v6", setup=setup)
    expected = (accumulator.astype(np.float64) + a_bf.astype(np.float64) * b_bf + a_hi.astype(np.float64) * b_hi)
    np.testing.assert_allclose(ctx.waves.vgpr[0, 4, :].view(np.float32), expected, rtol=1e-6, atol=1e-6)
    assert (ctx.waves.vgpr[0, 5, :] == 7).all()

"""gfx950's v_bitop3: any three-input bitwise function, by its 8-entry truth table (found by
tinygrad's test_ops on gfx950, where LLVM folds and/or/xor chains into it). Checked bit by bit
against the table's definition in plain Python."""
from __future__ import annotations

import numpy as np
import pytest

from tests.emu.asm_dispatch import run_program


def reference(a: int, b: int, c: int, table: int, bits: int) -> int:
    return sum(((table >> ((a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1))) & 1) << i for i in range(bits))


@pytest.mark.parametrize("table", [0x00, 0x01, 0x6C, 0x8C, 0x96, 0xE8, 0xFF])
def test_bitop3_b32(table):
    rng = np.random.default_rng(table)
    a, b, c = (rng.integers(0, 2**32, 64, dtype=np.uint32) for _ in range(3))

    def setup(ctx):
        ctx.waves.vgpr[0, 1, :], ctx.waves.vgpr[0, 2, :], ctx.waves.vgpr[0, 3, :] = a, b, c
    ctx = run_program(f"v_bitop3_b32 v4, v1, v2, v3 bitop3:0x{table:x}", target="gfx950", wave_size=64, setup=setup)
    got = ctx.waves.vgpr[0, 4, :]
    assert [int(x) for x in got] == [reference(int(x), int(y), int(z), table, 32) for x, y, z in zip(a, b, c)]


def test_bitop3_b16_halves():
    def setup(ctx):
        ctx.waves.vgpr[0, 1, :] = 0x1234_00FF
        ctx.waves.vgpr[0, 2, :] = 0x0F0F_0000
        ctx.waves.vgpr[0, 4, :] = 0xAAAA_5555
    ctx = run_program("v_bitop3_b16 v4, v1, v2, v1 bitop3:0x96 op_sel:[1,1,0,1]", target="gfx950", wave_size=64,
                      setup=setup)
    # xor of v1.h, v2.h, v1.l into v4.h; v4.l kept
    assert ctx.waves.vgpr[0, 4, 0] == ((0x1234 ^ 0x0F0F ^ 0x00FF) << 16 | 0x5555)

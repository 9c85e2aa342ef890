"""CDNA's packed f32 math (v_pk_add/mul/fma_f32): op_sel/op_sel_hi pick 32-bit halves of 64-bit
sources, neg_lo/neg_hi negate them; an inline constant is f32 in the low half (LLVM broadcasts it
with op_sel_hi:0). Found by tinygrad's test_ops on gfx942, where every `x + 1` used it."""
from __future__ import annotations

import numpy as np
import pytest

from tests.emu.asm_dispatch import run_program

S = (5.0, 7.0)  # s[2:3]
V = (1.0, 2.0)  # v[4:5]


@pytest.mark.parametrize("program, expected", [
    ("v_pk_add_f32 v[2:3], s[2:3], 1.0 op_sel_hi:[1,0]", (6.0, 8.0)),
    ("v_pk_add_f32 v[2:3], v[4:5], 1.0", (2.0, 2.0)),
    ("v_pk_add_f32 v[2:3], s[2:3], v[4:5]", (6.0, 9.0)),
    ("v_pk_add_f32 v[2:3], v[4:5], v[4:5] op_sel:[1,0] neg_lo:[0,1]", (1.0, 4.0)),
    ("v_pk_mul_f32 v[2:3], s[2:3], v[4:5] op_sel_hi:[0,1] neg_hi:[0,1]", (5.0, -10.0)),
    ("v_pk_fma_f32 v[2:3], s[2:3], v[4:5], v[4:5] op_sel:[0,0,1]", (7.0, 16.0)),
])
def test_packed_f32_halves(program, expected):
    def setup(ctx):
        ctx.waves.sgpr[:, 2:4] = np.array(S, np.float32).view(np.uint32)
        ctx.waves.vgpr[:, 4, :] = np.float32(V[0]).view(np.uint32)
        ctx.waves.vgpr[:, 5, :] = np.float32(V[1]).view(np.uint32)
    ctx = run_program(program, target="gfx942", wave_size=64, setup=setup)
    got = ctx.waves.vgpr[:, 2:4, :].view(np.float32)
    assert (got[:, 0, :] == expected[0]).all() and (got[:, 1, :] == expected[1]).all()


@pytest.mark.parametrize("op_sel, expected", [("[0,0]", (1.0, 5.0)), ("[1,0]", (2.0, 5.0)), ("[0,1]", (1.0, 7.0)),
                                              ("[1,1]", (2.0, 7.0))])
def test_pk_mov_b32_picks_dwords_by_op_sel(op_sel, expected):
    """v_pk_mov_b32 (manual semantics: ops/packed_move.py) picks each dword by op_sel."""
    def setup(ctx):
        ctx.waves.sgpr[:, 2:4] = np.array(S, np.float32).view(np.uint32)
        ctx.waves.vgpr[:, 4, :] = np.float32(V[0]).view(np.uint32)
        ctx.waves.vgpr[:, 5, :] = np.float32(V[1]).view(np.uint32)
    ctx = run_program(f"v_pk_mov_b32 v[2:3], v[4:5], s[2:3] op_sel:{op_sel}", target="gfx942", wave_size=64,
                      setup=setup)
    got = ctx.waves.vgpr[:, 2:4, :].view(np.float32)
    assert (got[:, 0, :] == expected[0]).all() and (got[:, 1, :] == expected[1]).all()

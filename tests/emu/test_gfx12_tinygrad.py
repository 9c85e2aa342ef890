"""gfx12 code tinygrad emits, each found by tinygrad's test_ops on gfx1201: v_s_* (VOP3
transcendentals of a scalar, written to an SGPR), s_min/max_num (which raise INVALID on a signaling
NaN), the sub-dword scalar loads, and neg/abs on source 0 of VOP3 16-bit ops (which RDNA4's tables
name vsrc0)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.emu.asm_dispatch import Dispatch, run_program

VALUES = np.array([0.5, 2.0, 3.0, 100.0], np.float32)
REFERENCES = {"v_s_log_f32": np.log2, "v_s_exp_f32": np.exp2, "v_s_sqrt_f32": np.sqrt,
              "v_s_rcp_f32": lambda x: 1 / x, "v_s_rsq_f32": lambda x: 1 / np.sqrt(x)}


@pytest.mark.parametrize("mnemonic", sorted(REFERENCES))
def test_scalar_transcendental_writes_the_sgpr(mnemonic):
    program = "\n".join(f"s_mov_b32 s{i}, 0x{int(v.view(np.uint32)):x}\n{mnemonic} s{10 + i}, s{i}"
                        for i, v in enumerate(VALUES))
    ctx = run_program(program, target="gfx1201")
    got = ctx.waves.sgpr[0, 10:14].view(np.float32)
    np.testing.assert_allclose(got, REFERENCES[mnemonic](VALUES.astype(np.float64)), rtol=2e-7 * 4)


def test_scalar_max_num_of_a_signaling_nan_returns_the_other_operand_and_raises_invalid():
    ctx = run_program("s_mov_b32 s0, 0x7f800001\ns_mov_b32 s1, 2.0\ns_max_num_f32 s2, s0, s1\n"
                      "s_max_num_f32 s3, s1, 1.0\ns_getreg_b32 s4, hwreg(HW_REG_WAVE_EXCP_FLAG_USER)",
                      target="gfx1201")
    assert ctx.waves.sgpr[0, 2:4].view(np.float32).tolist() == [2.0, 2.0]
    assert ctx.waves.sgpr[0, 4] & 1


@pytest.mark.parametrize("mnemonic, expected", [("s_load_u8", 0xF6), ("s_load_i8", 0xFFFFFFF6),
                                                ("s_load_u16", 0xF7F6), ("s_load_i16", 0xFFFFF7F6)])
def test_scalar_sub_dword_loads_extend_one_byte_or_half(mnemonic, expected):
    run = Dispatch("gfx1201", 32)
    run.sgpr_pair(0, run.buffer(np.array([0xF9F8F7F6], np.uint32)).address)
    ctx = run(f"{mnemonic} s4, s[0:1], 0x0\ns_wait_kmcnt 0")
    assert ctx.waves.sgpr[0, 4] == expected


@pytest.mark.parametrize("program, expected", [("v_add_f16_e64 v1, -v1, v2", -8.0), ("v_mul_f16_e64 v1, -v1, v2", 15.0),
                                               ("v_max_num_f16_e64 v1, -v1, -v1", -3.0),
                                               ("v_add_f32_e64 v3, -v3, |v4|", 2.0)])
def test_source_modifiers_of_vop3_source_0(program, expected):
    def setup(ctx):
        ctx.waves.vgpr[:, 1, :] = np.float16(3.0).view(np.uint16)
        ctx.waves.vgpr[:, 2, :] = np.float16(-5.0).view(np.uint16)
        ctx.waves.vgpr[:, 3, :] = np.float32(3.0).view(np.uint32)
        ctx.waves.vgpr[:, 4, :] = np.float32(-5.0).view(np.uint32)
    ctx = run_program(program, target="gfx1201", setup=setup)
    result = ctx.waves.vgpr[0, 3 if "f32" in program else 1, :]
    got = result.view(np.float32) if "f32" in program else (result & 0xFFFF).astype(np.uint16).view(np.float16)
    assert (got == expected).all()

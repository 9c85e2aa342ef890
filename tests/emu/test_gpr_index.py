"""gfx942/gfx950's VGPR index mode: s_set_gpr_idx_on / _off / _idx / _mode and the VALU instructions run
in it, against a model of the register file written here (register r of lane l holds 1000 * r + l; an
enabled operand names register + M0[7:0]), on both engines."""
import numpy as np
import pytest
from asm_dispatch import Dispatch
from hypothesis import given, settings
from hypothesis import strategies as st

from gpubench.emu.context import ExecutionError

ENGINES = ("reference", "native")
TARGETS = ("gfx942", "gfx950")
VGPRS = 64
LANES = 64
M0 = 124
ENABLES = ("SRC0", "SRC1", "SRC2", "DST")


def dispatch(target, waves=1):
    d = Dispatch(target, 64, waves_per_group=waves, vgprs=VGPRS)
    d.vgpr[:] = (1000 * np.arange(VGPRS, dtype=np.uint32)[:, None] + np.arange(LANES, dtype=np.uint32))[None]
    return d


def register(r):
    """The model's initial register ``r``, per lane."""
    return 1000 * r + np.arange(LANES, dtype=np.uint32)


def gpr_idx(mask):
    return "gpr_idx(" + ",".join(name for bit, name in enumerate(ENABLES) if mask >> bit & 1) + ")"


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=10, deadline=None)
@given(index=st.integers(0, 30), mask=st.integers(1, 15))
def test_enabled_operands_of_a_vop3_move_by_the_index(target, index, mask):
    # v_add3_u32 v1, v2, v3, v4: SRC0 = v2, SRC1 = v3, SRC2 = v4, DST = v1
    moved = [r + (index if mask >> bit & 1 else 0) for bit, r in enumerate((2, 3, 4, 1))]
    want = register(moved[0]) + register(moved[1]) + register(moved[2])
    for engine_name in ENGINES:
        d = dispatch(target)
        d.sgpr[0, 5] = index
        ctx = d(f"s_set_gpr_idx_on s5, {gpr_idx(mask)}\nv_add3_u32 v1, v2, v3, v4\ns_set_gpr_idx_off", engine_name)
        assert list(ctx.waves.vgpr[0, moved[3]]) == list(want), engine_name
        if moved[3] != 1:
            assert list(ctx.waves.vgpr[0, 1]) == list(register(1)), engine_name


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_llvm_dynamic_extract_and_insert(target, engine_name):
    # what clang emits for v[n] of a private float array held in VGPRs (s0 = n): a read, then a write
    d = dispatch(target)
    d.sgpr[0, 0], d.sgpr[0, 1] = 7, 9
    ctx = d("s_set_gpr_idx_on s0, gpr_idx(SRC0)\nv_mov_b32_e32 v40, v0\ns_set_gpr_idx_off\n"
            "s_set_gpr_idx_on s1, gpr_idx(DST)\nv_mov_b32_e32 v0, v42\ns_set_gpr_idx_off\n"
            "v_mov_b32_e32 v41, v1", engine_name)
    v = ctx.waves.vgpr[0]
    assert list(v[40]) == list(register(7)) and list(v[9]) == list(register(42))
    assert list(v[0]) == list(register(0)) and list(v[41]) == list(register(1))  # the mode is off again


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_vop2_vsrc1_dpp_source_and_sdwa_move(target, engine_name):
    d = dispatch(target)
    d.sgpr[0, 5] = 4
    ctx = d("s_set_gpr_idx_on s5, gpr_idx(SRC0,SRC1,DST)\nv_sub_u32_e32 v1, v10, v2\n"
            "v_mov_b32_dpp v3, v11 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n"
            "v_mov_b32_sdwa v5, v12 dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:WORD_0\n"
            "s_set_gpr_idx_off", engine_name)
    v = ctx.waves.vgpr[0]
    assert list(v[5]) == list(register(14) - register(6))
    assert list(v[7]) == list(register(15)[[1, 0, 3, 2] * 16 + np.repeat(np.arange(0, 64, 4), 4)])
    assert list(v[9]) == list(register(16) & 0xFFFF)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_scalar_and_constant_operands_do_not_move(target, engine_name):
    d = dispatch(target)
    d.sgpr[0, 5], d.sgpr[0, 6] = 3, 123
    ctx = d("s_set_gpr_idx_on s5, gpr_idx(SRC0,SRC1)\nv_add_u32_e64 v1, s6, v2\nv_add_u32_e64 v2, 5, v3\n"
            "s_set_gpr_idx_off", engine_name)
    v = ctx.waves.vgpr[0]
    assert list(v[1]) == list(123 + register(5)) and list(v[2]) == list(5 + register(6))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_on_writes_m0_fields_and_mode_bit_27(target, engine_name):
    d = dispatch(target)
    d.sgpr[0, M0], d.sgpr[0, 5] = 0xABCD0F00, 0x1234  # the index is S0[7:0]: 0x34
    ctx = d("s_set_gpr_idx_on s5, gpr_idx(SRC1,DST)\ns_getreg_b32 s7, hwreg(HW_REG_MODE)\ns_mov_b32 s8, m0\n"
            "s_set_gpr_idx_off\ns_getreg_b32 s9, hwreg(HW_REG_MODE)", engine_name)
    s = ctx.waves.sgpr[0]
    assert hex(s[8]) == hex(0xABCDAF34)  # M0[15:12] = 0b1010 (SRC1, DST), bits 11:8 and 31:16 kept
    assert s[7] >> 27 & 1 == 1 and s[9] >> 27 & 1 == 0


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_idx_and_mode_change_the_index_and_operands_inside_the_mode(target, engine_name):
    d = dispatch(target)
    d.sgpr[0, 5], d.sgpr[0, 6] = 2, 5
    ctx = d("s_set_gpr_idx_on s5, gpr_idx(SRC0)\nv_mov_b32_e32 v1, v10\ns_set_gpr_idx_idx s6\n"
            "v_mov_b32_e32 v2, v10\ns_set_gpr_idx_mode gpr_idx(DST)\nv_mov_b32_e32 v3, v10\ns_set_gpr_idx_off",
            engine_name)
    v = ctx.waves.vgpr[0]
    assert list(v[1]) == list(register(12)) and list(v[2]) == list(register(15))
    assert list(v[8]) == list(register(10)) and list(v[3]) == list(register(3))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_waves_with_their_own_indices(target, engine_name):
    d = dispatch(target, waves=3)
    d.sgpr[:, 5] = [1, 6, 1]
    ctx = d("s_set_gpr_idx_on s5, gpr_idx(SRC0)\nv_mov_b32_e32 v1, v20\ns_set_gpr_idx_off", engine_name)
    assert [int(ctx.waves.vgpr[w, 1, 0]) for w in range(3)] == [21000, 26000, 21000]


@pytest.mark.parametrize("engine_name", ENGINES)
def test_a_register_moved_past_v255_stops_the_dispatch(engine_name):
    d = dispatch("gfx942")
    d.sgpr[0, 5] = 200
    with pytest.raises(ExecutionError, match="past v255"):
        d("s_set_gpr_idx_on s5, gpr_idx(SRC0)\nv_mov_b32_e32 v1, v60\ns_set_gpr_idx_off", engine_name)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_an_sgpr_destination_does_not_move(target, engine_name):
    d = dispatch(target)
    d.sgpr[0, 5] = 2
    ctx = d("s_set_gpr_idx_on s5, gpr_idx(SRC0,DST)\nv_readfirstlane_b32 s7, v3\ns_set_gpr_idx_off", engine_name)
    assert ctx.waves.sgpr[0, 7] == 5000 and ctx.waves.sgpr[0, 9] == 0  # v5's lane 0, into s7 itself


@pytest.mark.parametrize("engine_name", ENGINES)
def test_the_index_may_be_a_constant(engine_name):
    ctx = dispatch("gfx942")("s_set_gpr_idx_on 6, gpr_idx(SRC0)\nv_mov_b32_e32 v1, v10\ns_set_gpr_idx_off", engine_name)
    assert list(ctx.waves.vgpr[0, 1]) == list(register(16))

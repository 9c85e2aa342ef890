"""VALU semantics around the pseudocode (ops/valu.py, dpp.py, vopd.py, modes.py) on hand-made waves.

Each test runs a few instructions of gfx1100 assembly on one wave whose v0 is the lane id, and
compares registers with numpy.
"""
import numpy as np
import pytest
from asm_dispatch import run_program


VCC, EXEC = 106, 126
IEEE, DX10_CLAMP = 1 << 9, 1 << 8


def f16(values):
    return np.asarray(values, np.float16).view(np.uint16).astype(np.uint32)


def f32(values):
    return np.asarray(values, np.float32).view(np.uint32)


def as_f32(bits):
    return np.asarray(bits, np.uint32).view(np.float32)


def as_f16(bits):
    return (np.asarray(bits, np.uint32) & 0xFFFF).astype(np.uint16).view(np.float16)


def setting(**registers):
    """A setup that stores v<n>=[lanes] values (broadcast) and s<n>= scalars, mode=, exec=."""
    def setup(ctx):
        w = ctx.waves
        for name, value in registers.items():
            if name == "mode":
                w.mode[:] = value
            elif name == "exec":
                w.write_mask(EXEC, np.arange(w.count), np.broadcast_to(value, (w.count, w.wave_size)))
            elif name.startswith("v"):
                w.vgpr[:, int(name[1:]), :] = np.broadcast_to(np.asarray(value, np.uint32), w.vgpr[:, 0, :].shape)
            else:
                w.sgpr[:, int(name[1:])] = value
    return setup


def vgpr(ctx, reg):
    return ctx.waves.vgpr[0, reg, :]


def mask(ctx, reg):
    return ctx.waves.read_mask(reg, np.arange(1))[0]


# -- MODE --------------------------------------------------------------------------------------------

SNAN = 0x7F800001


@pytest.mark.parametrize("ieee,want", [(True, "quiet nan"), (False, 1.0)])
def test_max_f32_follows_mode_ieee(ieee, want):
    ctx = run_program("v_max_f32_e32 v2, v1, v3",
                      setup=setting(v1=SNAN, v3=f32(1.0), mode=0xF0 | DX10_CLAMP | (IEEE if ieee else 0)))
    result = vgpr(ctx, 2)
    if want == "quiet nan":
        assert np.all(result == SNAN | 0x400000)
    else:
        assert np.all(as_f32(result) == want)


def test_denorm_and_round_mode_set_mode_and_every_float_op_runs_in_it():
    ctx = run_program("s_denorm_mode 0x5\ns_round_mode 0x2")
    assert ctx.waves.mode[0] & 0xFF == 0x52
    run_program("s_round_mode 0x1\nv_sqrt_f32_e32 v1, v2")  # the modes themselves: test_directed_rounding.py
    run_program("s_round_mode 0x1\nv_add_nc_u32_e32 v1, v2, v3")  # integer code does not care


# -- D1 and lane masks ---------------------------------------------------------------------------


def test_mad_u64_u32_writes_its_carry_to_the_sgpr_destination():
    lanes = np.arange(32, dtype=np.uint64)
    a, b = np.uint32(0xFFFFFFFF), (lanes + 1).astype(np.uint32)
    addend = np.where(lanes % 2 == 1, np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64(5))
    ctx = run_program("v_mad_u64_u32 v[2:3], s4, v1, v0, v[4:5]",
                      setup=setting(v0=b, v1=a, v4=(addend & 0xFFFFFFFF).astype(np.uint32),
                                    v5=(addend >> np.uint64(32)).astype(np.uint32)))
    exact = [int(a) * int(x) + int(c) for x, c in zip(b, addend)]
    got = vgpr(ctx, 2).astype(np.uint64) | vgpr(ctx, 3).astype(np.uint64) << np.uint64(32)
    assert [int(g) for g in got] == [e & (2**64 - 1) for e in exact]
    assert list(mask(ctx, 4)) == [e >> 64 == 1 for e in exact]


def test_cndmask_e64_reads_its_mask_from_the_sgpr_in_src2():
    ctx = run_program("v_cndmask_b32_e64 v1, v2, v3, s[4:5]", wave_size=64,
                      setup=setting(v2=7, v3=9, s4=0x0000FFFF, s5=0x80000000))
    assert list(ctx.waves.vgpr[0, 1, :]) == [9] * 16 + [7] * 47 + [9]


def test_carries_go_through_sgpr_pairs_in_wave64():
    lanes = np.arange(64, dtype=np.uint64)
    low = np.where(lanes % 3 == 0, 0xFFFFFFFF, lanes).astype(np.uint32)
    ctx = run_program("v_add_co_u32 v1, s[4:5], v2, v3\nv_add_co_ci_u32_e64 v4, s[6:7], v5, v6, s[4:5]\n"
                      "v_cmpx_gt_u32_e64 v0, 5", wave_size=64,
                      setup=setting(v2=low, v3=1, v5=0xFFFFFFFF, v6=0))
    carry = lanes % 3 == 0
    assert list(mask(ctx, 4)) == list(carry) and list(mask(ctx, 6)) == list(carry)
    assert list(ctx.waves.vgpr[0, 4, :]) == list(np.where(carry, 0, 0xFFFFFFFF))
    assert list(mask(ctx, EXEC)) == list(lanes > 5)


def test_compare_writes_zero_bits_for_inactive_lanes():
    ctx = run_program("v_cmp_gt_u32_e32 vcc_lo, 100, v0", setup=setting(exec=np.arange(32) % 2 == 0, s106=0xFFFFFFFF))
    assert list(mask(ctx, VCC)) == [lane % 2 == 0 for lane in range(32)]


# -- 16-bit operands (true16) -----------------------------------------------------------------------


def test_e32_vgpr_fields_name_halves_and_writes_keep_the_other_half():
    ctx = run_program("v_mov_b16_e32 v4.h, v5.l\nv_add_f16_e32 v1.h, v2.h, v3.l",
                      setup=setting(v4=0x1111_2222, v5=0x3333_4444, v1=0xAAAA_BBBB,
                                    v2=f16(1.5) << 16 | 0x7777, v3=0x9999_0000 | f16(2.0)))
    assert np.all(vgpr(ctx, 4) == 0x4444_2222)
    assert np.all(vgpr(ctx, 1) == (f16(3.5) << 16 | 0xBBBB))


def test_vop3_op_sel_picks_halves_and_modifiers_act_on_the_half():
    ctx = run_program("v_add_f16 v1.h, -v2.h, |v3.l|",
                      setup=setting(v1=0x0000_5555, v2=f16(1.0) << 16, v3=f16(-4.0)))
    assert np.all(vgpr(ctx, 1) == (f16(3.0) << 16 | 0x5555))


def test_cndmask_b16_selects_halves_per_lane():
    ctx = run_program("v_cndmask_b16 v1.h, v2.l, v3.h, s4",
                      setup=setting(v1=0xFFFF_1234, v2=0x0000_00AA, v3=0x00BB_0000, s4=0x0000FF00))
    lanes = np.arange(32)
    want = np.where((lanes >= 8) & (lanes < 16), 0xBB, 0xAA) << 16 | 0x1234
    assert list(vgpr(ctx, 1)) == list(want)


# -- clamp ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,a,b,want", [
    ("v_add_nc_u16 v1.l, v2.l, v3.l clamp", 0xFFF0, 0x20, 0xFFFF),
    ("v_sub_nc_u32 v1, v2, v3 clamp", 5, 9, 0),
    ("v_add_nc_i32 v1, v2, v3 clamp", 0x7FFFFFF0, 0x100, 0x7FFFFFFF),
    ("v_add_nc_i32 v1, v2, v3 clamp", 0x80000010, 0xFFFFFF00, 0x80000000),
    ("v_pk_add_u16 v1, v2, v3 clamp", 0x0001_FFF0, 0x0002_0020, 0x0003_FFFF),
])
def test_integer_clamp_saturates(text, a, b, want):
    ctx = run_program(text, setup=setting(v2=a, v3=b, v1=0))
    assert np.all(vgpr(ctx, 1) == want)


@pytest.mark.parametrize("dx10,want", [(True, 0), (False, "nan")])
def test_float_clamp_and_dx10_clamp_of_nan(dx10, want):
    ctx = run_program("v_max_f32_e64 v1, v2, v3 clamp\nv_add_f16_e64 v4.l, v5.l, v6.l clamp\n"
                      "v_max_f32_e64 v7, v8, v8 clamp",
                      setup=setting(v2=f32(0.25), v3=f32(3.0), v5=f16(-1.0), v6=f16(0.5), v4=0xABCD_0000,
                                    v8=0x7FC00000, mode=0xF0 | IEEE | (DX10_CLAMP if dx10 else 0)))
    assert np.all(as_f32(vgpr(ctx, 1)) == 1.0)
    assert np.all(vgpr(ctx, 4) == 0xABCD_0000)  # -0.5 clamps to +0
    assert np.all(vgpr(ctx, 7) == 0) if want == 0 else np.all(np.isnan(as_f32(vgpr(ctx, 7))))


def test_omod_scales_a_float_result():  # with IEEE mode off: the hardware ignores omod in IEEE mode
    ctx = run_program("v_mul_f32_e64 v1, v2, v3 mul:2", setup=setting(v2=f32(1.5), v3=f32(3.0), mode=0xF0))
    assert np.all(as_f32(vgpr(ctx, 1)) == 9.0)


# -- VOP3P --------------------------------------------------------------------------------------------


def test_packed_math_selects_and_negates_each_half():
    # lo = -(v2.hi) + v3.lo, hi = v2.hi + -(v3.hi)
    ctx = run_program("v_pk_add_f16 v1, v2, v3 op_sel:[1,0] op_sel_hi:[1,1] neg_lo:[1,0] neg_hi:[0,1]",
                      setup=setting(v2=f16(2.0) << 16 | f16(100.0), v3=f16(8.0) << 16 | f16(0.5)))
    assert np.all(vgpr(ctx, 1) == (f16(2.0 - 8.0) << 16 | f16(-2.0 + 0.5)))


def test_packed_math_with_a_scalar_broadcast_and_packed_clamp():
    ctx = run_program("v_pk_mul_f16 v1, s2, v3 op_sel_hi:[0,1]\nv_pk_add_f16 v4, v3, v3 clamp",
                      setup=setting(s2=f16(3.0), v3=f16(0.25) << 16 | f16(-1.0)))
    assert np.all(vgpr(ctx, 1) == (f16(0.75) << 16 | f16(-3.0)))
    assert np.all(vgpr(ctx, 4) == (f16(0.5) << 16 | f16(0.0)))


def test_fma_mix_reads_f16_or_f32_sources_with_neg_and_abs():
    # S0 = -(v2.hi as f16), S1 = |v3.lo as f16|, S2 = v4 as f32
    ctx = run_program("v_fma_mix_f32 v1, -v2, |v3|, v4 op_sel:[1,0,0] op_sel_hi:[1,1,0]\n"
                      "v_fma_mixhi_f16 v5, v2, v3, v4 op_sel_hi:[1,1,0]",
                      setup=setting(v2=f16(3.0) << 16 | f16(0.5), v3=f16(-2.0), v4=f32(0.25), v5=0x0000_1234))
    assert np.all(as_f32(vgpr(ctx, 1)) == -3.0 * 2.0 + 0.25)
    assert np.all(vgpr(ctx, 5) == (f16(0.5 * -2.0 + 0.25) << 16 | 0x1234))


def test_dot2_accumulates_both_halves():
    ctx = run_program("v_dot2_f32_f16 v1, v2, v3, v4",
                      setup=setting(v2=f16(3.0) << 16 | f16(0.5), v3=f16(2.0) << 16 | f16(4.0), v4=f32(1.0)))
    assert np.all(as_f32(vgpr(ctx, 1)) == 1.0 + 0.5 * 4.0 + 3.0 * 2.0)


# -- VOPD --------------------------------------------------------------------------------------------


def test_dual_issue_reads_both_halves_sources_before_writing():
    ctx = run_program("v_dual_mov_b32 v1, v2 :: v_dual_mov_b32 v2, v1", setup=setting(v1=11, v2=22))
    assert np.all(vgpr(ctx, 1) == 22) and np.all(vgpr(ctx, 2) == 11)


def test_dual_issue_cndmask_and_shared_literal():
    lanes = np.arange(32)
    ctx = run_program("v_dual_cndmask_b32 v1, v2, v3 :: v_dual_cndmask_b32 v4, v5, v6\n"
                      "v_dual_fmaak_f32 v7, v8, v9, 0x40000000 :: v_dual_add_f32 v10, 0x40000000, v6",
                      setup=setting(s106=0x0F0F0F0F, v2=1, v3=2, v5=3, v6=f32(1.5), v8=f32(3.0), v9=f32(0.5)))
    picked = (lanes // 4) % 2 == 0
    assert list(vgpr(ctx, 1)) == list(np.where(picked, 2, 1))
    assert list(vgpr(ctx, 4)) == list(np.where(picked, f32(1.5), 3))
    assert np.all(as_f32(vgpr(ctx, 7)) == 3.0 * 0.5 + 2.0) and np.all(as_f32(vgpr(ctx, 10)) == 3.5)


# -- DPP ---------------------------------------------------------------------------------------------


def dpp_source(wave_size, control):
    """The lane each lane reads for a DPP16 control, the manual's way (-1: none)."""
    lanes = np.arange(wave_size)
    row, j = lanes - lanes % 16, lanes % 16
    kind, n = control
    source = {"quad_perm": lambda: lanes - lanes % 4 + np.array(n)[lanes % 4],
              "row_shl": lambda: np.where(j + n < 16, lanes + n, -1),
              "row_shr": lambda: np.where(j - n >= 0, lanes - n, -1),
              "row_ror": lambda: row + (j - n) % 16,
              "row_mirror": lambda: row + 15 - j,
              "row_half_mirror": lambda: row + (j // 8) * 8 + 7 - j % 8,
              "row_share": lambda: row + n,
              "row_xmask": lambda: row + (j ^ n)}[kind]()
    return source


@pytest.mark.parametrize("wave_size", [32, 64])
@pytest.mark.parametrize("control,text", [
    (("quad_perm", [1, 0, 3, 2]), "quad_perm:[1,0,3,2]"), (("row_shl", 1), "row_shl:1"),
    (("row_shr", 3), "row_shr:3"), (("row_ror", 4), "row_ror:4"), (("row_mirror", 0), "row_mirror"),
    (("row_half_mirror", 0), "row_half_mirror"), (("row_share", 3), "row_share:3"),
    (("row_xmask", 5), "row_xmask:5"),
])
@pytest.mark.parametrize("bound_ctrl", [False, True])
def test_dpp16_moves(wave_size, control, text, bound_ctrl):
    old, data = 0xDEAD, 1000 + np.arange(wave_size)
    ctx = run_program(f"v_mov_b32_dpp v1, v2 {text} row_mask:0xf bank_mask:0xf" + (" bound_ctrl:1" * bound_ctrl),
                      wave_size=wave_size, setup=setting(v1=old, v2=data))
    source = dpp_source(wave_size, control)
    want = np.where(source >= 0, data[source], 0 if bound_ctrl else old)
    assert list(vgpr(ctx, 1)) == list(want)


def test_dpp16_row_and_bank_masks_keep_the_old_value():
    lanes = np.arange(64)
    ctx = run_program("v_mov_b32_dpp v1, v2 quad_perm:[0,0,0,0] row_mask:0x5 bank_mask:0x3", wave_size=64,
                      setup=setting(v1=7, v2=lanes))
    enabled = (np.isin(lanes // 16, [0, 2])) & (lanes % 16 < 8)
    assert list(vgpr(ctx, 1)) == list(np.where(enabled, lanes - lanes % 4, 7))


@pytest.mark.parametrize("fetch_inactive,bound_ctrl", [(False, False), (False, True), (True, False)])
def test_dpp16_inactive_source_lanes(fetch_inactive, bound_ctrl):
    lanes = np.arange(32)
    active = lanes % 4 != 1
    text = "v_mov_b32_dpp v1, v2 quad_perm:[1,1,1,1] row_mask:0xf bank_mask:0xf"
    text += " bound_ctrl:1" * bound_ctrl + " fi:1" * fetch_inactive
    ctx = run_program(text, setup=setting(v1=5, v2=100 + lanes, exec=active))
    source_value = 100 + lanes - lanes % 4 + 1
    fetched = source_value if fetch_inactive else (0 if bound_ctrl else 5)
    assert list(vgpr(ctx, 1)) == list(np.where(active, fetched, 5))


def test_dpp_applies_to_src0_of_an_operation_with_its_modifiers():
    lanes = np.arange(32)
    ctx = run_program("v_add_f32_dpp v1, -v2, |v3| quad_perm:[0,0,0,0] row_mask:0xf bank_mask:0xf\n"
                      "v_add_nc_u32_e64_dpp v4, v5, v6 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1\n"
                      "v_cmp_eq_u32_dpp vcc_lo, v5, v6 row_shl:1 row_mask:0xf bank_mask:0xf",
                      setup=setting(v2=f32(lanes), v3=f32(-1.0), v5=lanes, v6=lanes + 1))
    assert list(as_f32(vgpr(ctx, 1))) == list(-(lanes - lanes % 4).astype(np.float32) + 1)
    assert list(vgpr(ctx, 4)) == list(np.where(lanes % 16 == 0, 0, lanes - 1) + lanes + 1)
    # v5 of lane j+1 is v6 of lane j; lanes 15 and 31 have no source and bound_ctrl is off: no write (0)
    assert list(mask(ctx, VCC)) == list(lanes % 16 != 15)


@pytest.mark.parametrize("fetch_inactive", [False, True])
def test_dpp8_selects_within_groups_of_eight(fetch_inactive):
    lanes = np.arange(32)
    active = lanes != 7
    ctx = run_program("v_mov_b32_dpp v1, v2 dpp8:[7,6,5,4,3,2,1,0]" + (" fi:1" if fetch_inactive else ""),
                      setup=setting(v1=5, v2=100 + lanes, exec=active))
    source = lanes - lanes % 8 + 7 - lanes % 8
    read = np.where(active[source] | fetch_inactive, 100 + source, 0)
    assert list(vgpr(ctx, 1)) == list(np.where(active, read, 5))


# -- division helpers ------------------------------------------------------------------------------


def test_div_scale_keeps_ordinary_operands_and_scales_a_tiny_numerator():
    ctx = run_program("v_div_scale_f32 v1, vcc_lo, v2, v2, v3\nv_div_scale_f32 v4, s4, v5, v2, v5",
                      setup=setting(v2=f32(3.0), v3=f32(7.0), v5=f32(2.0**-130)))
    assert np.all(as_f32(vgpr(ctx, 1)) == 3.0) and not mask(ctx, VCC).any()
    assert np.all(as_f32(vgpr(ctx, 4)) == np.float32(2.0**-66))


# -- other targets: GFX9 SDWA, SOPK immediates, gfx12's trap status ------------------------------


def test_sdwa_selects_source_bytes_and_places_the_result():
    ctx = run_program("v_or_b32_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 "
                      "src1_sel:DWORD\n"
                      "v_min_i16_sdwa v4, v5, sext(v6) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD "
                      "src1_sel:BYTE_0\n"
                      "v_cmp_lt_i16_sdwa s[8:9], v5, sext(v6) src0_sel:DWORD src1_sel:BYTE_0\n"
                      "v_add_u32_sdwa v7, v2, v3 dst_sel:BYTE_0 dst_unused:UNUSED_SEXT src0_sel:WORD_0 "
                      "src1_sel:WORD_1",
                      target="gfx942", wave_size=64,
                      setup=setting(v1=0x1111_2222, v2=0x0000_AB00 | 0x70, v3=0x0080_0001, v5=5, v6=0x12F0))
    assert np.all(ctx.waves.vgpr[0, 1, :] == ((0xAB | 0x0001) << 16 | 0x2222))
    assert np.all(ctx.waves.vgpr[0, 4, :] == 0xFFF0)  # min(5, -16) as i16, zero-padded
    assert mask(ctx, 8).sum() == 0  # 5 < -16 is false in every lane
    assert np.all(ctx.waves.vgpr[0, 7, :] == 0xFFFF_FFF0)  # 0xAB70 + 0x80 = 0xABF0: byte 0xF0, sign-extended


@pytest.mark.parametrize("target,wave_size", [("gfx1100", 32), ("gfx942", 64)])
def test_sopk_immediates(target, wave_size):
    ctx = run_program("s_movk_i32 s3, 0x7ff0\ns_cmpk_lg_i32 s3, 0x400", target=target, wave_size=wave_size)
    assert ctx.waves.sgpr[0, 3] == 0x7FF0 and ctx.waves.scc[0]


def test_gfx12_min_max_num_raise_the_invalid_exception_flag_on_a_signaling_nan():
    ctx = run_program("v_max_num_f32_e32 v2, v1, v3\ns_getreg_b32 s0, hwreg(HW_REG_WAVE_EXCP_FLAG_USER)",
                      target="gfx1201", setup=setting(v1=SNAN, v3=f32(1.0), exec=np.arange(32) == 3))
    assert ctx.waves.sgpr[0, 0] & 1
    assert vgpr(ctx, 2)[3] == f32(1.0)

"""Cross-lane and register-indexed data movement on hand-made waves: gpubench/emu/ops/crosslane.py, and the
DS permutes and swizzle that move data across lanes without LDS (gpubench/emu/ops/lds.py)."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.context import ExecutionError

M0 = 125


def dispatch(target="gfx1100", wave_size=32, **shape):
    """Waves with v0 = the lane id, 64 VGPRs."""
    run = Dispatch(target, wave_size, vgprs=64, **shape)
    run.vgpr[:, 0, :] = run.lane_ids()
    return run


def values(ctx, reg):
    return ctx.waves.vgpr[:, reg, :].astype(np.int64)


@pytest.mark.parametrize("wave_size", [32, 64])
def test_readlane_selects_the_lane_modulo_the_wave_size(wave_size):
    run = dispatch(wave_size=wave_size)
    run.sgpr[:, M0] = 9
    ctx = run("v_mul_u32_u24 v1, v0, 3\n"
              "v_readlane_b32 s0, v1, 5\n"
              "s_mov_b32 s3, 70\n"
              "v_readlane_b32 s1, v1, s3\n"
              "v_readlane_b32 s2, v1, m0")
    assert list(ctx.waves.sgpr[0, :3]) == [15, 3 * (70 % wave_size), 27]


@pytest.mark.parametrize("wave_size", [32, 64])
def test_readfirstlane_reads_the_lowest_active_lane_or_lane_0(wave_size):
    run = dispatch(wave_size=wave_size)
    run.set_exec(np.arange(wave_size) % 3 == 2)
    assert run("v_add_nc_u32 v1, 100, v0\nv_readfirstlane_b32 s0, v1").waves.sgpr[0, 0] == 102
    run = dispatch(wave_size=wave_size)
    run.vgpr[:, 1, :] = np.arange(wave_size) + 7
    ctx = run("s_mov_b32 exec_lo, 0\ns_mov_b32 exec_hi, 0\nv_readfirstlane_b32 s0, v1")
    assert ctx.waves.sgpr[0, 0] == 7  # EXEC zero: lane 0


@pytest.mark.parametrize("wave_size", [32, 64])
def test_writelane_writes_one_lane_even_when_exec_disables_it(wave_size):
    run = dispatch(wave_size=wave_size)
    run.set_exec(np.arange(wave_size) != 7)
    ctx = run("s_mov_b32 s0, 1234\nv_writelane_b32 v0, s0, 7\nv_writelane_b32 v0, 0x55, 35")
    want = np.arange(wave_size)
    want[7], want[35 % wave_size] = 1234, 0x55
    np.testing.assert_array_equal(values(ctx, 0)[0], want)


def _selectors(perm):
    packed = sum(int(s) << (4 * i) for i, s in enumerate(perm))
    return packed & 0xFFFFFFFF, packed >> 32


@pytest.mark.parametrize("wave_size", [32, 64])
@pytest.mark.parametrize("across", [False, True])
def test_permlane16_reads_the_selected_lane_of_its_row_or_the_paired_row(wave_size, across):
    perm = np.random.default_rng(1).permutation(16)
    lo, hi = _selectors(perm)
    name = "v_permlanex16_b32" if across else "v_permlane16_b32"
    ctx = dispatch(wave_size=wave_size)(f"s_mov_b32 s1, {lo:#x}\ns_mov_b32 s2, {hi:#x}\n{name} v1, v0, s1, s2")
    lane = np.arange(wave_size)
    row = lane // 16 ^ (1 if across else 0)
    np.testing.assert_array_equal(values(ctx, 1)[0], row * 16 + perm[lane % 16])


@pytest.mark.parametrize("op_sel, inactive_source_gives", [("", "old"), ("op_sel:[0,1]", "zero"),
                                                           ("op_sel:[1,0]", "value")])
def test_permlane16_fetch_inactive_and_bound_ctrl(op_sel, inactive_source_gives):
    lo, hi = _selectors((np.arange(16) + 1) % 16)  # every lane reads lane (i + 1) % 16 of its row
    run = dispatch()
    run.vgpr[:, 1, :] = 999
    run.set_exec(np.arange(32) % 2 == 0)  # so every active lane's source is inactive
    ctx = run(f"s_mov_b32 s1, {lo:#x}\ns_mov_b32 s2, {hi:#x}\nv_permlane16_b32 v1, v0, s1, s2 {op_sel}")
    lane = np.arange(32)
    source = lane - lane % 16 + (lane % 16 + 1) % 16
    fallback = {"old": 999, "zero": 0, "value": source}[inactive_source_gives]
    np.testing.assert_array_equal(values(ctx, 1)[0], np.where(lane % 2 == 0, fallback, 999))


def test_permlane64_swaps_the_halves_of_a_wave64_and_does_nothing_in_wave32():
    ctx = dispatch(wave_size=64)("v_permlane64_b32 v1, v0")
    np.testing.assert_array_equal(values(ctx, 1)[0], np.arange(64) ^ 32)
    run = dispatch()
    run.vgpr[:, 1, :] = 5
    np.testing.assert_array_equal(values(run("v_permlane64_b32 v1, v0"), 1)[0], np.full(32, 5))


@pytest.mark.parametrize("target, wave_size, span", [("gfx1100", 32, 32), ("gfx1100", 64, 32), ("gfx942", 64, 64)])
def test_bpermute_reads_the_addressed_lane_of_its_span(target, wave_size, span):
    lane = np.arange(wave_size)
    run = dispatch(target, wave_size)
    run.vgpr[:, 1, :] = (lane * 7 + 3) * 4 + 4 * span * (lane % 3)  # address bits beyond the span are ignored
    run.set_exec(lane % 5 != 0)
    add = "v_add_u32" if target == "gfx942" else "v_add_nc_u32"
    ctx = run(f"{add} v3, 1000, v0\nds_bpermute_b32 v2, v1, v3 offset:4")
    source = lane - lane % span + (lane * 7 + 4) % span
    want = np.where(source % 5 != 0, 1000 + source, 0)  # an inactive source lane gives 0
    np.testing.assert_array_equal(values(ctx, 2)[0], np.where(lane % 5 != 0, want, 0))


@pytest.mark.parametrize("wave_size", [32, 64])
def test_permute_writes_the_addressed_lane_and_the_highest_source_wins(wave_size):
    lane = np.arange(wave_size)
    target = lane // 2  # lanes 2t and 2t+1 both write lane t (of their half in wave64)
    run = dispatch(wave_size=wave_size)
    run.vgpr[:, 1, :] = target * 4
    ctx = run("v_add_nc_u32 v3, 1000, v0\nds_permute_b32 v2, v1, v3")
    written = {int(source - source % 32 + t % 32): 1000 + int(source) for source, t in zip(lane, target)}
    np.testing.assert_array_equal(values(ctx, 2)[0], [written.get(int(i), 0) for i in lane])


def test_swizzle_quad_perm_and_bitmask_modes():
    ctx = dispatch(wave_size=64)("ds_swizzle_b32 v1, v0 offset:swizzle(QUAD_PERM,3,2,1,0)\n"
                                 "ds_swizzle_b32 v2, v0 offset:swizzle(BITMASK_PERM, \"00p11\")")
    lane = np.arange(64)
    np.testing.assert_array_equal(values(ctx, 1)[0], lane - lane % 4 + 3 - lane % 4)
    np.testing.assert_array_equal(values(ctx, 2)[0], lane - lane % 32 + (lane & 4 | 3))


@pytest.mark.parametrize("wave_size", [32, 64])
def test_m0_relative_vgpr_moves_index_per_wave(wave_size):
    run = dispatch(wave_size=wave_size, groups=2)
    run.sgpr[:, M0] = [0, 2]
    ctx = run("v_add_nc_u32 v10, 100, v0\nv_add_nc_u32 v11, 200, v0\nv_add_nc_u32 v12, 300, v0\n"
              "v_movrels_b32 v1, v10\n"     # v1 = v[10 + M0]
              "v_movreld_b32 v20, v0\n"     # v[20 + M0] = v0
              "v_movrelsd_b32 v30, v10\n")  # v[30 + M0] = v[10 + M0]
    lane = np.arange(wave_size)
    np.testing.assert_array_equal(values(ctx, 1), [100 + lane, 300 + lane])
    np.testing.assert_array_equal(ctx.waves.vgpr[0, 20], lane)
    np.testing.assert_array_equal(ctx.waves.vgpr[1, 22], lane)
    np.testing.assert_array_equal(ctx.waves.vgpr[1, 32], 300 + lane)


def test_movrelsd_2_and_swaprel_take_separate_source_and_destination_offsets():
    run = dispatch()
    run.sgpr[:, M0] = 2 | (4 << 16)  # M0[9:0]: source + 2, M0[25:16]: destination + 4
    ctx = run("v_add_nc_u32 v12, 300, v0\nv_movrelsd_2_b32 v20, v10\n"         # v[20 + 4] = v[10 + 2]
              "v_mov_b32 v6, 7\nv_add_nc_u32 v10, 50, v0\nv_swaprel_b32 v2, v8")  # v[2 + 4] <-> v[8 + 2]
    lane = np.arange(32)
    np.testing.assert_array_equal(values(ctx, 24)[0], 300 + lane)
    np.testing.assert_array_equal(values(ctx, 6)[0], 50 + lane)
    np.testing.assert_array_equal(values(ctx, 10)[0], np.full(32, 7))


def test_swap_exchanges_two_vgprs_in_the_active_lanes():
    run = dispatch()
    run.set_exec(np.arange(32) < 8)
    ctx = run("v_mov_b32 v1, 5\nv_swap_b32 v1, v0")
    lane = np.arange(32)
    np.testing.assert_array_equal(values(ctx, 0)[0], np.where(lane < 8, 5, lane))
    np.testing.assert_array_equal(values(ctx, 1)[0], np.where(lane < 8, lane, 0))


def test_m0_relative_index_past_the_register_file_stops_the_dispatch():
    run = dispatch()
    run.sgpr[:, M0] = 1000
    with pytest.raises(ExecutionError, match="index 1010 is past the 64 registers"):
        run("v_movrels_b32 v1, v10")


def test_m0_relative_sgpr_moves():
    run = dispatch()
    run.sgpr[:, M0] = 3
    run.sgpr[:, 10:16] = np.arange(10, 16)
    sgpr = run("s_movrels_b32 s0, s10\ns_movrels_b64 s[2:3], s[10:11]\ns_movreld_b32 s20, 77\n"
               "s_movreld_b64 s[30:31], s[10:11]").waves.sgpr[0]
    assert list(sgpr[0:4]) == [13, 0, 13, 14] and sgpr[23] == 77 and list(sgpr[33:35]) == [10, 11]


@pytest.mark.parametrize("across", [False, True])
def test_permlane16_var_takes_each_lanes_selector_from_a_vgpr(across):
    lane = np.arange(32)
    run = dispatch("gfx1201")
    run.vgpr[:, 1, :] = (lane * 5 + 3) | 0xF0  # bits 3:0 select
    name = "v_permlanex16_var_b32" if across else "v_permlane16_var_b32"
    ctx = run(f"v_add_nc_u32 v2, 100, v0\n{name} v3, v2, v1")
    row = lane // 16 ^ (1 if across else 0)
    np.testing.assert_array_equal(values(ctx, 3)[0], 100 + row * 16 + (lane * 5 + 3) % 16)


@pytest.mark.parametrize("distance", [16, 32])
def test_permlane_swap_exchanges_lane_groups_between_two_vgprs(distance):
    lane = np.arange(64)
    run = dispatch("gfx950", 64)
    ctx = run(f"v_add_u32 v1, 100, v0\nv_add_u32 v2, 200, v0\nv_permlane{distance}_swap_b32 v2, v1")
    low = lane % (2 * distance) < distance
    np.testing.assert_array_equal(values(ctx, 1)[0], np.where(low, 200 + lane + distance, 100 + lane))
    np.testing.assert_array_equal(values(ctx, 2)[0], np.where(low, 200 + lane, 100 + lane - distance))


def test_swap_b16_exchanges_the_halves_its_operands_name():
    # v_swap_b16 v1.h, v2.l: the gfx12 (fake16) assembler cannot write a high half, so the word is
    # v_swap_b16 v1, v2 (0x7e02cd02) with vdst's bit 7 set
    run = dispatch("gfx1201")
    run.vgpr[:, 1, :], run.vgpr[:, 2, :] = 0x11112222, 0x33334444
    ctx = run(f".long {0x7e02cd02 | 0x80 << 17:#x}")
    assert (ctx.waves.vgpr[0, 1] == 0x44442222).all() and (ctx.waves.vgpr[0, 2] == 0x33331111).all()


def test_m0_relative_sgpr_to_sgpr_move_with_separate_offsets():
    run = dispatch("gfx1201")
    run.sgpr[:, M0] = 2 | (5 << 16)
    run.sgpr[:, 12] = 42
    assert run("s_movrelsd_2_b32 s20, s10").waves.sgpr[0, 25] == 42

"""DS instructions on hand-written assembly: LDS loads and stores, atomics, append, permutes, swizzle."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.context import ExecutionError
from gpubench.emu.ops import lds

WAVES = [("gfx1100", 32), ("gfx1100", 64)]


@pytest.mark.parametrize("target,wave", WAVES)
def test_store_then_load_every_width(target, wave):
    run = Dispatch(target, wave, lds_bytes=64 * 16)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = lane * 16  # address
    run.vgpr[:, 2:6, :] = (lane[:, None, :] * 4 + np.arange(4)[None, :, None]) | 0x80808000
    run("""
        ds_store_b128 v1, v[2:5]
        ds_load_b64 v[6:7], v1 offset:4
        ds_load_b96 v[8:10], v1
        ds_load_u8 v11, v1 offset:1
        ds_load_i8 v12, v1 offset:1
        ds_load_i16 v13, v1 offset:2
        ds_load_u16 v14, v1 offset:2
        v_mov_b32 v15, 0x12345678
        v_mov_b32 v16, 0x12345678
        ds_load_u8_d16_hi v15, v1 offset:1
        ds_load_i8_d16 v16, v1 offset:1
        ds_store_b16_d16_hi v1, v15 offset:14
        ds_load_b32 v17, v1 offset:12
    """)
    data = run.vgpr[0, 2:6, :].T.copy()  # [lanes, 4] dwords
    raw = data.view(np.uint8).reshape(wave, 16)
    v = run.vgpr[0]
    np.testing.assert_array_equal(v[6:8].T, data[:, 1:3])
    np.testing.assert_array_equal(v[8:11].T, data[:, 0:3])
    np.testing.assert_array_equal(v[11], raw[:, 1])
    np.testing.assert_array_equal(v[12], raw[:, 1].view(np.int8).astype(np.int32).view(np.uint32))
    half = raw[:, 2:4].copy().view(np.uint16)[:, 0]
    np.testing.assert_array_equal(v[13], half.view(np.int16).astype(np.int32).view(np.uint32))
    np.testing.assert_array_equal(v[14], half)
    np.testing.assert_array_equal(v[15], (raw[:, 1].astype(np.uint32) << 16) | 0x5678)
    np.testing.assert_array_equal(v[16], 0x12340000 | raw[:, 1].view(np.int8).astype(np.int16).view(np.uint16).astype(np.uint32))
    np.testing.assert_array_equal(v[17], (data[:, 3] & 0xFFFF) | (raw[:, 1].astype(np.uint32) << 16))


def test_two_address_forms_scale_their_offsets():
    run = Dispatch("gfx1100", 32, lds_bytes=4096)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = lane * 4
    run.vgpr[:, 2, :] = lane + 100
    run.vgpr[:, 3, :] = lane + 200
    run("""
        ds_store_2addr_b32 v1, v2, v3 offset0:0 offset1:32
        ds_store_2addr_stride64_b32 v1, v3, v2 offset0:4 offset1:5
        ds_load_2addr_b32 v[4:5], v1 offset1:32
        ds_load_2addr_stride64_b32 v[6:7], v1 offset0:4 offset1:5
        ds_load_2addr_b64 v[8:11], v1 offset0:16 offset1:8
    """)
    words = run.lds[0].view(np.uint32)
    np.testing.assert_array_equal(words[:32], np.arange(32) + 100)
    np.testing.assert_array_equal(words[32:64], np.arange(32) + 200)
    np.testing.assert_array_equal(words[256:288], np.arange(32) + 200)  # 4 * 64 dwords on
    np.testing.assert_array_equal(run.vgpr[0, 4:8].T, np.stack([np.arange(32) + k for k in (100, 200, 200, 100)], 1))
    # b64 elements: offset0 16 -> byte 128 + lane*4, offset1 8 -> byte 64 + lane*4
    expected = np.concatenate([words[32 + lane[0]: 34 + lane[0]] for lane in [np.array([i]) for i in range(32)]])
    np.testing.assert_array_equal(run.vgpr[0, 8:10].T.reshape(-1), expected)


def test_each_workgroup_has_its_own_lds_and_out_of_range_is_dropped():
    run = Dispatch("gfx1100", 32, groups=2, lds_bytes=128)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = lane * 4
    run.vgpr[:, 2, :] = lane + 1000 * np.arange(2)[:, None]
    run.vgpr[:, 3, :] = 0xDEAD
    run("""
        ds_store_b32 v1, v2
        ds_store_b32 v1, v2 offset:128
        s_waitcnt lgkmcnt(0)
        ds_load_b32 v3, v1
        ds_load_b32 v4, v1 offset:128
    """)
    np.testing.assert_array_equal(run.vgpr[:, 3, :], run.vgpr[:, 2, :])
    assert (run.vgpr[:, 4, :] == 0).all()  # beyond the 128-byte allocation: reads 0, the store went nowhere


@pytest.mark.parametrize("target,wave", WAVES)
def test_returning_atomics_on_one_address_are_serialized_in_lane_order(target, wave):
    run = Dispatch(target, wave, waves_per_group=2, lds_bytes=64)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = 0
    run.vgpr[:, 2, :] = 3
    run.vgpr[:, 4, :] = 8
    run.vgpr[:, 5, :] = lane * 7 % 5 - 2
    run("""
        ds_add_rtn_u32 v3, v1, v2
        ds_max_rtn_i32 v6, v4, v5
        ds_inc_rtn_u32 v7, v4, v2 offset:16
    """)
    n = 2 * wave
    order = np.arange(n)  # wave 0's lanes, then wave 1's
    np.testing.assert_array_equal(run.vgpr[:, 3, :].reshape(-1), 3 * order)
    assert run.lds[0].view(np.uint32)[0] == 3 * n
    values = run.vgpr[:, 5, :].reshape(-1).view(np.int32)
    running = np.maximum.accumulate(np.concatenate([[0], values]))[:-1]
    np.testing.assert_array_equal(run.vgpr[:, 6, :].reshape(-1).view(np.int32), running)
    np.testing.assert_array_equal(run.vgpr[:, 7, :].reshape(-1), order % 4)  # inc wraps past 3 to 0


def test_compare_store_lets_one_lane_win_and_others_see_its_value():
    run = Dispatch("gfx1100", 32, lds_bytes=16)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = 0
    run.vgpr[:, 2, :] = lane + 10  # new value
    run.vgpr[:, 3, :] = 0  # compare value: only the first lane finds memory at 0
    run("ds_cmpstore_rtn_b32 v4, v1, v2, v3")
    assert run.lds[0].view(np.uint32)[0] == 10
    np.testing.assert_array_equal(run.vgpr[0, 4], np.r_[0, np.full(31, 10)])


def test_float_and_64_bit_and_bitwise_atomics():
    run = Dispatch("gfx1100", 32, lds_bytes=64)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = 0
    run.vgpr[:, 2, :] = (lane.astype(np.float32) * 0.5).view(np.uint32)
    run.vgpr[:, 3, :] = 0xFFFFFFFF
    run.vgpr[:, 4, :] = 1
    run.vgpr[:, 5, :] = 1 << (lane % 32)
    run("""
        ds_add_f32 v1, v2
        ds_add_u64 v1, v[3:4] offset:8
        ds_or_b32 v1, v5 offset:16
        ds_mskor_b32 v1, v5, v5 offset:20
        ds_storexchg_rtn_b32 v6, v1, v2 offset:24
    """)
    words = run.lds[0].view(np.uint32)
    assert words[0].view(np.float32) == np.float32(0.5 * sum(range(32)))
    assert run.lds[0, 8:16].view(np.uint64)[0] == 32 * 0x1_FFFF_FFFF
    assert words[4] == 0xFFFFFFFF and words[5] == 0xFFFFFFFF
    assert words[6] == run.vgpr[0, 2, 31]
    np.testing.assert_array_equal(run.vgpr[0, 6, 1:], run.vgpr[0, 2, :-1])


def test_append_adds_each_waves_active_lane_count():
    run = Dispatch("gfx1100", 32, waves_per_group=3, lds_bytes=16)
    run.set_exec(np.arange(32)[None, :] < np.array([[5], [0], [32]]))
    run.sgpr[:, 125] = 4  # M0: the counter's LDS address
    run.lds[0, 4:8].view(np.uint32)[0] = 100
    run("ds_append v1")
    assert run.lds[0, 4:8].view(np.uint32)[0] == 137
    np.testing.assert_array_equal(run.vgpr[0, 1, :5], 100)
    np.testing.assert_array_equal(run.vgpr[2, 1, :], 105)


@pytest.mark.parametrize("target,wave", WAVES)
def test_bpermute_and_permute_stay_within_each_32_lane_half(target, wave):
    run = Dispatch(target, wave)
    lane = run.lane_ids()
    partner = (5 * (lane % 32) + 3) % 32
    run.vgpr[:, 1, :] = partner * 4  # no half bit: RDNA addresses lanes mod 32 within the half
    run.vgpr[:, 2, :] = lane + 1000
    run.set_exec(lane != 7)
    run.step(lds.data_share, "ds_bpermute_b32 v3, v1, v2")
    run.step(lds.data_share, "ds_permute_b32 v4, v1, v2")
    half = lane & 32
    src = half | partner
    expected = np.where(src == 7, 0, src + 1000)  # reading an inactive lane gives 0
    active = lane != 7
    np.testing.assert_array_equal(run.vgpr[:, 3, :][active], expected[active])
    writer = np.full(lane.shape, -1)
    for i in range(wave):  # highest writing lane wins; the permutation has one writer per target
        if i != 7:
            writer[0, half[0, i] | partner[0, i]] = i
    expected = np.where(writer >= 0, writer + 1000, 0)
    np.testing.assert_array_equal(run.vgpr[:, 4, :][active], expected[active])


@pytest.mark.parametrize("pattern,source", [
    ("swizzle(QUAD_PERM,3,2,1,0)", lambda i: (i & ~3) | (3 - (i & 3))),
    ('swizzle(BITMASK_PERM,"01pip")', lambda i: (i & 32) | 0b01000 | (i & 0b00101) | (~i & 0b00010)),
    ("swizzle(SWAP,16)", lambda i: i ^ 16),
    ("swizzle(REVERSE,8)", lambda i: i ^ 7),
    ("swizzle(BROADCAST,4,1)", lambda i: (i & ~3) | 1),
])
def test_swizzle_modes(pattern, source):
    run = Dispatch("gfx1100", 64)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = lane + 500
    run.step(lds.data_share, f"ds_swizzle_b32 v2, v1 offset:{pattern}")
    np.testing.assert_array_equal(run.vgpr[0, 2], source(np.arange(64)) + 500)


def test_swizzle_rotate_within_groups_of_32():
    run = Dispatch("gfx1100", 32)
    run.vgpr[:, 1, :] = run.lane_ids() + 500
    run.step(lds.data_share, f"ds_swizzle_b32 v2, v1 offset:{0xC000 | 3 << 5}")
    np.testing.assert_array_equal(run.vgpr[0, 2], (np.arange(32) + 3) % 32 + 500)


def test_load_addtid_reads_consecutive_dwords_from_m0():
    run = Dispatch("gfx1100", 32, lds_bytes=256)
    run.lds[0].view(np.uint32)[:] = np.arange(64) * 3
    run.sgpr[:, 125] = 16
    run("ds_load_addtid_b32 v1 offset:8")
    np.testing.assert_array_equal(run.vgpr[0, 1], (np.arange(32) + 6) * 3)


def test_global_data_share_is_reported_as_not_emulated():
    run = Dispatch("gfx1100", 32)
    with pytest.raises(ExecutionError, match="GDS"):
        run("ds_add_u32 v1, v2 gds")


def test_swizzle_fft_mode_reverses_lane_bits():
    run = Dispatch("gfx1100", 32)
    run.vgpr[:, 1, :] = run.lane_ids() + 500
    run.step(lds.data_share, f"ds_swizzle_b32 v2, v1 offset:{0xE000}")
    reversed_lanes = [int(f"{i:05b}"[::-1], 2) for i in range(32)]
    np.testing.assert_array_equal(run.vgpr[0, 2], np.array(reversed_lanes) + 500)


def test_cdna_compare_store_takes_the_compare_value_first():
    run = Dispatch("gfx942", 64, lds_bytes=16)
    run.lds[0].view(np.uint32)[0] = 7
    run.vgpr[:, 1, :] = 0
    run.vgpr[:, 2, :] = 7  # data0: compare
    run.vgpr[:, 3, :] = 9  # data1: new value
    run.set_exec(run.lane_ids() == 0)
    run("ds_cmpst_rtn_b32 v4, v1, v2, v3")
    assert run.lds[0].view(np.uint32)[0] == 9 and run.vgpr[0, 4, 0] == 7


def test_no_active_lane_touches_nothing():
    run = Dispatch("gfx1100", 32, lds_bytes=64)
    run.set_exec(np.zeros(32, bool))
    run.vgpr[:, 2, :] = 5
    run("""
        ds_store_b32 v1, v2
        ds_add_rtn_u32 v3, v1, v2
        ds_load_2addr_b32 v[4:5], v1 offset1:1
        ds_append v6
    """)
    assert not run.lds.any() and not run.vgpr[:, 3:7].any()

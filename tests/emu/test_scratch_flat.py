"""SCRATCH instructions (each lane's private segment) and FLAT accesses through the LDS and private apertures."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.executor import GPUPageFault
from gpubench.emu.ops.segments import PRIVATE_BASE, SHARED_BASE


@pytest.mark.parametrize("target,wave", [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64)])
def test_each_lane_has_its_own_private_segment(target, wave):
    run = Dispatch(target, wave, private_bytes=64)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = 4 * (lane % 8)  # offsets: lanes share them, not the bytes
    run.vgpr[:, 2, :] = lane + 100
    run.vgpr[:, 3, :] = lane + 200
    run.sgpr[:, 2] = 32
    store, load = ("scratch_store_b32", "scratch_load_b32") if target != "gfx942" else \
        ("scratch_store_dword", "scratch_load_dword")
    run(f"""
        {store} v1, v2, off
        {store} off, v3, s2 offset:8
        {load} v4, v1, off
        {load} v5, off, s2 offset:8
    """)
    np.testing.assert_array_equal(run.vgpr[:, 4, :], lane + 100)
    np.testing.assert_array_equal(run.vgpr[:, 5, :], lane + 200)
    words = run.scratch.view(np.uint32)  # [waves, lanes, 16]
    np.testing.assert_array_equal(words[0, np.arange(wave), lane[0] % 8], lane[0] + 100)
    np.testing.assert_array_equal(words[0, :, 10], lane[0] + 200)


def test_access_past_the_private_segment_is_a_page_fault_naming_lane_and_offset():
    run = Dispatch("gfx1100", 32, private_bytes=64)
    run.vgpr[:, 1, :] = np.where(run.lane_ids() == 5, 62, 0)  # a 4-byte store at 62 ends past 64
    with pytest.raises(GPUPageFault) as e:
        run("scratch_store_b32 v1, v2, off")
    fault = e.value.fault
    assert (fault.address, fault.lane, fault.write) == (62, 5, True)
    assert "private segment" in str(e.value) and "scratch_store_b32" in str(e.value)
    assert not run.scratch.any()  # nothing was written


def test_aperture_sources_and_flat_accesses_to_lds_and_scratch():
    run = Dispatch("gfx1100", 32, lds_bytes=256, private_bytes=16)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = lane * 4
    run.vgpr[:, 3, :] = lane + 7
    run.vgpr[:, 10, :] = 8
    run("""
        s_mov_b64 s[0:1], src_shared_base
        s_mov_b32 s2, src_private_base
        v_mov_b32 v2, s1
        flat_store_b32 v[1:2], v3
        flat_atomic_add_u32 v4, v[1:2], v3 offset:128 glc
        v_mov_b32 v11, s2
        flat_store_b32 v[10:11], v3
        flat_load_b32 v5, v[10:11]
        flat_load_b32 v6, v[1:2]
    """)
    assert run.sgpr[0, 0] == SHARED_BASE & 0xFFFFFFFF and run.sgpr[0, 1] == SHARED_BASE >> 32
    assert run.sgpr[0, 2] == PRIVATE_BASE >> 32  # a 32-bit read gives the aperture's high dword
    np.testing.assert_array_equal(run.lds[0].view(np.uint32)[:32], lane[0] + 7)
    np.testing.assert_array_equal(run.lds[0].view(np.uint32)[32:64], lane[0] + 7)
    assert (run.vgpr[0, 4] == 0).all()  # the atomic found zeroed LDS
    np.testing.assert_array_equal(run.scratch.view(np.uint32)[0, :, 2], lane[0] + 7)
    np.testing.assert_array_equal(run.vgpr[0, 5], lane[0] + 7)
    np.testing.assert_array_equal(run.vgpr[0, 6], lane[0] + 7)


def test_flat_global_addresses_still_reach_memory():
    run = Dispatch("gfx1100", 32)
    data = run.buffer(np.arange(32, dtype=np.uint32) * 3)
    address = data.address + run.lane_ids().astype(np.uint64) * 4
    run.vgpr[:, 1, :] = address & 0xFFFFFFFF
    run.vgpr[:, 2, :] = address >> 32
    run("flat_load_b32 v3, v[1:2]")
    np.testing.assert_array_equal(run.vgpr[0, 3], np.arange(32) * 3)


def test_gfx12_encodings_of_scratch_global_and_atomics():
    run = Dispatch("gfx1201", 32, private_bytes=16)
    memory = run.buffer(np.zeros(4, np.uint32))
    run.sgpr_pair(0, memory.address)
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = 4
    run.vgpr[:, 2, :] = lane + 1
    run.vgpr[:, 5, :] = 0
    run("""
        scratch_store_b32 v1, v2, off offset:4
        scratch_load_b32 v3, v1, off offset:4
        global_atomic_add_u32 v4, v5, v2, s[0:1] offset:4 th:TH_ATOMIC_RETURN
        global_store_b32 v5, v3, s[0:1] offset:8
    """)
    np.testing.assert_array_equal(run.vgpr[0, 3], lane[0] + 1)
    np.testing.assert_array_equal(run.vgpr[0, 4], np.cumsum(np.r_[0, lane[0][:-1] + 1]))
    assert memory.data.view(np.uint32)[1] == sum(range(1, 33)) and memory.data.view(np.uint32)[2] == 32

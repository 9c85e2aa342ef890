"""Buffer loads, stores and atomics through a V#, with the hardware's range check."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.context import ExecutionError

RAW, STRUCTURED = 3, 1  # RDNA OOB_SELECT: check the byte offset / the record index


def descriptor(run: Dispatch, base: int, records: int, stride: int = 0, oob_select: int = RAW) -> None:
    """A V# in s[8:11]: swizzling off, ADD_TID off."""
    run.sgpr[:, 8] = base & 0xFFFFFFFF
    run.sgpr[:, 9] = (base >> 32) | (stride << 16)
    run.sgpr[:, 10] = records
    run.sgpr[:, 11] = oob_select << 28


def test_raw_buffer_out_of_range_reads_zero_and_drops_writes():
    run = Dispatch("gfx1100", 32)
    memory = run.buffer(np.arange(64, dtype=np.uint32) + 1)
    descriptor(run, memory.address, records=24)  # 6 dwords visible
    lane = run.lane_ids()
    run.vgpr[:, 1, :] = lane * 4
    run.vgpr[:, 2, :] = lane + 500
    run.vgpr[:, 7, :] = 1
    run.sgpr[:, 3] = 4  # soffset: moves the address, not the range check
    run("""
        buffer_load_b32 v3, v1, s[8:11], 0 offen
        buffer_load_b64 v[4:5], v1, s[8:11], 0 offen offset:12
        buffer_load_b32 v6, v1, s[8:11], s3 offen
        buffer_store_b32 v2, v1, s[8:11], 0 offen offset:8
        buffer_atomic_add_u32 v7, v1, s[8:11], 0 offen glc
    """)
    in_range = np.arange(32) < 6
    np.testing.assert_array_equal(run.vgpr[0, 3], np.where(in_range, np.arange(32) + 1, 0))
    # b64 at 12 + 4i: each dword checked on its own; lane 2's first dword (20..24) is in, its second is not
    np.testing.assert_array_equal(run.vgpr[0, 4], np.where(np.arange(32) < 3, np.arange(32) + 4, 0))
    np.testing.assert_array_equal(run.vgpr[0, 5], np.where(np.arange(32) < 2, np.arange(32) + 5, 0))
    np.testing.assert_array_equal(run.vgpr[0, 6], np.where(in_range, np.arange(32) + 2, 0))
    expected = np.arange(64, dtype=np.uint32) + 1
    expected[2:6] = 500 + np.arange(4)  # the stores at 8 + 4i in range: lanes 0..3
    np.testing.assert_array_equal(run.vgpr[0, 7], np.r_[expected[:6], np.zeros(26)])  # the atomic's prior values
    expected[:6] += 1
    np.testing.assert_array_equal(memory.data.view(np.uint32), expected)


def test_structured_buffer_checks_the_record_index():
    run = Dispatch("gfx1100", 32)
    memory = run.buffer(np.arange(64, dtype=np.uint32))
    descriptor(run, memory.address, records=3, stride=8, oob_select=STRUCTURED)
    run.vgpr[:, 1, :] = run.lane_ids()  # index
    run("buffer_load_b32 v2, v1, s[8:11], 0 idxen offset:4")
    np.testing.assert_array_equal(run.vgpr[0, 2], np.where(np.arange(32) < 3, 2 * np.arange(32) + 1, 0))


def test_cdna_raw_buffer_counts_bytes():
    run = Dispatch("gfx942", 64)
    memory = run.buffer(np.arange(64, dtype=np.uint32))
    descriptor(run, memory.address, records=40, oob_select=0)
    run.vgpr[:, 1, :] = run.lane_ids() * 4
    run("buffer_load_dword v2, v1, s[8:11], 0 offen")
    np.testing.assert_array_equal(run.vgpr[0, 2], np.where(np.arange(64) < 10, np.arange(64), 0))


def test_swizzled_buffers_are_reported_as_not_emulated():  # typed buffers: test_buffer_format.py
    run = Dispatch("gfx1100", 32)
    descriptor(run, 0x1000, records=16)
    run.sgpr[:, 9] |= 1 << 30
    with pytest.raises(ExecutionError, match="swizzled"):
        run("buffer_load_b32 v1, off, s[8:11], 0")


def test_gfx12_vbuffer_names_the_descriptor_by_its_first_sgpr():
    run = Dispatch("gfx1201", 32)
    memory = run.buffer(np.arange(64, dtype=np.uint32))
    descriptor(run, memory.address, records=64)
    run.vgpr[:, 1, :] = run.lane_ids() * 4
    run("buffer_load_b32 v2, v1, s[8:11], null offen offset:8")
    np.testing.assert_array_equal(run.vgpr[0, 2], np.where(np.arange(32) < 14, np.arange(32) + 2, 0))

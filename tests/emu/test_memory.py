import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpubench.emu.memory import AddressSpace, PageFault


def space():
    mem = AddressSpace()
    mem.map(0x1000, 0x100, name="a")
    mem.map(0x3000, np.arange(16, dtype=np.uint32), name="b")
    return mem


def test_gather_and_scatter_across_mappings():
    mem = space()
    mem.write(np.array([0x1000, 0x3004], np.uint64), np.array([[1, 2, 3, 4], [9, 9, 9, 9]], np.uint8))
    got = mem.read(np.array([0x1000, 0x3004, 0x3008], np.uint64), 4)
    assert got.view(np.uint32).ravel().tolist() == [0x04030201, 0x09090909, 2]


def test_client_memory_is_shared():
    host = np.zeros(4, np.uint32)
    mem = AddressSpace()
    mem.map(0x8000, host)
    mem.write_bytes(0x8004, (7).to_bytes(4, "little"))
    assert host[1] == 7


def test_fault_names_address_lane_and_kind_and_writes_nothing():
    mem = space()
    with pytest.raises(PageFault) as e:
        mem.write(np.array([0x1000, 0x10fe], np.uint64), np.ones((2, 4), np.uint8))  # lane 1 crosses the end
    assert (e.value.address, e.value.write, e.value.lane) == (0x10FE, True, 1)
    assert mem.read_bytes(0x1000, 4) == b"\0\0\0\0"  # lane 0's store did not happen either
    with pytest.raises(PageFault, match="read at 0x2000"):
        mem.read(np.array([0x2000], np.uint64), 4)


def test_read_only_mapping():
    mem = AddressSpace()
    mem.map(0x1000, 64, writable=False)
    mem.read_bytes(0x1000, 4)
    with pytest.raises(PageFault, match="read-only"):
        mem.write_bytes(0x1000, b"1234")


def test_overlapping_map_is_refused():
    mem = space()
    with pytest.raises(ValueError, match="overlaps"):
        mem.map(0x10f0, 0x20)


@given(st.lists(st.integers(0, 0x5000), min_size=1, max_size=64))
def test_every_address_is_checked(addresses):
    mem = space()
    arr = np.array(addresses, np.uint64)
    inside = [(0x1000 <= a <= 0x1100 - 4) or (0x3000 <= a <= 0x3040 - 4) for a in addresses]
    if all(inside):
        assert mem.read(arr, 4).shape == (len(addresses), 4)
    else:
        with pytest.raises(PageFault) as e:
            mem.read(arr, 4)
        assert e.value.address == addresses[inside.index(False)]


def test_single_accesses_fault_like_whole_instruction_ones():
    """read_bytes/write_bytes (the command processors' accesses) take a slice when one mapping
    holds them, and fault exactly as a lane would otherwise: past the end, or writing read-only."""
    mem = AddressSpace()
    mem.map(0x1000, np.arange(16, dtype=np.uint8))
    mem.map(0x2000, 16, writable=False)
    assert mem.read_bytes(0x100C, 4) == bytes([12, 13, 14, 15])
    mem.write_bytes(0x1000, b"\xff\xee")
    assert mem.read_bytes(0x1000, 3) == b"\xff\xee\x02"
    with pytest.raises(PageFault) as past_end:
        mem.read_bytes(0x100E, 4)
    assert (past_end.value.address, past_end.value.write) == (0x100E, False)
    with pytest.raises(PageFault, match="read-only"):
        mem.write_bytes(0x2000, b"\x01")
    assert mem.read_bytes(0x2000, 1) == b"\x00"

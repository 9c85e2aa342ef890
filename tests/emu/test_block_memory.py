"""gfx12's GLOBAL/SCRATCH_LOAD_BLOCK and _STORE_BLOCK (block_memory.py) on both engines, against the
RDNA4 pseudocode's loop written here per lane: dword i of the block moves for each bit i set in M0."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.executor import GPUPageFault

ENGINES = ("reference", "native")
M0 = 0x8000_1A0F  # dwords 0-3, 9, 11, 12 and 31: holes between them


def chosen(m0: int) -> list[int]:
    return [i for i in range(32) if m0 >> i & 1]


@pytest.mark.parametrize("engine_name", ENGINES)
def test_global_block_load_and_store_follow_m0(engine_name):
    rng = np.random.default_rng(5)
    run = Dispatch("gfx1201", 32, vgprs=128)
    source = rng.integers(0, 1 << 32, 32 * 32 + 64, dtype=np.uint64).astype(np.uint32)
    memory, out = run.buffer(source), run.buffer(np.zeros(32 * 32, np.uint32))
    run.sgpr_pair(0, memory.address)
    run.sgpr_pair(2, out.address)
    run.sgpr[:, 125] = M0
    run.vgpr[0, 1, :] = rng.permutation(32) * 128  # each lane's block, in an order of its own
    run.vgpr[0, 2, :] = run.lane_ids()[0] * 128
    run.vgpr[0, 8:40, :] = 0xDEADBEEF
    run.vgpr[0, 40:72, :] = rng.integers(0, 1 << 32, (32, 32), dtype=np.uint64).astype(np.uint32)
    active = rng.random(32) < 0.8
    run.set_exec(active)
    run("global_load_block v[8:39], v1, s[0:1] offset:16\nglobal_store_block v2, v[40:71], s[2:3]", engine_name)
    for lane in range(32):
        start = (int(run.vgpr[0, 1, lane]) + 16) // 4
        for i in range(32):
            want = int(source[start + i]) if active[lane] and i in chosen(M0) else 0xDEADBEEF
            assert int(run.vgpr[0, 8 + i, lane]) == want, (lane, i)
            stored = int(out.data.view(np.uint32)[lane * 32 + i])
            assert stored == (int(run.vgpr[0, 40 + i, lane]) if active[lane] and i in chosen(M0) else 0), (lane, i)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_scratch_block_store_then_load(engine_name):
    run = Dispatch("gfx1201", 32, vgprs=128, private_bytes=256)
    run.sgpr[:, 125] = 0xFFFF_FFFF
    run.sgpr[:, 4] = 64
    run.vgpr[0, 1, :] = run.lane_ids()[0] % 2 * 32  # odd lanes 32 bytes further
    run.vgpr[0, 40:72, :] = np.arange(32 * 32, dtype=np.uint32).reshape(32, 32)
    run("scratch_store_block v1, v[40:71], s4\nscratch_load_block v[8:39], v1, s4", engine_name)
    np.testing.assert_array_equal(run.vgpr[0, 8:40], run.vgpr[0, 40:72])
    for lane in range(32):
        start = 64 + lane % 2 * 32
        words = run.scratch[0, lane, start:start + 128].view(np.uint32)
        np.testing.assert_array_equal(words, run.vgpr[0, 40:72, lane])


@pytest.mark.parametrize("engine_name", ENGINES)
def test_a_block_store_with_a_faulting_dword_writes_nothing(engine_name):
    run = Dispatch("gfx1201", 32, vgprs=128)
    out = run.buffer(np.zeros(32 * 32, np.uint32))  # a guard page after it
    run.sgpr_pair(2, out.address)
    run.sgpr[:, 125] = 1 << 31
    run.vgpr[0, 2, :] = run.lane_ids()[0] * 128
    run.vgpr[0, 2, 31] = 32 * 128 - 31 * 4  # lane 31's dword 31 is the first past the buffer
    run.vgpr[0, 40:72, :] = 7
    with pytest.raises(GPUPageFault) as error:
        run("global_store_block v2, v[40:71], s[2:3]", engine_name)
    assert error.value.fault.address == out.address + 32 * 128 and error.value.fault.lane == 31
    assert not out.data.any()

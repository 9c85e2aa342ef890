"""A FLAT store that faults on one lane writes none of its lanes of another segment: the page fault
is the store's whole outcome, as for a store to global memory alone."""
from __future__ import annotations

import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.executor import GPUPageFault
from gpubench.emu.ops.segments import PRIVATE_BASE, SHARED_BASE

UNMAPPED = 0xDEAD_0000


@pytest.mark.parametrize("aperture", ["LDS", "scratch"])
def test_a_flat_store_faulting_on_a_global_lane_writes_no_lds_or_scratch_lane(aperture):
    run = Dispatch("gfx1100", lds_bytes=256, private_bytes=64)
    addresses = np.full(32, UNMAPPED, np.uint64)
    addresses[0] = (SHARED_BASE if aperture == "LDS" else PRIVATE_BASE) + 16
    run.vgpr[:, 2, :] = (addresses & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    run.vgpr[:, 3, :] = (addresses >> np.uint64(32)).astype(np.uint32)
    run.vgpr[:, 4, :] = 0x1234
    with pytest.raises(GPUPageFault, match=f"write at 0x{UNMAPPED:x}"):
        run("flat_store_b32 v[2:3], v4")
    assert not run.lds.any() and not run.scratch.any()

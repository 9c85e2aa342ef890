"""gfx12's global_load_tr_b128 against the lane mapping measured on gfx1201 (global_transpose.py cites it):
with 16-bit values B[r][c] = 16 r + c in memory and lane L reading at element 8 L, lane L receives
B[4 (L / 8) + j / 2][L % 8 + 8 (j % 2)]; and the address pattern derived from it gives lane L column L % 16,
rows 8 (L / 16) .. +7 of a row-major matrix (the WMMA B fragment). Both engines."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.context import ExecutionError

ENGINES = ("reference", "native")


def run(matrix: np.ndarray, element_addresses: np.ndarray, engine_name: str, text: str = None, exec_mask=None):
    d = Dispatch("gfx1201", 32, vgprs=16)
    buffer = d.buffer(matrix.astype(np.uint16).reshape(-1))
    address = buffer.address + element_addresses.astype(np.uint64) * 2
    d.vgpr[0, 4, :] = (address & 0xFFFFFFFF).astype(np.uint32)
    d.vgpr[0, 5, :] = (address >> 32).astype(np.uint32)
    if exec_mask is not None:
        d.set_exec(exec_mask)
    ctx = d(text or "global_load_tr_b128 v[0:3], v[4:5], off", engine_name)
    return np.ascontiguousarray(ctx.waves.vgpr[0, 0:4, :].T).view(np.uint16)  # [lane, element]


@pytest.mark.parametrize("engine_name", ENGINES)
def test_the_measured_probe(engine_name):
    b = np.arange(256).reshape(16, 16)
    lane = np.arange(32)
    got = run(b, lane * 8, engine_name)
    j = np.arange(8)
    want = b[4 * (lane[:, None] // 8) + j[None] // 2, lane[:, None] % 8 + 8 * (j[None] % 2)]
    np.testing.assert_array_equal(got, want)
    assert sorted(set(got[0])) == [0, 8, 16, 24, 32, 40, 48, 56]  # columns 0 and 8 of rows 0-3
    assert list(got[31]) == [16 * r + c for r in range(12, 16) for c in (7, 15)]


@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("ldb", [16, 24])
def test_the_derived_addresses_give_each_lane_its_column(engine_name, ldb):
    rng = np.random.default_rng(ldb)
    b = rng.integers(0, 1 << 16, (16, ldb))  # B[k][n], row-major with leading dimension ldb
    lane = np.arange(32)
    addresses = (8 * (lane // 16) + lane % 8) * ldb + ((lane // 8) % 2) * 8
    got = run(b, addresses, engine_name)
    want = b[8 * (lane[:, None] // 16) + np.arange(8)[None], lane[:, None] % 16]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_inactive_lanes_stop_the_dispatch(engine_name):
    with pytest.raises(ExecutionError, match="EXEC"):
        run(np.arange(256).reshape(16, 16), np.arange(32) * 8, engine_name, exec_mask=np.arange(32) != 5)

"""gfx12's global_load_tr_b128 against the lane mapping measured on gfx1201 (global_transpose.py cites it):
with 16-bit values B[r][c] = 16 r + c in memory and lane L reading at element 8 L, lane L receives
B[4 (L / 8) + j / 2][L % 8 + 8 (j % 2)]; and the address pattern derived from it gives lane L column L % 16,
rows 8 (L / 16) .. +7 of a row-major matrix (the WMMA B fragment). global_load_tr_b64 does the same 8x8
transpose with eight 8-bit elements a lane (inferred, global_transpose.py says from what): checked against
the same two models and a lane-by-lane one. Both engines."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.context import ExecutionError

ENGINES = ("reference", "native")


LOADS = {"b128": (np.uint16, "global_load_tr_b128 v[0:3], v[4:5], off"),
         "b64": (np.uint8, "global_load_tr_b64 v[0:1], v[4:5], off")}


def run(matrix: np.ndarray, element_addresses: np.ndarray, engine_name: str, text: str = None, exec_mask=None,
        load: str = "b128"):
    dtype, default_text = LOADS[load]
    d = Dispatch("gfx1201", 32, vgprs=16)
    buffer = d.buffer(matrix.astype(dtype).reshape(-1))
    address = buffer.address + element_addresses.astype(np.uint64) * np.dtype(dtype).itemsize
    d.vgpr[0, 4, :] = (address & 0xFFFFFFFF).astype(np.uint32)
    d.vgpr[0, 5, :] = (address >> 32).astype(np.uint32)
    if exec_mask is not None:
        d.set_exec(exec_mask)
    ctx = d(text or default_text, engine_name)
    words = 8 * np.dtype(dtype).itemsize // 4
    return np.ascontiguousarray(ctx.waves.vgpr[0, 0:words, :].T).view(dtype)  # [lane, element]


@pytest.mark.parametrize("load", LOADS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_the_measured_probe(engine_name, load):
    b = np.arange(256).reshape(16, 16)
    lane = np.arange(32)
    got = run(b, lane * 8, engine_name, load=load)
    j = np.arange(8)
    want = b[4 * (lane[:, None] // 8) + j[None] // 2, lane[:, None] % 8 + 8 * (j[None] % 2)]
    np.testing.assert_array_equal(got, want)
    assert sorted(set(got[0])) == [0, 8, 16, 24, 32, 40, 48, 56]  # columns 0 and 8 of rows 0-3
    assert list(got[31]) == [16 * r + c for r in range(12, 16) for c in (7, 15)]


@pytest.mark.parametrize("load", LOADS)
@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("ldb", [16, 24])
def test_the_derived_addresses_give_each_lane_its_column(engine_name, ldb, load):
    rng = np.random.default_rng(ldb)
    bits = 8 * np.dtype(LOADS[load][0]).itemsize
    b = rng.integers(0, 1 << bits, (16, ldb))  # B[k][n], row-major with leading dimension ldb
    lane = np.arange(32)
    addresses = (8 * (lane // 16) + lane % 8) * ldb + ((lane // 8) % 2) * 8
    got = run(b, addresses, engine_name, load=load)
    want = b[8 * (lane[:, None] // 16) + np.arange(8)[None], lane[:, None] % 16]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_tr_b64_lane_by_lane(engine_name):
    """Scattered addresses, random bytes: lane L's byte j is byte L % 8 of what lane 8 (L / 8) + j read."""
    rng = np.random.default_rng(7)
    memory = rng.integers(0, 256, 4096)
    starts = rng.permutation(4096 // 8)[:32] * 8
    got = run(memory, starts, engine_name, load="b64")
    for lane in range(32):
        for j in range(8):
            source = 8 * (lane // 8) + j
            assert got[lane, j] == memory[starts[source] + lane % 8]


@pytest.mark.parametrize("load", LOADS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_inactive_lanes_stop_the_dispatch(engine_name, load):
    with pytest.raises(ExecutionError, match="EXEC"):
        run(np.arange(256).reshape(16, 16), np.arange(32) * 8, engine_name, exec_mask=np.arange(32) != 5, load=load)

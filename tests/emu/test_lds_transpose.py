"""gfx950's transposing LDS loads (ds_read_b64_tr_b4/b8/b16, ds_read_b96_tr_b6), on both engines.

The model: a group of 16 lanes reads a block of E rows of a 16-column matrix of b-bit elements held row by
row in LDS (E = 64/b, or 16 for the 96-bit B6; each row read by 16/E lanes, E elements each), and lane m of
the group gets column m: the E elements of rows 0..E-1, low bits first. A second test replays the address
pattern of AMD's rocRoller TransposeLoadsTest (a GPU test on gfx950) and checks the relation it expects
between LDS and the loaded registers."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

ENGINES = ("reference", "native")
WIDTHS = [("ds_read_b64_tr_b4", 64, 4), ("ds_read_b64_tr_b8", 64, 8), ("ds_read_b64_tr_b16", 64, 16),
          ("ds_read_b96_tr_b6", 96, 6)]


def pack(elements: np.ndarray, bits: int) -> np.ndarray:
    """b-bit elements (any shape [..., n]) packed low bits first into bytes [..., n * bits / 8]."""
    as_bits = ((elements[..., None] >> np.arange(bits)) & 1).astype(np.uint8)
    return np.packbits(as_bits.reshape(*elements.shape[:-1], -1), axis=-1, bitorder="little")


def unpack(data: np.ndarray, bits: int) -> np.ndarray:
    as_bits = np.unpackbits(data, axis=-1, bitorder="little").reshape(*data.shape[:-1], -1, bits)
    return (as_bits.astype(np.int64) << np.arange(bits)).sum(axis=-1)


def load(text: str, lds: np.ndarray, addresses: np.ndarray, engine_name: str, exec_mask=None, fill=0):
    d = Dispatch("gfx950", 64, lds_bytes=len(lds), vgprs=16)
    d.lds[0, :] = lds
    d.vgpr[0, 1, :] = addresses
    d.vgpr[0, 2:6, :] = fill
    if exec_mask is not None:
        d.set_exec(exec_mask)
    return d(text, engine_name).waves.vgpr[0]


def result_bytes(vgpr: np.ndarray, bits: int) -> np.ndarray:
    """[lanes, bytes] of the loaded v[2:...] registers."""
    return np.ascontiguousarray(vgpr[2:2 + bits // 32].T).view(np.uint8)


@pytest.mark.parametrize("mnemonic,bits,element_bits", WIDTHS)
@pytest.mark.parametrize("engine_name", ENGINES)
def test_each_lane_gets_its_column_of_the_block_its_group_reads(mnemonic, bits, element_bits, engine_name):
    per_lane = bits // element_bits
    lanes_per_row = 16 // per_lane
    row_bytes = 16 if bits == 96 else 16 * element_bits // 8  # B6 rows 128-bit aligned, 96 bits used
    rng = np.random.default_rng(element_bits)
    blocks = rng.integers(0, 1 << element_bits, (4, per_lane, 16))  # [group, row, column]
    lds = np.zeros(4 * per_lane * row_bytes + 64, np.uint8)
    for g in range(4):
        for r in range(per_lane):
            start = 32 + (g * per_lane + r) * row_bytes
            lds[start:start + 16 * element_bits // 8] = pack(blocks[g, r], element_bits)
    lane = np.arange(64)
    group, s = lane // 16, lane % 16
    addresses = (group * per_lane + s // lanes_per_row) * row_bytes + (s % lanes_per_row) * bits // 8
    vgpr = load(f"{mnemonic} v[2:{1 + bits // 32}], v1 offset:32", lds, addresses, engine_name)
    got = unpack(result_bytes(vgpr, bits), element_bits)  # [lane, element]
    want = blocks[group, :, s]  # lane's column: [lane, row]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mnemonic,bits,element_bits,rows", [("ds_read_b64_tr_b16", 64, 16, 16),
                                                              ("ds_read_b64_tr_b16", 64, 16, 32),
                                                              ("ds_read_b64_tr_b8", 64, 8, 16),
                                                              ("ds_read_b64_tr_b8", 64, 8, 32)])
@pytest.mark.parametrize("engine_name", ENGINES)
def test_rocroller_address_pattern_gives_the_relation_its_gpu_test_expects(mnemonic, bits, element_bits, rows,
                                                                           engine_name):
    # rocRoller: an MN x K matrix (MN = rows, K = 512 / rows for 16-bit data, 1024 / rows for 8-bit) in LDS as
    # stored, lane l reads at chunk index c(l) (chunks of 64 bits) and again MN chunks further; the four
    # result dwords (first load's two registers, then the second's) are stored one dword per lane each
    per_lane, per_dword = bits // element_bits, 32 // element_bits
    k = 64 * 2 * per_lane // rows
    data = np.random.default_rng(rows + element_bits).integers(0, 1 << element_bits, rows * k)
    lds = pack(data, element_bits)
    groups_x, groups_y = rows // 16, 16 // per_lane  # 16-row strips of MN; lanes reading one K row
    chunk = np.zeros(64, np.int64)
    for x0 in range(4 // groups_x):
        for x1 in range(groups_x):
            for y0 in range(per_lane):
                for y1 in range(groups_y):
                    lane = (x0 * groups_x + x1) * per_lane * groups_y + y0 * groups_y + y1
                    chunk[lane] = 2 * groups_x * per_lane * groups_y * x0 + (groups_x * y0 + x1) * groups_y + y1
    first = load(f"{mnemonic} v[2:3], v1", lds, chunk * 8, engine_name)[2:4]
    second = load(f"{mnemonic} v[2:3], v1", lds, chunk * 8 + rows * 8, engine_name)[2:4]
    stored = unpack(np.concatenate([first, second]).reshape(-1).view(np.uint8), element_bits)
    # the expected relation: result element (y0, y1, x0, x1, x2, y2) is data element (y1, y0, y2, x0, x1, x2)
    y0s, y1s, x0s = 4, k // per_dword // 4, rows // 16
    for y0 in range(y0s):
        for y1 in range(y1s):
            for x0 in range(x0s):
                for x1 in range(4):
                    for x2 in range(4):
                        for y2 in range(per_dword):
                            source = (((y1 * y0s + y0) * per_dword + y2) * x0s + x0) * 16 + x1 * 4 + x2
                            target = ((((y0 * y1s + y1) * x0s + x0) * 4 + x1) * 4 + x2) * per_dword + y2
                            assert stored[target] == data[source], (y0, y1, x0, x1, x2, y2)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_inactive_lanes_are_not_written_and_give_zeros(engine_name):
    lds = np.arange(256, dtype=np.uint8)
    lane = np.arange(64)
    addresses = (lane % 16) // 2 * 16 + (lane % 2) * 8  # b8: rows of 16 bytes, two lanes a row
    exec_mask = lane != 3  # lane 3 reads row 1's high half: bytes 24..31
    vgpr = load("ds_read_b64_tr_b8 v[2:3], v1", lds, addresses, engine_name, exec_mask=exec_mask, fill=0xDEADBEEF)
    got = result_bytes(vgpr, 64)
    assert list(vgpr[2:4, 3]) == [0xDEADBEEF, 0xDEADBEEF]
    # lane m (8..15: the odd lanes' halves) gets byte m - 8 of each odd lane's 8 bytes: row r's byte 8 + m - 8
    assert list(got[12]) == [16 * r + 8 + 4 if r != 1 else 0 for r in range(8)]
    assert list(got[4]) == [16 * r + 4 for r in range(8)]

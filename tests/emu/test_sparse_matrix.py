"""gfx12's K = 32/64 matrix instructions: v_wmma_i32_16x16x32_iu4 and the 4:2-sparse v_swmmac_* family,
matrices packed element by element by the layouts written out here (matrix.py's docstring says where they
come from) and compared with numpy's product, on both engines."""
import numpy as np
import pytest
from asm_dispatch import CODE_BASE, Dispatch
from test_hardware_instructions import _fp8_values

from gpubench.emu import executor
from gpubench.emu.native import engine
from gpubench.isa.asm import assemble

ENGINES = ("reference", "native")
A_REG, B_REG, INDEX_REG = 16, 32, 48


def place(k: int, k_size: int, wave_size: int, bits: int, row: int) -> tuple[int, int, int]:
    """(VGPR, lane, bit offset) of element k of row ``row`` (A) or column ``row`` (B): each group of 16
    lanes holds a contiguous run of K, packed low to high."""
    per_lane = k_size // (wave_size // 16)
    e = k % per_lane
    return e * bits // 32, row + 16 * (k // per_lane), e * bits % 32


def pack(codes: np.ndarray, bits: int, wave_size: int) -> np.ndarray:
    """codes [16, K] (A's rows, or B's columns) -> VGPRs [regs, lanes]."""
    k_size = codes.shape[1]
    regs = np.zeros((max(1, k_size * 16 * bits // 32 // wave_size), wave_size), np.uint64)
    for row in range(16):
        for k in range(k_size):
            reg, lane, shift = place(k, k_size, wave_size, bits, row)
            regs[reg, lane] |= (int(codes[row, k]) & ((1 << bits) - 1)) << shift
    return regs.astype(np.uint32)


def place_d(i: int, j: int, bits: int, wave_size: int) -> tuple[int, int, int]:
    rows = 16 // (wave_size // 16)
    e = i % rows
    return e * bits // 32, j + 16 * (i // rows), e * bits % 32


def pack_d(codes: np.ndarray, bits: int, wave_size: int) -> np.ndarray:
    regs = np.zeros((256 * bits // 32 // wave_size, wave_size), np.uint64)
    for i in range(16):
        for j in range(16):
            reg, lane, shift = place_d(i, j, bits, wave_size)
            regs[reg, lane] |= (int(codes[i, j]) & ((1 << bits) - 1)) << shift
    return regs.astype(np.uint32)


def unpack_d(regs: np.ndarray, bits: int, wave_size: int) -> np.ndarray:
    out = np.zeros((16, 16), np.uint32)
    for i in range(16):
        for j in range(16):
            reg, lane, shift = place_d(i, j, bits, wave_size)
            out[i, j] = (int(regs[reg, lane]) >> shift) & ((1 << bits) - 1)
    return out


def sparse(rng, dense_codes: np.ndarray, key: int, wave_size: int, index_bits_noise: bool = True):
    """A 4:2-sparse A from random codes: (its dense codes, the kept codes [16, K/2], the index VGPR).
    Two of each four consecutive K keep their code; the kept pair's positions go in the lane's index
    segment ``key``, two bits each, low first."""
    k_size = dense_codes.shape[1]
    per_lane = k_size // (wave_size // 16)
    dense = np.zeros_like(dense_codes)
    kept = np.zeros((16, k_size // 2), dense_codes.dtype)
    index = rng.integers(0, 1 << 32, wave_size, dtype=np.uint64) if index_bits_noise else np.zeros(wave_size, np.uint64)
    segment_mask = ((1 << per_lane) - 1) << (key * per_lane)
    index &= ~np.uint64(segment_mask)
    for row in range(16):
        for group in range(k_size // 4):
            positions = sorted(rng.choice(4, 2, replace=False))
            for s, p in enumerate(positions):
                k = 4 * group + p
                dense[row, k] = dense_codes[row, k]
                c = 2 * group + s  # its element among the kept ones
                kept[row, c] = dense_codes[row, k]
                lane = row + 16 * (k // per_lane)
                field = 2 * (c % (per_lane // 2))
                index[lane] |= np.uint64(p << (key * per_lane + field))
    return dense, kept, index.astype(np.uint32)


def run(text: str, wave_size: int, engine_name: str, d: np.ndarray, a: np.ndarray, b: np.ndarray,
        index: np.ndarray | None = None) -> np.ndarray:
    run_ = Dispatch("gfx1201", wave_size, vgprs=64)
    vgpr = run_.vgpr[0]
    vgpr[0:len(d)], vgpr[A_REG:A_REG + len(a)], vgpr[B_REG:B_REG + len(b)] = d, a, b
    if index is not None:
        vgpr[INDEX_REG] = index
    run_.device.alloc_at(CODE_BASE, assemble(run_.isa, text + "\ns_endpgm\n").data)
    run_.waves.pc[:] = CODE_BASE
    ctx = run_.context()
    (engine.run if engine_name == "native" else executor.run)(ctx, executor.Watchdog())
    return ctx.waves.vgpr[0, :len(d)].copy()


def span(base: int, count: int) -> str:
    return f"v[{base}:{base + count - 1}]" if count > 1 else f"v{base}"


def signed(codes: np.ndarray, bits: int, is_signed: bool) -> np.ndarray:
    return np.where(is_signed & (codes >= 1 << (bits - 1)), codes - (1 << bits), codes)


@pytest.mark.parametrize("wave_size", [32, 64])
@pytest.mark.parametrize("signed_a, signed_b", [(False, False), (True, True), (True, False)])
def test_wmma_iu4_k32(wave_size, signed_a, signed_b):
    rng = np.random.default_rng(20)
    codes_a, codes_b = rng.integers(0, 16, (16, 32)), rng.integers(0, 16, (32, 16))
    c = rng.integers(-5000, 5000, (16, 16))
    a_regs, b_regs, d_regs = pack(codes_a, 4, wave_size), pack(codes_b.T, 4, wave_size), \
        pack_d(c.astype(np.int32).view(np.uint32), 32, wave_size)
    want = signed(codes_a, 4, signed_a) @ signed(codes_b, 4, signed_b) + c
    text = (f"v_wmma_i32_16x16x32_iu4 {span(0, len(d_regs))}, {span(A_REG, len(a_regs))}, "
            f"{span(B_REG, len(b_regs))}, {span(0, len(d_regs))} neg_lo:[{int(signed_a)},{int(signed_b)},0]")
    for engine_name in ENGINES:
        got = unpack_d(run(text, wave_size, engine_name, d_regs, a_regs, b_regs), 32, wave_size).view(np.int32)
        np.testing.assert_array_equal(got, want, err_msg=engine_name)


def quarters(rng, shape, limit=8):
    return rng.integers(-limit * 4, limit * 4, shape) / 4


def f16_codes(x):
    return np.asarray(x, np.float16).view(np.uint16).astype(np.int64)


def bf16_codes(x):
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.int64)


def bf16_nearest(x):
    """The bf16 codes of float32 values, rounded to nearest even."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.int64)
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


# (mnemonic, A/B codes, result bits, result codes of exact values)
FLOAT_FORMS = [
    ("v_swmmac_f32_16x16x32_f16", f16_codes, 32, lambda x: np.asarray(x, np.float32).view(np.uint32)),
    ("v_swmmac_f32_16x16x32_bf16", bf16_codes, 32, lambda x: np.asarray(x, np.float32).view(np.uint32)),
    ("v_swmmac_f16_16x16x32_f16", f16_codes, 16, f16_codes),
    ("v_swmmac_bf16_16x16x32_bf16", bf16_codes, 16, bf16_nearest),
]


@pytest.mark.parametrize("wave_size", [32, 64])
@pytest.mark.parametrize("mnemonic, codes_of, out_bits, result_codes", FLOAT_FORMS)
def test_swmmac_16_bit_forms(wave_size, mnemonic, codes_of, out_bits, result_codes):
    rng = np.random.default_rng(21)
    a, b, c = quarters(rng, (16, 32), 4), quarters(rng, (32, 16), 4), quarters(rng, (16, 16), 4)
    key = wave_size // 64  # a segment other than 0 in wave64 (four 8-bit segments), 0 in wave32
    dense, kept, index = sparse(rng, codes_of(a), key, wave_size)
    a_dense = np.where(dense != 0, a, 0.0)
    d_regs = pack_d(result_codes(c), out_bits, wave_size)
    a_regs, b_regs = pack(kept, 16, wave_size), pack(codes_of(b.T), 16, wave_size)
    text = (f"{mnemonic} {span(0, len(d_regs))}, {span(A_REG, len(a_regs))}, {span(B_REG, len(b_regs))}, "
            f"v{INDEX_REG}" + (f" index_key:{key}" if key else ""))
    want = result_codes(a_dense @ b + c)  # every product and sum is exact in f32
    for engine_name in ENGINES:
        got = unpack_d(run(text, wave_size, engine_name, d_regs, a_regs, b_regs, index), out_bits, wave_size)
        np.testing.assert_array_equal(got, want, err_msg=engine_name)


@pytest.mark.parametrize("wave_size", [32, 64])
@pytest.mark.parametrize("mnemonic, bits, k_size, key", [
    ("v_swmmac_i32_16x16x32_iu8", 8, 32, 1), ("v_swmmac_i32_16x16x32_iu4", 4, 32, 1),
    ("v_swmmac_i32_16x16x64_iu4", 4, 64, 0)])
def test_swmmac_integer_forms(wave_size, mnemonic, bits, k_size, key):
    rng = np.random.default_rng(22)
    codes_a, codes_b = rng.integers(1, 1 << bits, (16, k_size)), rng.integers(0, 1 << bits, (k_size, 16))
    c = rng.integers(-5000, 5000, (16, 16))
    key = key if wave_size == 32 or k_size == 64 else 2 * key + 1  # wave64's segments are half as wide
    dense, kept, index = sparse(rng, codes_a, key, wave_size)
    d_regs = pack_d(c.astype(np.int32).view(np.uint32), 32, wave_size)
    a_regs, b_regs = pack(kept, bits, wave_size), pack(codes_b.T, bits, wave_size)
    text = (f"{mnemonic} {span(0, len(d_regs))}, {span(A_REG, len(a_regs))}, {span(B_REG, len(b_regs))}, "
            f"v{INDEX_REG} neg_lo:[1,0,0]" + (f" index_key:{key}" if key else ""))
    want = signed(dense, bits, True) @ codes_b + c
    for engine_name in ENGINES:
        got = unpack_d(run(text, wave_size, engine_name, d_regs, a_regs, b_regs, index), 32, wave_size)
        np.testing.assert_array_equal(got.view(np.int32), want, err_msg=engine_name)


@pytest.mark.parametrize("kinds", [("fp8", "fp8"), ("fp8", "bf8"), ("bf8", "fp8"), ("bf8", "bf8")])
def test_swmmac_fp8_forms(kinds):
    rng = np.random.default_rng(23)
    tables = [np.array([np.nan if v is None else v for v in _fp8_values(kind, False)]) for kind in kinds]
    # codes of magnitudes 2^-3 .. 2^3 (either sign): finite, and every sum exact in float64
    usable = [np.flatnonzero(np.isfinite(t) & (np.abs(t) >= 0.125) & (np.abs(t) <= 8)) for t in tables]
    codes_a, codes_b = rng.choice(usable[0], (16, 32)), rng.choice(usable[1], (32, 16))
    c = quarters(rng, (16, 16))
    dense, kept, index = sparse(rng, codes_a, 1, 32)
    a_dense = np.where(dense != 0, tables[0][codes_a], 0.0)
    d_regs = pack_d(np.asarray(c, np.float32).view(np.uint32), 32, 32)
    a_regs, b_regs = pack(kept, 8, 32), pack(codes_b.T, 8, 32)
    text = (f"v_swmmac_f32_16x16x32_{kinds[0]}_{kinds[1]} {span(0, 8)}, {span(A_REG, len(a_regs))}, "
            f"{span(B_REG, len(b_regs))}, v{INDEX_REG} index_key:1")
    want = (a_dense @ tables[1][codes_b] + c).astype(np.float32)
    for engine_name in ENGINES:
        got = unpack_d(run(text, 32, engine_name, d_regs, a_regs, b_regs, index), 32, 32).view(np.float32)
        np.testing.assert_array_equal(got, want, err_msg=engine_name)


def test_swmmac_index_by_hand():
    # wave32 f16: lane 0 keeps A[0][2] = 1.0 and A[0][3] = 2.0 (index fields 2, 3) and zeros elsewhere;
    # B = 1 everywhere but B[3][*] = 10: row 0 of D is 1*1 + 2*10 = 21, the other rows 0
    a_regs = np.zeros((4, 32), np.uint32)
    a_regs[0, 0] = 0x4000_3C00  # elements 0 and 1: 1.0, 2.0
    b = np.ones((32, 16))
    b[3] = 10
    index = np.zeros(32, np.uint32)
    index[0] = 2 | 3 << 2
    d_regs = np.zeros((8, 32), np.uint32)
    for engine_name in ENGINES:
        got = unpack_d(run(f"v_swmmac_f32_16x16x32_f16 v[0:7], v[{A_REG}:{A_REG + 3}], v[{B_REG}:{B_REG + 7}], "
                           f"v{INDEX_REG}", 32, engine_name, d_regs, a_regs, pack(f16_codes(b.T), 16, 32), index),
                       32, 32).view(np.float32)
        assert (got[0] == 21).all() and (got[1:] == 0).all(), engine_name

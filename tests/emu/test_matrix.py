"""Matrix instructions, WMMA and MFMA (gpubench/emu/ops/matrix.py): matrices packed into VGPRs by the
documented layouts, written out here element by element, against numpy. The HIP case wmma_f32_f16
(test_kernels.py) runs the gfx11 layouts as clang packs them."""
import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.context import ExecutionError


def _rows_per_lane_group(wave_size):
    return 16 // (wave_size // 16)


def pack_input(codes, bits, wave_size, target):
    """codes [r, k] (A: r = m; B transposed: r = n) -> VGPR values [regs, lanes]."""
    per_lane = 16 if target == "gfx1100" else _rows_per_lane_group(wave_size)
    regs = np.zeros((max(1, per_lane * bits // 32), wave_size), np.uint64)
    for lane in range(wave_size):
        for e in range(per_lane):
            k = e if target == "gfx1100" else (lane // 16) * per_lane + e
            regs[e * bits // 32, lane] |= (int(codes[lane % 16, k]) & ((1 << bits) - 1)) << (e * bits % 32)
    return regs.astype(np.uint32)


def place_output(i, j, bits, wave_size, target, high=False):
    """(VGPR, lane, bit offset) of C/D element (i, j)."""
    if target == "gfx1100":
        per_vgpr = wave_size // 16
        return i // per_vgpr, j + 16 * (i % per_vgpr), 16 if high else 0
    rows = _rows_per_lane_group(wave_size)
    e = i % rows
    return e * bits // 32, j + 16 * (i // rows), e * bits % 32


def pack_output(codes, bits, wave_size, target, high=False):
    count = 256 // wave_size if bits == 32 or target == "gfx1100" else 128 // wave_size
    regs = np.zeros((count, wave_size), np.uint64)
    for i in range(16):
        for j in range(16):
            reg, lane, shift = place_output(i, j, bits, wave_size, target, high)
            regs[reg, lane] &= ~np.uint64(((1 << bits) - 1) << shift)
            regs[reg, lane] |= np.uint64((int(codes[i, j]) & ((1 << bits) - 1)) << shift)
    return regs.astype(np.uint32)


def unpack_output(regs, bits, wave_size, target, high=False):
    out = np.zeros((16, 16), np.uint32)
    for i in range(16):
        for j in range(16):
            reg, lane, shift = place_output(i, j, bits, wave_size, target, high)
            out[i, j] = (int(regs[reg, lane]) >> shift) & ((1 << bits) - 1)
    return out


def run_matrix(mnemonic, a_regs, b_regs, c_regs, target, wave_size, modifiers="", c_operand=None, exec_lanes=None):
    """C and D at v0, then A and B each at the next multiple of 16 VGPRs; D's VGPRs afterwards."""
    def span(base, regs):
        return f"v[{base}:{base + len(regs) - 1}]" if len(regs) > 1 else f"v{base}"
    a_reg = -(-len(c_regs) // 16) * 16
    b_reg = a_reg + 16
    run = Dispatch(target, wave_size, vgprs=64)
    vgpr = run.vgpr[0]
    vgpr[0:len(c_regs)], vgpr[a_reg:a_reg + len(a_regs)], vgpr[b_reg:b_reg + len(b_regs)] = c_regs, a_regs, b_regs
    if exec_lanes is not None:
        run.set_exec(exec_lanes)
    c_text = c_operand if c_operand is not None else span(0, c_regs)
    ctx = run(f"{mnemonic} {span(0, c_regs)}, {span(a_reg, a_regs)}, {span(b_reg, b_regs)}, {c_text} {modifiers}")
    return ctx.waves.vgpr[0, :len(c_regs)]


def quarters(rng, shape, limit=8):
    """Values exact in f16 and bf16 whose products and sums are exact in f32."""
    return rng.integers(-limit * 4, limit * 4, shape) / 4


def f16_codes(x):
    return np.asarray(x, np.float16).view(np.uint16)


def bf16_codes(x):
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


TARGETS = [("gfx1100", 32), ("gfx1100", 64), ("gfx1201", 32), ("gfx1201", 64)]


@pytest.mark.parametrize("target, wave_size", TARGETS)
@pytest.mark.parametrize("kind", ["f16", "bf16"])
def test_f32_accumulate(target, wave_size, kind):
    rng = np.random.default_rng(3)
    a, b, c = quarters(rng, (16, 16)), quarters(rng, (16, 16)), quarters(rng, (16, 16), 64)
    codes = f16_codes if kind == "f16" else bf16_codes
    d = run_matrix(f"v_wmma_f32_16x16x16_{kind}", pack_input(codes(a), 16, wave_size, target),
                 pack_input(codes(b.T), 16, wave_size, target),
                 pack_output(np.asarray(c, np.float32).view(np.uint32), 32, wave_size, target), target, wave_size)
    got = unpack_output(d, 32, wave_size, target).view(np.float32)
    np.testing.assert_array_equal(got, (a @ b + c).astype(np.float32))


@pytest.mark.parametrize("wave_size", [32, 64])
@pytest.mark.parametrize("high", [False, True])
def test_f16_result_goes_into_the_op_sel_half_and_keeps_the_other(wave_size, high):
    rng = np.random.default_rng(4)
    a, b, c = quarters(rng, (16, 16), 4), quarters(rng, (16, 16), 4), quarters(rng, (16, 16), 4)
    c_regs = pack_output(f16_codes(c), 16, wave_size, "gfx1100", high)
    other = 0x1234 << (0 if high else 16)
    c_regs |= np.uint32(other)
    d = run_matrix("v_wmma_f16_16x16x16_f16", pack_input(f16_codes(a), 16, wave_size, "gfx1100"),
                 pack_input(f16_codes(b.T), 16, wave_size, "gfx1100"), c_regs, "gfx1100", wave_size,
                 "op_sel:[0,0,1]" if high else "")
    got = unpack_output(d, 16, wave_size, "gfx1100", high).astype(np.uint16).view(np.float16)
    np.testing.assert_array_equal(got, (a @ b + c).astype(np.float16))
    np.testing.assert_array_equal(d & np.uint32(0xFFFF << (0 if high else 16)), np.uint32(other))


@pytest.mark.parametrize("target, wave_size", TARGETS)
def test_bf16_result_rounds_to_nearest_even(target, wave_size):
    rng = np.random.default_rng(5)
    a, b = quarters(rng, (16, 16), 16), quarters(rng, (16, 16), 16)
    c = np.full((16, 16), 1 / 1024)  # below bf16's precision at the sums' size: rounds away
    d = run_matrix("v_wmma_bf16_16x16x16_bf16", pack_input(bf16_codes(a), 16, wave_size, target),
                 pack_input(bf16_codes(b.T), 16, wave_size, target),
                 pack_output(bf16_codes(c), 16, wave_size, target), target, wave_size)
    exact = (a @ b + c).astype(np.float32).view(np.uint32)  # exact: at most 22 significant bits
    nearest = (exact + 0x7FFF + ((exact >> 16) & 1)) >> 16
    assert (nearest != exact >> 16).any()  # some sums do round up
    np.testing.assert_array_equal(unpack_output(d, 16, wave_size, target), nearest)


@pytest.mark.parametrize("target, wave_size", TARGETS)
@pytest.mark.parametrize("signed_a, signed_b", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("bits", [8, 4])
def test_integer_signedness_comes_from_neg_lo(target, wave_size, signed_a, signed_b, bits):
    rng = np.random.default_rng(6)
    codes_a, codes_b = rng.integers(0, 1 << bits, (16, 16)), rng.integers(0, 1 << bits, (16, 16))
    c = rng.integers(-1000, 1000, (16, 16))
    as_signed = lambda x, s: np.where(s & (x >= 1 << (bits - 1)), x - (1 << bits), x)
    a, b = as_signed(codes_a, signed_a), as_signed(codes_b, signed_b)
    neg = f"neg_lo:[{int(signed_a)},{int(signed_b)},0]"
    d = run_matrix(f"v_wmma_i32_16x16x16_iu{bits}", pack_input(codes_a, bits, wave_size, target),
                 pack_input(codes_b.T, bits, wave_size, target),
                 pack_output(c.astype(np.int32).view(np.uint32), 32, wave_size, target), target, wave_size, neg)
    np.testing.assert_array_equal(unpack_output(d, 32, wave_size, target).view(np.int32), a @ b + c)


@pytest.mark.parametrize("clamp, want", [("", -(1 << 31)), ("clamp", (1 << 31) - 1)])
def test_integer_clamp_saturates_instead_of_wrapping(clamp, want):
    c = np.full((16, 16), (1 << 31) - 127 * 127 * 16, np.int64)  # C + A x B = 2**31, one past the largest i32
    ones = np.full((16, 16), 127)
    d = run_matrix("v_wmma_i32_16x16x16_iu8", pack_input(ones, 8, 32, "gfx1100"), pack_input(ones, 8, 32, "gfx1100"),
                 pack_output(c.astype(np.int32).view(np.uint32), 32, 32, "gfx1100"), "gfx1100", 32,
                 f"neg_lo:[1,1,0] {clamp}")
    got = unpack_output(d, 32, 32, "gfx1100").view(np.int32)
    assert (got == np.int32(want)).all()


def test_inline_constant_accumulator():
    rng = np.random.default_rng(7)
    a, b = quarters(rng, (16, 16)), quarters(rng, (16, 16))
    d = run_matrix("v_wmma_f32_16x16x16_f16", pack_input(f16_codes(a), 16, 32, "gfx1100"),
                 pack_input(f16_codes(b.T), 16, 32, "gfx1100"), np.zeros((8, 32), np.uint32), "gfx1100", 32,
                 c_operand="1.0")
    np.testing.assert_array_equal(unpack_output(d, 32, 32, "gfx1100").view(np.float32), (a @ b + 1).astype(np.float32))


def test_neg_modifiers_negate_halves_of_a_and_b_and_negate_or_abs_c():
    rng = np.random.default_rng(8)
    a, b, c = quarters(rng, (16, 16)), quarters(rng, (16, 16)), quarters(rng, (16, 16), 64)
    d = run_matrix("v_wmma_f32_16x16x16_f16", pack_input(f16_codes(a), 16, 32, "gfx1100"),
                 pack_input(f16_codes(b.T), 16, 32, "gfx1100"),
                 pack_output(np.asarray(c, np.float32).view(np.uint32), 32, 32, "gfx1100"), "gfx1100", 32,
                 "neg_lo:[1,0,1] neg_hi:[0,1,1]")
    even_k = np.arange(16) % 2 == 0  # the low halves hold the even K of each VGPR
    a2 = np.where(even_k[None, :], -a, a)
    b2 = np.where(even_k[:, None], b, -b)
    want = a2 @ b2 - np.abs(c)
    np.testing.assert_array_equal(unpack_output(d, 32, 32, "gfx1100").view(np.float32), want.astype(np.float32))


def test_wmma_with_inactive_lanes_stops_the_dispatch():
    zeros = np.zeros((8, 32), np.uint32)
    with pytest.raises(ExecutionError, match="EXEC to be all ones"):
        run_matrix("v_wmma_f32_16x16x16_f16", zeros, zeros, zeros, "gfx1100", 32, exec_lanes=np.arange(32) < 16)


# MFMA (gfx942, gfx950), packed by the matrix instruction calculator's per-shape equations.

def mfma_input_place(outer, k_size, blocks, b, i, k):
    """(element within the lane, lane) of A[i][k] (or B[k][i]) in block b."""
    if outer * blocks < 64:
        per_lane = outer * k_size * blocks // 64
        return k % per_lane, outer * b + outer * blocks * (k // per_lane) + i
    return k, outer * b + i


def mfma_output_place(m, blocks, b, i, j, bits):
    """(VGPR, lane) of C/D[i][j] in block b (a VGPR pair's first for f64)."""
    if bits == 64:
        return (2 * (i // 4) if blocks == 1 else 0), 16 * (i % 4) + (4 * b if blocks > 1 else 0) + j
    if m == 4:
        return i, 4 * b + j
    if m == 16:
        return 4 * b + i % 4, 16 * (i // 4) + j
    return 16 * b + 4 * (i // 8) + i % 4, (32 * (i // 4)) % 64 + j


def pack_mfma_input(codes, outer, k_size, blocks, bits):
    """codes [blocks, outer, k] -> VGPR values [regs, 64]."""
    per_lane = outer * k_size * blocks // 64 if outer * blocks < 64 else k_size
    regs = np.zeros((max(1, per_lane * bits // 32), 64), np.uint64)
    for b in range(blocks):
        for i in range(outer):
            for k in range(k_size):
                e, lane = mfma_input_place(outer, k_size, blocks, b, i, k)
                if bits == 64:
                    regs[0, lane], regs[1, lane] = int(codes[b, i, k]) & 0xFFFFFFFF, int(codes[b, i, k]) >> 32
                else:
                    regs[e * bits // 32, lane] |= (int(codes[b, i, k]) & ((1 << bits) - 1)) << (e * bits % 32)
    return regs.astype(np.uint32)


def pack_mfma_output(codes, m, n, blocks, bits):
    regs = np.zeros((m * n * blocks * bits // 32 // 64, 64), np.uint64)
    for b in range(blocks):
        for i in range(m):
            for j in range(n):
                reg, lane = mfma_output_place(m, blocks, b, i, j, bits)
                value = int(codes[b, i, j])
                regs[reg, lane] = value & 0xFFFFFFFF
                if bits == 64:
                    regs[reg + 1, lane] = value >> 32
    return regs.astype(np.uint32)


def unpack_mfma_output(regs, m, n, blocks, bits):
    out = np.zeros((blocks, m, n), np.uint64)
    for b in range(blocks):
        for i in range(m):
            for j in range(n):
                reg, lane = mfma_output_place(m, blocks, b, i, j, bits)
                out[b, i, j] = int(regs[reg, lane]) | ((int(regs[reg + 1, lane]) << 32) if bits == 64 else 0)
    return out


def as_codes(values, kind):
    if kind == "f16":
        return values.astype(np.float16).view(np.uint16)
    if kind == "bf16":
        return bf16_codes(values)
    if kind == "f32":
        return values.astype(np.float32).view(np.uint32)
    return values.astype(np.float64).view(np.uint64)


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@pytest.mark.parametrize("mnemonic, m, n, k_size, blocks, kind", [
    ("v_mfma_f32_32x32x8_f16", 32, 32, 8, 1, "f16"),
    ("v_mfma_f32_16x16x16_bf16", 16, 16, 16, 1, "bf16"),
    ("v_mfma_f32_32x32x4_2b_f16", 32, 32, 4, 2, "f16"),
    ("v_mfma_f32_16x16x4_4b_bf16", 16, 16, 4, 4, "bf16"),
    ("v_mfma_f32_4x4x4_16b_f16", 4, 4, 4, 16, "f16"),
    ("v_mfma_f32_32x32x2_f32", 32, 32, 2, 1, "f32"),
    ("v_mfma_f32_16x16x4_f32", 16, 16, 4, 1, "f32"),
])
def test_mfma_float_layouts(target, mnemonic, m, n, k_size, blocks, kind):
    rng = np.random.default_rng(9)
    a, b = quarters(rng, (blocks, m, k_size)), quarters(rng, (blocks, k_size, n))
    c = quarters(rng, (blocks, m, n), 64)
    bits = {"f16": 16, "bf16": 16, "f32": 32}[kind]
    a_regs = pack_mfma_input(as_codes(a, kind), m, k_size, blocks, bits)
    b_regs = pack_mfma_input(as_codes(b.transpose(0, 2, 1), kind), n, k_size, blocks, bits)
    c_regs = pack_mfma_output(as_codes(c, "f32"), m, n, blocks, 32)
    d = run_matrix(mnemonic, a_regs, b_regs, c_regs, target, 64)
    got = unpack_mfma_output(d, m, n, blocks, 32).astype(np.uint32).view(np.float32)
    np.testing.assert_array_equal(got, (a @ b + c).astype(np.float32))


@pytest.mark.parametrize("mnemonic, m, n, k_size", [("v_mfma_f32_16x16x8_xf32", 16, 16, 8),
                                                   ("v_mfma_f32_32x32x4_xf32", 32, 32, 4)])
def test_mfma_xf32_is_the_f32_product_over_its_k(mnemonic, m, n, k_size):
    # gfx942's XF32 forms: two f32 elements per lane in the f32 MFMA layout; quarter values of a few bits,
    # which XF32 (10 mantissa bits) holds exactly, so the result does not depend on how it reduces f32
    rng = np.random.default_rng(13)
    a, b, c = quarters(rng, (1, m, k_size)), quarters(rng, (1, k_size, n)), quarters(rng, (1, m, n), 64)
    a_regs = pack_mfma_input(as_codes(a, "f32"), m, k_size, 1, 32)
    b_regs = pack_mfma_input(as_codes(b.transpose(0, 2, 1), "f32"), n, k_size, 1, 32)
    assert len(a_regs) == len(b_regs) == 2  # v2f32 operands
    d = run_matrix(mnemonic, a_regs, b_regs, pack_mfma_output(as_codes(c, "f32"), m, n, 1, 32), "gfx942", 64)
    got = unpack_mfma_output(d, m, n, 1, 32).astype(np.uint32).view(np.float32)
    np.testing.assert_array_equal(got, (a @ b + c).astype(np.float32))


def test_mfma_f64_with_neg():
    rng = np.random.default_rng(10)
    a, b, c = quarters(rng, (1, 16, 4)), quarters(rng, (1, 4, 16)), quarters(rng, (1, 16, 16), 64)
    d = run_matrix("v_mfma_f64_16x16x4_f64", pack_mfma_input(as_codes(a, "f64"), 16, 4, 1, 64),
                 pack_mfma_input(as_codes(b.transpose(0, 2, 1), "f64"), 16, 4, 1, 64),
                 pack_mfma_output(as_codes(c, "f64"), 16, 16, 1, 64), "gfx942", 64, "neg:[1,0,1]")
    got = unpack_mfma_output(d, 16, 16, 1, 64).view(np.float64)
    np.testing.assert_array_equal(got, -a @ b - c)


def test_mfma_i8():
    rng = np.random.default_rng(11)
    a, b = rng.integers(-128, 128, (1, 16, 32)), rng.integers(-128, 128, (1, 32, 16))
    c = rng.integers(-1000, 1000, (1, 16, 16))
    d = run_matrix("v_mfma_i32_16x16x32_i8", pack_mfma_input(a, 16, 32, 1, 8),
                 pack_mfma_input(b.transpose(0, 2, 1), 16, 32, 1, 8),
                 pack_mfma_output(c.astype(np.int32).view(np.uint32), 16, 16, 1, 32), "gfx942", 64)
    np.testing.assert_array_equal(unpack_mfma_output(d, 16, 16, 1, 32).astype(np.uint32).view(np.int32), a @ b + c)


@pytest.mark.parametrize("target, codes_and_values", [
    # E4M3: 0x38 = 1.0 (OCP, bias 7) or 0.5 (FNUZ, bias 8); 0x44 = 3.0 / 1.5; 0xB8 = -1.0 / -0.5
    ("gfx950", {0x38: 1.0, 0x44: 3.0, 0xB8: -1.0, 0x00: 0.0}),
    ("gfx942", {0x38: 0.5, 0x44: 1.5, 0xB8: -0.5, 0x00: 0.0}),
])
def test_mfma_fp8_formats_follow_the_target(target, codes_and_values):
    rng = np.random.default_rng(12)
    codes = np.array(list(codes_and_values))
    a_codes, b_codes = rng.choice(codes, (1, 16, 32)), rng.choice(codes, (1, 32, 16))
    value = np.vectorize(codes_and_values.get)
    d = run_matrix("v_mfma_f32_16x16x32_fp8_fp8", pack_mfma_input(a_codes, 16, 32, 1, 8),
                 pack_mfma_input(b_codes.transpose(0, 2, 1), 16, 32, 1, 8), np.zeros((4, 64), np.uint32), target, 64)
    got = unpack_mfma_output(d, 16, 16, 1, 32).astype(np.uint32).view(np.float32)
    np.testing.assert_array_equal(got, (value(a_codes) @ value(b_codes)).astype(np.float32))


@pytest.mark.parametrize("text, reason", [
    ("v_mfma_f32_32x32x8_f16 a[0:15], v[16:17], v[18:19], a[0:15]", "AGPR"),
    ("v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15] cbsz:1 abid:1", "CBSZ/ABID/BLGP"),
])
def test_mfma_forms_the_emulator_does_not_model_are_named(text, reason):
    with pytest.raises(ExecutionError, match=reason):
        Dispatch("gfx942", 64, vgprs=64)(text)

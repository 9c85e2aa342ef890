"""Manual: the matrix instructions, D = A x B + C on tiles whose elements are spread over the lanes and
VGPRs of a wave: WMMA (gfx11, gfx12) and MFMA (gfx942, gfx950). The pseudocode says only
``D = A (16x16) * B (16x16) + C (16x16)``; layouts and modifiers come from AMD's RDNA3 ISA manual
("Wave Matrix Multiply Accumulate"), AMD's matrix instruction calculator (gfx9 and gfx11 layouts),
AMD's RDNA4 WMMA article (GPUOpen, "Using the Matrix Cores of AMD RDNA 4 architecture GPUs") and LLVM.

WMMA gfx11: lane l holds row l%16 of A and column l%16 of B, all 16 K values packed low to high
through the VGPRs (two f16 per VGPR, four 8-bit or eight 4-bit values). Lanes 16-31 (and 32-63 in
wave64) must repeat lanes 0-15: the emulator reads lanes 0-15. C/D element (i, j) sits in lane
j + 16 * (i % (wave/16)) of VGPR i // (wave/16): 8 VGPRs in wave32, 4 in wave64. A 16-bit C/D
(v_wmma_f16/bf16) uses one half of each of those VGPRs, op_sel[2] picking the high one; the other
half keeps its value.
WMMA gfx12: no repetition. Lane l holds row (or column) l%16 and the K values of its lane group
g = l // 16: K = g * (K / groups) + e for its e-th packed element (groups = wave / 16; K = 32 for
v_wmma_i32_16x16x32_iu4: composable_kernel's gfx12 traits, 16 K values per lane in wave32). C/D
element (i, j) sits in lane j + 16 * (i // rows) of VGPR i % rows, rows = 16 / groups; 16-bit C/D
pack two rows per VGPR, low half first.
SWMMAC gfx12 (4:2 structured sparsity): D = A x B + D, B dense as in WMMA with the instruction's K.
A holds half of each row's K values, laid out as a dense A of K/2; a lane's elements 2q and 2q+1
come from the group of four dense K values 4q..4q+3 of its run (K = g * (K / groups) + 4q + p), p
being the 2-bit field 2e of the index VGPR's segment index_key (OPSEL[1:0]; segments as wide as a
lane's dense K run: 16 bits for 16 values). Inferred from composable_kernel's sparse compression
(one 2-bit position per kept element, groups of four of the lane's own values, low bits first; its
pk_int4 "swap + xor 1" is its high-nibble-first element order against the hardware's low-first) and
LLVM's operand sizes (index_key 0-1 in wave32, 0-3 in wave64 for 16 dense values per lane).
WMMA modifiers: on f16/bf16 inputs NEG[n] / NEG_HI[n] negate the low / high 16-bit halves of A (n=0)
and B (n=1); on a float C, NEG[2] negates and NEG_HI[2] takes the absolute value first (LLVM's WMMA
operand modifiers). On iu8/iu4 inputs NEG[0] / NEG[1] say that A / B are signed, and the clamp bit
saturates the i32 result instead of wrapping.

MFMA (wave64, B blocks of M x N x K): an input element (row i of A or column j of B, k, block b) is
element k % P of lane b*M + (k // P)*M*B + i, P = K / (64 / (M*B)) elements per lane packed through
the VGPRs (an f64 takes a VGPR pair). Outputs are 4-row strips N lanes wide (1 row for f64): element
(i, j, b) is in VGPR (pair) b*(M*N/64) + (i // (4*R))*4 + i%4, lane (b % S)*N + ((i//4) % R)*S*N + j,
with R = 64/N strips per VGPR and S = ceil(64 / (M*N/4)) blocks per VGPR. FP8/BF8 are the FNUZ
formats on gfx942 and the OCP ones on gfx950 (and gfx12). gfx942's XF32 forms (v_mfma_f32_16x16x8_xf32,
_32x32x4_xf32) are the f32 MFMA over twice the K, two f32 elements per lane (LLVM's v2f32 operands; llama.cpp's
ggml runs one in place of two v_mfma_f32_16x16x4f32 on CDNA3): the elements are read at their full f32
precision, since the manuals do not say how XF32 (TF32-like, 10 mantissa bits) reduces them, so for inputs
with more mantissa bits than XF32 keeps the emulator's D may be more precise than the hardware's (inferred).
CBSZ/ABID/BLGP broadcasts are not emulated; on f64 the BLGP field is NEG (A, B, C).
F8F6F4 (gfx950: v_mfma_f32_16x16x128_f8f6f4, _32x32x64_): A's and B's element formats are CBSZ's and
BLGP's (0 FP8 E4M3, 1 BF8 E5M2, 2 FP6 E2M3, 3 BF6 E3M2, 4 FP4 E2M1: LLVM's, which checks the register
counts, 8/8/6/6/4 VGPRs), 32 elements per lane in the layout above, packed bit after bit through the
lane's VGPRs (a 6-bit element may straddle two, as the V_CVT_SCALEF32_PK32_*_FP6 conversions pack them).
The scaled forms (VOP3PX2 v_mfma_scale_f32_*) multiply each element by 2^(e - 127) (NaN for e = 0xFF), e
the E8M0 byte of scale_src0 (A) or scale_src1 (B) in the element's own lane: each lane's 32 elements are one
microscaling block (OCP MX). The byte is op_sel[n] + 2 * op_sel_hi[n] for scale operand n (clang-22 encodes
__builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4's opsel_a = 2 as op_sel:[0,...] op_sel_hi:[1,...]).
V_MFMA_LD_SCALE_B32 alone (the scales of a following MFMA, the manual says nothing of) is not emulated.
SMFMAC (gfx942, gfx950): D = A x B + D with 4:2-sparse A as SWMMAC's, in the MFMA layout: a lane's
elements are the kept pairs of the groups of four of its run of K/(64/(M*B)) dense values, B dense;
src2 is the index VGPR, its set (as wide as a lane's dense run) ABID when CBSZ is 0, else the first
(MLIR's amdgpu.sparse_mfma: "If cbsz == 0, then abid[1:0] selects which index set to use"; 8-bit
sets on gfx942 for 16-bit data, 16-bit sets for 8-bit data and on gfx950, LLVM's PR 193541).
AGPR operands (ACC_CD for C and D, ACC[1:0] for A and B) reach this module already renamed to the
unified-file VGPRs they are (accvgpr.py), so an instruction here never has an ACC bit set.

EXEC must be all ones (the manuals leave any other EXEC undefined): the emulator stops the dispatch
otherwise. Float results are computed in float64 and rounded once to the result type (round to
nearest even), which is exact for f16/bf16/fp8 products; the hardware's internal order of
additions is not modelled. The order is defined instead, so that both engines give the same bits:
the products A[i,k]*B[k,j] summed in K order, then C added (`summed_products`), never a BLAS
matmul, whose blocking and fused multiply-adds vary with the host.

MODE (modes.py) applies as to the VALU: f16/f32/f64 elements of A, B and C are read, and D written,
in their type's denormal mode (bf16 and fp8 have no MODE field); under a directed FP_ROUND for the
result's type each element of D is the exact A*B+C (rationals) rounded once in that mode (inferred:
the manuals say nothing of WMMA/MFMA rounding; with one rounding the order of additions cannot matter).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from fractions import Fraction

from gpubench.compiler.pcode import floats, helpers
from gpubench.compiler.pcode.dtypes import F16, F32, F64
from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, factory, modes
from gpubench.emu.ops import operands as opnd
from gpubench.isa.decoder import Instruction

TILE = 16
WMMA_NAME = re.compile(r"V_(WMMA|SWMMAC)_(F32|F16|BF16|I32)_16X16X(\d+)_"
                       r"(F16|BF16|IU8|IU4|FP8_FP8|FP8_BF8|BF8_FP8|BF8_BF8)$")
MFMA_NAME = re.compile(r"V_(MFMA|SMFMAC)_(F32|I32|F64)_(\d+)X(\d+)X(\d+)(?:_(\d+)B)?_(F32|XF32|F16|BF16|I8|F64|"
                       r"FP8_FP8|FP8_BF8|BF8_FP8|BF8_BF8)$")
F8F6F4_NAME = re.compile(r"V_MFMA_(SCALE_)?F32_(\d+)X(\d+)X(\d+)_F8F6F4$")
F8F6F4_KINDS = ("FP8", "BF8", "FP6", "BF6", "FP4")  # by CBSZ (A) and BLGP (B)
NOT_EMULATED = {"V_MFMA_LD_SCALE_B32": ": alone it loads the scales of a following MFMA, which the manual does not "
                "define (the VOP3PX2 pair V_MFMA_SCALE_* that LLVM emits runs)"}
ELEMENT_KINDS = {"XF32": "F32"}  # an element read as another kind's (the XF32 forms: see the module's text)
BITS = {"F16": 16, "BF16": 16, "IU8": 8, "IU4": 4, "I8": 8, "FP8": 8, "BF8": 8, "FP6": 6, "BF6": 6, "FP4": 4,
        "F32": 32, "I32": 32, "F64": 64}


@dataclass(frozen=True)
class Placement:
    """Where each matrix element lives: its (first) VGPR offset, lane and bit offset, [blocks, rows, cols]."""

    reg: np.ndarray
    lane: np.ndarray
    shift: np.ndarray


@dataclass(frozen=True)
class MatrixOp:
    """One instruction's D = A x B + C: element types, layouts and modifiers."""

    a_kind: str
    b_kind: str
    out: str
    a_where: Placement  # A [blocks, m, k]
    b_where: Placement  # B transposed [blocks, n, k]
    cd_where: Placement  # C and D [blocks, m, n]
    signed_a: bool = True
    signed_b: bool = True
    negate_a: tuple[bool, bool] = (False, False)  # (low halves, high halves)
    negate_b: tuple[bool, bool] = (False, False)
    negate_c: bool = False
    abs_c: bool = False
    clamp: bool = False
    fnuz: bool = False  # FP8/BF8 in the FNUZ formats (gfx942)
    sparse: Sparsity | None = None  # SWMMAC: A holds half of each row's K values, placed by an index
    scales: tuple[tuple[int, int], tuple[int, int]] | None = None  # A's and B's E8M0 (source operand, byte)


@dataclass(frozen=True)
class Sparsity:
    """SWMMAC's 4:2 structured sparsity: a lane's A elements are pairs from consecutive groups of four of
    its ``per_lane`` dense K values; the index VGPR's ``per_lane``-bit segment ``key`` holds a 2-bit
    position in its group for each element, low bits first."""

    per_lane: int  # dense K values of one row in one lane
    key: int  # the index segment (index_key, from OPSEL)


def _placement(reg: np.ndarray, lane: np.ndarray, element: np.ndarray, bits: int) -> Placement:
    """Element ``element`` of ``reg``'s packed run: 64-bit elements take VGPR pairs."""
    if bits == 64:
        return Placement(reg + 2 * element, lane, np.zeros_like(lane))
    return Placement(reg + element * bits // 32, lane, element * bits % 32)


def _wmma_input(arch: str, wave_size: int, bits: int, k_size: int = TILE) -> Placement:
    """A [1, m, k], or B transposed [1, n, k] (gfx12: each lane group holds a contiguous run of K)."""
    _, row, k = np.meshgrid(np.arange(1), np.arange(TILE), np.arange(k_size), indexing="ij")
    if arch == "rdna3":
        return _placement(np.zeros_like(k), row, k, bits)
    per_lane = k_size // (wave_size // TILE)
    return _placement(np.zeros_like(k), row + TILE * (k // per_lane), k % per_lane, bits)


def _wmma_output(arch: str, wave_size: int, bits: int, high_half: bool) -> Placement:
    _, i, j = np.meshgrid(np.arange(1), np.arange(TILE), np.arange(TILE), indexing="ij")
    if arch == "rdna3":
        rows_per_vgpr = wave_size // TILE
        return Placement(i // rows_per_vgpr, j + TILE * (i % rows_per_vgpr),
                         np.full(i.shape, 16 if bits == 16 and high_half else 0))
    rows = TILE // (wave_size // TILE)
    return _placement(np.zeros_like(i), j + TILE * (i // rows), i % rows, bits)


def _mfma_input(outer: int, k_size: int, blocks: int, bits: int) -> Placement:
    b, i, k = np.meshgrid(np.arange(blocks), np.arange(outer), np.arange(k_size), indexing="ij")
    per_lane = k_size // (64 // (outer * blocks))
    return _placement(np.zeros_like(k), b * outer + (k // per_lane) * outer * blocks + i, k % per_lane, bits)


def _mfma_output(m: int, n: int, blocks: int, bits: int) -> Placement:
    b, i, j = np.meshgrid(np.arange(blocks), np.arange(m), np.arange(n), indexing="ij")
    strip = 1 if bits == 64 else 4
    strips_per_vgpr = 64 // n
    blocks_per_vgpr = -(-64 // (n * m // strip))
    element = b * (m * n // 64) + (i // (strip * strips_per_vgpr)) * strip + i % strip
    lane = (b % blocks_per_vgpr) * n + ((i // strip) % strips_per_vgpr) * blocks_per_vgpr * n + j
    return _placement(np.zeros_like(element), lane, element, 32 if bits < 64 else 64)


def _index(waves: np.ndarray, base: int, where: Placement, offset: int = 0):
    rows = waves.reshape(-1, *([1] * where.reg.ndim))
    return rows, base + offset + where.reg[None], where.lane[None]


def _gather(ctx: Context, waves: np.ndarray, base: int, where: Placement, bits: int) -> np.ndarray:
    """The raw element bits, [waves, blocks, rows, cols] (uint64 for 64-bit elements, else uint32)."""
    vgpr = ctx.waves.vgpr
    if bits == 64:
        return vgpr[_index(waves, base, where)].astype(np.uint64) | \
            (vgpr[_index(waves, base, where, 1)].astype(np.uint64) << np.uint64(32))
    field = np.uint32((1 << bits) - 1 if bits < 32 else 0xFFFFFFFF)
    straddles = where.shift + bits > 32  # a 6-bit element's high bits in the next VGPR
    if not straddles.any():
        return (vgpr[_index(waves, base, where)] >> where.shift[None].astype(np.uint32)) & field
    shift = where.shift[None].astype(np.uint64)
    low = vgpr[_index(waves, base, where)].astype(np.uint64) >> shift
    high = vgpr[_index(waves, base, Placement(where.reg + straddles, where.lane, where.shift))].astype(np.uint64)
    return ((low | high << (np.uint64(32) - shift)) & np.uint64(field)).astype(np.uint32)


def _scatter(ctx: Context, waves: np.ndarray, base: int, where: Placement, bits: int, raw: np.ndarray) -> None:
    """Write element bits into their VGPR fields, keeping the other bits of each VGPR."""
    vgpr = ctx.waves.vgpr
    if bits == 64:
        vgpr[_index(waves, base, where)] = (raw & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        vgpr[_index(waves, base, where, 1)] = (raw >> np.uint64(32)).astype(np.uint32)
        return
    field = (1 << bits) - 1 if bits < 32 else 0xFFFFFFFF
    for shift in np.unique(where.shift):  # one pass per bit offset: no VGPR is written twice in a pass
        pick = where.shift == shift
        index = (waves[:, None], base + where.reg[pick][None], where.lane[pick][None])
        mask = np.uint32(field << int(shift))
        vgpr[index] = (vgpr[index] & ~mask) | ((raw[:, pick].astype(np.uint32) << np.uint32(shift)) & mask)


def _minifloat_table(kind: str, fnuz: bool) -> np.ndarray:
    """The float64 value of each code of an 8-, 6- or 4-bit float. OCP: E4M3 has no infinity and NaN at
    0x7F/0xFF, E5M2 is IEEE-like, E2M3/E3M2/E2M1 have neither. FNUZ (8-bit): one more exponent bias, no
    infinity, no negative zero: 0x80 is the NaN."""
    exponent_bits, mantissa_bits, bias = helpers.MINIFLOAT_FORMATS[kind.lower(), fnuz]
    width = 1 + exponent_bits + mantissa_bits
    code = np.arange(1 << width)
    sign = np.where(code >> (width - 1), -1.0, 1.0)
    exponent = (code >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = code & ((1 << mantissa_bits) - 1)
    normal = (1 + mantissa / (1 << mantissa_bits)) * np.exp2(exponent - bias)
    subnormal = mantissa / (1 << mantissa_bits) * np.exp2(1 - bias)
    value = sign * np.where(exponent == 0, subnormal, normal)
    if width < 8:
        return value
    if fnuz:
        value[0x80] = np.nan
    elif exponent_bits == 4:
        value[(code & 0x7F) == 0x7F] = np.nan
    else:
        top = exponent == (1 << exponent_bits) - 1
        value[top] = np.where(mantissa[top] == 0, sign[top] * np.inf, np.nan)
    return value


def decode(raw: np.ndarray, kind: str, signed: bool = True, fnuz: bool = False) -> np.ndarray:
    """Element bits as float64, or int64 for integer kinds."""
    if kind == "F16":
        return raw.astype(np.uint16).view(np.float16).astype(np.float64)
    if kind == "BF16":
        return (raw.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    if kind == "F32":
        return raw.astype(np.uint32).view(np.float32).astype(np.float64)
    if kind == "F64":
        return raw.view(np.float64)
    if kind in F8F6F4_KINDS:
        return _minifloat_table(kind, fnuz and kind in ("FP8", "BF8"))[raw]
    bits = BITS[kind]
    value = raw.astype(np.int64)
    return value - ((value >> (bits - 1)) << bits) if signed else value


def _to_bf16_bits(values: np.ndarray) -> np.ndarray:
    """float64 -> bf16 bits, rounding to nearest even (through f32, as the result is accumulated)."""
    bits = values.astype(np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    quiet = (bits >> np.uint32(16)) | np.uint32(0x40)
    return np.where(np.isnan(values), quiet, rounded).astype(np.uint32)


def _encode(values: np.ndarray, kind: str, clamp: bool) -> np.ndarray:
    if kind == "F32":
        return values.astype(np.float32).view(np.uint32)
    if kind == "F64":
        return values.astype(np.float64).view(np.uint64)
    if kind == "F16":
        return values.astype(np.float16).view(np.uint16).astype(np.uint32)
    if kind == "BF16":
        return _to_bf16_bits(values)
    if clamp:
        values = np.clip(values, -(1 << 31), (1 << 31) - 1)
    return (values & 0xFFFFFFFF).astype(np.uint32)


FLOAT_WIDTHS = {"F16": 16, "F32": 32, "F64": 64}  # the element kinds MODE has fields for


def _flushed_input(values: np.ndarray, raw_kind: str, mode: np.ndarray) -> np.ndarray:
    """Decoded float64 elements of an f16/f32/f64 operand, denormals flushed per wave's input mode."""
    width = FLOAT_WIDTHS.get(raw_kind)
    if width is None:
        return values
    tiny = {16: 2.0**-14, 32: 2.0**-126, 64: 2.0**-1022}[width]
    flush = modes.flushes(mode, width, False).reshape((-1,) + (1,) * (values.ndim - 1))
    return np.where(flush & (np.abs(values) < tiny) & (values != 0), np.copysign(0.0, values), values)


def _directed(a: np.ndarray, b: np.ndarray, c: np.ndarray, raw: np.ndarray, kind: str, rounding: np.ndarray):
    """raw (D's bits) with each element of a wave in a directed round mode replaced by the exact
    sum of products plus C, rounded once in that mode (non-finite elements keep the float64 result)."""
    fmt = floats.FORMATS[{"F16": F16, "F32": F32, "F64": F64}[kind]]
    raw = raw.copy()
    for w in np.flatnonzero(rounding):
        for index in np.ndindex(raw.shape[1:]):
            *batch, i, j = index
            row, col, acc = a[(w, *batch, i)], b[(w, *batch, j)], c[(w, *index)]
            if not (np.isfinite(row).all() and np.isfinite(col).all() and np.isfinite(acc)):
                continue
            exact = sum((Fraction(x) * Fraction(y) for x, y in zip(row, col)), Fraction(acc))
            raw[(w, *index)] = floats.encode(exact, fmt, int(rounding[w]))
    return raw


def inline_accumulator(value: int, kind: str) -> int | None:
    """An inline constant C (0, 1.0 ...) as the bits of one accumulator element; None when ``value``
    is no inline constant (an SGPR, which C cannot be)."""
    if kind == "BF16":
        f32 = opnd.constant_bits(value, 32, "FMT_NUM_F32")
        return None if f32 is None else f32 >> 16
    return opnd.constant_bits(value, BITS[kind], f"FMT_NUM_{kind}")


def half_signs(where: Placement, negate: tuple[bool, bool]) -> np.ndarray:
    """NEG / NEG_HI on 16-bit inputs: -1.0 for the elements in a VGPR's low / high half they negate."""
    low, high = negate
    return np.where(where.shift == 0, -1.0 if low else 1.0, -1.0 if high else 1.0)


def _negate_halves(values: np.ndarray, where: Placement, negate: tuple[bool, bool]) -> np.ndarray:
    return values * half_signs(where, negate)[None]


def matrix_operands(inst: Instruction, sparse: bool) -> tuple[int, int, int, int | None, int | None]:
    """(A's VGPR, B's VGPR, D's VGPR, C's VGPR or None for an inline constant, SWMMAC's index VGPR).
    SWMMAC accumulates into D (C is D) and its src2 is the index."""
    a, b, c = (inst[f] - opnd.VGPR_BASE for f in ("src0", "src1", "src2"))
    if a < 0 or b < 0 or sparse and c < 0:
        raise ValueError(f"{inst.name}: A and B{' and the index' if sparse else ''} must be VGPRs")
    if sparse:
        return a, b, inst["vdst"], inst["vdst"], c
    return a, b, inst["vdst"], c if c >= 0 else None, None


def _expanded(ctx: Context, waves: np.ndarray, index_vgpr: int, a: np.ndarray, where: Placement,
              sparse: Sparsity) -> np.ndarray:
    """A sparse instruction's A [waves, blocks, rows, K/2], placed by ``where``, as the dense A [waves,
    blocks, rows, K]: each element added at the K its index names (two elements naming one K both count).
    An element's index field is in the index VGPR of the element's own lane."""
    pairs = sparse.per_lane // 2  # kept elements of one row in one lane
    compressed = np.arange(a.shape[-1])
    group, element = compressed // pairs, compressed % pairs
    words = ctx.waves.vgpr[waves[:, None, None, None], index_vgpr, where.lane[None]]
    segment = words.astype(np.uint64) >> np.uint64(sparse.key * sparse.per_lane)
    position = (segment >> (2 * element).astype(np.uint64)) & np.uint64(3)
    k = group * sparse.per_lane + 4 * (element // 2) + position.astype(np.int64)
    dense = np.zeros((*a.shape[:-1], 2 * a.shape[-1]), a.dtype)
    for c in compressed:
        at = k[..., c:c + 1]
        np.put_along_axis(dense, at, np.take_along_axis(dense, at, -1) + a[..., c:c + 1], -1)
    return dense


def _block_scales(ctx: Context, waves: np.ndarray, source: int, byte: int, where: Placement) -> np.ndarray:
    """Each element's 2^(e - 127) (NaN for 0xFF), e the E8M0 byte ``byte`` of the 32-bit ``source`` in the
    element's lane: [waves, blocks, rows, cols]."""
    e = (opnd.read_vector(ctx, waves, source, 32)[:, where.lane] >> np.uint32(8 * byte)) & np.uint32(0xFF)
    return np.where(e == 0xFF, np.nan, np.ldexp(1.0, e.astype(np.int64) - 127))


def summed_products(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A [..., m, k] times B transposed [..., n, k]: each [..., m, n] the products summed in K order."""
    total = a[..., :, None, 0] * b[..., None, :, 0]
    for k in range(1, a.shape[-1]):
        total = total + a[..., :, None, k] * b[..., None, :, k]
    return total


def matrix_handler(inst: Instruction, op: MatrixOp):
    a_base, b_base, d_base, c_base, index_vgpr = matrix_operands(inst, op.sparse is not None)
    out_bits = BITS[op.out]
    c_inline = None if c_base is not None else inline_accumulator(inst["src2"], op.out)
    if c_base is None and c_inline is None:
        raise ValueError(f"{inst.name}: C must be a VGPR or an inline constant")

    def run(ctx: Context, waves: np.ndarray) -> None:
        if not ctx.waves.exec_mask(waves).all():
            raise ValueError(f"{inst.name} needs EXEC to be all ones (a wave has inactive lanes)")
        a = decode(_gather(ctx, waves, a_base, op.a_where, BITS[op.a_kind]), op.a_kind, op.signed_a, op.fnuz)
        b = decode(_gather(ctx, waves, b_base, op.b_where, BITS[op.b_kind]), op.b_kind, op.signed_b, op.fnuz)
        a = _negate_halves(a, op.a_where, op.negate_a) if any(op.negate_a) else a
        if op.sparse is not None:
            a = _expanded(ctx, waves, index_vgpr, a, op.a_where, op.sparse)
        b = _negate_halves(b, op.b_where, op.negate_b) if any(op.negate_b) else b
        if op.scales is not None:
            a = a * _block_scales(ctx, waves, *op.scales[0], op.a_where)
            b = b * _block_scales(ctx, waves, *op.scales[1], op.b_where)
        if c_base is not None:
            c = decode(_gather(ctx, waves, c_base, op.cd_where, out_bits), op.out)
        else:
            c = decode(np.full((len(waves), *op.cd_where.reg.shape), c_inline, np.uint64), op.out)
        if op.abs_c:
            c = np.abs(c)
        if op.negate_c:
            c = -c
        mode = modes.float_modes(ctx, waves)
        if mode is not None:  # not the default float mode: denormals flushed, directed rounding
            a, b = _flushed_input(a, op.a_kind, mode), _flushed_input(b, op.b_kind, mode)
            c = _flushed_input(c, op.out, mode)
        with np.errstate(all="ignore"):
            d = summed_products(a, b) + c
            raw = _encode(d, op.out, op.clamp)
        width = FLOAT_WIDTHS.get(op.out)
        if mode is not None and width is not None:
            rounding = modes.round_mode(mode, width)
            if rounding.any():
                raw = _directed(a, b, np.broadcast_to(c, d.shape), raw, op.out, rounding)
            flush = modes.flushes(mode, width, True).reshape((-1,) + (1,) * (raw.ndim - 1))
            raw = modes.flush_denormals(raw, width, flush)
        _scatter(ctx, waves, d_base, op.cd_where, out_bits, raw)
        ctx.waves.pc[waves] += inst.size

    return run


def wmma(inst: Instruction, out: str, k_size: int, a_kind: str, b_kind: str, sparse: bool = False) -> MatrixOp:
    """WMMA, or SWMMAC (``sparse``): A's elements are half of K, placed by the index (Sparsity)."""
    arch, wave_size = inst.isa.arch, inst.isa.wave_size
    if k_size != TILE and arch == "rdna3":
        raise Unsupported(f"{inst.name}: K = {k_size} layouts are not emulated on gfx11")
    neg, neg_hi, clamp = inst.get("neg", 0), inst.get("neg_hi", 0), bool(inst.get("clmp", 0))
    integer = out == "I32"
    if clamp and not integer:
        raise Unsupported(f"{inst.name}: clamp on a float result is not emulated")
    halves = BITS[a_kind] == 16
    float_c = not integer and not sparse  # SWMMAC's C is D, without modifiers
    per_lane = k_size // (wave_size // TILE)
    return MatrixOp(
        a_kind, b_kind, out, _wmma_input(arch, wave_size, BITS[a_kind], k_size // 2 if sparse else k_size),
        _wmma_input(arch, wave_size, BITS[b_kind], k_size),
        _wmma_output(arch, wave_size, BITS[out], bool(inst.get("opsel", 0) & 4)),
        signed_a=bool(neg & 1), signed_b=bool(neg & 2),
        negate_a=(bool(neg & 1), bool(neg_hi & 1)) if halves else (False, False),
        negate_b=(bool(neg & 2), bool(neg_hi & 2)) if halves else (False, False),
        negate_c=float_c and bool(neg & 4), abs_c=float_c and bool(neg_hi & 4), clamp=clamp,
        sparse=Sparsity(per_lane, inst.get("opsel", 0) & 3) if sparse else None)


def mfma(inst: Instruction, found: re.Match) -> MatrixOp:
    """MFMA, or SMFMAC: A's elements are half of K, placed by the index (Sparsity), whose set CBSZ/ABID
    choose (ABID when CBSZ is 0, else the first)."""
    sparse = found.group(1) == "SMFMAC"
    out, m, n, k_size = found.group(2), int(found.group(3)), int(found.group(4)), int(found.group(5))
    blocks = int(found.group(6) or 1)
    a_kind, _, b_kind = found.group(7).partition("_")
    a_kind = ELEMENT_KINDS.get(a_kind, a_kind)
    b_kind = ELEMENT_KINDS.get(b_kind, b_kind) or a_kind
    if inst.get("acc_cd") or inst.get("acc"):  # accvgpr.py renames AGPR operands before this
        raise Unsupported(f"{inst.name} with AGPR operands not renamed to unified-file VGPRs")
    neg = 0
    if out == "F64":
        neg = inst.get("neg", 0)  # the BLGP field
    elif inst.get("blgp") or not sparse and (inst.get("cbsz") or inst.get("abid")):
        raise Unsupported(f"{inst.name}: CBSZ/ABID/BLGP broadcasts are not emulated")
    per_lane = k_size // (64 // (m * blocks))
    return MatrixOp(
        a_kind, b_kind, out, _mfma_input(m, k_size // 2 if sparse else k_size, blocks, BITS[a_kind]),
        _mfma_input(n, k_size, blocks, BITS[b_kind]), _mfma_output(m, n, blocks, BITS[out]),
        negate_a=(bool(neg & 1),) * 2, negate_b=(bool(neg & 2),) * 2, negate_c=bool(neg & 4),
        fnuz=inst.isa.target.name == "gfx942",
        sparse=Sparsity(per_lane, 0 if inst.get("cbsz") else inst.get("abid", 0)) if sparse else None)


def f8f6f4(inst: Instruction, found: re.Match) -> MatrixOp:
    """V_MFMA_F32_*_F8F6F4 and V_MFMA_SCALE_F32_*_F8F6F4 (see the module's text)."""
    scaled, m, n, k_size = bool(found.group(1)), int(found.group(2)), int(found.group(3)), int(found.group(4))
    cbsz, blgp = inst.get("cbsz", 0), inst.get("blgp", 0)
    if cbsz >= len(F8F6F4_KINDS) or blgp >= len(F8F6F4_KINDS):
        raise ValueError(f"{inst.name}: CBSZ {cbsz} or BLGP {blgp} names no element format")
    if inst.get("abid") and not scaled:  # LLVM sets the scaled form's ABID[0] always (its bit 75)
        raise Unsupported(f"{inst.name}: ABID is not emulated")
    if inst.get("acc_cd") or inst.get("acc"):  # accvgpr.py renames AGPR operands before this
        raise Unsupported(f"{inst.name} with AGPR operands not renamed to unified-file VGPRs")
    a_kind, b_kind = F8F6F4_KINDS[cbsz], F8F6F4_KINDS[blgp]
    scales = None
    if scaled:
        opsel, opsel_hi = inst.get("opsel", 0), inst.get("opsel_hi", 0)
        scales = tuple((inst[f"scale_src{i}"], (opsel >> i & 1) | (opsel_hi >> i & 1) << 1) for i in range(2))
    return MatrixOp(a_kind, b_kind, "F32", _mfma_input(m, k_size, 1, BITS[a_kind]),
                    _mfma_input(n, k_size, 1, BITS[b_kind]), _mfma_output(m, n, 1, 32), scales=scales)


def is_matrix(inst: Instruction) -> bool:
    return inst.name.startswith(("V_WMMA_", "V_SWMMAC_", "V_MFMA_", "V_SMFMAC_"))


def matrix_op(inst: Instruction) -> MatrixOp:
    """What a matrix instruction computes (raises Unsupported for the forms not emulated)."""
    name = inst.name
    if inst.fmt.name != inst.isa.root_of(inst.fmt) and not inst.fmt.name.endswith("_MFMA"):
        raise Unsupported(f"{name} in {inst.fmt.name} form")
    if (found := WMMA_NAME.match(name)) is not None:
        a_kind, _, b_kind = found.group(4).partition("_")
        sparse = found.group(1) == "SWMMAC"
        return wmma(inst, found.group(2), int(found.group(3)), a_kind, b_kind or a_kind, sparse=sparse)
    if (found := MFMA_NAME.match(name)) is not None and inst.isa.wave_size == 64:
        return mfma(inst, found)
    if (found := F8F6F4_NAME.match(name)) is not None and inst.isa.wave_size == 64:
        return f8f6f4(inst, found)
    raise Unsupported(f"{name} is not emulated{NOT_EMULATED.get(name, '')}")


@factory
def matrix(inst: Instruction):
    return matrix_handler(inst, matrix_op(inst)) if is_matrix(inst) else None

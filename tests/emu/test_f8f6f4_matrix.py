"""gfx950's F8F6F4 MFMA and its block-scaled VOP3PX2 form (gpubench/emu/ops/matrix.py), against a model
written here: A's and B's formats named by CBSZ and BLGP, each element's value from the format's table
(test_scaled_conversions builds them from the OCP definitions), packed bit after bit through a lane's
VGPRs in the MFMA layout (test_matrix.mfma_input_place), each element times 2^(e - 127) of the E8M0 byte
its lane holds in the scale operand; D = the products summed in K order, then C, rounded to f32."""
import math

import numpy as np
import pytest
from asm_dispatch import Dispatch
from test_hardware_instructions import ENGINES
from test_matrix import mfma_input_place, pack_mfma_output, unpack_mfma_output
from test_scaled_conversions import _codes

FORMATS = ("fp8", "bf8", "fp6", "bf6", "fp4")  # CBSZ / BLGP 0-4
WIDTH = {"fp8": 8, "bf8": 8, "fp6": 6, "bf6": 6, "fp4": 4}
SHAPES = [("v_mfma_f32_16x16x128_f8f6f4", 16, 16, 128), ("v_mfma_f32_32x32x64_f8f6f4", 32, 32, 64)]
C_BASE, A_BASE, B_BASE, SCALE_A, SCALE_B = 0, 16, 24, 32, 33


def _pack(codes: np.ndarray, outer: int, k_size: int, kind: str) -> np.ndarray:
    """codes [outer, k] -> VGPRs [32 * width / 32, 64]: lane element e at bit e * width of the lane's run."""
    width = WIDTH[kind]
    runs = [0] * 64
    for i in range(outer):
        for k in range(k_size):
            e, lane = mfma_input_place(outer, k_size, 1, 0, i, k)
            runs[lane] |= int(codes[i, k]) << e * width
    return np.array([[run >> 32 * r & 0xFFFFFFFF for run in runs] for r in range(width)], np.uint32)


def _holder(outer: int, k_size: int) -> np.ndarray:
    """The lane holding element [i, k]."""
    return np.array([[mfma_input_place(outer, k_size, 1, 0, i, k)[1] for k in range(k_size)] for i in range(outer)])


def _values(codes: np.ndarray, kind: str) -> np.ndarray:
    table = np.array([math.nan if v is None else v for v in _codes(kind)])
    return table[codes]


def _scale_factors(words: np.ndarray, byte: int, holder: np.ndarray) -> np.ndarray:
    e = words[holder] >> 8 * byte & 0xFF
    return np.where(e == 0xFF, np.nan, np.ldexp(1.0, e.astype(np.int64) - 127))


def _model(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a [m, k], b [k, n] values: the products summed in K order in float64, then C, rounded to f32."""
    total = np.zeros(c.shape)
    for k in range(a.shape[1]):
        total = total + a[:, k, None] * b[None, k, :]
    return (total + c).astype(np.float32)


def _run(text: str, engine: str, a_regs, b_regs, c_regs, scale_words=None):
    d = Dispatch("gfx950", 64, vgprs=64)
    d.vgpr[0, C_BASE:C_BASE + len(c_regs)] = c_regs
    d.vgpr[0, A_BASE:A_BASE + len(a_regs)] = a_regs
    d.vgpr[0, B_BASE:B_BASE + len(b_regs)] = b_regs
    if scale_words is not None:
        d.vgpr[0, SCALE_A], d.vgpr[0, SCALE_B] = scale_words
    return d(text, engine).waves.vgpr[0, :len(c_regs)]


def _operands(m: int, a_kind: str, b_kind: str) -> str:
    def span(base, regs):
        return f"v[{base}:{base + regs - 1}]"
    d = span(C_BASE, m * m // 64)
    return f"{d}, {span(A_BASE, WIDTH[a_kind])}, {span(B_BASE, WIDTH[b_kind])}, {d}"


def _finite_codes(rng, kind: str, shape) -> np.ndarray:
    values = _codes(kind)
    finite = [code for code, v in enumerate(values) if v is not None and math.isfinite(v)]
    return rng.choice(finite, shape)


@pytest.mark.parametrize("mnemonic, m, n, k_size", SHAPES)
@pytest.mark.parametrize("cbsz, blgp", [(0, 0), (1, 2), (2, 3), (3, 4), (4, 1), (4, 4), (2, 0)])
@pytest.mark.parametrize("scaled", [False, True])
def test_f8f6f4_formats_layouts_and_scales(mnemonic, m, n, k_size, cbsz, blgp, scaled):
    rng = np.random.default_rng(cbsz * 10 + blgp + 100 * scaled + m)
    a_kind, b_kind = FORMATS[cbsz], FORMATS[blgp]
    a_codes, b_codes = _finite_codes(rng, a_kind, (m, k_size)), _finite_codes(rng, b_kind, (k_size, n))
    c = rng.integers(-256, 256, (1, m, n)) / 4
    a, b = _values(a_codes, a_kind), _values(b_codes, b_kind)
    text = mnemonic.replace("v_mfma_", "v_mfma_scale_" if scaled else "v_mfma_") + " " + _operands(m, a_kind, b_kind)
    scale_words = None
    if scaled:  # each byte of a lane's scale word within 2^-4 .. 2^4, one byte chosen per operand
        scale_words = rng.integers(123, 132, (2, 64, 4)) @ np.array([1, 1 << 8, 1 << 16, 1 << 24])
        byte_a, byte_b = rng.integers(0, 4, 2)
        a = a * _scale_factors(scale_words[0], byte_a, _holder(m, k_size))
        b = b * _scale_factors(scale_words[1], byte_b, _holder(n, k_size)).T
        text += (f", v{SCALE_A}, v{SCALE_B} op_sel:[{byte_a & 1},{byte_b & 1},0]"
                 f" op_sel_hi:[{byte_a >> 1},{byte_b >> 1},0]")
    text += f" cbsz:{cbsz} blgp:{blgp}" if cbsz or blgp else ""
    a_regs, b_regs = _pack(a_codes, m, k_size, a_kind), _pack(b_codes.T, n, k_size, b_kind)
    c_regs = pack_mfma_output(c.astype(np.float32).view(np.uint32), m, n, 1, 32)
    want = _model(a, b, c[0])
    for engine in ENGINES:
        d = _run(text, engine, a_regs, b_regs, c_regs, None if scale_words is None else scale_words.astype(np.uint32))
        got = unpack_mfma_output(d, m, n, 1, 32).astype(np.uint32).view(np.float32)[0]
        np.testing.assert_array_equal(got, want, err_msg=f"{engine}: {text}")


def test_f8f6f4_by_hand():
    # fp4 A all 1.0 (0x2), bf6 B all 0.5 (0x08: exponent field 2, bias 3): each D = 128 * 0.5 + C (C = 1.0)
    a_regs = _pack(np.full((16, 128), 0x2), 16, 128, "fp4")
    b_regs = _pack(np.full((16, 128), 0x08), 16, 128, "bf6")
    c_regs = np.full((4, 64), np.float32(1.0).view(np.uint32), np.uint32)
    operands = "v[0:3], v[16:19], v[24:29], v[0:3]"
    # scales: A's byte 1 is 128 (x2) in every lane but lane 0, whose 0xFF makes row 0 NaN; B's byte 0 125 (x1/4)
    scale_a = np.full(64, 128 << 8, np.uint32)
    scale_a[0] = 0xFF << 8
    scale_b = np.full(64, 125, np.uint32)
    for engine in ENGINES:
        d = _run(f"v_mfma_f32_16x16x128_f8f6f4 {operands} cbsz:4 blgp:3", engine, a_regs, b_regs, c_regs)
        assert (d.view(np.float32) == 65.0).all(), engine
        d = _run(f"v_mfma_scale_f32_16x16x128_f8f6f4 {operands}, v32, v33 op_sel:[1,0,0] op_sel_hi:[0,0,0] "
                 "cbsz:4 blgp:3", engine, a_regs, b_regs, c_regs, (scale_a, scale_b))
        got = unpack_mfma_output(d, 16, 16, 1, 32).astype(np.uint32).view(np.float32)[0]
        assert np.isnan(got[0]).all() and (got[1:] == 128 * 2 * 0.5 / 4 + 1).all(), engine


def test_scaled_f8f6f4_reads_c_from_and_writes_d_to_agprs():
    """acc_cd: C and D in AGPRs (a0 is v40 with ACCUM_OFFSET 40), as the same instruction with VGPRs."""
    rng = np.random.default_rng(7)
    a_codes, b_codes = _finite_codes(rng, "fp8", (16, 128)), _finite_codes(rng, "fp6", (128, 16))
    c = rng.integers(-256, 256, (1, 16, 16)) / 4
    scales = rng.integers(123, 132, (2, 64)).astype(np.uint32)
    want = _model(_values(a_codes, "fp8") * _scale_factors(scales[0], 0, _holder(16, 128)),
                  _values(b_codes, "fp6") * _scale_factors(scales[1], 0, _holder(16, 128)).T, c[0])
    for engine in ENGINES:
        d = Dispatch("gfx950", 64, vgprs=64)
        d.waves.accum_offset = 40
        d.vgpr[0, 40:44] = pack_mfma_output(c.astype(np.float32).view(np.uint32), 16, 16, 1, 32)
        d.vgpr[0, A_BASE:A_BASE + 8], d.vgpr[0, B_BASE:B_BASE + 6] = _pack(a_codes, 16, 128, "fp8"), \
            _pack(b_codes.T, 16, 128, "fp6")
        d.vgpr[0, SCALE_A], d.vgpr[0, SCALE_B] = scales
        ctx = d("v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[16:23], v[24:29], a[0:3], v32, v33 blgp:2", engine)
        got = unpack_mfma_output(ctx.waves.vgpr[0, 40:44], 16, 16, 1, 32).astype(np.uint32).view(np.float32)[0]
        np.testing.assert_array_equal(got, want, err_msg=engine)

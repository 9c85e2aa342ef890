"""gfx950's block-scaled conversions (V_CVT_SCALEF32_*), against models of the OCP formats and of the E8M0
scale written here: an element's value from the format's definition times 2^(scale - 127), the scale byte
being S1's exponent field and 0xFF NaN, rounded once to the destination; on both engines."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from asm_dispatch import Dispatch
from test_hardware_instructions import ENGINES, LANES, _fp8_values, run, vgpr

WORDS = st.lists(st.integers(0, 2**32 - 1), min_size=LANES, max_size=LANES)
# S1 per lane: any sign and mantissa, the exponent field (the scale) anywhere, 0xFF and the extremes included
SCALES = st.lists(st.one_of(st.integers(0, 255), st.sampled_from([0, 1, 127, 254, 255])), min_size=LANES,
                  max_size=LANES)
MANTISSAS = st.lists(st.integers(0, 2**24 - 1), min_size=LANES, max_size=LANES)


def _small_values(exp_bits: int, man_bits: int) -> list[float]:
    """Each code's value for OCP's formats without infinities or NaNs (FP4 E2M1, FP6 E2M3, BF6 E3M2): the
    bias is 2^(E-1) - 1, a zero exponent field a denormal."""
    bias, values = (1 << (exp_bits - 1)) - 1, []
    for code in range(1 << (1 + exp_bits + man_bits)):
        e, m = code >> man_bits & ((1 << exp_bits) - 1), code & ((1 << man_bits) - 1)
        magnitude = (m / (1 << man_bits)) * 2.0 ** (1 - bias) if e == 0 else (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
        values.append(-magnitude if code >> (exp_bits + man_bits) else magnitude)
    return values


SMALL = {"fp4": _small_values(2, 1), "fp6": _small_values(2, 3), "bf6": _small_values(3, 2)}
assert SMALL["fp4"][:8] == [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]  # the OCP spec's E2M1 table
assert max(SMALL["fp6"]) == 7.5 and max(SMALL["bf6"]) == 28.0  # E2M3's and E3M2's largest values


def _scaled(code: int, kind: str, scale: int) -> float:
    """The exact value of ``code`` times 2^(scale - 127) as a double (exact: at most 4 significant bits
    and exponents within [-143, 143]); NaN for the NaN codes and the scale 0xFF."""
    value = SMALL[kind][code] if kind in SMALL else _fp8_values(kind, False)[code]
    return math.nan if value is None or scale == 0xFF else math.ldexp(value, scale - 127)


@np.errstate(over="ignore")
def _rounded_bits(value: float, dest: str) -> int:
    """``value`` rounded to nearest even in ``dest``, as its bits; NaN only compared as NaN."""
    if dest == "f32":
        return int(np.float32(value).view(np.uint32))
    if dest == "f16":
        return int(np.float16(value).view(np.uint16))
    bits = int(np.float32(value).view(np.uint32))  # exact: the value has at most 4 significant bits
    return bits >> 16 if math.isnan(value) else (bits + 0x7FFF + (bits >> 16 & 1)) >> 16


def _is_nan(bits: int, dest: str) -> bool:
    exp_bits, man_bits = {"f32": (8, 23), "f16": (5, 10), "bf16": (8, 7)}[dest]
    return bits >> man_bits & ((1 << exp_bits) - 1) == (1 << exp_bits) - 1 and bits & ((1 << man_bits) - 1) != 0


def _assert_element(got: int, want: float, dest: str, where) -> None:
    if math.isnan(want):
        assert _is_nan(got, dest), (where, hex(got))
    else:
        assert got == _rounded_bits(want, dest), (where, hex(got), want)


def _s1(scales, mantissas) -> np.ndarray:
    return np.array([s << 23 | (m & 0x7FFFFF) | (m >> 23) << 31 for s, m in zip(scales, mantissas)], np.uint32)


@pytest.mark.parametrize("kind", ["fp8", "bf8"])
@pytest.mark.parametrize("byte", range(4))
@settings(max_examples=6, deadline=None)
@given(words=WORDS, scales=SCALES, mantissas=MANTISSAS)
def test_scaled_byte_to_f32(kind, byte, words, scales, mantissas):
    op_sel = f" op_sel:[{byte & 1},{byte >> 1},0]" if byte else ""
    for engine_name in ENGINES:
        ctx = run(f"v_cvt_scalef32_f32_{kind} v1, v2, v3{op_sel}", engine_name, "gfx950",
                  v2=words, v3=_s1(scales, mantissas))
        got = vgpr(ctx, 1)
        for lane in range(LANES):
            want = _scaled(words[lane] >> 8 * byte & 0xFF, kind, scales[lane])
            _assert_element(int(got[lane]), want, "f32", (engine_name, lane))


@pytest.mark.parametrize("kind", ["fp8", "bf8"])
@pytest.mark.parametrize("byte", range(4))
@pytest.mark.parametrize("high", [False, True])
@settings(max_examples=4, deadline=None)
@given(words=WORDS, scales=SCALES, mantissas=MANTISSAS, old=WORDS)
def test_scaled_byte_to_f16_half(kind, byte, high, words, scales, mantissas, old):
    """The f16 goes to the half op_sel's third bit names; the other half of the VGPR is kept."""
    op_sel = f" op_sel:[{byte & 1},{byte >> 1},{int(high)}]"
    for engine_name in ENGINES:
        ctx = run(f"v_cvt_scalef32_f16_{kind} v4, v2, v3{op_sel}", engine_name, "gfx950",
                  v2=words, v3=_s1(scales, mantissas), v4=old)
        got = vgpr(ctx, 4)
        for lane in range(LANES):
            want = _scaled(words[lane] >> 8 * byte & 0xFF, kind, scales[lane])
            _assert_element(int(got[lane]) >> 16 * high & 0xFFFF, want, "f16", (engine_name, lane))
            assert int(got[lane]) >> 16 * (not high) & 0xFFFF == old[lane] >> 16 * (not high) & 0xFFFF, lane


def _check_pairs(kind: str, dest: str, op_sel: str, first_bit: int, words, scales, mantissas) -> None:
    """v_cvt_scalef32_pk_<dest>_<kind>: the two elements from S0's bit ``first_bit`` up, each scaled."""
    vdst, bits, width = "v[4:5]" if dest == "f32" else "v4", 32 if dest == "f32" else 16, 4 if kind == "fp4" else 8
    for engine_name in ENGINES:
        ctx = run(f"v_cvt_scalef32_pk_{dest}_{kind} {vdst}, v2, v3{op_sel}", engine_name, "gfx950",
                  v2=words, v3=_s1(scales, mantissas))
        packed = vgpr(ctx, 4).astype(np.uint64) | vgpr(ctx, 5).astype(np.uint64) << 32
        for lane in range(LANES):
            for element in range(2):
                code = words[lane] >> first_bit + width * element & ((1 << width) - 1)
                got = int(packed[lane]) >> bits * element & ((1 << bits) - 1)
                _assert_element(got, _scaled(code, kind, scales[lane]), dest, (engine_name, lane, element))


@pytest.mark.parametrize("kind", ["fp8", "bf8"])
@pytest.mark.parametrize("dest", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("word", range(2))
@settings(max_examples=6, deadline=None)
@given(words=WORDS, scales=SCALES, mantissas=MANTISSAS)
def test_scaled_pair_to_floats(kind, dest, word, words, scales, mantissas):
    _check_pairs(kind, dest, " op_sel:[1,0,0]" if word else "", 16 * word, words, scales, mantissas)


@pytest.mark.parametrize("dest", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("byte", range(4))
@settings(max_examples=5, deadline=None)
@given(words=WORDS, scales=SCALES, mantissas=MANTISSAS)
def test_scaled_fp4_pair_to_floats(dest, byte, words, scales, mantissas):
    _check_pairs("fp4", dest, f" op_sel:[{byte & 1},{byte >> 1},0]" if byte else "", 8 * byte, words, scales,
                 mantissas)


@pytest.mark.parametrize("kind", ["fp6", "bf6"])
@pytest.mark.parametrize("dest", ["f32", "f16", "bf16"])
@settings(max_examples=4, deadline=None)
@given(words=st.lists(WORDS, min_size=6, max_size=6), scales=SCALES, mantissas=MANTISSAS)
def test_scaled_pk32_6_bit_to_floats(kind, dest, words, scales, mantissas):
    """32 six-bit elements packed from bit 0 of v[40:45] (element i at bit 6i) to v[0:31] or v[0:15]."""
    bits = 32 if dest == "f32" else 16
    regs = 32 * bits // 32
    packed = [sum(words[r][lane] << 32 * r for r in range(6)) for lane in range(LANES)]
    for engine_name in ENGINES:
        d = Dispatch("gfx950", 64, vgprs=64)
        for r in range(6):
            d.vgpr[0, 40 + r, :LANES] = words[r]
        d.vgpr[0, 46, :LANES] = _s1(scales, mantissas)
        ctx = d(f"v_cvt_scalef32_pk32_{dest}_{kind} v[0:{regs - 1}], v[40:45], v46", engine_name)
        for lane in range(LANES):
            result = sum(int(ctx.waves.vgpr[0, r, lane]) << 32 * r for r in range(regs))
            for element in range(32):
                got = result >> bits * element & ((1 << bits) - 1)
                want = _scaled(packed[lane] >> 6 * element & 0x3F, kind, scales[lane])
                _assert_element(got, want, dest, (engine_name, lane, element))


def test_scaled_decode_by_hand():
    # fp8 0x38 = 1.0, 0x40 = 2.0, 0xc4 = -3.0, 0x7f NaN; S1 = 8.0 (exponent 130: scale 2^3)
    for engine_name in ENGINES:
        ctx = run("v_cvt_scalef32_pk_f32_fp8 v[4:5], v2, v3 op_sel:[1,0,0]", engine_name, "gfx950",
                  v2=0xC4400000, v3=np.float32(8).view(np.uint32))
        assert list(vgpr(ctx, 4, 1).view(np.float32)) + list(vgpr(ctx, 5, 1).view(np.float32)) == [16.0, -24.0]
        ctx = run("v_cvt_scalef32_f32_fp8 v1, v2, v3 op_sel:[1,1,0]", engine_name, "gfx950",
                  v2=0x38000000, v3=np.float32(0.25).view(np.uint32))
        assert vgpr(ctx, 1, 1).view(np.float32)[0] == 0.25, engine_name
        ctx = run("v_cvt_scalef32_f32_fp8 v1, v2, v3", engine_name, "gfx950", v2=0x38, v3=0x7F800000)
        assert math.isnan(vgpr(ctx, 1, 1).view(np.float32)[0]), engine_name
        # fp4 0x7 = 6.0, 0xa = -1.0 (byte 1), scale 2^-1; -0.0 (0x8) keeps its sign
        ctx = run("v_cvt_scalef32_pk_f32_fp4 v[4:5], v2, v3 op_sel:[1,0,0]", engine_name, "gfx950",
                  v2=0xA700, v3=np.float32(0.5).view(np.uint32))
        assert list(vgpr(ctx, 4, 1).view(np.float32)) + list(vgpr(ctx, 5, 1).view(np.float32)) == [3.0, -0.5]
        ctx = run("v_cvt_scalef32_pk_f16_fp4 v4, v2, v3", engine_name, "gfx950", v2=0x08, v3=0x3F800000)
        assert vgpr(ctx, 4, 1)[0] == 0x8000, engine_name

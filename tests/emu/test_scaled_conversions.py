"""gfx950's block-scaled conversions (V_CVT_SCALEF32_*), against models of the OCP formats and of the E8M0
scale written here: an element's value from the format's definition times 2^(scale - 127), the scale byte
being S1's exponent field and 0xFF NaN, rounded once to the destination; and the encodes, a value divided
by that power of two and rounded to the nearest code of the format's table (or stochastically, by the
spacing of its values); on both engines."""
import math
from fractions import Fraction

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


# -- the block-scaled encodes: f32/f16/bf16 to FP8/BF8/FP6/BF6/FP4 -------------------------------------------

def _codes(kind: str) -> list:
    """Each code's value (None: NaN) of an OCP format, from its definition."""
    return SMALL[kind] if kind in SMALL else _fp8_values(kind, False)


def _positive_finite(kind: str) -> list[tuple[int, Fraction]]:
    values = _codes(kind)
    positive = values[:len(values) // 2]
    return [(code, Fraction(v)) for code, v in enumerate(positive) if v is not None and math.isfinite(v)]


def _special_codes(kind: str, negative: bool) -> tuple[int, int]:
    """(NaN, overflow) codes: E4M3 has one NaN for both, E5M2 an infinity; FP6/BF6/FP4 have neither and
    saturate to their largest magnitude."""
    sign = len(_codes(kind)) // 2 if negative else 0
    if kind in SMALL:
        largest = _positive_finite(kind)[-1][0]
        return sign | largest, sign | largest
    nan = sign | (0x7F if kind == "fp8" else 0x7E)
    return nan, nan if kind == "fp8" else sign | 0x7C


def _scaled_input(x: float, scale: int) -> float:
    """x / 2^(scale - 127), exact in a double; NaN for the scale 0xFF."""
    return math.nan if scale == 0xFF else math.ldexp(x, 127 - scale)


def _nearest_model(x: float, kind: str) -> int:
    """The nearest code (ties: the even code); past the largest value by half its spacing or more (a tie
    going to the even side) the overflow code."""
    negative = math.copysign(1.0, x) < 0
    nan, overflow = _special_codes(kind, negative)
    if math.isnan(x):
        return nan
    finite = _positive_finite(kind)
    (top_code, top), (_, below_top) = finite[-1], finite[-2]
    a = abs(Fraction(x)) if math.isfinite(x) else top * 4
    half = (top - below_top) / 2
    if a > top + half or a == top + half and top_code & 1:
        return overflow
    best = min(abs(v - a) for _, v in finite)
    code = min((c for c, v in finite if abs(v - a) == best), key=lambda c: (c & 1, c))
    return (len(_codes(kind)) // 2 if negative else 0) | code


def _stochastic_model(x: float, random: int, kind: str) -> int:
    """``random`` / 2^(23 - M) of the spacing of the format's values around |x| added to |x|, then the largest
    value not above the sum; past the top the overflow code."""
    negative = math.copysign(1.0, x) < 0
    nan, overflow = _special_codes(kind, negative)
    if math.isnan(x):
        return nan
    if math.isinf(x):
        return overflow
    finite = _positive_finite(kind)
    values = [v for _, v in finite]
    a = abs(Fraction(x))
    below = min(max(i for i, v in enumerate(values) if v <= a), len(values) - 2)
    man_bits = {"fp8": 3, "bf8": 2, "fp6": 3, "bf6": 2, "fp4": 1}[kind]
    total = a + Fraction(random, 1 << (23 - man_bits)) * (values[below + 1] - values[below])
    if total >= values[-1] + (values[-1] - values[-2]):
        return overflow
    code = max(c for c, v in finite if v <= total)
    return (len(_codes(kind)) // 2 if negative else 0) | code


def _prng(word: int) -> int:
    """V_PRNG_B32's next word (the manual's text: shift left, xor 197 when bit 31 was set)."""
    return (word << 1 & 0xFFFFFFFF) ^ (197 if word >> 31 else 0)


def _source_value(bits: int, source: str) -> float:
    if source == "f32":
        return float(np.uint32(bits).view(np.float32))
    if source == "f16":
        return float(np.uint16(bits).view(np.float16))
    return float(np.uint32(bits << 16).view(np.float32))


F32_INPUTS = st.one_of(st.floats(width=32), st.floats(-600, 600, width=32), st.floats(-2**-7, 2**-7, width=32),
                       st.floats(-70000, 70000, width=32))
F32_WORDS = st.lists(F32_INPUTS.map(lambda x: int(np.float32(x).view(np.uint32))), min_size=LANES, max_size=LANES)
# the scale's exponent field near 127 (elements in the formats' ranges), the extremes and 0xFF included
ENCODE_SCALES = st.lists(st.one_of(st.integers(118, 136), st.sampled_from([0, 1, 254, 255]), st.integers(0, 255)),
                         min_size=LANES, max_size=LANES)


def _inputs(source: str, words) -> list[int]:
    """The lanes' source words: f32 bit patterns, or two random 16-bit halves."""
    return words if source == "f32" else [w ^ (w >> 7) for w in words]


@pytest.mark.parametrize("kind", ["fp8", "bf8", "fp4"])
@pytest.mark.parametrize("source", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("place", range(2))
@settings(max_examples=5, deadline=None)
@given(a=F32_WORDS, b=F32_WORDS, scales=ENCODE_SCALES, mantissas=MANTISSAS)
def test_scaled_pair_from_floats(kind, source, place, a, b, scales, mantissas):
    """v_cvt_scalef32_pk_<kind>_<source>: two elements (S0 and S1, or S0's halves) divided by the scale and
    rounded to nearest even, to the word (FP8/BF8, op_sel's last bit) or byte (FP4) op_sel names; the other
    bits of the VGPR kept."""
    width = 4 if kind == "fp4" else 8
    byte = 3 * place if kind == "fp4" else 2 * place  # FP4: byte 0 or 3; FP8/BF8: word 0 or 1
    old = 0xA5A5_5A5A
    if source == "f32":
        text, pairs = f"v_cvt_scalef32_pk_{kind}_f32 v1, v2, v3, v4", [(x, y) for x, y in zip(a, b)]
        regs = {"v2": a, "v3": b, "v4": _s1(scales, mantissas)}
        op_sel = [0, 0, byte & 1, byte >> 1] if kind == "fp4" else [0, 0, 0, place]
    else:
        words = _inputs(source, a)
        text, pairs = f"v_cvt_scalef32_pk_{kind}_{source} v1, v2, v3", [(w & 0xFFFF, w >> 16) for w in words]
        regs = {"v2": words, "v3": _s1(scales, mantissas)}
        op_sel = [0, 0, byte & 1, byte >> 1] if kind == "fp4" else [0, 0, place]
    text += f" op_sel:[{','.join(map(str, op_sel))}]" if any(op_sel) else ""
    want = []
    for (x, y), scale in zip(pairs, scales):
        codes = [_nearest_model(_scaled_input(_source_value(v, source), scale), kind) for v in (x, y)]
        packed = codes[0] | codes[1] << width
        want.append(old & ~(((1 << 2 * width) - 1) << 8 * byte) | packed << 8 * byte)
    for engine_name in ENGINES:
        ctx = run(text, engine_name, "gfx950", v1=old, **regs)
        got = [int(v) for v in vgpr(ctx, 1)]
        assert got == want, (engine_name, text, [(hex(g), hex(w)) for g, w in zip(got, want) if g != w][:3])


@pytest.mark.parametrize("kind", ["fp8", "bf8"])
@pytest.mark.parametrize("source", ["f32", "f16", "bf16"])
@settings(max_examples=5, deadline=None)
@given(a=F32_WORDS, r=WORDS, scales=ENCODE_SCALES, mantissas=MANTISSAS, byte=st.integers(0, 3),
       high=st.booleans())
def test_scaled_stochastic_byte_from_float(kind, source, a, r, scales, mantissas, byte, high):
    """v_cvt_scalef32_sr_<kind>_<source>: S0 (a 16-bit source's half by op_sel's first bit) divided by the scale,
    S1's top 23 - M bits added as that fraction of the quantum and truncated, to the byte op_sel names."""
    high = high and source != "f32"
    words = _inputs(source, a)
    old = 0xA5A5_5A5A
    shift = 9 + (3 if kind == "fp8" else 2)
    want = []
    for w, rnd, scale in zip(words, r, scales):
        x = _source_value(w if source == "f32" else w >> 16 * high & 0xFFFF, source)
        code = _stochastic_model(_scaled_input(x, scale), rnd >> shift, kind)
        want.append(old & ~(0xFF << 8 * byte) | code << 8 * byte)
    op_sel = [int(high), 0, byte & 1, byte >> 1]
    text = f"v_cvt_scalef32_sr_{kind}_{source} v1, v2, v3, v4" + (
        f" op_sel:[{','.join(map(str, op_sel))}]" if any(op_sel) else "")
    for engine_name in ENGINES:
        ctx = run(text, engine_name, "gfx950", v1=old, v2=words, v3=r, v4=_s1(scales, mantissas))
        got = [int(v) for v in vgpr(ctx, 1)]
        assert got == want, (engine_name, text, [(hex(g), hex(w)) for g, w in zip(got, want) if g != w][:3])


@pytest.mark.parametrize("source", ["f32", "f16", "bf16"])
@settings(max_examples=5, deadline=None)
@given(a=F32_WORDS, b=F32_WORDS, r=WORDS, scales=ENCODE_SCALES, mantissas=MANTISSAS, byte=st.integers(0, 3))
def test_scaled_stochastic_fp4_pair(source, a, b, r, scales, mantissas, byte):
    """v_cvt_scalef32_sr_pk_fp4_<source>: the first element rounded with S1's bits, the second with the next
    word of V_PRNG_B32's sequence; an f32 pair is a 64-bit S0."""
    old = 0xA5A5_5A5A
    if source == "f32":
        pairs, regs, src0 = list(zip(a, b)), {"v2": a, "v3": b}, "v[2:3]"
    else:
        words = _inputs(source, a)
        pairs, regs, src0 = [(w & 0xFFFF, w >> 16) for w in words], {"v2": words}, "v2"
    want = []
    for (x, y), rnd, scale in zip(pairs, r, scales):
        first = _stochastic_model(_scaled_input(_source_value(x, source), scale), rnd >> 10, "fp4")
        second = _stochastic_model(_scaled_input(_source_value(y, source), scale), _prng(rnd) >> 10, "fp4")
        want.append(old & ~(0xFF << 8 * byte) | (first | second << 4) << 8 * byte)
    text = f"v_cvt_scalef32_sr_pk_fp4_{source} v1, {src0}, v4, v5" + (
        f" op_sel:[0,0,{byte & 1},{byte >> 1}]" if byte else "")
    for engine_name in ENGINES:
        ctx = run(text, engine_name, "gfx950", v1=old, v4=r, v5=_s1(scales, mantissas), **regs)
        got = [int(v) for v in vgpr(ctx, 1)]
        assert got == want, (engine_name, text, [(hex(g), hex(w)) for g, w in zip(got, want) if g != w][:3])


def _pk32_case(form: str, source: str) -> tuple[str, int, int]:
    """(the instruction's operands after its name, the source VGPRs, the elements per pass)"""
    if form == "2xpk16":
        return "v[0:5], v[8:23], v[24:39], v41", 32, 2
    regs = 32 if source == "f32" else 16
    random = " v40," if form == "sr_pk32" else ""
    return f"v[0:5], v[8:{7 + regs}],{random} v41", regs, 1


def _random_words(rng, source: str, regs: int) -> list[list[int]]:
    """``regs`` VGPRs of random elements (f32 words, or pairs of 16-bit halves), most with exponents within 12
    binades of 1.0 (in the six-bit formats' range once scaled), the rest any bits (infinities, NaNs)."""
    exp_bits, man_bits = {"f32": (8, 23), "f16": (5, 10), "bf16": (8, 7)}[source]
    width, bias = 1 + exp_bits + man_bits, (1 << (exp_bits - 1)) - 1
    bits = rng.integers(0, 1 << width, size=(regs * 32 // width, LANES))
    exponents = np.clip(bias + rng.integers(-12, 13, size=bits.shape), 0, (1 << exp_bits) - 1)
    near = rng.random(bits.shape) < 0.85
    bits = np.where(near, bits & ~(((1 << exp_bits) - 1) << man_bits) | exponents << man_bits, bits)
    if width == 16:
        bits = bits[0::2] | bits[1::2] << 16
    return [[int(w) for w in row] for row in bits]


@pytest.mark.parametrize("kind", ["fp6", "bf6"])
@pytest.mark.parametrize("form,source", [("2xpk16", "f32"), ("pk32", "f16"), ("pk32", "bf16"), ("sr_pk32", "f32"),
                                         ("sr_pk32", "f16"), ("sr_pk32", "bf16")])
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), r=WORDS, scales=ENCODE_SCALES, mantissas=MANTISSAS)
def test_scaled_32_six_bit_elements(kind, form, source, seed, r, scales, mantissas):
    """32 elements to six-bit codes packed from bit 0 of v[0:5] (element i at bit 6i): 2XPK16 interleaves its
    two 16-element sources (S0's element j is element 2j, S1's 2j + 1); the SR forms round element i with the
    i-th word of V_PRNG_B32's sequence from S1."""
    operands, regs, _ = _pk32_case(form, source)
    sources = _random_words(np.random.default_rng(seed), source, regs)
    for engine_name in ENGINES:
        d = Dispatch("gfx950", 64, vgprs=64)
        for i, words in enumerate(sources):
            d.vgpr[0, 8 + i, :LANES] = words
        d.vgpr[0, 40, :LANES], d.vgpr[0, 41, :LANES] = r, _s1(scales, mantissas)
        ctx = d(f"v_cvt_scalef32_{form}_{kind}_{source} {operands}", engine_name)
        for lane in range(LANES):
            if form == "2xpk16":  # element 2j from S0 = v[8:23], 2j + 1 from S1 = v[24:39]
                elements = [sources[16 * (i & 1) + i // 2][lane] for i in range(32)]
            elif source == "f32":
                elements = [sources[i][lane] for i in range(32)]
            else:
                elements = [sources[i // 2][lane] >> 16 * (i & 1) & 0xFFFF for i in range(32)]
            random, want = r[lane], 0
            for i, bits in enumerate(elements):
                x = _scaled_input(_source_value(bits, source), scales[lane])
                if form == "sr_pk32":
                    code = _stochastic_model(x, random >> (9 + (3 if kind == "fp6" else 2)), kind)
                    random = _prng(random)
                else:
                    code = _nearest_model(x, kind)
                want |= code << 6 * i
            got = sum(int(ctx.waves.vgpr[0, reg, lane]) << 32 * reg for reg in range(6))
            assert got == want, (engine_name, lane, hex(got ^ want))


def test_scaled_encode_by_hand():
    f = lambda x: int(np.float32(x).view(np.uint32))  # noqa: E731
    for engine_name in ENGINES:
        # 3.0 / 2^-2 = 12.0 is fp8 0x54 (1.5 * 2^3: exponent field 10, mantissa 0b100); -1000 / 2^-2 = -4000
        # overflows E4M3: its NaN 0xff
        ctx = run("v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4", engine_name, "gfx950", v1=0, v2=f(3.0), v3=f(-1000.0),
                  v4=f(0.25))
        assert vgpr(ctx, 1, 1)[0] == 0xFF54, engine_name
        # fp4 of 5.0 / 1 (a tie of 4 and 6: the even code 0x6 = 4.0) and of -100 (saturates to -6.0: 0xf)
        ctx = run("v_cvt_scalef32_pk_fp4_f32 v1, v2, v3, v4", engine_name, "gfx950", v1=0, v2=f(5.0), v3=f(-100.0),
                  v4=f(1.0))
        assert vgpr(ctx, 1, 1)[0] == 0xF6, engine_name
        # 1.0625 is 1/2 of the way from fp8 1.0 (0x38) to 1.125: random bits below half keep 1.0, above carry
        ctx = run("v_cvt_scalef32_sr_fp8_f32 v1, v2, v3, v4", engine_name, "gfx950", v1=0, v2=f(2.125),
                  v3=[0x7FFFF000, 0x80000000], v4=f(2.0))
        assert list(vgpr(ctx, 1, 2)) == [0x38, 0x39], engine_name

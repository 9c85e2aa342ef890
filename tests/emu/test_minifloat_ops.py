"""gfx12's FP8/BF8 arithmetic and stochastic-rounding conversions, against models of the OCP formats written
here (each code's value from the format's definition), on both engines."""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hardware_instructions import ENGINES, LANES, _fp8_values, run, vgpr

WORDS = st.lists(st.integers(0, 2**32 - 1), min_size=LANES, max_size=LANES)


def _dot4_model(a: int, b: int, c: float, kinds: tuple[str, str]) -> float:
    """S2 plus the four byte products, added in order and each sum rounded to f32 (the products are exact)."""
    va, vb = _fp8_values(kinds[0], False), _fp8_values(kinds[1], False)
    total = np.float32(c)
    for i in range(4):
        x, y = va[a >> 8 * i & 0xFF], vb[b >> 8 * i & 0xFF]
        with np.errstate(all="ignore"):
            product = math.nan if x is None or y is None else np.float32(x) * np.float32(y)
            total = np.float32(total + np.float32(product))
    return float(total)


@pytest.mark.parametrize("kinds", [("fp8", "fp8"), ("fp8", "bf8"), ("bf8", "fp8"), ("bf8", "bf8")])
@settings(max_examples=8, deadline=None)
@given(a=WORDS, b=WORDS, c=st.lists(st.floats(-1e4, 1e4, width=32), min_size=LANES, max_size=LANES))
def test_dot4_fp8_adds_the_byte_products_in_order(kinds, a, b, c):
    c32 = np.asarray(c, np.float32)
    want = [_dot4_model(x, y, z, kinds) for x, y, z in zip(a, b, c32)]
    for engine_name in ENGINES:
        ctx = run(f"v_dot4_f32_{kinds[0]}_{kinds[1]} v1, v2, v3, v4", engine_name, "gfx1201",
                  v2=a, v3=b, v4=c32.view(np.uint32))
        got = vgpr(ctx, 1).view(np.float32)
        for lane, w in enumerate(want):
            assert math.isnan(got[lane]) if math.isnan(w) else got[lane] == w, (engine_name, lane, got[lane], w)


def test_dot4_fp8_by_hand():
    # fp8 0x38 = 1.0, 0x40 = 2.0, 0xc4 = -3.0; bf8 0x3c = 1.0, 0x44 = 4.0: 10 + 1*1 + 2*4 + (-3)*1 + 1*4 = 20
    for engine_name in ENGINES:
        ctx = run("v_dot4_f32_fp8_bf8 v1, v2, v3, v4", engine_name, "gfx1201",
                  v2=0x38C44038, v3=0x443C443C, v4=np.float32(10).view(np.uint32))
        assert vgpr(ctx, 1).view(np.float32)[0] == 20.0, engine_name


def _sr_model(x: float, random: int, kind: str, fnuz: bool) -> int:
    """Add ``random`` / 2^(23 - M) of the spacing of the format's values around |x|, then take the largest
    value not above the sum (its code, with x's sign); past the top the overflow code, as a conversion's."""
    from fractions import Fraction
    values = _fp8_values(kind, fnuz)
    finite = sorted({Fraction(v) for v in values if v is not None and math.isfinite(v) and v >= 0})
    man_bits = 3 if kind == "fp8" else 2
    nan = 0x80 if fnuz else (0x7F if kind == "fp8" else 0x7E) | (0x80 if math.copysign(1, x) < 0 else 0)
    overflow = nan if fnuz or kind == "fp8" else (0xFC if x < 0 else 0x7C)
    if math.isnan(x):
        return nan
    if math.isinf(x):
        return overflow
    a = abs(Fraction(x))
    below = max(i for i, v in enumerate(finite) if v <= a)
    spacing = finite[min(below, len(finite) - 2) + 1] - finite[min(below, len(finite) - 2)]
    total = a + Fraction(random, 1 << (23 - man_bits)) * spacing
    if total >= finite[-1] + (finite[-1] - finite[-2]):
        return overflow
    value = max(v for v in finite if v <= total)
    negative = math.copysign(1, x) < 0
    if value == 0:
        return 0x80 if negative and not fnuz else 0
    return next(c for c, v in enumerate(values) if v is not None and v == (-value if negative else value))


SR_INPUTS = st.one_of(st.floats(width=32), st.floats(-500, 500, width=32), st.floats(-2**-5, 2**-5, width=32),
                      st.floats(-70000, 70000, width=32), st.floats(-2**-17, 2**-17, width=32))


def _byte_select(target: str, byte: int) -> str:
    if target == "gfx1201":
        return f" byte_sel:{byte}" if byte else ""
    return f" op_sel:[0,0,{byte & 1},{byte >> 1}]" if byte else ""


@pytest.mark.parametrize("target,fnuz", [("gfx942", True), ("gfx950", False), ("gfx1201", False)])
@pytest.mark.parametrize("kind", ["fp8", "bf8"])
@settings(max_examples=6, deadline=None)
@given(a=st.lists(SR_INPUTS, min_size=LANES, max_size=LANES), r=WORDS, byte=st.integers(0, 3))
def test_cvt_sr_fp8_adds_the_random_bits_and_truncates(target, fnuz, kind, a, r, byte):
    a32 = np.asarray(a, np.float32)
    shift = 12 if kind == "fp8" else 11
    old = 0xA5A5_5A5A
    keep = old & ~(0xFF << 8 * byte)
    want = [keep | _sr_model(float(x), rnd >> shift, kind, fnuz) << 8 * byte for x, rnd in zip(a32, r)]
    for engine_name in ENGINES:
        ctx = run(f"v_cvt_sr_{kind}_f32 v1, v2, v3" + _byte_select(target, byte), engine_name, target,
                  v1=old, v2=a32.view(np.uint32), v3=r)
        got = [int(x) for x in vgpr(ctx, 1)]
        assert got == want, (engine_name, [(float(x), hex(g), hex(w)) for x, g, w in zip(a32, got, want) if g != w][:3])


def test_cvt_sr_fp8_by_hand():
    # 1.0625 lies 1/2 of the way from fp8 1.0 (0x38) to 1.125 (0x39): random bits below half keep 1.0, above carry
    x = np.float32(1.0625).view(np.uint32)
    for engine_name in ENGINES:
        ctx = run("v_cvt_sr_fp8_f32 v1, v2, v3", engine_name, "gfx1201", v1=0, v2=x, v3=[0x7FFFF000, 0x80000000])
        assert list(vgpr(ctx, 1, 2)) == [0x38, 0x39], engine_name


@pytest.mark.parametrize("target,fnuz", [("gfx942", True), ("gfx950", False)])
@pytest.mark.parametrize("kind", ["fp8", "bf8"])
def test_cdna_fp8_to_f32_conversions_decode_the_sdwa_selected_byte(target, fnuz, kind):
    values = _fp8_values(kind, fnuz)
    wave = 64
    for start in range(0, 256, wave):
        codes = np.arange(start, start + wave) % 256
        words = (codes | (codes ^ 0x55) << 8 | (codes ^ 0xAA) << 16 | (codes ^ 0xFF) << 24).astype(np.uint32)
        text = (f"v_cvt_f32_{kind} v1, v2\nv_cvt_f32_{kind}_e64 v3, v2\n"
                f"v_cvt_f32_{kind}_sdwa v4, v2 src0_sel:BYTE_1\nv_cvt_f32_{kind}_sdwa v5, v2 src0_sel:BYTE_2\n"
                f"v_cvt_f32_{kind}_sdwa v6, v2 src0_sel:BYTE_3\n"
                f"v_cvt_pk_f32_{kind}_sdwa v[8:9], v2 src0_sel:WORD_1\nv_cvt_pk_f32_{kind} v[10:11], v2")
        for engine_name in ENGINES:
            ctx = run(text, engine_name, target, v2=words)
            for reg, flip in ((1, 0), (3, 0), (4, 0x55), (5, 0xAA), (6, 0xFF), (8, 0xAA), (9, 0xFF), (10, 0),
                              (11, 0x55)):
                got = ctx.waves.vgpr[0, reg, :wave].view(np.float32)
                for lane, code in enumerate(codes):
                    want = values[code ^ flip]
                    assert np.isnan(got[lane]) if want is None else got[lane] == want and \
                        np.signbit(got[lane]) == (want < 0 or (code ^ flip) == 0x80), (engine_name, reg, hex(code))


def _16_bit_value(code: int, kind: str) -> float:
    if kind == "f16":
        return float(np.array(code, np.uint16).view(np.float16))
    return float(np.array(code << 16, np.uint32).view(np.float32))


def _sr_16_bit_model(x: float, random: int, kind: str) -> int:
    """The code of the neighbour below |x| (toward zero), or of the one above when x's fraction of the way
    there plus random / 2^(23 - M) reaches 1; NaN quieted, infinities kept, past the top an infinity."""
    bits = int(np.float32(x).view(np.uint32))
    sign = 0x8000 if bits >> 31 else 0
    if math.isnan(x) or math.isinf(x):
        code = int(np.float32(x).astype(np.float16).view(np.uint16)) if kind == "f16" else bits >> 16
        return code | ((0x200 if kind == "f16" else 0x40) if math.isnan(x) else 0)
    # the positive codes in order of value: the largest whose value is not above |x|
    down = next(c for c in range(0x7C00 if kind == "f16" else 0x7F80, -1, -1) if _16_bit_value(c, kind) <= abs(x)) \
        if kind == "f16" else (bits & 0x7FFFFFFF) >> 16
    low, high = _16_bit_value(down, kind), _16_bit_value(down + 1, kind)
    step = Fraction(high) - Fraction(low) if math.isfinite(high) else \
        Fraction(low) - Fraction(_16_bit_value(down - 1, kind))
    man_bits = 10 if kind == "f16" else 7
    rounds_up = (Fraction(abs(x)) - Fraction(low)) / step + Fraction(random, 1 << (23 - man_bits)) >= 1
    return sign | (down + 1 if rounds_up else down)


@pytest.mark.parametrize("kind", ["f16", "bf16"])
@settings(max_examples=8, deadline=None)
@given(a=st.lists(st.one_of(st.floats(width=32), st.floats(-70000, 70000, width=32),
                            st.floats(-2**-13, 2**-13, width=32)), min_size=LANES, max_size=LANES),
       r=WORDS, high=st.booleans())
def test_gfx950_cvt_sr_16_bit(kind, a, r, high):
    a32 = np.asarray(a, np.float32)
    shift = 19 if kind == "f16" else 16
    old = 0xA5A5_5A5A
    codes = [_sr_16_bit_model(float(x), rnd >> shift, kind) for x, rnd in zip(a32, r)]
    want = [(old & 0xFFFF) | c << 16 if high else (old & 0xFFFF0000) | c for c in codes]
    text = f"v_cvt_sr_{kind}_f32 v1, v2, v3" + (" op_sel:[0,0,1]" if high else "")
    for engine_name in ENGINES:
        ctx = run(text, engine_name, "gfx950", v1=old, v2=a32.view(np.uint32), v3=r)
        got = [int(v) for v in vgpr(ctx, 1)]
        assert got == want, (engine_name, [(float(x), hex(g), hex(w)) for x, g, w in zip(a32, got, want) if g != w][:3])

"""gfx942/gfx950's v_cvt_pkaccum_u8_f32 (f32_to_u8 of S0 into the byte S1[1:0] names, the others kept) and
v_clrexcp (TRAPSTS.EXCP cleared), against the model of test_hardware_instructions (clamp, round half to even,
NaN 0) and by hand, and v_div_fixup_legacy_f16 against V_DIV_FIXUP_F16's rules on codes, on both engines."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hardware_instructions import ENGINES, LANES, WORDS, _u8_model, run, vgpr


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@settings(max_examples=6, deadline=None)
@given(xs=st.lists(st.one_of(st.floats(width=32), st.integers(-4, 600).map(lambda k: k / 2)), min_size=LANES,
                   max_size=LANES), selects=WORDS, olds=WORDS)
def test_cvt_pkaccum_u8_writes_the_selected_byte(target, xs, selects, olds):
    want = [(old & ~(0xFF << (s & 3) * 8) & 0xFFFFFFFF) | _u8_model(float(x)) << (s & 3) * 8
            for x, s, old in zip(np.asarray(xs, np.float32), selects, olds)]
    for engine_name in ENGINES:
        ctx = run("v_cvt_pkaccum_u8_f32 v1, v2, v3", engine_name, target, v1=olds,
                  v2=np.asarray(xs, np.float32).view(np.uint32), v3=selects)
        assert list(vgpr(ctx, 1)) == want, engine_name


def test_cvt_pkaccum_u8_by_hand():
    # 2.5 -> 2 into byte 1 of 0x11223344; 300 -> 255 into byte 3
    xs = np.array([2.5, 300.0], np.float32).view(np.uint32)
    for engine_name in ENGINES:
        ctx = run("v_cvt_pkaccum_u8_f32 v1, v2, v3", engine_name, "gfx942", v1=0x11223344, v2=xs, v3=[1, 3])
        assert list(vgpr(ctx, 1, 2)) == [0x11220244, 0xFF223344], engine_name


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@pytest.mark.parametrize("form", ["v_clrexcp", ".long 0xd1750000, 0"])  # e32; e64 as LLVM encodes it
def test_clrexcp_clears_the_exception_flags(target, form):
    text = (f"s_mov_b32 s1, 0x1ff\ns_setreg_b32 hwreg(HW_REG_TRAPSTS, 0, 9), s1\n"
            f"s_getreg_b32 s2, hwreg(HW_REG_TRAPSTS)\n{form}\ns_getreg_b32 s3, hwreg(HW_REG_TRAPSTS)")
    for engine_name in ENGINES:
        ctx = run(text, engine_name, target)
        assert ctx.waves.sgpr[0, 2] & 0x1FF == 0x1FF and ctx.waves.sgpr[0, 3] & 0x1FF == 0, engine_name


F16_SPECIAL = [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x3C00, 0xC000, 0x0001, 0x7BFF]
F16_WORDS = st.lists(st.one_of(st.sampled_from(F16_SPECIAL), st.integers(0, 0xFFFF)), min_size=LANES,
                     max_size=LANES)


def _fixup_model(q: int, d: int, n: int) -> int:
    """V_DIV_FIXUP_F16's rules on codes (q: quotient estimate S0, d: denominator S1, n: numerator S2)."""
    def nan(x):
        return x & 0x7C00 == 0x7C00 and x & 0x3FF

    def inf(x):
        return x & 0x7FFF == 0x7C00

    def zero(x):
        return x & 0x7FFF == 0

    sign = ((d ^ n) >> 15) << 15
    if nan(n) or nan(d):
        return (n if nan(n) else d) | 0x200
    if zero(d) and zero(n) or inf(d) and inf(n):
        return 0xFE00
    if zero(d) or inf(n):
        return sign | 0x7C00
    if inf(d) or zero(n):
        return sign
    return sign | 0x7C00 if nan(q) else sign | q & 0x7FFF


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@settings(max_examples=8, deadline=None)
@given(q=F16_WORDS, d=F16_WORDS, n=F16_WORDS)
def test_div_fixup_legacy_f16(target, q, d, n):
    want = [_fixup_model(*args) for args in zip(q, d, n)]  # the high half cleared (GFX9's 16-bit results)
    for engine_name in ENGINES:
        ctx = run("v_div_fixup_legacy_f16 v1, v2, v3, v4", engine_name, target, v1=0xABCD0000, v2=q, v3=d, v4=n)
        assert [int(v) for v in vgpr(ctx, 1)] == want, engine_name

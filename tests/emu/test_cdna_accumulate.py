"""gfx942/gfx950's v_cvt_pkaccum_u8_f32 (f32_to_u8 of S0 into the byte S1[1:0] names, the others kept) and
v_clrexcp (TRAPSTS.EXCP cleared), against the model of test_hardware_instructions (clamp, round half to even,
NaN 0) and by hand, on both engines."""
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

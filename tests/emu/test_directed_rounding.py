"""Every float instruction in every MODE (issue 12, item 7): a directed FP_ROUND for operations the numpy
rounding of rounding.py does not cover (f64 fma, sqrt, ldexp, packed f16, dot products, SALU floats ...),
and denormal flushing for the SALU floats, checked against mpmath's correctly rounded results, on both
engines."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hardware_instructions import ENGINES, LANES, run, vgpr

MODES = {1: "c", 2: "f", 3: "d"}  # FP_ROUND -> mpmath rounding: +inf (ceiling), -inf (floor), toward zero
KEEP_DENORMALS = 0xF << 4


def _mode(fp_round: int, field: str) -> int:
    """MODE with FP_ROUND set for the f32 field or the f64/f16 one, denormals kept."""
    return KEEP_DENORMALS | (fp_round << (0 if field == "f32" else 2))


def _round(value: Fraction, prec: int, emin: int, mode: str) -> float:
    """A rational rounded to a binary format of ``prec`` bits and least normal exponent ``emin``
    (denormals below it: a fixed quantum), in mpmath's direction letter; no overflow handling."""
    if value == 0:
        return 0.0
    exponent = max(math.floor(math.log2(abs(value))), emin)
    while Fraction(2) ** exponent > abs(value) and exponent > emin:  # log2's float may be off by one
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= abs(value):
        exponent += 1
    quantum = Fraction(2) ** (exponent - (prec - 1))
    units = value / quantum
    n = {"c": math.ceil, "f": math.floor, "d": math.trunc}[mode](units)
    return float(n * quantum)


def _f64(bits_lo, bits_hi):
    return (bits_lo.astype(np.uint64) | bits_hi.astype(np.uint64) << 32).view(np.float64)


def _words(values):
    words = np.asarray(values, np.float64).view(np.uint64)
    return (words & 0xFFFFFFFF).astype(np.uint32), (words >> 32).astype(np.uint32)


NORMAL_F64 = st.floats(1e-100, 1e100).flatmap(lambda x: st.sampled_from([x, -x]))
NORMAL_F32 = st.floats(1e-15, 1e15, width=32).flatmap(lambda x: st.sampled_from([x, -x]))


@pytest.mark.parametrize("fp_round", [1, 2, 3])
@settings(max_examples=4, deadline=None)
@given(a=st.lists(NORMAL_F64, min_size=LANES, max_size=LANES), b=st.lists(NORMAL_F64, min_size=LANES, max_size=LANES),
       c=st.lists(NORMAL_F64, min_size=LANES, max_size=LANES))
def test_f64_fma_rounds_in_the_directed_mode(fp_round, a, b, c):
    want = [float(mpmath.mpf(mpmath.libmp.mpf_add(mpmath.libmp.mpf_mul(mpmath.mpf(x)._mpf_, mpmath.mpf(y)._mpf_),
                                                  mpmath.mpf(z)._mpf_, 53, MODES[fp_round])))
            for x, y, z in zip(a, b, c)]
    (a0, a1), (b0, b1), (c0, c1) = _words(a), _words(b), _words(c)
    for engine_name in ENGINES:
        ctx = run("v_fma_f64 v[6:7], v[0:1], v[2:3], v[4:5]", engine_name, mode=_mode(fp_round, "f64"),
                  v0=a0, v1=a1, v2=b0, v3=b1, v4=c0, v5=c1)
        assert list(_f64(vgpr(ctx, 6), vgpr(ctx, 7))) == want, engine_name


@pytest.mark.parametrize("fp_round", [1, 2, 3])
@pytest.mark.parametrize("text,prec,field", [("v_sqrt_f32 v1, v2", 24, "f32"),
                                             ("v_sqrt_f64 v[4:5], v[2:3]", 53, "f64")])
@settings(max_examples=4, deadline=None)
@given(xs=st.lists(st.floats(1e-30, 1e30), min_size=LANES, max_size=LANES))
def test_sqrt_rounds_in_the_directed_mode(fp_round, text, prec, field, xs):
    if prec == 24:
        xs = list(np.asarray(xs, np.float32).astype(np.float64))
    want = [float(mpmath.mpf(mpmath.libmp.mpf_sqrt(mpmath.mpf(x)._mpf_, prec, MODES[fp_round]))) for x in xs]
    for engine_name in ENGINES:
        if prec == 24:
            ctx = run(text, engine_name, mode=_mode(fp_round, field), v2=np.asarray(xs, np.float32).view(np.uint32))
            got = list(vgpr(ctx, 1).view(np.float32).astype(np.float64))
        else:
            lo, hi = _words(xs)
            ctx = run(text, engine_name, mode=_mode(fp_round, field), v2=lo, v3=hi)
            got = list(_f64(vgpr(ctx, 4), vgpr(ctx, 5)))
        assert got == want, engine_name


@pytest.mark.parametrize("fp_round", [1, 2, 3])
@settings(max_examples=4, deadline=None)
@given(a=st.lists(st.floats(-100, 100, width=16), min_size=2 * LANES, max_size=2 * LANES),
       b=st.lists(st.floats(-100, 100, width=16), min_size=2 * LANES, max_size=2 * LANES),
       c=st.lists(st.floats(-100, 100, width=16), min_size=2 * LANES, max_size=2 * LANES))
def test_packed_f16_fma_rounds_each_half_in_the_directed_mode(fp_round, a, b, c):
    def halves(values):
        bits = np.asarray(values, np.float16).view(np.uint16).astype(np.uint32)
        return bits[0::2] | bits[1::2] << 16
    want = []
    for x, y, z in zip(a, b, c):
        r = _round(Fraction(x) * Fraction(y) + Fraction(z), 11, -14, MODES[fp_round])
        if abs(r) > 65504:  # beyond f16: MAX toward zero, inf away from it
            toward_zero = MODES[fp_round] == "d" or (MODES[fp_round] == "c") == (r < 0)
            r = math.copysign(65504.0 if toward_zero else math.inf, r)
        want.append(r)
    for engine_name in ENGINES:
        ctx = run("v_pk_fma_f16 v1, v2, v3, v4", engine_name, mode=_mode(fp_round, "f16"),
                  v2=halves(a), v3=halves(b), v4=halves(c))
        got = vgpr(ctx, 1)
        pairs = np.stack([got & 0xFFFF, got >> 16], axis=1).reshape(-1).astype(np.uint16).view(np.float16)
        assert [float(v) for v in pairs] == want, engine_name


# -- SALU floats (gfx11.5, gfx12) -----------------------------------------------------------------------

@pytest.mark.parametrize("target", ["gfx1151", "gfx1201"])
@pytest.mark.parametrize("fp_round", [0, 1, 2, 3])
def test_salu_float_rounds_in_the_directed_mode(target, fp_round):
    # 1 + 2^-30 is not an f32: up gives 1 + 2^-23, down and toward zero 1; -(1 + 2^-30) mirrors it
    x, tiny = np.float32(1.0), np.float32(2.0**-30)
    results = {}
    for engine_name in ENGINES:
        ctx = run("s_add_f32 s10, s2, s3\ns_add_f32 s11, s4, s3\ns_fmamk_f32 s12, s3, 0x3f800000, s2",
                  engine_name, target, mode=_mode(fp_round, "f32"), s2=x.view(np.uint32),
                  s3=tiny.view(np.uint32), s4=np.float32(-1.0).view(np.uint32))
        results[engine_name] = [int(ctx.waves.sgpr[0, r]) for r in (10, 11, 12)]
    up, one = np.float32(1 + 2.0**-23).view(np.uint32), x.view(np.uint32)
    below_minus_one = np.float32(-1.0).view(np.uint32)
    minus_next = np.float32(-(1 - 2.0**-24)).view(np.uint32)  # -1 + 2^-30 rounded toward +inf / zero
    want = {0: [one, below_minus_one, one], 1: [up, minus_next, up], 2: [one, below_minus_one, one],
            3: [one, minus_next, one]}[fp_round]
    for engine_name, got in results.items():
        assert got == [int(w) for w in want], engine_name


@pytest.mark.parametrize("target", ["gfx1151", "gfx1201"])
def test_salu_float_flushes_denormals_in_the_mode(target):
    denormal = np.uint32(0x00000010)
    for engine_name in ENGINES:
        # FP_DENORM f32 = 0: inputs and outputs flushed; the f16/f64 field keeps them
        ctx = run("s_add_f32 s10, s2, 0\ns_mul_f32 s11, s3, 0x3f000000\ns_cvt_f32_i32 s12, 7", engine_name, target,
                  mode=0xC << 4, s2=denormal, s3=np.uint32(0x00800000))
        assert [int(ctx.waves.sgpr[0, r]) for r in (10, 11, 12)] == [0, 0, 0x40E00000], engine_name


# -- WMMA / MFMA ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fp_round", [1, 2, 3])
@pytest.mark.parametrize("target, wave_size", [("gfx1100", 32), ("gfx1201", 32)])
def test_wmma_rounds_each_element_once_in_the_directed_mode(target, wave_size, fp_round):
    from test_matrix import f16_codes, pack_input, pack_output, run_matrix, unpack_output
    rng = np.random.default_rng(fp_round)
    a, b = rng.standard_normal((16, 16)).astype(np.float16), rng.standard_normal((16, 16)).astype(np.float16)
    c = (rng.standard_normal((16, 16)) * 1000).astype(np.float32)
    d = run_matrix(f"s_round_mode {fp_round:#x}\nv_wmma_f32_16x16x16_f16",
                   pack_input(f16_codes(a), 16, wave_size, target), pack_input(f16_codes(b.T), 16, wave_size, target),
                   pack_output(c.view(np.uint32), 32, wave_size, target), target, wave_size)
    got = unpack_output(d, 32, wave_size, target).view(np.float32)
    for i in range(16):
        for j in range(16):
            exact = sum((Fraction(float(a[i, k])) * Fraction(float(b[k, j])) for k in range(16)),
                        Fraction(float(c[i, j])))
            assert float(got[i, j]) == _round(exact, 24, -126, MODES[fp_round]), (i, j)


def test_wmma_flushes_denormal_inputs_in_the_mode():
    from test_matrix import f16_codes, pack_input, pack_output, run_matrix, unpack_output
    a = np.full((16, 16), 2.0**-20, np.float16)  # an f16 denormal
    b = np.zeros((16, 16), np.float16)
    b[0, :] = 1.0
    c = np.zeros((16, 16), np.float32)
    results = []
    for mode in ("s_denorm_mode 0xf", "s_denorm_mode 0x3"):  # f16 denormals kept / flushed
        d = run_matrix(f"{mode}\nv_wmma_f32_16x16x16_f16", pack_input(f16_codes(a), 16, 32, "gfx1100"),
                       pack_input(f16_codes(b.T), 16, 32, "gfx1100"),
                       pack_output(c.view(np.uint32), 32, 32, "gfx1100"), "gfx1100", 32)
        results.append(unpack_output(d, 32, 32, "gfx1100").view(np.float32)[0, 0])
    assert results == [np.float32(2.0**-20), np.float32(0.0)]

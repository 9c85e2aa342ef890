"""Vectorized numerics that the generated semantics call: each mirrors the reference evaluator bit for bit.

Floats arrive in their numpy containers (float16/32/64; bfloat16 as its uint16 bits). The rules, and
why numpy alone is not enough:
  - IEEE arithmetic in numpy rounds correctly, but a NaN result does not follow the reference: a NaN
    operand must come back quieted with its own payload (the first NaN operand), and an invalid
    operation (inf - inf, 0 * inf) gives the default NaN 0x7fc00000, where x86 gives 0xffc00000.
    So every float operation checks for a NaN result and, only if there is one, rebuilds those lanes.
  - float16 arithmetic in numpy goes through float32, and bfloat16 here through float64: both are a
    single correct rounding because the wider format has at least 2p+2 bits (Figueroa).
  - fma is not one operation in numpy: the product is exact in float64 for f16/f32 inputs, the sum's
    error is recovered with TwoSum, and the float64 sum is rounded to odd before the final rounding
    (round-to-odd then round-to-nearest is one correct rounding: Boldo & Melquiond). float64 fma uses
    their emulated-FMA algorithm; lanes outside its proven range take the reference's exact path.
  - transcendental functions are evaluated in float64 by numpy's libm and rounded once, as the
    reference does with Python's math module (identical results unless the two libms differ).
Callers run under ``np.errstate(all="ignore")``: lanes that a mask discards may overflow or divide by 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpubench.compiler.pcode import floats, helpers
from gpubench.compiler.pcode.dtypes import DataType
from gpubench.compiler.pcode.values import Value


@dataclass(frozen=True)
class Fmt:
    """A float format and its numpy containers; ``box`` is None for bfloat16 (held as uint16 bits)."""

    name: str
    exp_bits: int
    man_bits: int
    uint: type
    box: type | None

    @property
    def bits(self) -> int:
        return 1 + self.exp_bits + self.man_bits

    @property
    def sign_bit(self):
        return self.uint(1 << (self.bits - 1))

    @property
    def quiet_bit(self):
        return self.uint(1 << (self.man_bits - 1))

    @property
    def exp_mask(self):
        return self.uint(((1 << self.exp_bits) - 1) << self.man_bits)

    @property
    def man_mask(self):
        return self.uint((1 << self.man_bits) - 1)

    @property
    def default_nan(self):
        return self.uint(self.exp_mask | self.quiet_bit)

    @property
    def dtype(self) -> DataType:
        return DataType("bf" if self.box is None else "f", self.bits)


F16 = Fmt("F16", 5, 10, np.uint16, np.float16)
F32 = Fmt("F32", 8, 23, np.uint32, np.float32)
F64 = Fmt("F64", 11, 52, np.uint64, np.float64)
BF16 = Fmt("BF16", 8, 7, np.uint16, None)


# --- bits and classification -------------------------------------------------------------------------


def bits_of(x, fmt: Fmt):
    return x if fmt.box is None else x.view(fmt.uint)


def from_bits(u, fmt: Fmt):
    return u if fmt.box is None else u.view(fmt.box)


def isnan(x, fmt: Fmt):
    if fmt.box is not None:
        return np.isnan(x)
    return ((x & fmt.exp_mask) == fmt.exp_mask) & ((x & fmt.man_mask) != 0)


def quiet(x, fmt: Fmt):
    """NaNs get their quiet bit set (payload kept); other values unchanged."""
    u = bits_of(np.asarray(x), fmt)
    return from_bits(np.where(isnan(x, fmt), u | fmt.quiet_bit, u), fmt)


def ieee_extremum(x, y, fmt: Fmt, larger: bool):
    """helpers._ieee_extremum's pair rule on arrays: IEEE 754-2019 maximum (larger) or minimum."""
    ux, uy = bits_of(np.asarray(x), fmt), bits_of(np.asarray(y), fmt)
    nan_x, nan_y = isnan(x, fmt), isnan(y, fmt)
    quiet_x, quiet_y = (ux & fmt.quiet_bit) != 0, (uy & fmt.quiet_bit) != 0
    a, b = to_f64(np.asarray(x), fmt), to_f64(np.asarray(y), fmt)
    sx, sy = sign(np.asarray(x), fmt), sign(np.asarray(y), fmt)
    with np.errstate(invalid="ignore"):
        pick_x = np.where(a == b, (sx <= sy) == larger, (a > b) == larger)
    chosen = np.where(pick_x, ux, uy)
    chosen = np.where(nan_y, uy, chosen)
    chosen = np.where(nan_x, ux, chosen)
    chosen = np.where(nan_y & ~quiet_y, uy | fmt.quiet_bit, chosen)
    chosen = np.where(nan_x & ~quiet_x, ux | fmt.quiet_bit, chosen)
    return from_bits(chosen.astype(ux.dtype), fmt)


def fabs(x, fmt: Fmt):
    return from_bits(bits_of(x, fmt) & ~fmt.sign_bit, fmt)


def fneg(x, fmt: Fmt):
    return from_bits(bits_of(x, fmt) ^ fmt.sign_bit, fmt)


def sign(x, fmt: Fmt):
    return (bits_of(x, fmt) >> fmt.uint(fmt.bits - 1)) != 0


def exponent(x, fmt: Fmt):
    return ((bits_of(x, fmt) >> fmt.uint(fmt.man_bits)) & fmt.uint((1 << fmt.exp_bits) - 1)).astype(np.int32)


def to_f64(x, fmt: Fmt):
    """The value as float64 (exact); NaNs become some NaN (callers handle NaN lanes themselves)."""
    if fmt.box is None:
        return (x.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return x.astype(np.float64)


def _with_nans(result_bits, nan_bits, nan_lanes, fmt: Fmt):
    return from_bits(np.where(nan_lanes, nan_bits, result_bits), fmt)


# --- rounding float64 to narrower formats ------------------------------------------------------------


def _round_to_odd_f32(x):
    """x (float64) rounded to float32 precision by round-to-odd (finite lanes; overflow gives max)."""
    r = x.astype(np.float32)
    back = r.astype(np.float64)
    u = r.view(np.uint32)
    inexact = (back != x) & ((u & np.uint32(1)) == 0) & np.isfinite(x)
    if not np.count_nonzero(inexact):
        return r
    up = np.abs(x) > np.abs(back)
    stepped = np.where(up, u + np.uint32(1), u - np.uint32(1))
    return np.where(inexact, stepped, u).view(np.float32)


def _f32_to_bf16_bits(r):
    """Round-to-nearest-even of float32 to bfloat16 by its bits (the two share the exponent range)."""
    u = r.view(np.uint32)
    rounded = (u + (np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1)))) >> np.uint32(16)
    return rounded.astype(np.uint16)


def narrow_f64(x, fmt: Fmt):
    """float64 -> fmt with one correct rounding to nearest even (NaN lanes: callers fix them)."""
    if fmt is F64:
        return x
    if fmt.box is None:
        return _f32_to_bf16_bits(_round_to_odd_f32(x))
    return x.astype(fmt.box)  # numpy converts float64 to float16 directly, correctly rounded


def _round_to_odd_f64(s, err):
    """s = RN(exact), err = exact - s (exactly): round-to-odd of the exact value in float64."""
    u = s.view(np.uint64)
    inexact = (err != 0) & ((u & np.uint64(1)) == 0)
    if not np.count_nonzero(inexact):
        return s
    away = (err > 0) == (s > 0)
    stepped = np.where(away, u + np.uint64(1), u - np.uint64(1))
    return np.where(inexact, stepped, u).view(np.float64)


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


# --- arithmetic ----------------------------------------------------------------------------------------


def _nan_fixed(r, operands, fmt: Fmt):
    """Rebuild the NaN lanes of r as the reference does: first NaN operand quieted, else default NaN."""
    bad = isnan(r, fmt)
    if not np.count_nonzero(bad):
        return r
    chosen = fmt.default_nan
    for x in reversed(operands):
        chosen = np.where(isnan(x, fmt), bits_of(np.asarray(x), fmt) | fmt.quiet_bit, chosen)
    return _with_nans(bits_of(np.asarray(r), fmt), chosen, bad, fmt)


def _binary(op, a, b, fmt: Fmt):
    if fmt.box is None:  # bfloat16: exact operands in float64, one rounding
        r = narrow_f64(op(to_f64(a, fmt), to_f64(b, fmt)), fmt)
    else:
        r = op(a, b)
    return _nan_fixed(r, (a, b), fmt)


def add(a, b, fmt: Fmt):
    return _binary(np.add, a, b, fmt)


def sub(a, b, fmt: Fmt):
    return _binary(np.subtract, a, b, fmt)


def mul(a, b, fmt: Fmt):
    return _binary(np.multiply, a, b, fmt)


def div(a, b, fmt: Fmt):
    return _binary(np.true_divide, a, b, fmt)


def fma(a, b, c, fmt: Fmt):
    """a * b + c rounded once (see the module docstring for the method)."""
    if fmt is F64:
        r = _fma_f64(a, b, c)
    else:
        x, y, z = (to_f64(v, fmt) for v in (a, b, c))
        p = x * y  # exact: at most 2 * 24 significant bits
        s = p + z
        if fmt.box is not None and not np.count_nonzero(_maybe_double_rounded(s, fmt)):
            r = s.astype(fmt.box)
        else:
            s, err = _two_sum(p, z)
            finite = np.isfinite(s)
            s = np.where(finite, _round_to_odd_f64(s, np.where(finite, err, 0.0)), s)
            r = narrow_f64(s, fmt)
    return _nan_fixed(r, (a, b, c), fmt)


def _maybe_double_rounded(s, fmt: Fmt):
    """Lanes where rounding the float64 sum to fmt might differ from rounding the exact sum: the
    float64 result sits exactly halfway between two fmt values (its own rounding may have made the
    tie), or lies in fmt's subnormal range (where the halfway bit is elsewhere)."""
    shift = 52 - fmt.man_bits
    low = s.view(np.uint64) & np.uint64((1 << shift) - 1)
    return (low == np.uint64(1 << (shift - 1))) | (np.abs(s) < 2.0 ** (2 - (1 << (fmt.exp_bits - 1))))


def _two_prod(a, b):
    """Dekker's product: a * b == p + e exactly (no overflow/underflow in the safe range below)."""
    p = a * b
    split = 134217729.0  # 2**27 + 1
    ta = split * a
    ah = ta - (ta - a)
    al = a - ah
    tb = split * b
    bh = tb - (tb - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma_f64(a, b, c):
    a, b, c = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))
    simple = (a == 0) | (b == 0) | ~(np.isfinite(a) & np.isfinite(b) & np.isfinite(c))
    plain = a * b + c  # exact product when a zero or a non-finite value is involved
    ea, eb, ec = (np.frexp(v)[1] for v in (a, b, c))
    safe = (np.abs(ea) < 480) & (np.abs(eb) < 480) & (ea + eb > -900) & (ec < 1000) & (ec > -900)
    uh, ul = _two_prod(a, b)
    th, tl = _two_sum(c, uh)
    s, err = _two_sum(tl, ul)
    v = _round_to_odd_f64(s, err)
    fast = th + v
    result = np.where(simple, plain, fast)
    rare = ~simple & ~safe
    if np.count_nonzero(rare):
        result = result.copy()
        for i in np.flatnonzero(rare):
            result[i] = _reference_fma_f64(a[i], b[i], c[i])
    return result


def _reference_fma_f64(a, b, c) -> np.float64:
    """The reference evaluator's exact fma, for lanes whose exponents leave Dekker's safe range."""
    f64 = DataType("f", 64)
    args = [Value(f64, int(np.float64(v).view(np.uint64))) for v in (a, b, c)]
    out = helpers.fma(floats.ROUND_NEAREST_EVEN, *args)
    return np.uint64(out.data).view(np.float64)


def ldexp(x, n, fmt: Fmt):
    """x * 2**n rounded once (n: any integer array).

    Mirrors one quirk of the evaluator: with an infinite x it multiplies by 2**n as a Python float,
    which is 0.0 once n <= -1075, so inf * 2**n is then the default NaN."""
    n = np.asarray(n).astype(np.int64)
    limit = 2200 if fmt is F64 else 400  # beyond these every result has over- or underflowed
    clipped = np.clip(n, -limit, limit)
    if fmt is F64:
        r = np.ldexp(x, clipped)
    else:
        r = narrow_f64(np.ldexp(to_f64(x, fmt), clipped), fmt)
    r = _nan_fixed(r, (x,), fmt)
    vanished = (n <= -1075) & np.isinf(to_f64(x, fmt))
    if np.count_nonzero(vanished):
        r = _with_nans(bits_of(r, fmt), fmt.default_nan, vanished, fmt)
    return r


_TWO_OVER_PI = None


def two_over_pi_bits(shift):
    """helpers.two_over_pi_bits53 of each shift as float64 (exact), from a table of every shift that has bits."""
    global _TWO_OVER_PI
    if _TWO_OVER_PI is None:
        count = helpers.TWO_OVER_PI_TABLE_BITS - 64
        _TWO_OVER_PI = np.array([float(helpers.two_over_pi_bits53(k)) for k in range(count)] + [0.0], np.float64)
    shift = np.asarray(shift).astype(np.int64)
    return _TWO_OVER_PI[np.where((shift >= 0) & (shift < len(_TWO_OVER_PI) - 1), shift, len(_TWO_OVER_PI) - 1)]


def f32_to_minifloat(x, fmt: Fmt, fnuz, kind: str):
    """helpers.f32_to_minifloat_code of each element (fnuz: bool per element), as uint32 codes."""
    v = to_f64(x, fmt)
    fnuz = np.broadcast_to(np.asarray(fnuz, bool), v.shape)
    out = np.zeros(v.shape, np.uint32)
    for variant in (False, True) if (kind, True) in helpers.MINIFLOAT_FORMATS else (False,):
        exp_bits, man_bits, bias = helpers.MINIFLOAT_FORMATS[kind, variant]
        sign_bit = 1 << (exp_bits + man_bits)
        e4m3 = kind == "fp8" and not variant
        top = (1 << exp_bits) - 2 if kind == "bf8" and not variant else (1 << exp_bits) - 1
        top_mantissa = (1 << man_bits) - (2 if e4m3 else 1)
        largest = (1 + top_mantissa / (1 << man_bits)) * 2.0 ** (top - bias)
        emin = 1 - bias
        negative = np.signbit(v)
        sign = np.where(negative & (not variant), sign_bit, 0).astype(np.uint32)
        if kind in helpers.SATURATING:
            nan = overflow = sign | np.uint32(sign_bit - 1)
        else:
            nan = np.uint32(0x80) if variant else sign | np.uint32(0x7F if kind == "fp8" else 0x7E)
            overflow = nan if variant or kind == "fp8" else sign | np.uint32(0x7C)
        a = np.abs(np.where(np.isfinite(v), v, 0.0))
        _, e = np.frexp(a)
        exponent = np.maximum(e - 1, emin)
        quantum = np.ldexp(1.0, exponent - man_bits)
        units = np.rint(a / quantum)  # exact scaling; rint rounds half to even
        rounded = units * quantum
        _, e2 = np.frexp(rounded)
        mantissa = rounded / np.ldexp(1.0, np.maximum(e2 - 1, emin) - man_bits) - (1 << man_bits)
        normal = ((np.maximum(e2 - 1, emin) + bias) << man_bits).astype(np.int64) + mantissa.astype(np.int64)
        code = np.where(rounded < 2.0 ** emin, units.astype(np.int64), normal).astype(np.uint32)
        code = np.where(rounded == 0, sign if not variant else np.uint32(0), np.where(negative, sign_bit, 0) | code)
        code = np.where(rounded > largest, overflow, code)
        code = np.where(np.isinf(v), overflow, np.where(np.isnan(v), nan, code))
        out = np.where(fnuz == variant, code, out)
    return out.astype(np.uint32)


def stochastic_truncation(v, random, man_bits: int, emin):
    """helpers.stochastic_value of float64 elements (emin: per element or one). float64 holds the sum
    exactly: an f32 in the format's normal range has no bit below 2^-23 of its quantum, and a smaller one
    is too small to carry the sum across a multiple of the quantum."""
    a = np.abs(np.where(np.isfinite(v), v, 0.0))

    def quantum(y):
        return np.ldexp(1.0, np.maximum(np.frexp(y)[1] - 1, emin) - man_bits)

    total = a + np.ldexp(np.asarray(random).astype(np.float64), -(23 - man_bits)) * quantum(a)
    step = quantum(total)
    return np.where((a == 0) | ~np.isfinite(v), v, np.copysign(np.floor(total / step) * step, v))


def f32_to_minifloat_sr(x, fmt: Fmt, random, fnuz, kind: str):
    """f32_to_minifloat of stochastic_truncation in the element's format (fnuz: bool per element)."""
    v = to_f64(x, fmt)
    fnuz = np.broadcast_to(np.asarray(fnuz, bool), v.shape)
    _, man_bits, bias = helpers.MINIFLOAT_FORMATS[kind, False]
    emin = np.where(fnuz, 1 - helpers.MINIFLOAT_FORMATS.get((kind, True), (0, 0, bias))[2], 1 - bias)
    return f32_to_minifloat(stochastic_truncation(v, random, man_bits, emin), F64, fnuz, kind)


def f32_to_float_sr(x, fmt: Fmt, random, dst: Fmt):
    """helpers._f32_to_float_sr: the truncated value encoded exactly (an overflow an infinity); a NaN or an
    infinity as convert_float, quieted."""
    v = to_f64(x, fmt)
    truncated = narrow_f64(stochastic_truncation(v, random, dst.man_bits, 2 - (1 << (dst.exp_bits - 1))), dst)
    ordinary = convert_float(x, fmt, dst, quieten=True)
    return from_bits(np.where(np.isfinite(v), bits_of(truncated, dst), bits_of(ordinary, dst)), dst)


_FP8_VALUES: dict = {}


def fp8_to_f32(x, fnuz, kind: str):
    """helpers.fp8_code_value of each 8-bit code as float32 (fnuz: bool per element)."""
    for variant in (False, True):
        if (kind, variant) not in _FP8_VALUES:
            _FP8_VALUES[kind, variant] = np.array([helpers.fp8_code_value(c, kind, variant) for c in range(256)],
                                                  np.float32)
    code = np.asarray(x).astype(np.int64) & 0xFF
    fnuz = np.broadcast_to(np.asarray(fnuz, bool), code.shape)
    return np.where(fnuz, _FP8_VALUES[kind, True][code], _FP8_VALUES[kind, False][code])


def pow2(n, fmt: Fmt):
    """The exact 2**n rounded to fmt."""
    n = np.clip(np.asarray(n).astype(np.int64), -2200, 2200)
    return narrow_f64(np.ldexp(np.float64(1.0), n), fmt)


# --- conversions ---------------------------------------------------------------------------------------


def convert_float(x, src: Fmt, dst: Fmt, rounding: int = floats.ROUND_NEAREST_EVEN, quieten: bool = False):
    """A float converted by value: rounded in the given mode; a NaN keeps sign, quiet bit and the top of
    its payload (values.convert); ``quieten`` sets the quiet bit as the conversion helpers do."""
    if src is dst:
        r = x
    else:
        wide = to_f64(x, src)
        r = narrow_f64(wide, dst)
        if rounding == floats.ROUND_TOWARD_ZERO:
            r = _toward_zero(r, wide, dst)
        elif rounding != floats.ROUND_NEAREST_EVEN:
            raise NotImplementedError(f"rounding mode {rounding}")
        nan = isnan(x, src)
        if np.count_nonzero(nan):
            r = _with_nans(bits_of(r, dst), _moved_nan(bits_of(x, src), src, dst), nan, dst)
    return quiet(r, dst) if quieten else r


def _toward_zero(r, exact, fmt: Fmt):
    """A round-to-nearest result stepped one unit toward zero where it rounded away from zero."""
    u = bits_of(r, fmt)
    wide = to_f64(r, fmt)
    away = (np.abs(wide) > np.abs(exact)) & np.isfinite(exact)
    return from_bits(np.where(away, u - fmt.uint(1), u), fmt)


def _moved_nan(u, src: Fmt, dst: Fmt):
    """floats.convert_nan, vectorized."""
    payload = (u & src.man_mask).astype(np.uint64)
    shift = dst.man_bits - src.man_bits
    payload = payload << np.uint64(shift) if shift >= 0 else payload >> np.uint64(-shift)
    payload = np.where(payload == 0, np.uint64(1), payload).astype(dst.uint)
    sign = np.where((u & src.sign_bit) != 0, dst.sign_bit, dst.uint(0))
    return sign | dst.exp_mask | payload


def int_to_float(v, dst: Fmt, rounding: int = floats.ROUND_NEAREST_EVEN):
    """An integer array (value semantics) converted to a float format, rounded once."""
    if rounding != floats.ROUND_NEAREST_EVEN:
        raise NotImplementedError(f"rounding mode {rounding}")
    if dst.box is None:
        return narrow_f64(v.astype(np.float64), dst)
    return v.astype(dst.box)


def float_to_int_saturated(x, fmt: Fmt, low: int, high: int, box):
    """f32_to_i32 and friends: truncate toward zero, clamp to [low, high], NaN -> 0."""
    wide = to_f64(x, fmt)
    clipped = np.clip(np.trunc(np.where(np.isnan(wide), 0.0, wide)), float(low), float(high))
    return clipped.astype(np.int64).astype(box) if high < 2**63 else clipped.astype(np.uint64).astype(box)


def float_to_int_nearest(x, fmt: Fmt, low: int, high: int, box):
    """f32_to_u8: clamp to [low, high], round half to even, NaN -> 0."""
    wide = to_f64(x, fmt)
    return np.rint(np.clip(np.where(np.isnan(wide), 0.0, wide), float(low), float(high))).astype(np.int64).astype(box)


def float_to_int_wrapped(x, fmt: Fmt):
    """A float converted by value to an integer modulo 2**64, as int64 (callers wrap it further).
    Non-finite lanes give 0 (the reference refuses them)."""
    wide = np.trunc(np.where(np.isfinite(to_f64(x, fmt)), to_f64(x, fmt), 0.0))
    wide = np.fmod(wide, 2.0**64)  # fmod is exact
    wide = np.where(wide >= 2.0**63, wide - 2.0**64, np.where(wide < -(2.0**63), wide + 2.0**64, wide))
    return wide.astype(np.int64)


def to_norm(x, fmt: Fmt, low: float, scale: int, box):
    """f32_to_snorm / f16_to_unorm: clamp to [low, 1], scale, round half to even; NaN -> 0."""
    wide = to_f64(x, fmt)
    wide = np.where(np.isnan(wide), 0.0, np.clip(wide, low, 1.0) * scale)
    return np.rint(wide).astype(np.int64).astype(box)


def saturate_int(v, low: int, high: int, box):
    return np.clip(v, low, high).astype(box)


# --- rounding and math helpers -------------------------------------------------------------------------


def _rounded_to_integer(x, fmt: Fmt, fn):
    """trunc/floor: exact in the value's own format; NaN quieted, infinities kept."""
    r = from_bits(_f32_to_bf16_bits(fn(to_f64(x, fmt)).astype(np.float32)), fmt) if fmt.box is None else fn(x)
    return _nan_fixed(r, (x,), fmt)


def trunc(x, fmt: Fmt):
    return _rounded_to_integer(x, fmt, np.trunc)


def floor(x, fmt: Fmt):
    return _rounded_to_integer(x, fmt, np.floor)


def fract(x, fmt: Fmt):
    """x - floor(x), rounded once; an infinity gives the default NaN."""
    wide = to_f64(x, fmt)
    r = narrow_f64(wide - np.floor(wide), fmt)  # exact in float64, so one rounding
    return _nan_fixed(r, (x,), fmt)


def _via_f64(x, fmt: Fmt, fn):
    """fn evaluated in float64 and rounded once; a NaN input comes back quieted, other NaNs are default."""
    return _nan_fixed(narrow_f64(fn(to_f64(x, fmt)), fmt), (x,), fmt)


def sqrt(x, fmt: Fmt):
    return _via_f64(x, fmt, np.sqrt)


def log2(x, fmt: Fmt):
    return _via_f64(x, fmt, np.log2)


def sin(x, fmt: Fmt):
    return _via_f64(x, fmt, np.sin)


def cos(x, fmt: Fmt):
    return _via_f64(x, fmt, np.cos)


def pow_positive_base(base: float, e_wide, fmt: Fmt):
    """pow(base, e) for a positive constant base: math.pow in double, rounded once; NaN -> default NaN."""
    return _with_default_nans(narrow_f64(np.power(base, e_wide), fmt), fmt)


def _with_default_nans(r, fmt: Fmt):
    bad = isnan(r, fmt)
    return _with_nans(bits_of(r, fmt), fmt.default_nan, bad, fmt) if np.count_nonzero(bad) else r


def mantissa(x, fmt: Fmt):
    """frexp's significand in [0.5, 1), in x's format; NaN -> default NaN, infinities kept."""
    significand, _ = np.frexp(to_f64(x, fmt))
    return _with_default_nans(narrow_f64(significand, fmt), fmt)


def is_even(x, fmt: Fmt):
    wide = to_f64(x, fmt)
    return np.isfinite(wide) & (np.floor(wide) == wide) & (np.fmod(wide, 2.0) == 0)


# --- integers ------------------------------------------------------------------------------------------

_BYTE_REVERSED = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)


def reverse_bits(u, width: int):
    """The low ``width`` bits of an unsigned array reversed (bit 0 comes out on top)."""
    box_bits = u.dtype.itemsize * 8
    reversed_ = _BYTE_REVERSED[u.byteswap().view(np.uint8)].view(u.dtype).reshape(u.shape)
    return reversed_ >> u.dtype.type(box_bits - width) if width < box_bits else reversed_


def signext_from_bit(v, width):
    """The low ``width`` bits of v (an int64 value array) sign-extended, modulo 2**64 (width >= 64: v)."""
    w = np.minimum(np.asarray(width).astype(np.int64), 64)
    low = v & ((np.int64(1) << w) - np.int64(1))
    negative = (w > 0) & (w < 64) & (((low >> np.maximum(w - 1, 0)) & 1) != 0)
    extended = np.where(negative, low - (np.int64(1) << w), low)
    return np.where(w >= 64, v, np.where(w == 0, np.int64(0), extended))


def popcount(u):
    return np.bitwise_count(u).astype(np.uint32)


_BLEND_FROM = 2048  # lanes; below this np.where's lower call overhead wins
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def select(mask, a, b):
    """np.where(mask, a, b) for a and b of one dtype. Long arrays are blended by their bits instead:
    np.where branches on every lane, which mispredicts on mixed masks and costs several times more."""
    if mask.size < _BLEND_FROM:
        return np.where(mask, a, b)
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == np.bool_:
        return (mask & a) | (~mask & b)
    unsigned = _UNSIGNED.get(a.dtype.itemsize) if a.dtype != object else None
    if unsigned is None:
        return np.where(mask, a, b)
    ua, ub = a.view(unsigned), b.view(unsigned)
    lanes = np.negative(mask.astype(unsigned))  # all ones where the mask is set
    return (ub ^ ((ua ^ ub) & lanes)).view(a.dtype)


def choose(index, options):
    """options[index] per lane; lanes whose index is out of range are masked by the caller."""
    index = np.clip(np.asarray(index).astype(np.int64), 0, len(options) - 1)
    if len(options) <= 32:  # np.choose's limit on the number of choices
        return np.choose(index, options)
    stacked = np.stack(np.broadcast_arrays(*options))
    return np.take_along_axis(stacked, index[None, ...], axis=0)[0]


class UndefinedState(RuntimeError):
    """Some lanes read state the manual never defines (the evaluator fails on those lanes too)."""


def refuse_lanes(mask, instruction: str, name: str) -> None:
    lanes = np.flatnonzero(mask)
    if lanes.size:
        raise UndefinedState(f"{instruction}: lanes {lanes[:8].tolist()}{' ...' if lanes.size > 8 else ''} read "
                             f"{name}, which the manual does not define")


def full(n: int, value):
    return np.full(n, value)


def c_quotient(x, y):
    """C's integer division (truncating), lanes dividing by zero give 0; x and y share a dtype."""
    if x.dtype.kind == "u":
        return np.where(y == 0, x.dtype.type(0), x // np.where(y == 0, x.dtype.type(1), y))
    a, b = x.astype(np.int64), y.astype(np.int64)
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe) * np.where((a < 0) != (safe < 0), -1, 1)
    return np.where(b == 0, 0, q).astype(x.dtype)


def c_remainder(x, y):
    return (x - c_quotient(x, y) * y).astype(x.dtype)


def words_to_int(words):
    """A (n, k) uint32 array of little-endian words -> an object array of Python ints."""
    value = np.zeros(words.shape[0], dtype=object)
    for k in range(words.shape[1]):
        value = value | (words[:, k].astype(object) << (32 * k))
    return value


def int_to_words(value, k: int):
    """An object array of non-negative Python ints -> (n, k) uint32 little-endian words."""
    return np.stack([((value >> (32 * i)) & 0xFFFFFFFF).astype(np.uint32) for i in range(k)], axis=1)

"""The helper functions AMD's pseudocode calls (``isNAN``, ``exponent``, ``f32_to_i32`` ...).

Each helper takes the current rounding mode and its argument values and returns a Value. Names are
registered as the manual spells them. Calls to other instructions (``v_min_f32``) are not here: the
evaluator runs that instruction's own pseudocode. Helpers whose meaning the manual leaves to prose
(address calculation, buffer formats, OCP minifloat conversions ...) are not implemented; calling one
raises UnimplementedHelper naming it.

Semantics chosen where the manual only names the helper, from the instructions' descriptions:
  - float -> int conversions truncate toward zero, map NaN to 0 and clamp to the integer range, but
    ``f32_to_u8`` (V_CVT_PK_U8_F32) rounds to nearest even (isa/corrections.py says why);
  - float -> float conversions round in the current mode and quiet a signaling NaN, keeping its payload;
  - ``*_to_snorm`` / ``*_to_unorm`` clamp to [-1, 1] / [0, 1], scale by 32767 / 65535, round to nearest
    even; ``u32_to_u16`` / ``i32_to_i16`` saturate;
  - ``exponent`` is the biased exponent field; ``mantissa`` is frexp's significand in [0.5, 1) (what
    V_FREXP_MANT returns); ``sign`` is the sign bit;
  - ``sin``/``cos`` take radians (the pseudocode itself multiplies the operand by 2*PI).
"""
from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from fractions import Fraction

from gpubench.compiler.pcode import floats
from gpubench.compiler.pcode.dtypes import BF16, F16, F32, F64, I32, I64, U32, DataType
from gpubench.compiler.pcode.values import (
    PcodeTypeError,
    Value,
    convert,
    float_arithmetic,
    float_value,
    from_bool,
    from_int,
    int_value,
    is_float,
    is_untyped_real,
    power,
    typed,
)


class UnimplementedHelper(NotImplementedError):
    """The pseudocode calls a helper this evaluator does not model."""

    def __init__(self, name: str):
        reason = not_modelled_reason(name) or (
            "it names an instruction this ISA does not have" if name[:2] in ("v_", "s_") else "unknown helper"
        )
        super().__init__(f"pseudocode helper {name}() is not implemented: {reason}")
        self.name = name


# Helpers the manual calls but this evaluator deliberately leaves out, and why.
_NOT_MODELLED: tuple[tuple[str, str], ...] = (
    (r"Calc\w*Addr|ChannelOffset[XYZW]|DECODE_ADDR|ENCODE_ADDR", "address calculation belongs to the memory model"),
    (r"ConvertFromFormat|ConvertToFormat", "buffer/image data-format conversion belongs to the memory model"),
    (r"\w*(fp8|bf8|fp6|bf6|fp4)\w*", "the OCP 8/6/4-bit float formats and block scaling are not modelled"),
    (r"\w*_(sr|SR)|float32", "stochastic rounding (and the raw-mantissa float32() it uses) is not modelled"),
    (
        (
            r"CheckBarrierComplete|InWorkgroup|IsM0|PrefetchScalarData|PrefetchScalarInst|ReallocVgprs"
            r"|WaitIdleExceptStoreCnt|HwRegWriteMask|writeableBitMask"
        ),
        "scheduler and hardware-register state outside one lane",
    ),
)


def not_modelled_reason(name: str) -> str | None:
    """Why a helper the manual calls is left out; None if it is not a known omission."""
    for pattern, reason in _NOT_MODELLED:
        if re.fullmatch(pattern, name):
            return reason
    return None


Helper = Callable[..., Value]
HELPERS: dict[str, Helper] = {}


def _helper(*names: str) -> Callable[[Helper], Helper]:
    def register(fn: Helper) -> Helper:
        for name in names:
            HELPERS[name] = fn
        return fn

    return register


def _float_arg(v: Value) -> Value:
    """A float argument; an untyped literal is taken as a double."""
    if v.dtype is not None and v.dtype.is_float:
        return v
    if is_untyped_real(v):
        return convert(v, F64, floats.ROUND_NEAREST_EVEN)
    raise PcodeTypeError(f"expected a float argument, got {v}")


def _fmt(v: Value) -> floats.FloatFormat:
    return floats.float_format(v.dtype)


def _same_type(v: Value, x: float | Fraction, rounding: int) -> Value:
    return typed(v.dtype, floats.encode(x, _fmt(v), rounding))


def _nan_or_none(v: Value) -> Value | None:
    """A quiet copy of a NaN argument (NaNs pass through math helpers), else None."""
    return typed(v.dtype, floats.quiet(v.data, _fmt(v))) if floats.is_nan(v.data, _fmt(v)) else None


# --- classification ----------------------------------------------------------------------------------


@_helper("isNAN")
def is_nan(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    return from_bool(floats.is_nan(x.data, _fmt(x)))


@_helper("isQuietNAN")
def is_quiet_nan(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    return from_bool(floats.is_nan(x.data, _fmt(x)) and bool(x.data & _fmt(x).quiet_bit))


@_helper("isSignalNAN")
def is_signal_nan(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    return from_bool(floats.is_nan(x.data, _fmt(x)) and not x.data & _fmt(x).quiet_bit)


@_helper("isEven")
def is_even(rounding: int, x: Value) -> Value:
    value = float_value(x)
    return from_bool(math.isfinite(value) and value == math.floor(value) and int(value) % 2 == 0)


@_helper("sign")
def sign(rounding: int, x: Value) -> Value:
    if is_float(x):
        x = _float_arg(x)
        return from_bool(bool(floats.sign_of(x.data, _fmt(x))))
    return from_bool(x.data < 0 if x.dtype is None else bool(x.data >> (x.dtype.bits - 1)))


@_helper("exponent")
def exponent(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    fmt = _fmt(x)
    return from_int(I32, (x.data >> fmt.man_bits) & fmt.exp_max_field)


@_helper("mantissa")
def mantissa(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    significand, _ = math.frexp(float_value(x))
    return _same_type(x, significand, rounding)


# --- float arithmetic --------------------------------------------------------------------------------


@_helper("abs")
def absolute(rounding: int, x: Value) -> Value:
    if is_float(x):
        x = _float_arg(x)
        return typed(x.dtype, x.data & ~_fmt(x).sign_bit)
    if x.dtype is None:
        return Value(None, abs(x.data))
    return from_int(x.dtype, abs(int_value(x)))


@_helper("cvtToQuietNAN")
def cvt_to_quiet_nan(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    return typed(x.dtype, floats.quiet(x.data, _fmt(x)))


def _rounded_to_integer(x: Value, to_integer: Callable[[float], int]) -> Value:
    x = _float_arg(x)
    value = float_value(x)
    if not math.isfinite(value):
        return _nan_or_none(x) or x
    result = to_integer(value)
    return _same_type(x, math.copysign(0.0, value) if result == 0 else Fraction(result), floats.ROUND_NEAREST_EVEN)


@_helper("trunc")
def trunc(rounding: int, x: Value) -> Value:
    return _rounded_to_integer(x, math.trunc)


@_helper("floor")
def floor(rounding: int, x: Value) -> Value:
    return _rounded_to_integer(x, math.floor)


@_helper("fract")
def fract(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    value = float_value(x)
    if not math.isfinite(value):
        return _nan_or_none(x) or _same_type(x, math.nan, rounding)
    return _same_type(x, Fraction(value) - math.floor(value), rounding)


@_helper("sqrt")
def sqrt(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    value = float_value(x)
    if math.isnan(value):
        return _nan_or_none(x)
    if value > 0 and math.isfinite(value):
        return _same_type(x, _exact_sqrt(Fraction(value)), rounding)
    return _same_type(x, math.sqrt(value) if value >= 0 else math.nan, rounding)


def _exact_sqrt(x: Fraction) -> Fraction:
    """sqrt(x) for a positive binary float x, or (not a square) a value strictly between the same two
    neighbours of at least 64 significant bits as sqrt(x): either rounds in any mode as sqrt(x) does."""
    num, d = x.numerator, x.denominator.bit_length() - 1  # x = num / 2**d
    k = max(-(-d // 2), -(-(130 - num.bit_length() + d) // 2))
    scaled = num << (2 * k - d)  # x * 4**k, an integer of at least 130 bits
    root = math.isqrt(scaled)
    return (Fraction(root) if root * root == scaled else Fraction(2 * root + 1, 2)) / (1 << k)


@_helper("log2")
def log2(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    value = float_value(x)
    if math.isnan(value):
        return _nan_or_none(x)
    if value == 0:
        return _same_type(x, -math.inf, rounding)
    return _same_type(x, math.log2(value) if value > 0 else math.nan, rounding)


@_helper("pow")
def pow_(rounding: int, base: Value, exp: Value) -> Value:
    base = _float_arg(base)
    b, e = float_value(base), float_value(exp)
    try:
        result = math.pow(b, e)
    except OverflowError:
        result = math.inf
    except ValueError:  # a negative base to a fractional power
        result = math.nan
    return _same_type(base, result, rounding)


@_helper("sin")
def sin(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    value = float_value(x)
    return _nan_or_none(x) or _same_type(x, math.sin(value) if math.isfinite(value) else math.nan, rounding)


@_helper("cos")
def cos(rounding: int, x: Value) -> Value:
    x = _float_arg(x)
    value = float_value(x)
    return _nan_or_none(x) or _same_type(x, math.cos(value) if math.isfinite(value) else math.nan, rounding)


@_helper("ldexp")
def ldexp(rounding: int, x: Value, n: Value) -> Value:
    """x * 2**n rounded once: the same exact product V_LDEXP's ``S0.f32 * 2.0F ** S1.i32`` makes."""
    x = _float_arg(x)
    return float_arithmetic("*", x, power(Value(None, 2.0), n), x.dtype, rounding)


@_helper("fma")
def fma(rounding: int, a: Value, b: Value, c: Value) -> Value:
    """a * b + c with a single rounding, in the widest float type of the operands."""
    dtype = max((v.dtype for v in (a, b, c) if v.dtype is not None and v.dtype.is_float),
                key=lambda t: t.bits, default=F64)
    a, b, c = (convert(v, dtype, rounding) for v in (a, b, c))
    fmt = floats.float_format(dtype)
    for v in (a, b, c):
        if floats.is_nan(v.data, fmt):
            return typed(dtype, floats.quiet(v.data, fmt))
    x, y, z = (float_value(v) for v in (a, b, c))
    if not all(map(math.isfinite, (x, y, z))):
        return typed(dtype, floats.encode(x * y + z, fmt))  # infinities: Python's float rules are IEEE's
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact != 0:
        return typed(dtype, floats.encode(exact, fmt, rounding))
    # An exact zero: like-signed zeros keep their sign, anything else is +0 (-0 when rounding down).
    product_negative = (math.copysign(1.0, x) < 0) != (math.copysign(1.0, y) < 0)
    if x * y == 0 and z == 0 and product_negative == (math.copysign(1.0, z) < 0):
        negative = product_negative
    else:
        negative = rounding == floats.ROUND_TOWARD_NEGATIVE
    return typed(dtype, floats.encode(-0.0 if negative else 0.0, fmt))


# --- integers ----------------------------------------------------------------------------------------


@_helper("signext")
def signext(rounding: int, x: Value) -> Value:
    """Sign-extend from the operand's own width (its top bit is the sign) to 64 bits."""
    if x.dtype is None:
        return from_int(I64, x.data)
    top = x.data >> (x.dtype.bits - 1)
    return from_int(I64, x.data - (top << x.dtype.bits))


@_helper("signext_from_bit")
def signext_from_bit(rounding: int, x: Value, width: Value) -> Value:
    """The low ``width`` bits of x, sign-extended (0 when width is 0), in x's type."""
    w = int_value(width)
    low = int_value(x) & ((1 << w) - 1)
    value = low - (1 << w) if w and low >> (w - 1) else low
    return from_int(x.dtype or I32, value)


@_helper("bitCount", "countbits")  # countbits: the spelling in DS_CONSUME/DS_APPEND's prose
def bit_count(rounding: int, x: Value) -> Value:
    bits = x.data if x.dtype is not None else int_value(x)
    return from_int(U32, bits.bit_count())


# --- conversions -------------------------------------------------------------------------------------


def _float_to_float(dst: DataType) -> Helper:
    def conversion(rounding: int, x: Value) -> Value:
        x = _float_arg(x)
        result = convert(x, dst, rounding)
        return typed(dst, floats.quiet(result.data, floats.float_format(dst)))  # conversions quiet sNaN

    return conversion


def _int_to_float(dst: DataType) -> Helper:
    def conversion(rounding: int, x: Value) -> Value:
        return convert(Value(None, int_value(x)), dst, rounding)

    return conversion


def _float_to_int(dst: DataType) -> Helper:
    low, high = (-(1 << (dst.bits - 1)), (1 << (dst.bits - 1)) - 1) if dst.is_signed else (0, dst.mask)

    def conversion(rounding: int, x: Value) -> Value:
        value = float_value(_float_arg(x))
        if math.isnan(value):
            return from_int(dst, 0)
        if math.isinf(value):
            return from_int(dst, high if value > 0 else low)
        return from_int(dst, min(max(math.trunc(value), low), high))

    return conversion


def _int_to_int(dst: DataType, saturate: bool) -> Helper:
    low, high = (-(1 << (dst.bits - 1)), (1 << (dst.bits - 1)) - 1) if dst.is_signed else (0, dst.mask)

    def conversion(rounding: int, x: Value) -> Value:
        value = int_value(x)
        return from_int(dst, min(max(value, low), high) if saturate else value)

    return conversion


def _to_norm(dst: DataType, low: float, scale: int) -> Helper:
    def conversion(rounding: int, x: Value) -> Value:
        value = float_value(_float_arg(x))
        if math.isnan(value):
            return from_int(dst, 0)
        return from_int(dst, round(min(max(value, low), 1.0) * scale))  # round(): nearest, ties to even

    return conversion


def _float_to_int_nearest(dst: DataType) -> Helper:
    """V_CVT_PK_U8_F32's f32_to_u8: clamp to the range, round half to even, NaN -> 0 (the manual does not
    say how it rounds; a hardware correction documents the choice, isa/corrections.py)."""
    low, high = (-(1 << (dst.bits - 1)), (1 << (dst.bits - 1)) - 1) if dst.is_signed else (0, dst.mask)

    def conversion(rounding: int, x: Value) -> Value:
        value = float_value(_float_arg(x))
        if math.isnan(value):
            return from_int(dst, 0)
        return from_int(dst, round(min(max(value, float(low)), float(high))))  # round(): ties to even

    return conversion


_CONVERSIONS: dict[str, Helper] = {
    "f32_to_u8": _float_to_int_nearest(DataType("u", 8)),
    "f16_to_f32": _float_to_float(F32),
    "bf16_to_f32": _float_to_float(F32),
    "f32_to_f16": _float_to_float(F16),
    "f32_to_bf16": _float_to_float(BF16),
    "f32_to_f64": _float_to_float(F64),
    "f64_to_f32": _float_to_float(F32),
    "i32_to_f32": _int_to_float(F32),
    "u32_to_f32": _int_to_float(F32),
    "i32_to_f64": _int_to_float(F64),
    "u32_to_f64": _int_to_float(F64),
    "i16_to_f16": _int_to_float(F16),
    "u16_to_f16": _int_to_float(F16),
    "f32_to_i32": _float_to_int(I32),
    "f32_to_u32": _float_to_int(U32),
    "f64_to_i32": _float_to_int(I32),
    "f64_to_u32": _float_to_int(U32),
    "f16_to_i16": _float_to_int(DataType("i", 16)),
    "f16_to_u16": _float_to_int(DataType("u", 16)),
    # V_CVT_PK_I16_F32/U16_F32 call these instructions, which no RDNA target has: f32 -> 16-bit integer
    "v_cvt_i16_f32": _float_to_int(DataType("i", 16)),
    "v_cvt_u16_f32": _float_to_int(DataType("u", 16)),
    "u32_to_u16": _int_to_int(DataType("u", 16), saturate=True),
    "i32_to_i16": _int_to_int(DataType("i", 16), saturate=True),
    "i16_to_i32": _int_to_int(I32, saturate=False),
    "u16_to_u32": _int_to_int(U32, saturate=False),
    "i8_to_i32": _int_to_int(I32, saturate=False),
    "u8_to_u32": _int_to_int(U32, saturate=False),
    "i4_to_i32": _int_to_int(I32, saturate=False),
    "u4_to_u32": _int_to_int(U32, saturate=False),
    "f16_to_snorm": _to_norm(DataType("i", 16), -1.0, 32767),
    "f32_to_snorm": _to_norm(DataType("i", 16), -1.0, 32767),
    "f16_to_unorm": _to_norm(DataType("u", 16), 0.0, 65535),
    "f32_to_unorm": _to_norm(DataType("u", 16), 0.0, 65535),
}
HELPERS.update(_CONVERSIONS)


# --- the 2/pi table of V_TRIG_PREOP_F64 ------------------------------------------------------------

TWO_OVER_PI_TABLE_BITS = 1184  # the hardware's table, after LLVM (see two_over_pi_bits)


def _arctan_inverse(n: int, one: int) -> int:
    """atan(1/n) in fixed point (``one`` = 1.0), truncated term by term."""
    total, power, k, sign = 0, one // n, 1, 1
    while power:
        total += sign * (power // k)
        power //= n * n
        k, sign = k + 2, -sign
    return total


@functools.cache
def two_over_pi(bits: int) -> int:
    """floor(2/pi * 2**bits): the first ``bits`` bits of 2/pi's fraction (2/pi < 1), from Machin's
    pi = 16 atan(1/5) - 4 atan(1/239) in integers with 64 guard bits (each truncated term is off by
    less than one unit, so pi is within a few hundred units of 2**-(bits+64)); the floor is checked to
    be the same from both ends of that interval."""
    guard = 64
    one = 1 << (bits + guard)
    pi = 16 * _arctan_inverse(5, one) - 4 * _arctan_inverse(239, one)
    slack = 1 << 10
    low, high = (2 << (2 * (bits + guard))) // (pi + slack), (2 << (2 * (bits + guard))) // (pi - slack)
    low, high = low >> guard, high >> guard
    if low != high:
        raise ArithmeticError(f"2/pi to {bits} bits is not settled by {guard} guard bits")
    return low


def two_over_pi_bits53(shift: int) -> int:
    """The 53 bits of 2/pi's fraction that start ``shift`` bits after the binary point (bit 0 of the
    fraction first): floor(frac(2/pi * 2**shift) * 2**53). 0 from shift 1120 on, as LLVM's fold of
    llvm.amdgcn.trig.preop says the hardware does (its table is 37 words; it reads three from shift / 32)."""
    if not 0 <= shift < TWO_OVER_PI_TABLE_BITS - 64:
        return 0
    return (two_over_pi(TWO_OVER_PI_TABLE_BITS) >> (TWO_OVER_PI_TABLE_BITS - 53 - shift)) & ((1 << 53) - 1)


@_helper("two_over_pi_bits")
def two_over_pi_bits(rounding: int, shift: Value) -> Value:
    """V_TRIG_PREOP_F64's table look-up (a hardware correction names it, isa/corrections.py): the 53-bit
    integer two_over_pi_bits53(shift) as a double (exact)."""
    return convert(Value(None, two_over_pi_bits53(int_value(shift))), F64, floats.ROUND_NEAREST_EVEN)


# --- f32 -> FP8 / BF8 (V_CVT_PK_FP8_F32, V_CVT_PK_BF8_F32) and FP6 / BF6 / FP4 -----------------------

# (exponent bits, mantissa bits, bias) of OCP E4M3 / E5M2 (gfx950, gfx12), the FNUZ ones (gfx942), and OCP's
# E2M3 / E3M2 / E2M1 (FP6, BF6, FP4: gfx950's block-scaled conversions), which have no infinities or NaNs
MINIFLOAT_FORMATS = {("fp8", False): (4, 3, 7), ("bf8", False): (5, 2, 15), ("fp8", True): (4, 3, 8),
                     ("bf8", True): (5, 2, 16), ("fp6", False): (2, 3, 1), ("bf6", False): (3, 2, 3),
                     ("fp4", False): (2, 1, 1)}
SATURATING = frozenset({"fp6", "bf6", "fp4"})


def minifloat_width(kind: str) -> int:
    exp_bits, man_bits, _ = MINIFLOAT_FORMATS[kind, False]
    return 1 + exp_bits + man_bits


def f32_to_minifloat_code(value: float, kind: str, fnuz: bool) -> int:
    """The code of ``value`` rounded to nearest even. The 8-bit formats do not saturate: an overflow is the
    format's infinity (OCP E5M2) or its NaN (OCP E4M3 0x7f, FNUZ 0x80); infinities likewise; a NaN is
    E4M3's 0x7f, E5M2's quiet 0x7e (with the sign), FNUZ's 0x80; FNUZ has no negative zero. The 6- and
    4-bit formats have no code for either, so an overflow, an infinity and a NaN are the largest
    magnitude of the value's sign."""
    exp_bits, man_bits, bias = MINIFLOAT_FORMATS[kind, fnuz]
    sign_bit = 1 << (exp_bits + man_bits)
    negative = math.copysign(1.0, value) < 0
    sign = sign_bit if negative and not fnuz else 0
    if kind in SATURATING:
        nan = overflow = sign | (sign_bit - 1)
    else:
        nan = 0x80 if fnuz else sign | (0x7F if kind == "fp8" else 0x7E)
        overflow = nan if fnuz or kind == "fp8" else sign | 0x7C
    if math.isnan(value):
        return nan
    if math.isinf(value):
        return overflow
    top = (1 << exp_bits) - 2 if kind == "bf8" and not fnuz else (1 << exp_bits) - 1  # largest finite exponent field
    top_mantissa = (1 << man_bits) - (2 if kind == "fp8" and not fnuz else 1)
    largest = Fraction((1 << man_bits) + top_mantissa, 1 << man_bits) * Fraction(2) ** (top - bias)
    x = abs(Fraction(value))
    if x == 0:
        return sign
    emin = 1 - bias
    exponent = max(x.numerator.bit_length() - x.denominator.bit_length(), emin)
    while Fraction(2) ** exponent > x and exponent > emin:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= x:
        exponent += 1
    quantum = Fraction(2) ** (exponent - man_bits)
    units = round(x / quantum)  # Fraction's round(): ties to even
    rounded = units * quantum
    if rounded > largest:
        return overflow
    if rounded == 0:
        return sign if not fnuz else 0
    if rounded < Fraction(2) ** emin:  # a denormal
        return (sign_bit if negative else 0) | int(units)
    exponent = rounded.numerator.bit_length() - rounded.denominator.bit_length()
    while Fraction(2) ** exponent > rounded:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= rounded:
        exponent += 1
    mantissa = int(rounded / Fraction(2) ** (exponent - man_bits)) - (1 << man_bits)
    return (sign_bit if negative else 0) | (exponent + bias) << man_bits | mantissa


def _f32_to_minifloat(kind: str) -> Helper:
    def conversion(rounding: int, x: Value, fnuz: Value | None = None) -> Value:
        code = f32_to_minifloat_code(float_value(_float_arg(x)), kind, bool(fnuz is not None and int_value(fnuz)))
        return from_int(DataType("b", minifloat_width(kind)), code)

    return conversion


for _kind in ("fp8", "bf8", *SATURATING):
    HELPERS[f"f32_to_{_kind}"] = _f32_to_minifloat(_kind)


def stochastic_value(value: float, random: int, man_bits: int, emin: int) -> float:
    """The V_CVT_SR_* conversions' rounding (a hardware correction names it, isa/corrections.py):
    ``random``, the top 23 - M bits of S1 (M the target format's mantissa bits, emin its smallest normal
    exponent), is added to |value| as that fraction of the format's quantum at |value|, and the sum is
    truncated to the format (toward zero; an overflow stays above the largest finite value, for the
    encoder to encode as it encodes overflows)."""
    if not math.isfinite(value) or value == 0:
        return value

    def quantum(x: Fraction) -> Fraction:
        exponent = x.numerator.bit_length() - x.denominator.bit_length()
        if Fraction(2) ** exponent > x:  # the bit lengths' difference is floor(log2(x)) or one more
            exponent -= 1
        return Fraction(2) ** (max(exponent, emin) - man_bits)

    total = abs(Fraction(value)) + Fraction(random, 1 << (23 - man_bits)) * quantum(abs(Fraction(value)))
    step = quantum(total)
    return math.copysign(float(total // step * step), value)


def _f32_to_minifloat_sr(kind: str) -> Helper:
    def conversion(rounding: int, x: Value, random: Value, fnuz: Value | None = None) -> Value:
        fnuz_ = bool(fnuz is not None and int_value(fnuz))
        _, man_bits, bias = MINIFLOAT_FORMATS[kind, fnuz_]
        value = stochastic_value(float_value(_float_arg(x)), int_value(random), man_bits, 1 - bias)
        return from_int(DataType("b", minifloat_width(kind)), f32_to_minifloat_code(value, kind, fnuz_))

    return conversion


for _kind in ("fp8", "bf8", *SATURATING):
    HELPERS[f"f32_to_{_kind}_sr"] = _f32_to_minifloat_sr(_kind)


def _f32_to_float_sr(dtype: DataType) -> Helper:
    """V_CVT_SR_F16_F32 / V_CVT_SR_BF16_F32's conversion: stochastic_value, then the exact encoding (an
    overflow is an infinity); a NaN or an infinity converts as an ordinary conversion does, quieted."""
    fmt = floats.FORMATS[dtype]

    def conversion(rounding: int, x: Value, random: Value) -> Value:
        x = _float_arg(x)
        value = float_value(x)
        if not math.isfinite(value):
            converted = convert(x, dtype, floats.ROUND_NEAREST_EVEN)
            return typed(dtype, floats.quiet(converted.data, fmt))
        truncated = stochastic_value(value, int_value(random), fmt.man_bits, 1 - fmt.bias)
        return typed(dtype, floats.encode(truncated, fmt, floats.ROUND_NEAREST_EVEN))

    return conversion


HELPERS["f32_to_f16_sr"], HELPERS["f32_to_bf16_sr"] = _f32_to_float_sr(F16), _f32_to_float_sr(BF16)


def fp8_code_value(code: int, kind: str, fnuz: bool) -> float:
    """The value of an 8-bit FP8/BF8 code (NaN for the formats' NaN codes), exact in f32."""
    exp_bits, man_bits, bias = MINIFLOAT_FORMATS[kind, fnuz]
    negative, e, m = code >> 7 & 1, (code >> man_bits) & ((1 << exp_bits) - 1), code & ((1 << man_bits) - 1)
    if fnuz and code == 0x80 or not fnuz and kind == "fp8" and code & 0x7F == 0x7F:
        return math.nan
    if not fnuz and kind == "bf8" and e == (1 << exp_bits) - 1:
        return math.nan if m else (-math.inf if negative else math.inf)
    value = math.ldexp((m if e == 0 else m + (1 << man_bits)), max(e, 1) - bias - man_bits)
    return -value if negative else value


def _fp8_to_f32(kind: str) -> Helper:
    def conversion(rounding: int, x: Value, fnuz: Value | None = None) -> Value:
        value = fp8_code_value(int_value(x) & 0xFF, kind, bool(fnuz is not None and int_value(fnuz)))
        return typed(F32, floats.encode(value, floats.FORMATS[F32]))

    return conversion


HELPERS["fp8_to_f32"], HELPERS["bf8_to_f32"] = _fp8_to_f32("fp8"), _fp8_to_f32("bf8")


def _ieee_extremum(larger: bool) -> Helper:
    """IEEE 754-2019 maximum / minimum of two or more floats, left to right: the first signaling NaN of a
    pair quieted, else its first quiet NaN; -0 is below +0 (RDNA4's V_MAXIMUM_F32 / V_MINIMUM_F32 text,
    which gfx950's V_MAXIMUM3_F32 ... call under names CDNA has no instruction for: corrections.py)."""
    def pair(x: Value, y: Value) -> Value:
        fmt = _fmt(x)
        for v in (x, y):
            if floats.is_nan(v.data, fmt) and not v.data & fmt.quiet_bit:
                return typed(v.dtype, floats.quiet(v.data, fmt))
        for v in (x, y):
            if floats.is_nan(v.data, fmt):
                return v
        a, b = float_value(x), float_value(y)
        x_sign, y_sign = floats.sign_of(x.data, fmt), floats.sign_of(y.data, fmt)
        if a == b:  # equal, or zeros of either sign
            return x if (x_sign <= y_sign) == larger else y
        return x if (a > b) == larger else y

    def extremum(rounding: int, first: Value, *others: Value) -> Value:
        result = _float_arg(first)
        for other in others:
            result = pair(result, _float_arg(other))
        return result

    return extremum


HELPERS["ieee_maximum"], HELPERS["ieee_minimum"] = _ieee_extremum(True), _ieee_extremum(False)


@_helper("nop", "s_nop")
def nop(rounding: int, *args: Value) -> Value:
    """No effect; ``s_nop(16'0U)`` is how V_PERMLANE64 says "do nothing" in wave32."""
    return Value(None, 0)


def call_helper(name: str, rounding: int, args: list[Value]) -> Value:
    try:
        fn = HELPERS[name]
    except KeyError:
        raise UnimplementedHelper(name) from None
    return fn(rounding, *args)

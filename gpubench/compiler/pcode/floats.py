"""IEEE-style binary floats of any width: decoding bits, and encoding an exact number with one rounding.

Arithmetic in the evaluator is done exactly (``fractions.Fraction``) and rounded once to the target
format here, so f16/bf16/f32 results (including fma) are correctly rounded in every rounding mode,
without the double-rounding traps of going through a Python float. NaN payloads travel in bits: a
float value is always kept as its encoding, never as a Python float.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from gpubench.compiler.pcode.dtypes import DataType

# AMD's MODE.FP_ROUND encoding; the pseudocode names ROUND_MODE / ROUND_TOWARD_ZERO.
ROUND_NEAREST_EVEN = 0
ROUND_TOWARD_POSITIVE = 1
ROUND_TOWARD_NEGATIVE = 2
ROUND_TOWARD_ZERO = 3


@dataclass(frozen=True)
class FloatFormat:
    exp_bits: int
    man_bits: int

    @property
    def bits(self) -> int:
        return 1 + self.exp_bits + self.man_bits

    @property
    def bias(self) -> int:
        return (1 << (self.exp_bits - 1)) - 1

    @property
    def exp_max_field(self) -> int:
        return (1 << self.exp_bits) - 1

    @property
    def sign_bit(self) -> int:
        return 1 << (self.bits - 1)

    @property
    def quiet_bit(self) -> int:
        return 1 << (self.man_bits - 1)

    @property
    def max_finite(self) -> int:
        return ((self.exp_max_field - 1) << self.man_bits) | ((1 << self.man_bits) - 1)

    @property
    def infinity(self) -> int:
        return self.exp_max_field << self.man_bits

    @property
    def default_nan(self) -> int:
        return self.infinity | self.quiet_bit


# The IEEE interchange formats and bfloat16. The OCP 8/6/4-bit minifloats (fp8, bf8, ...) have no
# infinities and their own NaN rules; they are not modelled here.
FORMATS: dict[DataType, FloatFormat] = {
    DataType("f", 16): FloatFormat(5, 10),
    DataType("f", 32): FloatFormat(8, 23),
    DataType("f", 64): FloatFormat(11, 52),
    DataType("bf", 16): FloatFormat(8, 7),
}


def float_format(dtype: DataType) -> FloatFormat:
    try:
        return FORMATS[dtype]
    except KeyError:
        raise NotImplementedError(f"float type {dtype} is not modelled (OCP minifloat)") from None


def is_nan(bits: int, fmt: FloatFormat) -> bool:
    return (bits >> fmt.man_bits) & fmt.exp_max_field == fmt.exp_max_field and bits & ((1 << fmt.man_bits) - 1) != 0


def sign_of(bits: int, fmt: FloatFormat) -> int:
    return (bits >> (fmt.bits - 1)) & 1


def decode(bits: int, fmt: FloatFormat) -> float:
    """The number a pattern encodes, as a Python float (exact: every format here fits in a double)."""
    sign = -1.0 if sign_of(bits, fmt) else 1.0
    exp_field = (bits >> fmt.man_bits) & fmt.exp_max_field
    mantissa = bits & ((1 << fmt.man_bits) - 1)
    if exp_field == fmt.exp_max_field:
        return sign * math.inf if mantissa == 0 else math.copysign(math.nan, sign)
    if exp_field == 0:
        return sign * math.ldexp(mantissa, 1 - fmt.bias - fmt.man_bits)
    return sign * math.ldexp(mantissa | (1 << fmt.man_bits), exp_field - fmt.bias - fmt.man_bits)


def encode(value: float | Fraction, fmt: FloatFormat, rounding: int = ROUND_NEAREST_EVEN) -> int:
    """Round a number to ``fmt`` once. NaN becomes the default quiet NaN (payloads move via convert_nan)."""
    if isinstance(value, float):
        if math.isnan(value):
            return fmt.default_nan
        if math.isinf(value):
            return fmt.infinity | (fmt.sign_bit if value < 0 else 0)
        if value == 0.0:
            return fmt.sign_bit if math.copysign(1.0, value) < 0 else 0
        value = Fraction(value)
    if value == 0:
        return 0
    negative = value < 0
    sign = fmt.sign_bit if negative else 0
    magnitude = -value if negative else value
    # exponent e with 2**e <= magnitude < 2**(e+1), clamped to the subnormal range
    e = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** e > magnitude:
        e -= 1
    e = max(e, 1 - fmt.bias)
    scaled = magnitude / Fraction(2) ** (e - fmt.man_bits)  # the significand in units of the last place
    significand = _round_integer(scaled, negative, rounding)
    if significand >> (fmt.man_bits + 1):  # rounding carried into a new binade
        significand >>= 1
        e += 1
    if e + fmt.bias >= fmt.exp_max_field:
        return sign | _overflow(fmt, negative, rounding)
    if significand < (1 << fmt.man_bits):  # subnormal (or rounded to zero)
        return sign | significand
    return sign | ((e + fmt.bias) << fmt.man_bits) | (significand & ((1 << fmt.man_bits) - 1))


def _round_integer(x: Fraction, negative: bool, rounding: int) -> int:
    """Round a non-negative fraction to an integer; ``negative`` is the sign of the number it scales."""
    floor = x.numerator // x.denominator
    rest = x - floor
    if rest == 0:
        return floor
    if rounding == ROUND_NEAREST_EVEN:
        up = rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1)
    elif rounding == ROUND_TOWARD_ZERO:
        up = False
    elif rounding == ROUND_TOWARD_POSITIVE:
        up = not negative
    elif rounding == ROUND_TOWARD_NEGATIVE:
        up = negative
    else:
        raise ValueError(f"unknown rounding mode {rounding}")
    return floor + 1 if up else floor


def _overflow(fmt: FloatFormat, negative: bool, rounding: int) -> int:
    toward_inf = rounding == ROUND_NEAREST_EVEN or rounding == (
        ROUND_TOWARD_NEGATIVE if negative else ROUND_TOWARD_POSITIVE
    )
    return fmt.infinity if toward_inf else fmt.max_finite


def quiet(bits: int, fmt: FloatFormat) -> int:
    """A NaN with its quiet bit set (payload kept); other values unchanged."""
    return bits | fmt.quiet_bit if is_nan(bits, fmt) else bits


def convert_nan(bits: int, src: FloatFormat, dst: FloatFormat) -> int:
    """A NaN moved to another format: sign, quiet bit and the top of the payload kept, as hardware does.

    The pseudocode's ``64'F(S0.f32)`` must keep a signaling NaN signaling, or isSignalNAN could not work.
    """
    payload = bits & ((1 << src.man_bits) - 1)
    shift = dst.man_bits - src.man_bits
    payload = payload << shift if shift >= 0 else payload >> -shift
    if payload == 0:  # a narrowed signaling NaN whose payload fell off must stay a NaN
        payload = 1
    sign = dst.sign_bit if sign_of(bits, src) else 0
    return sign | dst.infinity | payload

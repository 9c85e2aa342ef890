"""The 8-bit float views (``x.fp8``, ``x.bf8``) in the types the compiler models.

The pseudocode only converts FP8/BF8 values (``32'F(S0[7 : 0].fp8)``, ``fp8_to_f32(S0[15 : 8].bf8)``)
or stores codes (``D0[7 : 0].fp8 = f32_to_fp8(x)``), and every FP8/BF8 value is exact in f32. So a read
of such a view is its byte decoded to f32 in the target's format (``fp8_to_f32(x.u8, FP8_FNUZ)``), a
store writes the byte (``x.b8``), and a conversion without a format argument takes the target's
(FP8_FNUZ: gfx942's FNUZ formats, else OCP's; the emulator's operand code provides it).

The 4- and 6-bit views (``x.fp4``, ``x.fp6``, ``x.bf6``) are read as their exact f32 value, written as
arithmetic on the code's fields. gfx950's block-scaled decodes (``fp8_to_f16_scale(x.fp8, scale.u8)``) take an E8M0 scale byte: the value
is the decoded element times 2^(scale - 127), rounded once to the destination type, and the scale 0xFF
is NaN (the OCP microscaling spec's E8M0). They are written as that arithmetic (``ldexp`` in f32, exact
for these elements short of f32's denormal range, then a conversion), so no engine needs a helper.
The block-scaled encodes (``f16_to_fp6_scale(x, scale.u8)``, ``f32_to_fp4_sr_scale(x, random, scale.u8)``)
divide by that power of two (``ldexp`` in f64, exact for any f32) and round with the unscaled conversion
(``f32_to_fp6``, ``f32_to_fp4_sr``: helpers.py), whose code a 4- or 6-bit view stores (``x.b6``).
"""
from __future__ import annotations

import dataclasses
import re

from gpubench.compiler.pcode import helpers, ir
from gpubench.compiler.pcode.dtypes import DataType

DECODERS = {DataType("fp", 8): "fp8_to_f32", DataType("bf", 8): "bf8_to_f32"}
CONVERSIONS = frozenset({"fp8_to_f32", "bf8_to_f32", "f32_to_fp8", "f32_to_bf8"})
FORMAT = ir.Name("FP8_FNUZ")
BYTE = DataType("u", 8)
SCALED_DECODE = re.compile(r"(?:fp8|bf8|fp4|fp6|bf6)_to_(f32|f16|bf16)_scale")
SCALED_ENCODE = re.compile(r"(?:f32|f16|bf16)_to_(fp8|bf8|fp4|fp6|bf6)(_sr)?_scale")
F64 = DataType("f", 64)
F32, I32, U32 = DataType("f", 32), DataType("i", 32), DataType("u", 32)
# OCP's elements without infinities or NaNs (FP4 E2M1, FP6 E2M3, BF6 E3M2): exponent and mantissa bits, bias
SMALL_FORMATS = {DataType(kind[:2], int(kind[2:])): helpers.MINIFLOAT_FORMATS[kind, False]
                 for kind in helpers.SATURATING}


def _small_decode(code: ir.Expr, exp_bits: int, man_bits: int, bias: int) -> ir.Expr:
    """The exact f32 value of a 4- or 6-bit element (``code``'s low bits): the significand as an integer
    (with the hidden bit unless denormal) times 2^(max(e, 1) - bias - M), negated for the sign bit."""
    def bits(shift: int, width: int) -> ir.Expr:
        return ir.Binary("&", ir.Binary(">>", code, ir.IntLit(shift, None)), ir.IntLit((1 << width) - 1, None))

    exponent, mantissa = bits(man_bits, exp_bits), bits(0, man_bits)
    normal = ir.Binary("!=", exponent, ir.IntLit(0, None))
    significand = ir.Ternary(normal, ir.Binary("|", mantissa, ir.IntLit(1 << man_bits, None)), mantissa)
    power = ir.Binary("-", ir.Cast(I32, ir.Ternary(normal, exponent, ir.IntLit(1, None))),
                      ir.IntLit(bias + man_bits, None))
    magnitude = ir.Call("ldexp", (ir.Call("u32_to_f32", (ir.Cast(U32, significand),)), power))
    negative = ir.Binary("!=", bits(exp_bits + man_bits, 1), ir.IntLit(0, None))
    return ir.Ternary(negative, ir.Unary("-", magnitude), magnitude)


def _scaled_decode(dest: str, element: ir.Expr, scale: ir.Expr) -> ir.Expr:
    """``element`` (an fp8/bf8/fp4/fp6/bf6 view, or a variable a view was read into) times 2^(``scale`` - 127) in ``dest``;
    NaN for the scale 0xFF."""
    value = ir.Call("ldexp", (lowered(element),
                              ir.Binary("-", ir.Cast(DataType("i", 32), ir.View(lowered(scale), BYTE)),
                                        ir.IntLit(127, None))))
    dtype = DataType(dest[:-2], int(dest[-2:]))
    return ir.Ternary(ir.Binary("==", ir.View(lowered(scale), BYTE), ir.IntLit(0xFF, None)),
                      ir.View(ir.Name("NAN"), dtype), value if dtype == F32 else ir.Cast(dtype, value))


def _scaled_encode(kind: str, stochastic: bool, element: ir.Expr, args: tuple[ir.Expr, ...]) -> ir.Expr:
    """The code of ``element`` divided by 2^(scale - 127) (exact in f64), rounded as f32_to_<kind>(_sr) rounds;
    a NaN for the scale 0xFF. Stochastic rounding takes the random word's top 23 - M bits (M: the format's
    mantissa bits), as V_CVT_SR_FP8_F32 does."""
    scale = ir.View(lowered(args[-1]), BYTE)
    value = ir.Ternary(ir.Binary("==", scale, ir.IntLit(0xFF, None)), ir.View(ir.Name("NAN"), F64),
                       ir.Call("ldexp", (ir.Cast(F64, lowered(element)),
                                         ir.Binary("-", ir.IntLit(127, None), ir.Cast(I32, scale)))))
    target_format = () if kind in helpers.SATURATING else (FORMAT,)  # the 6- and 4-bit formats have no FNUZ kin
    if not stochastic:
        return ir.Call(f"f32_to_{kind}", (value, *target_format))
    man_bits = helpers.MINIFLOAT_FORMATS[kind, False][1]
    random = ir.Binary(">>", ir.View(lowered(args[0]), U32), ir.IntLit(9 + man_bits, None))
    return ir.Call(f"f32_to_{kind}_sr", (value, random, *target_format))


def lowered(node: ir.Node) -> ir.Node:
    """``node`` with its FP8/BF8 views and format-less conversions written as above."""
    match node:
        case ir.Call(func, (element, scale)) if match := SCALED_DECODE.fullmatch(func):
            return _scaled_decode(match[1], element, scale)
        case ir.Call(func, (element, *args)) if match := SCALED_ENCODE.fullmatch(func):
            return _scaled_encode(match[1], bool(match[2]), element, tuple(args))
        case ir.Assign(ir.View(base, dtype), value, op) if dtype in DECODERS or dtype in SMALL_FORMATS:
            return ir.Assign(ir.View(lowered(base), DataType("b", dtype.bits)), lowered(value), op)
        case ir.Call(func, (ir.View(base, dtype),)) if DECODERS.get(dtype) == func:
            return ir.Call(func, (ir.View(lowered(base), BYTE), FORMAT))
        case ir.View(base, dtype) if dtype in SMALL_FORMATS:
            return _small_decode(ir.View(lowered(base), U32), *SMALL_FORMATS[dtype])
        case ir.View(base, dtype) if dtype in DECODERS:
            return ir.Call(DECODERS[dtype], (ir.View(lowered(base), BYTE), FORMAT))
        case ir.Call(func, (arg,)) if func in CONVERSIONS:
            return ir.Call(func, (lowered(arg), FORMAT))
    if not dataclasses.is_dataclass(node):
        return node
    changes = {}
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if isinstance(value, ir.Node):
            changes[field.name] = lowered(value)
        elif isinstance(value, tuple):
            changes[field.name] = tuple(lowered(v) if isinstance(v, ir.Node) else v for v in value)
    return dataclasses.replace(node, **changes)

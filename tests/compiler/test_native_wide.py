"""Integers wider than 64 bits in the native backend: the numpy backend's Python ints as i128 values
whose range is worked out at compile time (compiler/native/wide.py).

The ranges must be sound (every Python result lies in the range said for it), and the 65-bit mads of
every target (V_MAD_U64_U32 and friends: tinygrad's index arithmetic and software sin use them) give
the numpy backend's bits on the operands at the edges of their ranges, where the carry and the sign
of the 65-bit sum show."""
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpubench.compiler.backend import compile_instruction
from gpubench.compiler.native import compile_instructions, wide

BIG = 1 << 130
values = st.integers(-BIG, BIG)


@st.composite
def span_and_member(draw):
    lo, hi = sorted((draw(values), draw(values)))
    return (lo, hi), draw(st.integers(lo, hi))


OPS = {"Add": int.__add__, "Sub": int.__sub__, "Mult": int.__mul__, "BitAnd": int.__and__, "BitOr": int.__or__,
       "BitXor": int.__xor__}


@given(st.sampled_from(sorted(OPS)), span_and_member(), span_and_member())
def test_a_combined_range_holds_every_result(op, a, b):
    (span_a, x), (span_b, y) = a, b
    exact_a, exact_b = wide.exact(*span_a), wide.exact(*span_b)
    span = wide.combine(op, exact_a, exact_b)
    if span is not None:
        assert span[0] <= OPS[op](x, y) <= span[1]
        assert wide.LOWEST <= span[0] and span[1] <= wide.HIGHEST


@given(st.sampled_from(["LShift", "RShift"]), span_and_member(), st.integers(0, 300), st.integers(0, 300))
def test_a_shifted_range_holds_every_result(op, a, k1, k2):
    (span_a, x), (low, high) = a, sorted((k1, k2))
    span = wide.shifted(op, wide.exact(*span_a), (low, high))
    for k in (low, high, (low + high) // 2):
        result = x << k if op == "LShift" else x >> k
        if span is not None:
            assert span[0] <= result <= span[1]


def test_an_and_with_a_nonnegative_mask_is_exact_whatever_the_other_operand():
    assert wide.combine("BitAnd", None, ((1 << 65) - 1, (1 << 65) - 1)) == (0, (1 << 65) - 1)
    assert wide.combine("Add", None, (0, 1)) is None


MADS = {"rdna3": ("V_MAD_U64_U32", "V_MAD_I64_I32"), "rdna4": ("V_MAD_CO_U64_U32", "V_MAD_CO_I64_I32"),
        "cdna": ("V_MAD_U64_U32", "V_MAD_I64_I32")}
EDGES32 = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF]
EDGES64 = [0, 1, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFF00000001,
           0x00000000FFFFFFFF, 0xFFFFFFFE00000001]


@pytest.mark.parametrize("arch", sorted(MADS))
def test_the_65_bit_mads_give_the_numpy_backends_bits(arch):
    ops = compile_instructions(arch, [("VOP3SDOp", name) for name in MADS[arch]])
    s0, s1, s2 = (np.array(column, dtype) for column, dtype in zip(
        zip(*itertools.product(EDGES32, EDGES32, EDGES64)), (np.uint32, np.uint32, np.uint64), strict=True))
    carry_in = np.arange(len(s0), dtype=np.uint32) * np.uint32(0x9E3779B9)
    for (enum, name), op in ops.items():
        assert not isinstance(op, Exception), op
        expected = compile_instruction(arch, enum, name)(len(s0), S0=s0, S1=s1, S2=s2, D1=carry_in.copy())
        got = op(len(s0), S0=s0, S1=s1, S2=s2, D1=carry_in.copy())
        for port in expected:
            assert np.array_equal(expected[port], got[port]), f"{arch} {name}: {port} differs"

"""gfx950's v_maximum3_f32 / v_minimum3_f32 / v_pk_maximum3_f16 / v_pk_minimum3_f16: IEEE 754-2019 maximum
and minimum of three, left to right, against a model on the bit patterns written here, on both engines."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hardware_instructions import ENGINES, LANES, run, vgpr

SPECIAL32 = [0x7FC00000, 0x7F800001, 0xFFC00123, 0x80000000, 0x00000000, 0x7F800000, 0xFF800000, 0x3F800000]
SPECIAL16 = [0x7E00, 0x7C01, 0xFE12, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x3C00]


def _pair(x: int, y: int, bits: int, larger: bool) -> int:
    """IEEE maximum/minimum of two codes: a signaling NaN quieted first (x before y), then a quiet NaN,
    then by value with -0 below +0."""
    exp_bits = 8 if bits == 32 else 5
    man = (1 << (bits - 1 - exp_bits)) - 1
    quiet_bit = (man + 1) >> 1
    top = ((1 << exp_bits) - 1) << (bits - 1 - exp_bits)

    def nan(v):
        return v & top == top and v & man

    for v in (x, y):
        if nan(v) and not v & quiet_bit:
            return v | quiet_bit
    for v in (x, y):
        if nan(v):
            return v
    dtype = np.float32 if bits == 32 else np.float16
    utype = np.uint32 if bits == 32 else np.uint16
    a, b = (float(np.array(v, utype).view(dtype)) for v in (x, y))
    if a == b:
        x_negative = x >> (bits - 1)
        return (y if x_negative else x) if larger else (x if x_negative else y)
    return x if (a > b) == larger else y


def _of_three(a: int, b: int, c: int, bits: int, larger: bool) -> int:
    return _pair(_pair(a, b, bits, larger), c, bits, larger)


WORDS32 = st.lists(st.one_of(st.sampled_from(SPECIAL32), st.integers(0, 2**32 - 1)), min_size=LANES,
                   max_size=LANES)
WORDS16 = st.lists(st.one_of(st.sampled_from(SPECIAL16), st.integers(0, 2**16 - 1)), min_size=2 * LANES,
                   max_size=2 * LANES)


@pytest.mark.parametrize("larger", [True, False])
@settings(max_examples=10, deadline=None)
@given(a=WORDS32, b=WORDS32, c=WORDS32)
def test_maximum3_minimum3_f32(larger, a, b, c):
    name = "v_maximum3_f32" if larger else "v_minimum3_f32"
    want = [_of_three(x, y, z, 32, larger) for x, y, z in zip(a, b, c)]
    for engine_name in ENGINES:
        ctx = run(f"{name} v1, v2, v3, v4", engine_name, "gfx950", v2=a, v3=b, v4=c)
        assert [int(v) for v in vgpr(ctx, 1)] == want, engine_name


@pytest.mark.parametrize("larger", [True, False])
@settings(max_examples=10, deadline=None)
@given(a=WORDS16, b=WORDS16, c=WORDS16)
def test_pk_maximum3_minimum3_f16(larger, a, b, c):
    name = "v_pk_maximum3_f16" if larger else "v_pk_minimum3_f16"

    def words(halves):
        return [lo | hi << 16 for lo, hi in zip(halves[::2], halves[1::2])]

    want = words([_of_three(x, y, z, 16, larger) for x, y, z in zip(a, b, c)])
    for engine_name in ENGINES:
        ctx = run(f"{name} v1, v2, v3, v4", engine_name, "gfx950", v2=words(a), v3=words(b), v4=words(c))
        assert [int(v) for v in vgpr(ctx, 1)] == want, engine_name


def test_maximum3_by_hand():
    # max(-0, +0, -1) = +0; min(+0, -0, 1) = -0; a quiet NaN anywhere wins; a signaling one is quieted
    for engine_name in ENGINES:
        ctx = run("v_maximum3_f32 v1, v2, v3, v4\nv_minimum3_f32 v5, v3, v2, v6", engine_name, "gfx950",
                  v2=[0x80000000, 0x3F800000, 0x7F800001], v3=[0x00000000, 0x7FC00000, 0x3F800000],
                  v4=[0xBF800000, 0x40000000, 0x3F800000], v6=[0x3F800000, 0x3F800000, 0x3F800000])
        assert [int(v) for v in vgpr(ctx, 1, 3)] == [0x00000000, 0x7FC00000, 0x7FC00001], engine_name
        assert int(vgpr(ctx, 5, 1)[0]) == 0x80000000, engine_name

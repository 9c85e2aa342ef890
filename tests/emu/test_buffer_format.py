"""Typed buffer loads and stores (buffer_format.py) against a reference written from the RDNA3 manual's
data-format prose in plain Python: exact fractions rounded to f32/f16 by hand, not numpy's casts. On
gfx11, gfx12 (the unified format in another V# field) and gfx9 (data and number formats), both engines."""
import re
from fractions import Fraction

import numpy as np
import pytest
from asm_dispatch import Dispatch

from gpubench.emu.context import ExecutionError
from gpubench.isa.syntax.buffer import DATA_FORMATS, NUMBER_FORMATS, UNIFIED_FORMATS

XYZW = 0xFAC  # DST_SEL_X..W = X, Y, Z, W
RAW = 3
LANES = 32
TARGETS = ("gfx1100", "gfx1201", "gfx942", "gfx950")
ENGINES = ("reference", "native")


def gfx9_pair(number: int) -> tuple[int, int]:
    """(dfmt, nfmt) of a unified format, from its name: gfx9 names the same formats in two parts."""
    data, kind = UNIFIED_FORMATS[number].rsplit("_", 1)
    return DATA_FORMATS.index(data), NUMBER_FORMATS.index(kind)


def dispatch(target: str) -> Dispatch:
    """A wave of the target's size with LANES lanes on (gfx9's other 32 stay off)."""
    wave = 64 if target.startswith("gfx9") else 32
    run = Dispatch(target, wave)
    run.set_exec(np.arange(wave) < LANES)
    return run


def descriptor(run: Dispatch, base: int, records: int, fmt: int, dst_sel: int = XYZW, stride: int = 0) -> None:
    """A V# of unified format ``fmt``: gfx11 FORMAT in word 3 bits 18:12, gfx12 17:12, gfx9 NUM_FORMAT
    14:12 and DATA_FORMAT 18:15."""
    run.sgpr[:, 8] = base & 0xFFFFFFFF
    run.sgpr[:, 9] = (base >> 32) | (stride << 16)
    run.sgpr[:, 10] = records
    if run.isa.arch == "cdna":
        dfmt, nfmt = gfx9_pair(fmt)
        run.sgpr[:, 11] = (dfmt << 15) | (nfmt << 12) | dst_sel
    else:
        run.sgpr[:, 11] = (RAW << 28) | (fmt << 12) | dst_sel


def asm(run: Dispatch, text: str) -> str:
    """gfx11 syntax in, the target's out: gfx12 names no SGPR offset `null`; gfx9 puts D16 after FORMAT
    and codes format:N as dfmt | nfmt << 4."""
    if run.isa.arch == "rdna4":
        return text.replace("s[8:11], 0 ", "s[8:11], null ")
    if run.isa.arch == "cdna":
        text = text.replace("_d16_hi_format_", "_format_d16_hi_").replace("_d16_format_", "_format_d16_")
        return re.sub(r"format:(\d+)", lambda m: "format:%d" % (lambda d, n: d | n << 4)(*gfx9_pair(int(m[1]))),
                      text)
    return text


# ---- the reference ----------------------------------------------------------------------------------

def ieee(x: Fraction, exp_bits: int, man_bits: int) -> int:
    """x rounded to nearest even in an IEEE binary format: its bits (overflow gives infinity)."""
    sign = int(x < 0) << (exp_bits + man_bits)
    x, bias = abs(x), (1 << (exp_bits - 1)) - 1
    if x == 0:
        return sign
    e = x.numerator.bit_length() - x.denominator.bit_length()
    while Fraction(2) ** e > x:
        e -= 1
    while Fraction(2) ** (e + 1) <= x:
        e += 1
    e = max(e, 1 - bias)
    q, r = divmod(x / Fraction(2) ** (e - man_bits), 1)
    q = int(q) + (r > Fraction(1, 2) or (r == Fraction(1, 2) and int(q) & 1))
    if q == 1 << (man_bits + 1):
        q, e = q >> 1, e + 1
    if e > bias:
        return sign | (((1 << exp_bits) - 1) << man_bits)
    if q < 1 << man_bits:
        return sign | q
    return sign | ((e + bias) << man_bits) | (q - (1 << man_bits))


def float_value(bits: int, exp_bits: int, man_bits: int, signed: bool = True):
    """An IEEE-style float's value as a Fraction, or ("special", exponent-all-ones mantissa, sign)."""
    sign = -1 if signed and bits >> (exp_bits + man_bits) & 1 else 1
    e, m = bits >> man_bits & ((1 << exp_bits) - 1), bits & ((1 << man_bits) - 1)
    bias = (1 << (exp_bits - 1)) - 1
    if e == (1 << exp_bits) - 1:
        return ("special", m, sign)
    if e == 0:
        return sign * Fraction(m, 1 << man_bits) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(m, 1 << man_bits)) * Fraction(2) ** (e - bias)


def to_float_bits(value, exp_bits: int, man_bits: int, from_man_bits: int = 0) -> int:
    if isinstance(value, tuple):  # infinity or NaN: the mantissa's top bits kept
        _, m, sign = value
        shift = man_bits - from_man_bits
        if m:  # a NaN stays one
            m = m << shift if shift >= 0 else m >> -shift or 1 << (man_bits - 1)
        return (int(sign < 0) << (exp_bits + man_bits)) | (((1 << exp_bits) - 1) << man_bits) | m
    return ieee(value, exp_bits, man_bits)


def parse(name: str):
    *widths, kind = name.split("_")
    return [int(w) for w in reversed(widths)], kind  # the name lists components from the top bit down


def fields_of(element: bytes, widths: list[int]) -> list[int]:
    word, shift, out = int.from_bytes(element, "little"), 0, []
    for width in widths:
        out.append(word >> shift & ((1 << width) - 1))
        shift += width
    return out


def signed(bits: int, width: int) -> int:
    return bits - (1 << width) if bits >> (width - 1) & 1 else bits


def ref_load(bits: int, width: int, kind: str, d16: bool) -> int:
    """ConvertFromFormat: the register bits of one component."""
    exp_bits, man_bits = (5, 10) if d16 else (8, 23)
    if kind == "UINT":
        return bits & (0xFFFF if d16 else 0xFFFFFFFF)
    if kind == "SINT":
        return signed(bits, width) & (0xFFFF if d16 else 0xFFFFFFFF)
    if kind == "FLOAT":
        source = {32: (8, 23, True), 16: (5, 10, True), 11: (5, 6, False), 10: (5, 5, False)}[width]
        return to_float_bits(float_value(bits, *source), exp_bits, man_bits, source[1])
    value = {"UNORM": Fraction(bits, (1 << width) - 1),
             "SNORM": max(Fraction(signed(bits, width), (1 << (width - 1)) - 1), Fraction(-1)),
             "USCALED": Fraction(bits), "SSCALED": Fraction(signed(bits, width))}[kind]
    return ieee(value, exp_bits, man_bits)


def ref_element(element: bytes, name: str, d16: bool) -> list[int]:
    """X, Y, Z, W of one element: missing components 0, W 1 (1.0 for non-integer types)."""
    widths, kind = parse(name)
    values = [ref_load(bits, width, kind, d16) for bits, width in zip(fields_of(element, widths), widths)]
    one = 1 if kind in ("UINT", "SINT") else 0x3C00 if d16 else 0x3F800000
    return values + [0, 0, 0, one][len(values):]


def ref_store(bits: int, width: int, kind: str, d16: bool) -> int:
    """ConvertToFormat: one component's bits in memory from its register bits."""
    if kind in ("UINT", "SINT"):
        value = (signed(bits, 16 if d16 else 32) if kind == "SINT" else bits)
        low, high = (0, (1 << width) - 1) if kind == "UINT" else (-(1 << (width - 1)), (1 << (width - 1)) - 1)
        return min(max(value, low), high) & ((1 << width) - 1)
    value = float_value(bits, *((5, 10) if d16 else (8, 23)))
    if kind == "FLOAT":
        exp_bits, man_bits = (8, 23) if width == 32 else (5, 10)
        if value == 0:  # a Fraction has no -0
            return (bits >> (15 if d16 else 31)) << (exp_bits + man_bits)
        return to_float_bits(value, exp_bits, man_bits, 10 if d16 else 23)
    if isinstance(value, tuple):  # NaN -> 0, infinities clamp
        value = Fraction(0) if value[1] else Fraction(value[2])
    low, scale = (0, (1 << width) - 1) if kind == "UNORM" else (-1, (1 << (width - 1)) - 1)
    return round(min(max(value, Fraction(low)), Fraction(1)) * scale) & ((1 << width) - 1)  # round: half to even


# ---- the tests --------------------------------------------------------------------------------------

FORMATS = list(enumerate(UNIFIED_FORMATS))[1:]


def element_bytes(rng: np.random.Generator, name: str, count: int) -> np.ndarray:
    size = sum(parse(name)[0]) // 8
    raw = rng.integers(0, 256, (count, size), dtype=np.uint8)
    if name.startswith("32") and name.endswith("FLOAT"):  # f32 -> f16 of a NaN keeps no defined payload
        words = raw.view(np.uint32)
        words[(words & 0x7F800000) == 0x7F800000] &= 0xBFFFFFFF
    return raw


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("number,name", FORMATS, ids=[n for _, n in FORMATS])
def test_format_loads_every_format(number, name, target):
    rng = np.random.default_rng(number)
    elements = element_bytes(rng, name, LANES)
    size = elements.shape[1]
    run = dispatch(target)
    memory = run.buffer(np.ascontiguousarray(elements).reshape(-1))
    descriptor(run, memory.address, records=size * LANES, fmt=number)
    run.vgpr[:, 1, :] = run.lane_ids() * size
    run(asm(run, f"""
        buffer_load_format_xyzw v[2:5], v1, s[8:11], 0 offen
        buffer_load_d16_format_xyzw v[6:7], v1, s[8:11], 0 offen
        tbuffer_load_format_xy v[8:9], v1, s[8:11], 0 format:{number} offen
    """), ENGINES[number % 2])
    for lane in range(LANES):
        element = bytes(elements[lane])
        full, half = ref_element(element, name, False), ref_element(element, name, True)
        assert list(run.vgpr[0, 2:6, lane]) == full, (lane, element.hex())
        assert list(run.vgpr[0, 8:10, lane]) == full[:2]
        packed = [int(run.vgpr[0, 6 + i // 2, lane]) >> (16 * (i % 2)) & 0xFFFF for i in range(4)]
        assert packed == half, (lane, element.hex())


@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.parametrize("target", TARGETS)
def test_dst_sel_component_counts_and_d16_halves(target, engine_name):
    rng = np.random.default_rng(7)
    elements = rng.integers(0, 256, (LANES, 4), dtype=np.uint8)
    run = dispatch(target)
    memory = run.buffer(elements.reshape(-1))
    sel = 7 | 6 << 3 | 1 << 6 | 0 << 9  # W, Z, one, zero
    descriptor(run, memory.address, records=4 * LANES, fmt=UNIFIED_FORMATS.index("8_8_8_8_UINT"), dst_sel=sel)
    run.vgpr[:, 1, :] = run.lane_ids() * 4
    run.vgpr[:, 2:10, :] = 0xDEADBEEF
    run(asm(run, """
        buffer_load_format_xyz v[2:4], v1, s[8:11], 0 offen
        buffer_load_d16_format_xyz v[6:7], v1, s[8:11], 0 offen
        buffer_load_d16_hi_format_x v8, v1, s[8:11], 0 offen
        buffer_load_d16_format_x v9, v1, s[8:11], 0 offen
    """), engine_name)
    w, z = elements[:, 3].astype(np.uint32), elements[:, 2].astype(np.uint32)
    np.testing.assert_array_equal(run.vgpr[0, 2:5, :LANES], [w, z, np.ones(LANES)])
    np.testing.assert_array_equal(run.vgpr[0, 5, :LANES], 0xDEADBEEF)
    np.testing.assert_array_equal(run.vgpr[0, 6, :LANES], w | z << 16)
    np.testing.assert_array_equal(run.vgpr[0, 7, :LANES], 0xDEAD0001)  # the odd last half keeps the other one
    np.testing.assert_array_equal(run.vgpr[0, 8, :LANES], 0xBEEF | w << 16)
    np.testing.assert_array_equal(run.vgpr[0, 9, :LANES], 0xDEAD0000 | w)
    np.testing.assert_array_equal(run.vgpr[0, 2:10, LANES:], 0xDEADBEEF)  # lanes EXEC leaves off


STORABLE = [(n, name) for n, name in FORMATS if "SCALED" not in name and not (
    name.endswith("FLOAT") and len(set(parse(name)[0])) > 1)]


def register_values(rng: np.random.Generator, kind: str, d16: bool) -> np.ndarray:
    """[lanes, 4] register bits: floats around [-1.5, 1.5] with specials, or integers of any size."""
    if kind in ("UINT", "SINT"):
        values = rng.integers(0, 1 << 32, (LANES, 4), dtype=np.uint64).astype(np.uint32)
        small = rng.integers(-300, 300, (LANES, 4)).astype(np.uint32)
        values = np.where(rng.random((LANES, 4)) < 0.5, small, values)
        return values & np.uint32(0xFFFF) if d16 else values
    values = (rng.random((LANES, 4)) * 3 - 1.5) * np.where(rng.random((LANES, 4)) < 0.2, 1e5, 1.0)
    values[0, :] = [np.nan, np.inf, -np.inf, -0.0]
    values[1, :] = [0.5 / 255, 1.5 / 255, 2.5 / 65535, 0.5 / 127]  # ties of the scaled value
    dtype, view = (np.float16, np.uint16) if d16 else (np.float32, np.uint32)
    with np.errstate(over="ignore"):
        return values.astype(dtype).view(view).astype(np.uint32)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("number,name", STORABLE, ids=[n for _, n in STORABLE])
def test_format_stores(number, name, target):
    widths, kind = parse(name)
    size = sum(widths) // 8
    rng = np.random.default_rng(100 + number)
    run = dispatch(target)
    memory = run.buffer(np.zeros(3 * size * LANES, np.uint8))
    descriptor(run, memory.address, records=3 * size * LANES, fmt=number)
    full, half = register_values(rng, kind, False), register_values(rng, kind, True)
    run.vgpr[0, 2:6, :LANES] = full.T
    run.vgpr[0, 6, :LANES] = half[:, 0] | half[:, 1] << 16
    run.vgpr[0, 7, :LANES] = half[:, 2] | half[:, 3] << 16
    run.vgpr[0, 1, :] = run.lane_ids() * size
    run(asm(run, f"""
        buffer_store_format_xyzw v[2:5], v1, s[8:11], 0 offen
        buffer_store_d16_format_xyzw v[6:7], v1, s[8:11], 0 offen offset:{size * LANES}
        tbuffer_store_format_xyzw v[2:5], v1, s[8:11], 0 format:{number} offen offset:{2 * size * LANES}
    """), ENGINES[number % 2])
    data = memory.data.reshape(3, LANES, size)
    for lane in range(LANES):
        for block, registers, d16 in ((0, full, False), (1, half, True), (2, full, False)):
            parts = [ref_store(int(registers[lane, i]), w, kind, d16) for i, w in enumerate(widths)]
            word = sum(part << sum(widths[:i]) for i, part in enumerate(parts))
            assert bytes(data[block, lane]) == word.to_bytes(size, "little"), (block, lane)


def test_store_of_fewer_components_keeps_the_rest_and_range_check():
    run = Dispatch("gfx1100", LANES)
    memory = run.buffer(np.full(4 * LANES, 0xEE, np.uint8))
    descriptor(run, memory.address, records=4 * 20 + 2, fmt=UNIFIED_FORMATS.index("16_16_UINT"))
    run.vgpr[:, 1, :] = run.lane_ids() * 4
    run.vgpr[:, 2, :] = run.lane_ids() + 0x100
    run("""
        buffer_store_format_x v2, v1, s[8:11], 0 offen
        buffer_load_format_xy v[3:4], v1, s[8:11], 0 offen
    """)
    words = memory.data.view(np.uint16).reshape(LANES, 2)
    lanes = np.arange(LANES)
    np.testing.assert_array_equal(words[:, 0], np.where(lanes <= 20, lanes + 0x100, 0xEEEE))
    np.testing.assert_array_equal(words[:, 1], 0xEEEE)
    # lane 20's element straddles num_records (82 bytes): the whole dword is out of range and reads 0
    np.testing.assert_array_equal(run.vgpr[0, 3], np.where(lanes < 20, lanes + 0x100, 0))
    np.testing.assert_array_equal(run.vgpr[0, 4], np.where(lanes < 20, 0xEEEE, 0))


@pytest.mark.parametrize("text,fmt,message", [
    ("buffer_store_format_x v2, v1, s[8:11], 0 offen", "8_USCALED", "not emulated"),
    ("tbuffer_store_format_xyz v[2:4], v1, s[8:11], 0 format:[BUF_FMT_10_11_11_FLOAT] offen", None, "not emulated"),
    ("buffer_store_format_xy v[2:3], v1, s[8:11], 0 offen", "2_10_10_10_UNORM", "packed"),
    ("buffer_load_format_x v2, v1, s[8:11], 0 offen", "INVALID", "INVALID"),
])
def test_unemulated_formats_are_reported(text, fmt, message):
    run = Dispatch("gfx1100", LANES)
    descriptor(run, 0x1000, records=0, fmt=UNIFIED_FORMATS.index(fmt) if fmt else 1)
    with pytest.raises(ExecutionError, match=message):
        run(text)


@pytest.mark.parametrize("word3,message", [(4 << 15 | 0 << 12, "BUF_DATA_FORMAT_32 with BUF_NUM_FORMAT_UNORM"),
                                           (15 << 15 | 4 << 12, "RESERVED_15")])
def test_gfx9_pairs_without_a_format_are_reported(word3, message):
    run = dispatch("gfx942")
    descriptor(run, 0x1000, records=0, fmt=1)
    run.sgpr[:, 11] = word3
    with pytest.raises(ExecutionError, match=message):
        run("buffer_load_format_x v2, v1, s[8:11], 0 offen")

"""Operand text as LLVM writes it: registers, register ranges, inline constants, literals.

Both directions live here, side by side, so that what the disassembler prints the assembler reads.
The operand space is the spec's 9-bit source encoding (see the isa-spec README).
"""
from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass

LITERAL = 255
VGPR_BASE = 256

# Scalar registers with names, per family: value -> (name of the 32-bit half, name of the pair).
_SPECIAL_RDNA = {106: ("vcc_lo", "vcc"), 107: ("vcc_hi", None), 124: ("null", "null"), 125: ("m0", None),
                 126: ("exec_lo", "exec"), 127: ("exec_hi", None)}
_SPECIAL_CDNA = {102: ("flat_scratch_lo", "flat_scratch"), 103: ("flat_scratch_hi", None),
                 104: ("xnack_mask_lo", "xnack_mask"), 105: ("xnack_mask_hi", None),
                 106: ("vcc_lo", "vcc"), 107: ("vcc_hi", None), 124: ("m0", None), 125: ("null", "null"),
                 126: ("exec_lo", "exec"), 127: ("exec_hi", None)}
_NAMED_SOURCES = {235: "src_shared_base", 236: "src_shared_limit", 237: "src_private_base",
                  238: "src_private_limit", 239: "src_pops_exiting_wave_id", 251: "src_vccz",
                  252: "src_execz", 253: "src_scc", 254: "src_lds_direct"}
# gfx940+ name the flat-scratch base of the wave as sources too.
_NAMED_SOURCES_CDNA = {**_NAMED_SOURCES, 230: "src_flat_scratch_base_lo", 231: "src_flat_scratch_base_hi"}
_FLOAT_CONSTANTS = {240: 0.5, 241: -0.5, 242: 1.0, 243: -1.0, 244: 2.0, 245: -2.0, 246: 4.0, 247: -4.0}
INV_2PI = 248
_INV_2PI_TEXT = {16: "0.15915494", 32: "0.15915494", 64: "0.15915494309189532"}
TTMP_BASE = 108


def named_sources(arch: str) -> dict[int, str]:
    return _NAMED_SOURCES_CDNA if arch == "cdna" else _NAMED_SOURCES


def special_registers(arch: str) -> dict[int, tuple[str, str | None]]:
    return _SPECIAL_CDNA if arch == "cdna" else _SPECIAL_RDNA


def register_range(prefix: str, first: int, count: int) -> str:
    return f"{prefix}{first}" if count == 1 else f"{prefix}[{first}:{first + count - 1}]"


def scalar_name(value: int, count: int, arch: str) -> str | None:
    """An SGPR-space register (0..127) of ``count`` dwords, or None if the value names none."""
    special = special_registers(arch)
    if value in special:
        low, pair = special[value]
        if count == 1:
            return low
        return pair if count == 2 and pair else None
    if value < 106 or (arch == "cdna" and value < 102):
        return register_range("s", value, count)
    if TTMP_BASE <= value < TTMP_BASE + 16:
        return register_range("ttmp", value - TTMP_BASE, count)
    return None


def inline_constant(value: int, bits: int) -> str | None:
    """The text of an inline constant (128..208, 240..248), or None."""
    if 128 <= value <= 192:
        return str(value - 128)
    if 193 <= value <= 208:
        return str(192 - value)
    if value in _FLOAT_CONSTANTS:
        return repr(_FLOAT_CONSTANTS[value])
    if value == INV_2PI:
        return _INV_2PI_TEXT.get(bits, _INV_2PI_TEXT[32])
    return None


def source_name(value: int, count: int, arch: str, bits: int = 32) -> str | None:
    """Text of a 9-bit source operand other than a literal; None when the value names nothing."""
    if value >= VGPR_BASE:
        return register_range("v", value - VGPR_BASE, count)
    if value < 128:
        return scalar_name(value, count, arch)
    named = named_sources(arch)
    if value in named:
        return named[value]
    return inline_constant(value, bits)


def literal_text(value: int) -> str:
    return f"0x{value:x}"


# ---- parsing -------------------------------------------------------------------------------

_RANGE = re.compile(r"^(v|s|ttmp|a)\[(\d+):(\d+)\]$|^(v|s|ttmp|a)(\d+)$")


@dataclass(frozen=True)
class Register:
    file: str  # "v", "s" (any SGPR-space name), "a" (AccVGPR)
    value: int  # in the 9-bit source space (v -> 256+n); for "a" the AccVGPR index + 256
    count: int


class OperandError(ValueError):
    pass


def parse_register(text: str, arch: str) -> Register | None:
    """A register or register range, by name; None if ``text`` is not a register."""
    text = text.strip().lower()
    m = _RANGE.match(text)
    if m:
        prefix = m.group(1) or m.group(4)
        first = int(m.group(2) if m.group(1) else m.group(5))
        last = int(m.group(3)) if m.group(1) else first
        if last < first:
            raise OperandError(f"invalid register range '{text}'")
        count = last - first + 1
        if prefix == "ttmp":
            return Register("s", TTMP_BASE + first, count)
        if prefix == "s":
            return Register("s", first, count)
        return Register(prefix, VGPR_BASE + first, count)
    for value, (low, pair) in special_registers(arch).items():
        if text == low:
            return Register("s", value, 1)
        if pair and text == pair:
            return Register("s", value, 2)
    if text == "scc":
        return Register("s", 253, 1)
    for value, name in named_sources(arch).items():
        if text in (name, name.removeprefix("src_")):
            return Register("s", value, 1)
    return None


def is_null(reg: Register, arch: str) -> bool:
    """NULL stands for an operand of any width."""
    return reg.file == "s" and special_registers(arch).get(reg.value, ("",))[0] == "null"


def parse_int(text: str) -> int | None:
    text = text.strip()
    try:
        return int(text, 0)
    except ValueError:
        return None


def encode_inline_int(value: int) -> int | None:
    if 0 <= value <= 64:
        return 128 + value
    if -16 <= value <= -1:
        return 192 - value
    return None


def encode_inline_float(value: float, bits: int) -> int | None:
    for code, const in _FLOAT_CONSTANTS.items():
        if value == const:
            return code
    if math.isclose(value, 1 / (2 * math.pi), rel_tol=1e-7):
        return INV_2PI
    return None


def float_bits(value: float, bits: int) -> int:
    """A float literal as the bits an operand of ``bits`` width holds (f64: the high dword)."""
    if bits == 16:
        return struct.unpack("<H", struct.pack("<e", value))[0]
    if bits == 64:
        return struct.unpack("<Q", struct.pack("<d", value))[0] >> 32
    return struct.unpack("<I", struct.pack("<f", value))[0]

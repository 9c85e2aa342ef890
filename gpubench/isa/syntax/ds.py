"""LDS/GDS instructions (DS), and the vector-register and modifier helpers that the other memory
syntaxes (flat.py, buffer.py) share with it.

Text: `mnemonic vdst, addr, data0, data1 offset:N gds` with the operands the instruction has, in that
order. Two-address operations (`*2ADDR*`, gfx9's `*WRITE2*`/`*READ2*`/`*WRXCHG2*`) write their two
8-bit offsets as `offset0:N offset1:N`; the others one 16-bit `offset:N`, which ds_swizzle_b32
writes as a `swizzle(...)` pattern. On gfx9 (CDNA) the `acc` bit puts the data and destination in
AccVGPRs (`a[..]`); the address is always a VGPR.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef
from gpubench.isa.syntax import common
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.statement import AsmError, Piece, Statement

VGPR_COUNT = 256


class InvalidEncoding(ValueError):
    """An encoding the format allows but LLVM does not decode (a reserved bit set, ...)."""


# ---- shared by the memory syntaxes ------------------------------------------------------------

def base_opcodes(isa: ISA, base: Format) -> list[InstrDef]:
    """The instructions of ``base``'s own opcode enum (a FLAT enum also lists GLOBAL's addtid ops)."""
    enum = base.opcode_fields[0].enum
    return [idef for idef in isa.instructions if idef.enum == enum and idef.name in base.allowed]


def register_class(data_operands: int, agpr: bool) -> str | None:
    """LLVM's class for a data register on gfx90a+: an operation with one data operand takes either
    file (AV); one with several (a returning atomic, a two-address store) has a VGPR and an AGPR
    form, and each operand is of that form's file. None: the AGPR forms, whose tuples LLVM's decoder
    does not check for alignment."""
    if data_operands == 1:
        return "AV"
    return None if agpr else "VReg"


def vector_text(isa: ISA, index: int, dwords: int, agpr: bool = False, klass: str | None = "VReg") -> str:
    """A VGPR/AGPR (range) as LLVM prints it. LLVM prints a range past v255 as it is, and on gfx90a+
    flags a tuple that does not start at an even register with its operand's ``klass``."""
    if agpr and index + dwords > VGPR_COUNT:  # past a255 LLVM decodes nothing (past v255 it prints)
        raise InvalidEncoding(f"a[{index}:{index + dwords - 1}] is out of range")
    text = ops.register_range("a" if agpr else "v", index, dwords)
    if isa.arch == "cdna" and klass and dwords > 1 and index % 2:
        text += f"/*Invalid register, operand has '{klass}_{32 * dwords}_Align2' register class*/"
    return text


def parse_vector(isa: ISA, piece: Piece, dwords: int, agpr_ok: bool = False,
                 aligned: bool = True) -> tuple[int, bool]:
    """(index, is AGPR) of a VGPR/AGPR (range) of ``dwords`` dwords; on gfx90a+ a tuple must start
    at an even register unless ``aligned`` is off."""
    try:
        reg = ops.parse_register(piece.text, isa.arch)
    except ops.OperandError:
        raise piece.error("invalid operand for instruction") from None
    if reg is None or reg.file not in ("v", "a") or (reg.file == "a" and not agpr_ok):
        raise piece.error("invalid operand for instruction")
    index = reg.value - ops.VGPR_BASE
    if index + reg.count > VGPR_COUNT:
        raise piece.error("register index is out of range")
    if reg.count != dwords:
        raise piece.error("invalid operand for instruction")
    if isa.arch == "cdna" and aligned and dwords > 1 and index % 2:
        raise piece.error("invalid operand for instruction")
    return index, reg.file == "a"


def data_in_agprs(pieces_and_files: list[tuple[Piece, bool]]) -> bool:
    """Whether the data operands are AGPRs: the `acc` bit covers them all, so they must agree."""
    files = {agpr for _, agpr in pieces_and_files}
    if len(files) > 1:
        piece = next(p for p, agpr in pieces_and_files if agpr != pieces_and_files[0][1])
        raise piece.error("invalid operand for instruction")
    return bool(files and files.pop())


@dataclass(frozen=True)
class Modifier:
    """One modifier word: `gds` (value None) or `offset:16` (value "16")."""

    name: str
    value: str | None
    piece: Piece

    @staticmethod
    def of(piece: Piece) -> "Modifier":
        name, colon, value = piece.text.partition(":")
        return Modifier(name.lower(), value.strip() if colon else None, piece)

    def value_piece(self) -> Piece:
        return Piece(self.value or "", self.piece.column + len(self.name) + 1)

    def integer(self, low: int, high: int, message: str) -> int:
        number = ops.parse_int(self.value or "")
        if number is None:
            raise self.value_piece().error("expected absolute expression")
        if not low <= number <= high:
            raise self.piece.error(message)
        return number


def modifiers_of(stmt: Statement, operand_count: int) -> list[Modifier]:
    """The modifier words; an instruction without operands has its first one parsed as an operand."""
    pieces = stmt.modifiers if operand_count else stmt.operands + stmt.modifiers
    return [Modifier.of(piece) for piece in pieces]


def operand_pieces(stmt: Statement, count: int) -> list[Piece]:
    """The operands, which must be ``count``; an instruction without operands may have modifiers."""
    pieces = stmt.operands if count else []
    common.expect_count(pieces, count, stmt.mnemonic.column)
    return pieces


# ---- DS ---------------------------------------------------------------------------------------

DS_FIELDS = ("vdst", "addr", "data0", "data1")

# Operations with two 8-bit offsets, by name: the spec has no word for it.
_TWO_OFFSETS = re.compile(r"2ADDR|(READ|WRITE|WRXCHG)2")
SWIZZLE = "DS_SWIZZLE_B32"

# gfx940+ (CDNA3/4) has no GDS: LLVM prints no `gds` for the bit there and knows no such modifier,
# except in the text of the GDS_ONLY operations, where it is part of the syntax. It still checks the
# bit of the GDS_ONLY and NO_GDS operations.
GDS_FAMILIES = {"rdna3"}
# gfx12 has no gds bit, but LLVM rejects an encoding with gfx11's gds bit set.
RESERVED_GDS_BIT = {"rdna4": 17}
# What LLVM decodes of the gds bit, which the spec does not say: the global wave sync and ordered
# count operations exist only with it, and these never have it (LLVM rejects the bit).
GDS_ONLY = {"DS_GWS_INIT", "DS_GWS_SEMA_V", "DS_GWS_SEMA_BR", "DS_GWS_SEMA_P", "DS_GWS_BARRIER",
            "DS_GWS_SEMA_RELEASE_ALL", "DS_ORDERED_COUNT", "DS_ADD_GS_REG_RTN", "DS_SUB_GS_REG_RTN"}
NO_GDS = {"DS_PERMUTE_B32", "DS_BPERMUTE_B32", "DS_BPERMUTE_FI_B32", "DS_BVH_STACK_RTN_B32",
          "DS_NOP"}
# Operations whose encoding has no offset: LLVM rejects a non-zero one.
NO_OFFSET = {"DS_NOP", "DS_ADD_GS_REG_RTN", "DS_SUB_GS_REG_RTN"}
# gfx950's transposing load of 96 bits takes any VGPR triple: LLVM gives it an unaligned class.
UNALIGNED = {"DS_READ_B96_TR_B6"}


def has_gds(isa: ISA) -> bool:
    return isa.arch in GDS_FAMILIES


def has_two_offsets(idef: InstrDef) -> bool:
    return bool(_TWO_OFFSETS.search(idef.name))


def ds_fields(idef: InstrDef) -> list[str]:
    return [f for f in DS_FIELDS if idef.operand(f)]


def data_count(idef: InstrDef) -> int:
    return sum(1 for f in ("vdst", "data0", "data1") if idef.operand(f))


# ---- swizzle patterns (ds_swizzle_b32's offset), as LLVM prints and parses them ----------------

QUAD_PERM, QUAD_PERM_MASK = 0x8000, 0xFF00
BITMASK_PERM_MASK = 0x8000
ROTATE_MODE, FFT_MODE = 0xC000, 0xE000
LANE_MASK = 0x1F


def swizzle_text(offset: int) -> str:
    if offset >= FFT_MODE:
        return f"swizzle(FFT,{offset & LANE_MASK})"
    if offset >= ROTATE_MODE:
        return f"swizzle(ROTATE,{(offset >> 10) & 1},{(offset >> 5) & LANE_MASK})"
    if offset & QUAD_PERM_MASK == QUAD_PERM:
        return "swizzle(QUAD_PERM," + ",".join(str((offset >> (2 * i)) & 3) for i in range(4)) + ")"
    if offset & BITMASK_PERM_MASK:
        return str(offset)
    and_mask, or_mask, xor_mask = offset & LANE_MASK, (offset >> 5) & LANE_MASK, (offset >> 10) & LANE_MASK
    if and_mask == LANE_MASK and or_mask == 0 and xor_mask.bit_count() == 1:
        return f"swizzle(SWAP,{xor_mask})"
    if and_mask == LANE_MASK and or_mask == 0 and xor_mask and not (xor_mask + 1) & xor_mask:
        return f"swizzle(REVERSE,{xor_mask + 1})"
    group = LANE_MASK - and_mask + 1
    if group > 1 and not group & (group - 1) and or_mask < group and xor_mask == 0:
        return f"swizzle(BROADCAST,{group},{or_mask})"
    return f'swizzle(BITMASK_PERM,"{_bitmask_pattern(and_mask, or_mask, xor_mask)}")'


def _bitmask_pattern(and_mask: int, or_mask: int, xor_mask: int) -> str:
    """Per lane-id bit, high first: 0/1 forced, p preserved, i inverted."""
    low, high = or_mask ^ xor_mask, (LANE_MASK & and_mask | or_mask) ^ xor_mask
    chars = []
    for bit in range(4, -1, -1):
        lo, hi = (low >> bit) & 1, (high >> bit) & 1
        chars.append(str(lo) if lo == hi else ("p" if lo == 0 else "i"))
    return "".join(chars)


_SWIZZLE = re.compile(r"^swizzle\((.*)\)$", re.IGNORECASE | re.DOTALL)


def parse_swizzle(piece: Piece) -> int:
    """A `swizzle(MODE, ...)` pattern (the offset modifier's value) as the 16-bit offset."""
    match = _SWIZZLE.match(piece.text.strip())
    if not match:
        raise piece.error("expected absolute expression")
    mode, *args = [a.strip() for a in match.group(1).split(",")]
    encoders = {"QUAD_PERM": _quad_perm, "BITMASK_PERM": _bitmask_perm, "BROADCAST": _broadcast,
                "SWAP": _swap, "REVERSE": _reverse, "FFT": _fft, "ROTATE": _rotate}
    encoder = encoders.get(mode.upper())
    if encoder is None:
        raise AsmError("expected a swizzle mode", piece.column + len("swizzle("))
    value = encoder(args)
    if value is None:
        raise piece.error(f"invalid {mode.upper()} swizzle")
    return value


def _numbers(args: list[str], count: int) -> list[int] | None:
    numbers = [ops.parse_int(a) for a in args]
    return numbers if len(numbers) == count and None not in numbers else None


def _quad_perm(args):
    lanes = _numbers(args, 4)
    if lanes is None or any(not 0 <= lane <= 3 for lane in lanes):
        return None
    return QUAD_PERM | sum(lane << (2 * i) for i, lane in enumerate(lanes))


def _bitmask_perm(args):
    if len(args) != 1 or len(args[0]) != 7 or args[0][0] != '"' or args[0][-1] != '"':
        return None
    and_mask = or_mask = xor_mask = 0
    for char in args[0][1:-1].lower():
        and_mask, or_mask, xor_mask = and_mask << 1, or_mask << 1, xor_mask << 1
        if char not in "01pi":
            return None
        and_mask |= char in "pi"
        or_mask |= char == "1"
        xor_mask |= char == "i"
    return and_mask | or_mask << 5 | xor_mask << 10


def _broadcast(args):
    numbers = _numbers(args, 2)
    if numbers is None:
        return None
    group, lane = numbers
    if group not in (2, 4, 8, 16, 32) or not 0 <= lane < group:
        return None
    return (LANE_MASK + 1 - group) | lane << 5


def _swap(args):
    numbers = _numbers(args, 1)
    if numbers is None or numbers[0] not in (1, 2, 4, 8, 16):
        return None
    return LANE_MASK | numbers[0] << 10


def _reverse(args):
    numbers = _numbers(args, 1)
    if numbers is None or numbers[0] not in (2, 4, 8, 16, 32):
        return None
    return LANE_MASK | (numbers[0] - 1) << 10


def _fft(args):
    numbers = _numbers(args, 1)
    if numbers is None or not 0 <= numbers[0] <= LANE_MASK:
        return None
    return FFT_MODE | numbers[0]


def _rotate(args):
    numbers = _numbers(args, 2)
    if numbers is None or numbers[0] not in (0, 1) or not 0 <= numbers[1] <= LANE_MASK:
        return None
    return ROTATE_MODE | numbers[0] << 10 | numbers[1] << 5


# ---- the syntax ------------------------------------------------------------------------------

@register("DS")
class DataShare(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def render(self, inst: Instruction) -> str:
        idef, isa = inst.idef, inst.isa
        self.check_encoding(inst)
        agpr = bool(inst.get("acc"))
        klass = None if idef.name in UNALIGNED else register_class(data_count(idef), agpr)
        texts = []
        for name in ds_fields(idef):
            dwords = common.dwords(idef.operand(name))
            if name == "addr":
                texts.append(vector_text(isa, inst[name], dwords, False, "VReg"))
            else:
                texts.append(vector_text(isa, inst[name], dwords, agpr, klass))
        words = [f"{self.mnemonic(inst)} {', '.join(texts)}" if texts else self.mnemonic(inst)]
        words += self.offset_words(inst)
        if idef.name in GDS_ONLY or has_gds(inst.isa) and inst["gds"]:
            words.append("gds")
        return " ".join(words)

    @staticmethod
    def check_encoding(inst: Instruction) -> None:
        idef, used = inst.idef, set(ds_fields(inst.idef))
        for name in DS_FIELDS:
            if name not in used and inst[name]:
                raise InvalidEncoding(f"{idef.name} has no {name} but the field is {inst[name]}")
        gds = inst.get("gds")
        if gds is not None and (gds and idef.name in NO_GDS or not gds and idef.name in GDS_ONLY):
            raise InvalidEncoding(f"{idef.name} with gds={gds}")
        if inst.get("acc") and not data_count(idef):
            raise InvalidEncoding(f"{idef.name} has no data for the acc bit to move to AGPRs")
        reserved = RESERVED_GDS_BIT.get(inst.isa.arch)
        if reserved is not None and inst.word >> reserved & 1:
            raise InvalidEncoding(f"bit {reserved} is reserved")
        if idef.name in NO_OFFSET and (inst["offset0"] or inst["offset1"]):
            raise InvalidEncoding(f"{idef.name} has no offset")

    @staticmethod
    def offset_words(inst: Instruction) -> list[str]:
        if has_two_offsets(inst.idef):
            return [f"{name}:{inst[name]}" for name in ("offset0", "offset1") if inst[name]]
        offset = inst["offset1"] << 8 | inst["offset0"]
        if not offset:
            return []
        return [f"offset:{swizzle_text(offset) if inst.idef.name == SWIZZLE else offset}"]

    def candidates(self, isa: ISA, base: Format):
        for idef in base_opcodes(isa, base):
            yield common.lower_name(idef), base, idef

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        names = ds_fields(idef)
        fields, data = {"op": idef.opcode}, []
        agpr_ok = fmt.field("acc") is not None
        for name, piece in zip(names, operand_pieces(stmt, len(names))):
            dwords = common.dwords(idef.operand(name))
            fields[name], agpr = parse_vector(isa, piece, dwords, agpr_ok and name != "addr",
                                              idef.name not in UNALIGNED)
            if name != "addr":
                data.append((piece, agpr))
        if data_in_agprs(data):
            fields["acc"] = 1
        self.assemble_modifiers(isa, idef, modifiers_of(stmt, len(names)), fields, stmt)
        return fmt, fields

    def assemble_modifiers(self, isa: ISA, idef: InstrDef, modifiers: list[Modifier],
                           fields: dict[str, int], stmt: Statement) -> None:
        """offset (or offset0 offset1), then gds: LLVM reads them in that order only."""
        order = [n for n in (("offset0", "offset1") if has_two_offsets(idef) else ("offset",))
                 if idef.name not in NO_OFFSET] + ["gds"]
        position = 0
        for modifier in modifiers:
            if modifier.name not in order or (modifier.value is None) != (modifier.name == "gds"):
                known = modifier.name in ("offset", "offset0", "offset1")
                raise modifier.piece.error("not a valid operand." if known else "invalid operand for instruction")
            if modifier.name == "gds" and "gds" in fields:
                raise modifier.piece.error("invalid operand for instruction")
            if order.index(modifier.name) < position:
                raise modifier.piece.error("not a valid operand.")
            position = order.index(modifier.name) + 1
            if modifier.name != "gds":
                self.assemble_offset(idef, modifier, fields)
            elif not (has_gds(isa) or idef.name in GDS_ONLY):
                raise modifier.piece.error("gds modifier is not supported on this GPU")
            elif idef.name in NO_GDS:
                raise modifier.piece.error("invalid operand for instruction")
            else:
                fields["gds"] = 1
        if idef.name in GDS_ONLY and "gds" not in fields:  # `gds` is part of these operations' syntax
            raise AsmError("too few operands for instruction", stmt.mnemonic.column)

    @staticmethod
    def assemble_offset(idef: InstrDef, modifier: Modifier, fields: dict[str, int]) -> None:
        if modifier.name == "offset":
            if idef.name == SWIZZLE and modifier.value.lower().startswith("swizzle"):
                offset = parse_swizzle(modifier.value_piece())
            else:
                offset = modifier.integer(0, 0xFFFF, "expected a 16-bit unsigned offset")
            fields["offset0"], fields["offset1"] = offset & 0xFF, offset >> 8
        else:
            fields[modifier.name] = modifier.integer(0, 0xFF, f"invalid {modifier.name} value.")

"""Scalar control encodings: SOPK (an SGPR and a 16-bit immediate) and SOPP (a 16-bit immediate).

Text: `mnemonic sdst, simm16` (SOPK), `mnemonic simm16` (SOPP); s_setreg_b32 writes the hardware
register first, s_setreg_imm32_b32 adds its 32-bit value. The immediate's text depends on what it
means (its spec operand type, refined per instruction where LLVM's text needs it): a branch offset,
`hwreg(...)`, `sendmsg(...)`, wait counts `vmcnt(0) lgkmcnt(0)`, ALU dependencies `instid0(...) | ...`,
or a plain number that LLVM writes in hex or, when small, in decimal.
"""
from __future__ import annotations

import re
import struct

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef
from gpubench.isa.syntax import common, salu
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.statement import AsmError, Piece, Statement

# Immediate styles.
HEX, SMALL_DECIMAL, LABEL, OPTIONAL_DECIMAL, NONE = "hex", "small_decimal", "label", "optional", "none"
HWREG, VERSION, SENDMSG, WAITCNT, DEPCTR, DELAY, GPR_INDEX = (
    "hwreg", "version", "sendmsg", "waitcnt", "depctr", "delay", "gpr_index")

STYLE_OF_TYPE = {"OPR_LABEL": LABEL, "OPR_HWREG": HWREG, "OPR_VERSION": VERSION, "OPR_SENDMSG": SENDMSG,
                 "OPR_WAITCNT": WAITCNT, "OPR_WAITCNT_DEPCTR": DEPCTR, "OPR_WAIT_ALU": DEPCTR,
                 "OPR_DELAY": DELAY, "OPR_CLAUSE": HEX, "OPR_WAIT_EVENT": HEX, "OPR_WAIT_MEM_DS": HEX,
                 "OPR_SLEEP": SMALL_DECIMAL}
# Where the spec's operand type does not tell LLVM's text. SOPP's plain immediates print in
# decimal when small (LLVM's generic immediate), except these, which LLVM always prints in hex.
STYLE_OF_INSTRUCTION = {
    **dict.fromkeys(["S_SET_INST_PREFETCH_DISTANCE", "S_ROUND_MODE", "S_TTRACEDATA_IMM", "S_WAIT_LOADCNT",
                     "S_WAIT_STORECNT", "S_WAIT_SAMPLECNT", "S_WAIT_BVHCNT", "S_WAIT_EXPCNT",
                     "S_WAIT_DSCNT", "S_WAIT_KMCNT"], HEX),
    "S_SET_GPR_IDX_MODE": GPR_INDEX,
    "S_ENDPGM": OPTIONAL_DECIMAL,  # no operand in the spec; LLVM prints a nonzero immediate
}
# s_setreg_b32 writes the hardware register: LLVM writes it first, like a destination.
IMMEDIATE_FIRST = {"S_SETREG_B32"}


def immediate_style(fmt_root: str, idef: InstrDef) -> str:
    if idef.name in STYLE_OF_INSTRUCTION:
        return STYLE_OF_INSTRUCTION[idef.name]
    operand = idef.operand("simm16")
    if operand is None:
        return NONE
    if operand.type in STYLE_OF_TYPE:
        return STYLE_OF_TYPE[operand.type]
    return HEX if fmt_root == "SOPK" else SMALL_DECIMAL


# ---- hwreg -----------------------------------------------------------------------------------

# LLVM's hardware register names (the spec's HWREG enums name some of them differently).
HW_REGISTERS = {
    "rdna3": {1: "HW_REG_MODE", 2: "HW_REG_STATUS", 3: "HW_REG_TRAPSTS", 5: "HW_REG_GPR_ALLOC",
              6: "HW_REG_LDS_ALLOC", 7: "HW_REG_IB_STS", 15: "HW_REG_SH_MEM_BASES",
              18: "HW_REG_PERF_SNAPSHOT_PC_LO", 19: "HW_REG_PERF_SNAPSHOT_PC_HI", 20: "HW_REG_FLAT_SCR_LO",
              21: "HW_REG_FLAT_SCR_HI", 23: "HW_REG_HW_ID1", 24: "HW_REG_HW_ID2",
              27: "HW_REG_PERF_SNAPSHOT_DATA", 29: "HW_REG_SHADER_CYCLES"},
    "rdna4": {1: "HW_REG_WAVE_MODE", 2: "HW_REG_WAVE_STATUS", 4: "HW_REG_WAVE_STATE_PRIV",
              5: "HW_REG_WAVE_GPR_ALLOC", 6: "HW_REG_WAVE_LDS_ALLOC", 7: "HW_REG_IB_STS",
              10: "HW_REG_PERF_SNAPSHOT_DATA", 11: "HW_REG_PERF_SNAPSHOT_PC_LO",
              12: "HW_REG_PERF_SNAPSHOT_PC_HI", 15: "HW_REG_PERF_SNAPSHOT_DATA1",
              16: "HW_REG_PERF_SNAPSHOT_DATA2", 17: "HW_REG_WAVE_EXCP_FLAG_PRIV",
              18: "HW_REG_WAVE_EXCP_FLAG_USER", 19: "HW_REG_WAVE_TRAP_CTRL", 20: "HW_REG_WAVE_SCRATCH_BASE_LO",
              21: "HW_REG_WAVE_SCRATCH_BASE_HI", 23: "HW_REG_WAVE_HW_ID1", 24: "HW_REG_WAVE_HW_ID2",
              26: "HW_REG_WAVE_SCHED_MODE", 29: "HW_REG_SHADER_CYCLES_LO", 30: "HW_REG_SHADER_CYCLES_HI",
              31: "HW_REG_WAVE_DVGPR_ALLOC_LO", 32: "HW_REG_WAVE_DVGPR_ALLOC_HI"},
    "cdna": {1: "HW_REG_MODE", 2: "HW_REG_STATUS", 3: "HW_REG_TRAPSTS", 4: "HW_REG_HW_ID", 5: "HW_REG_GPR_ALLOC",
             6: "HW_REG_LDS_ALLOC", 7: "HW_REG_IB_STS", 15: "HW_REG_SH_MEM_BASES", 16: "HW_REG_TBA_LO",
             17: "HW_REG_TBA_HI", 18: "HW_REG_TMA_LO", 19: "HW_REG_TMA_HI", 20: "HW_REG_XCC_ID",
             21: "HW_REG_SQ_PERF_SNAPSHOT_DATA", 22: "HW_REG_SQ_PERF_SNAPSHOT_DATA1",
             23: "HW_REG_SQ_PERF_SNAPSHOT_PC_LO", 24: "HW_REG_SQ_PERF_SNAPSHOT_PC_HI"},
}


def hwreg_text(value: int, arch: str) -> str:
    """`hwreg(ID, offset, size)`: id bits 5:0, offset 10:6, size-1 15:11; the default 0, 32 omitted."""
    reg, offset, size = value & 63, (value >> 6) & 31, ((value >> 11) & 31) + 1
    name = HW_REGISTERS[arch].get(reg, str(reg))
    return f"hwreg({name})" if (offset, size) == (0, 32) else f"hwreg({name}, {offset}, {size})"


def parse_hwreg(piece: Piece, arch: str) -> int:
    args = salu.call_arguments(piece, "hwreg")
    if args is None:
        return salu.parse_immediate(piece, 16)
    if len(args) not in (1, 3):
        raise piece.error("invalid operand for instruction")
    reg = salu.symbol_or_number(args[0], HW_REGISTERS[arch], "expected a register name or an absolute expression")
    if not 0 <= reg < 64:
        raise args[0].error("invalid hardware register: only 6-bit values are legal")
    offset, size = (ops.parse_int(a.text) for a in args[1:]) if len(args) == 3 else (0, 32)
    if offset is None or not 0 <= offset < 32:
        raise args[1].error("invalid bit offset: only 5-bit values are legal")
    if size is None or not 1 <= size <= 32:
        raise args[2].error("invalid bitfield width: only values from 1 to 32 are legal")
    return reg | (offset << 6) | ((size - 1) << 11)


# ---- s_version -------------------------------------------------------------------------------

VERSIONS = {0: "UC_VERSION_GFX7", 4: "UC_VERSION_GFX10", 6: "UC_VERSION_GFX11", 9: "UC_VERSION_GFX12"}
VERSION_FLAGS = {0x2000: "UC_VERSION_W64_BIT", 0x4000: "UC_VERSION_W32_BIT", 0x8000: "UC_VERSION_MDP_BIT"}


def version_text(value: int) -> str:
    """LLVM's expression for s_version: the code's symbol or number, OR-ed with the flag symbols."""
    if value & 0x1F00:
        return f"0x{value:x}"
    text = VERSIONS.get(value & 0xFF, str(value & 0xFF))
    for bit, name in VERSION_FLAGS.items():
        if value & bit:
            text = f"({text})|{name}" if "|" in text else f"{text}|{name}"
    return text


def parse_version(piece: Piece) -> int:
    """An OR of version symbols and numbers; parentheses do not change an OR."""
    symbols = {name: code for code, name in (VERSIONS | VERSION_FLAGS).items()}
    value = 0
    for term in piece.text.replace("(", " ").replace(")", " ").split("|"):
        term = term.strip()
        number = symbols.get(term, ops.parse_int(term))
        if number is None:
            raise piece.error("invalid operand for instruction")
        value |= number
    if not 0 <= value <= 0xFFFF:
        raise piece.error("invalid operand for instruction")
    return value


# ---- counters and fields written as name(value) ----------------------------------------------

# s_waitcnt: each counter's (shift, width) parts, low bits first. gfx9 splits vmcnt in two.
WAITCNT_FIELDS = {
    "cdna": {"vmcnt": ((0, 4), (14, 2)), "expcnt": ((4, 3),), "lgkmcnt": ((8, 4),)},
    "rdna3": {"vmcnt": ((10, 6),), "expcnt": ((0, 3),), "lgkmcnt": ((4, 6),)},
    "rdna4": {"vmcnt": ((10, 6),), "expcnt": ((0, 3),), "lgkmcnt": ((4, 6),)},
}
# s_waitcnt_depctr / s_wait_alu: (name, shift, width), in LLVM's order. Bits 5 and 6 are unused.
DEPCTR_FIELDS = (("depctr_hold_cnt", 7, 1), ("depctr_sa_sdst", 0, 1), ("depctr_va_vdst", 12, 4),
                 ("depctr_va_sdst", 9, 3), ("depctr_va_ssrc", 8, 1), ("depctr_va_vcc", 1, 1),
                 ("depctr_vm_vsrc", 2, 3))
DELAY_IDS = ("NO_DEP", "VALU_DEP_1", "VALU_DEP_2", "VALU_DEP_3", "VALU_DEP_4", "TRANS32_DEP_1",
             "TRANS32_DEP_2", "TRANS32_DEP_3", "FMA_ACCUM_CYCLE_1", "SALU_CYCLE_1", "SALU_CYCLE_2",
             "SALU_CYCLE_3")
DELAY_SKIPS = ("SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4")
# s_delay_alu: (name, shift, width, value names).
DELAY_FIELDS = (("instid0", 0, 4, DELAY_IDS), ("instskip", 4, 3, DELAY_SKIPS), ("instid1", 7, 4, DELAY_IDS))


def counter_value(value: int, parts: tuple[tuple[int, int], ...]) -> int:
    result, position = 0, 0
    for shift, width in parts:
        result |= ((value >> shift) & ((1 << width) - 1)) << position
        position += width
    return result


def put_counter(value: int, parts: tuple[tuple[int, int], ...], count: int) -> int:
    for shift, width in parts:
        mask = (1 << width) - 1
        value = (value & ~(mask << shift)) | ((count & mask) << shift)
        count >>= width
    return value


def counter_max(parts: tuple[tuple[int, int], ...]) -> int:
    return (1 << sum(width for _, width in parts)) - 1


def waitcnt_text(value: int, arch: str) -> str:
    """The counters that wait (below their maximum), or all of them when none does."""
    fields = WAITCNT_FIELDS[arch]
    counts = {name: counter_value(value, parts) for name, parts in fields.items()}
    waiting = [name for name, parts in fields.items() if counts[name] != counter_max(parts)]
    return " ".join(f"{name}({counts[name]})" for name in waiting or fields)


def depctr_text(value: int) -> str:
    """The fields below their maximum (or all of them); hex when an unused bit is set."""
    used = sum(((1 << width) - 1) << shift for _, shift, width in DEPCTR_FIELDS)
    if value & ~used:
        return f"0x{value:x}"
    counts = [(name, (value >> shift) & ((1 << width) - 1), (1 << width) - 1)
              for name, shift, width in DEPCTR_FIELDS]
    shown = [(name, count) for name, count, top in counts if count != top] or [c[:2] for c in counts]
    return " ".join(f"{name}({count})" for name, count in shown)


def delay_text(value: int) -> str:
    parts = []
    for name, shift, width, names in DELAY_FIELDS:
        field = (value >> shift) & ((1 << width) - 1)
        if field:
            label = names[field] if field < len(names) else f"/* invalid {name.rstrip('01')} value */"
            parts.append(f"{name}({label})")
    return " | ".join(parts) or "0"


_CALL = re.compile(r"\s*([A-Za-z_]\w*)\(([^()]*)\)\s*")


def named_calls(piece: Piece, separators: str) -> list[tuple[str, str, int]]:
    """`name(arg)` items separated by ``separators`` or spaces: (name, arg, column of name)."""
    items, position, text = [], 0, piece.text
    while position < len(text):
        m = _CALL.match(text, position)
        if m is None:
            raise AsmError("invalid operand for instruction", piece.column + position)
        items.append((m.group(1), m.group(2).strip(), piece.column + m.start(1)))
        position = m.end()
        while position < len(text) and text[position] in separators + " \t":
            position += 1
    return items


def parse_waitcnt(piece: Piece, arch: str) -> int:
    fields = WAITCNT_FIELDS[arch]
    value = 0
    for parts in fields.values():
        value = put_counter(value, parts, counter_max(parts))
    for name, arg, column in named_calls(piece, "&,"):
        base = name.removesuffix("_sat")
        if base not in fields:
            raise AsmError(f"invalid counter name {name}", column)
        count, top = ops.parse_int(arg), counter_max(fields[base])
        if count is None or count < 0:
            raise AsmError("expected absolute expression", column + len(name) + 1)
        if count > top:
            if base == name:
                raise AsmError(f"too large value for {name}", column + len(name) + 1)
            count = top
        value = put_counter(value, fields[base], count)
    return value


def parse_depctr(piece: Piece) -> int:
    value = sum(((1 << width) - 1) << shift for _, shift, width in DEPCTR_FIELDS)
    by_name = {name: (shift, width) for name, shift, width in DEPCTR_FIELDS}
    for name, arg, column in named_calls(piece, "&,"):
        if name not in by_name:
            raise AsmError(f"invalid counter name {name}", column)
        shift, width = by_name[name]
        count = ops.parse_int(arg)
        if count is None or not 0 <= count < (1 << width):
            raise AsmError(f"invalid value for {name}", column + len(name) + 1)
        value = (value & ~(((1 << width) - 1) << shift)) | (count << shift)
    return value


def parse_delay(piece: Piece) -> int:
    fields = {name: (shift, names) for name, shift, _, names in DELAY_FIELDS}
    value = 0
    for name, arg, column in named_calls(piece, "|"):
        if name not in fields:
            raise AsmError("invalid field name " + name, column)
        shift, names = fields[name]
        if arg not in names:
            raise AsmError("invalid value name " + arg, column + len(name) + 1)
        value |= names.index(arg) << shift
    return value


# ---- plain immediates and branch targets -----------------------------------------------------

def parse_label(piece: Piece, ctx: AsmContext) -> int:
    """A branch target: a 16-bit offset in dwords, or a label (relative to the next instruction)."""
    number = ops.parse_int(piece.text)
    if number is None:
        if not re.fullmatch(r"[A-Za-z_.$][\w.$]*", piece.text.strip()):
            raise piece.error("invalid operand for instruction")
        number = (ctx.resolve(piece.text.strip(), piece.column) - (ctx.pc + 4)) // 4
    if not -0x8000 <= number <= 0xFFFF:
        raise piece.error("expected a 16-bit signed jump offset")
    return number & 0xFFFF


def parse_simm16(piece: Piece, idef: InstrDef) -> int:
    """SOPK's immediate: signed or unsigned as the operand's format says."""
    operand = idef.operand("simm16")
    unsigned = operand is not None and operand.fmt == "FMT_NUM_U16"
    return salu.parse_immediate(piece, 16, signed_ok=not unsigned)


def parse_loose_immediate(piece: Piece) -> int:
    """SOPP's plain immediates: LLVM keeps the low 16 bits of any 32-bit value."""
    number = ops.parse_int(piece.text)
    if number is None or not -2**31 <= number < 2**32:
        raise piece.error("invalid operand for instruction")
    return number & 0xFFFF


def setreg_constant(piece: Piece) -> int:
    """s_setreg_imm32_b32's value: LLVM reads a float as a double and keeps its low 32 bits."""
    number = ops.parse_int(piece.text)
    if number is None:
        try:
            number = struct.unpack("<Q", struct.pack("<d", float(piece.text)))[0] & 0xFFFFFFFF
        except ValueError:
            raise piece.error("invalid operand for instruction") from None
    if not -2**31 <= number < 2**32:
        raise piece.error("invalid operand for instruction")
    return number & 0xFFFFFFFF


# Each style's text of an immediate: (value, arch) -> text.
IMMEDIATE_TEXT = {
    HEX: lambda value, arch: f"0x{value:x}",
    SMALL_DECIMAL: lambda value, arch: salu.small_decimal_text(value),
    LABEL: lambda value, arch: str(value),
    HWREG: hwreg_text,
    VERSION: lambda value, arch: version_text(value),
    SENDMSG: salu.sendmsg_text,
    WAITCNT: waitcnt_text,
    DEPCTR: lambda value, arch: depctr_text(value),
    DELAY: lambda value, arch: delay_text(value),
    GPR_INDEX: lambda value, arch: salu.gpr_index_text(value),
}


@register("SOPK", "SOPP")
class ScalarControl(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def render(self, inst: Instruction) -> str:
        idef, arch, root = inst.idef, inst.isa.arch, inst.isa.root_of(inst.fmt)
        texts = []
        if idef.operand("sdst"):
            texts.append(salu.required_register_text(inst["sdst"], common.dwords(idef.operand("sdst")), arch, "sdst"))
        immediate = self.immediate_text(inst["simm16"], immediate_style(root, idef), arch)
        if immediate is not None:
            texts.insert(0 if idef.name in IMMEDIATE_FIRST else len(texts), immediate)
        if salu.literal_only(inst.isa.formats[root], idef):
            texts.append(salu.imm32_text(inst["literal"]))
        return " ".join([self.mnemonic(inst), ", ".join(texts)]) if texts else self.mnemonic(inst)

    @staticmethod
    def immediate_text(value: int, style: str, arch: str) -> str | None:
        if style == NONE:
            if value:
                raise ops.OperandError(f"an immediate of {value} where the instruction takes none")
            return None
        if style == OPTIONAL_DECIMAL:
            return str(value) if value else None
        return IMMEDIATE_TEXT[style](value, arch)

    def candidates(self, isa: ISA, base: Format):
        return salu.candidates_with_literal(isa, base)

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        root = isa.root_of(fmt)
        style = immediate_style(root, idef)
        names = ["sdst"] if idef.operand("sdst") else []
        if style not in (NONE, OPTIONAL_DECIMAL) or (style == OPTIONAL_DECIMAL and stmt.operands):
            names.insert(0 if idef.name in IMMEDIATE_FIRST else len(names), "simm16")
        if salu.literal_only(isa.formats[root], idef):
            names.append("literal")
        pieces = self.operand_pieces(stmt, style, len(names))
        common.expect_count(pieces, len(names), stmt.mnemonic.column)
        fields = {"op": idef.opcode}
        for name, piece in zip(names, pieces):
            if name == "sdst":
                fields[name] = salu.parse_scalar_register(piece, common.dwords(idef.operand("sdst")), isa.arch,
                                                          destination=True)
            elif name == "literal":
                fields[name] = setreg_constant(piece)
            else:
                fields[name] = self.parse_immediate(piece, style, idef, isa.arch, ctx)
        return fmt, fields

    @staticmethod
    def operand_pieces(stmt: Statement, style: str, count: int) -> list[Piece]:
        """The operands; counters and dependencies run to the end of the line as one piece."""
        if style in (WAITCNT, DEPCTR, DELAY) and stmt.operands and count == 1:
            first = stmt.operands[0]
            return [Piece(stmt.line[first.column - 1:].strip(), first.column)]
        if stmt.modifiers:
            raise stmt.modifiers[0].error("invalid operand for instruction")
        return stmt.operands

    @staticmethod
    def parse_immediate(piece: Piece, style: str, idef: InstrDef, arch: str, ctx: AsmContext) -> int:
        if style == LABEL:
            return parse_label(piece, ctx)
        if style == HWREG:
            return parse_hwreg(piece, arch)
        if style == VERSION:
            return parse_version(piece)
        if style == SENDMSG:
            return salu.parse_sendmsg(piece, arch)
        if style in (WAITCNT, DEPCTR, DELAY) and ops.parse_int(piece.text) is not None:
            return salu.parse_immediate(piece, 16)  # a field list may be written as its value
        if style == WAITCNT:
            return parse_waitcnt(piece, arch)
        if style == DEPCTR:
            return parse_depctr(piece)
        if style == DELAY:
            return parse_delay(piece)
        if style == GPR_INDEX:
            return salu.parse_gpr_index(piece, 16)
        if idef.enum == "SOPKOp":
            return parse_simm16(piece, idef)
        return parse_loose_immediate(piece)

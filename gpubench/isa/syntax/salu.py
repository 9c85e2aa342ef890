"""Scalar ALU encodings: SOP1, SOP2, SOPC; and the scalar operand text that SOPK, SOPP and SMEM share.

Text: `mnemonic sdst, ssrc0, ssrc1` with the operands the instruction has, in that order. The
operations that only exist with a literal (S_FMAAK_F32, S_FMAMK_F32) also write their constant K.

LLVM's view of a scalar source decides its text: 64-bit operands, 32-bit ones (everything the spec
calls 8-, 16- or 32-bit, except below), and the 16-bit float operands of the SOP2/SOPC f16 operations.
A literal that an inline constant could have expressed is written `lit(...)` so that it survives a
round trip, and that depends on the operand's width and type too.
"""
from __future__ import annotations

import re

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef, Operand
from gpubench.isa.syntax import common
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.statement import Piece, Statement

SCALAR_FIELDS = ("sdst", "ssrc0", "ssrc1")

# Source kinds: how LLVM reads the operand (see source_kind).
B32, B64, F16, F16_COMPARE = "b32", "b64", "f16", "f16_compare"

LDS_DIRECT = 254
# LLVM decodes src_lds_direct in a scalar source but flags it, and cannot assemble it back.
LDS_DIRECT_TEXT = "src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/"
# Named sources that operands.py does not know: LLVM decodes them on every target we support.
FLAT_SCRATCH_BASE = {230: "src_flat_scratch_base_lo", 231: "src_flat_scratch_base_hi"}

_F32_CONSTANTS = {0x3F000000: 240, 0xBF000000: 241, 0x3F800000: 242, 0xBF800000: 243, 0x40000000: 244,
                  0xC0000000: 245, 0x40800000: 246, 0xC0800000: 247, 0x3E22F983: 248}
_F64_CONSTANTS = {0x3FE0000000000000: 240, 0xBFE0000000000000: 241, 0x3FF0000000000000: 242,
                  0xBFF0000000000000: 243, 0x4000000000000000: 244, 0xC000000000000000: 245,
                  0x4010000000000000: 246, 0xC010000000000000: 247, 0x3FC45F306DC9C882: 248}
_F16_CONSTANTS = {0x3800: 240, 0xB800: 241, 0x3C00: 242, 0xBC00: 243, 0x4000: 244, 0xC000: 245,
                  0x4400: 246, 0xC400: 247, 0x3118: 248}
HALF_OF_CODE = {code: bits for bits, code in _F16_CONSTANTS.items()}
F32_OF_CODE = {code: bits for bits, code in _F32_CONSTANTS.items()}


def signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value & (1 << (bits - 1)) else value


def is_inline_int(value: int) -> bool:
    return -16 <= value <= 64


def null_code(arch: str) -> int:
    return 125 if arch == "cdna" else 124


# ---- registers -------------------------------------------------------------------------------

LAST_SGPR = 105  # tuples end there on every target (CDNA's s102..s105 double as flat_scratch/xnack_mask)


def is_tuple_register(value: int, arch: str) -> bool:
    """SGPRs and TTMPs form aligned tuples; the other named registers (vcc, exec, null ...) do not."""
    first_named = 102 if arch == "cdna" else 106
    return value < first_named or ops.TTMP_BASE <= value < ops.TTMP_BASE + 16


def tuple_alignment(dwords: int) -> int:
    return 1 if dwords == 1 else 2 if dwords == 2 else 4


def scalar_register_text(value: int, dwords: int, arch: str) -> str | None:
    """An SGPR-space register of ``dwords`` dwords as LLVM prints it; None if LLVM decodes none.

    LLVM decodes an unaligned SGPR/TTMP tuple as the aligned one that contains it: s[89:90] is
    printed s[88:89]. A tuple must end within its register file. Of the named registers only
    null exists beyond 64 bits.
    """
    if is_tuple_register(value, arch):
        value -= value % tuple_alignment(dwords)
        last = ops.TTMP_BASE + 15 if value >= ops.TTMP_BASE else LAST_SGPR
        if value + dwords - 1 > last:
            return None
    elif dwords > 2:
        return "null" if value == null_code(arch) else None
    return ops.scalar_name(value, dwords, arch)


def required_register_text(value: int, dwords: int, arch: str, field: str) -> str:
    """scalar_register_text, for an encoding LLVM rejects when it names no register."""
    text = scalar_register_text(value, dwords, arch)
    if text is None:
        raise ops.OperandError(f"{field}={value} names no {dwords}-dword register")
    return text


def parse_register_piece(piece: Piece, arch: str) -> ops.Register | None:
    try:
        return ops.parse_register(piece.text, arch)
    except ops.OperandError:
        raise piece.error("invalid operand for instruction") from None


def scalar_register_code(piece: Piece, reg: ops.Register, dwords: int, arch: str) -> int:
    """The 8-bit code of a scalar register written for an operand of ``dwords`` dwords."""
    if reg.file != "s" or reg.value == LDS_DIRECT:
        raise piece.error("invalid operand for instruction")
    if reg.value == null_code(arch):
        if arch == "cdna":
            raise piece.error("'null' operand is not supported on this GPU")
        return reg.value
    if reg.value >= 235 and reg.count == 1:  # named inline values (src_*, scc) fit any width
        return reg.value
    if reg.count != dwords:
        raise piece.error("invalid operand for instruction")
    if is_tuple_register(reg.value, arch) and reg.value % tuple_alignment(dwords):
        raise piece.error("invalid register alignment")
    return reg.value


def parse_scalar_register(piece: Piece, dwords: int, arch: str, destination: bool = False) -> int:
    """An SGPR-space register (range) for a register-only operand; destinations exclude src_* values."""
    reg = parse_register_piece(piece, arch)
    if reg is None or (destination and reg.value >= 128):
        raise piece.error("invalid operand for instruction")
    return scalar_register_code(piece, reg, dwords, arch)


# ---- sources ---------------------------------------------------------------------------------

def source_kind(fmt_root: str, operand: Operand | None) -> str:
    if operand is not None and operand.bits == 64:
        return B64
    if operand is not None and operand.fmt == "FMT_NUM_F16":
        # LLVM gives SOP2's f16 arithmetic 16-bit float operands and SOPC's f16 compares 16-bit
        # operands printed as integers; SOP1's f16 conversions read a 32-bit source.
        return {"SOP2": F16, "SOPC": F16_COMPARE}.get(fmt_root, B32)
    return B32


def kind_dwords(kind: str) -> int:
    return 2 if kind == B64 else 1


def literal_is_inlinable(literal: int, kind: str) -> bool:
    """Whether LLVM would have encoded this literal's value as an inline constant."""
    if kind == B64:  # a 32-bit literal is zero-extended to 64 bits
        return literal <= 64
    if kind == F16:
        half = literal & 0xFFFF
        return is_inline_int(signed(half, 16)) or half in _F16_CONSTANTS
    return is_inline_int(signed(literal, 32)) or literal in _F32_CONSTANTS


def literal_text(literal: int, kind: str) -> str:
    if literal_is_inlinable(literal, kind):
        return f"lit(0x{literal:x})"
    if kind in (F16, F16_COMPARE):  # LLVM keeps the low half, which is all a 16-bit operand reads
        return f"0x{literal & 0xFFFF:x}"
    return ops.literal_text(literal)


def inline_value(code: int) -> int:
    """The 32-bit value of an inline constant code (128..208 integers, 240..248 floats)."""
    if code in F32_OF_CODE:
        return F32_OF_CODE[code]
    return (code - 128 if code <= 192 else 192 - code) & 0xFFFFFFFF


def imm32_text(value: int) -> str:
    """A 32-bit immediate as LLVM prints plain immediates: inline values by name, others in hex."""
    if is_inline_int(signed(value, 32)):
        return str(signed(value, 32))
    code = _F32_CONSTANTS.get(value)
    return ops.inline_constant(code, 32) if code is not None else f"0x{value:x}"


def small_decimal_text(value: int) -> str:
    """An unsigned immediate as LLVM's generic immediates print: decimal up to 64, else hex."""
    return str(value) if value <= 64 else f"0x{value:x}"


def is_immediate_code(value: int) -> bool:
    return 128 <= value <= 208 or 240 <= value <= 248 or value == ops.LITERAL


def source_text(value: int, literal: int | None, kind: str, arch: str, flag_lds_direct: bool = True) -> str:
    """A scalar source (SSrc code) as LLVM prints it."""
    if value == ops.LITERAL:
        return literal_text(literal, kind)
    if value < 128:
        text = scalar_register_text(value, kind_dwords(kind), arch)
    elif kind == F16_COMPARE and value in HALF_OF_CODE:
        text = f"0x{HALF_OF_CODE[value]:x}"
    elif value == LDS_DIRECT:
        text = None if kind == B64 else LDS_DIRECT_TEXT if flag_lds_direct else "src_lds_direct"
    elif value in FLAT_SCRATCH_BASE:
        text = FLAT_SCRATCH_BASE[value] if kind != B64 or value == 230 else None
    else:
        text = ops.source_name(value, kind_dwords(kind), arch, 64 if kind == B64 else 32)
    if text is None:
        raise ops.OperandError(f"scalar source {value} names no {kind} operand")
    return text


_LIT = re.compile(r"^lit\((.*)\)$", re.IGNORECASE)


def parse_source(piece: Piece, kind: str, arch: str) -> tuple[int, int | None]:
    """(SSrc code, literal or None) of a scalar source."""
    text = piece.text.strip()
    forced = _LIT.match(text)
    if forced:
        text = forced.group(1).strip()
    else:
        reg = parse_register_piece(piece, arch)
        if reg is not None:
            return scalar_register_code(piece, reg, kind_dwords(kind), arch), None
    number = ops.parse_int(text)
    if number is not None:
        return _number_source(piece, number, kind, forced is not None)
    try:
        value = float(text)
    except ValueError:
        raise piece.error("invalid operand for instruction") from None
    return _float_source(piece, value, kind, forced is not None)


def _number_source(piece: Piece, number: int, kind: str, forced: bool) -> tuple[int, int | None]:
    if kind in (F16, F16_COMPARE):
        if not -0x8000 <= number <= 0xFFFF:
            raise piece.error("invalid operand for instruction")
        if kind == F16:  # LLVM reads the low half as a half-precision value
            code = ops.encode_inline_int(signed(number & 0xFFFF, 16))
            code = code if code is not None else _F16_CONSTANTS.get(number & 0xFFFF)
        else:
            code = ops.encode_inline_int(number)
        return (code, None) if code is not None and not forced else (ops.LITERAL, number & 0xFFFF)
    if kind == B64:
        code = ops.encode_inline_int(signed(number & (2**64 - 1), 64)) if number < 2**64 else None
        code = code if code is not None else _F64_CONSTANTS.get(number)
        literal_fits = -2**31 <= number < 2**32
    else:
        literal_fits = -2**31 <= number < 2**32
        word = number & 0xFFFFFFFF
        code = ops.encode_inline_int(signed(word, 32))
        code = code if code is not None else _F32_CONSTANTS.get(word)
    if code is not None and not forced:
        return code, None
    if not literal_fits:
        raise piece.error("invalid operand for instruction")
    return ops.LITERAL, number & 0xFFFFFFFF


def _float_source(piece: Piece, value: float, kind: str, forced: bool) -> tuple[int, int | None]:
    code = ops.encode_inline_float(value, 32)
    if code is not None and not forced:
        return code, None
    if kind == B64:  # LLVM takes no float literal for a 64-bit integer operand
        raise piece.error("invalid operand for instruction")
    return ops.LITERAL, ops.float_bits(value, 16 if kind in (F16, F16_COMPARE) else 32)


# ---- symbolic immediates shared by SOP1/SOPC and SOPP -----------------------------------------

# s_sendmsg message names, per family (LLVM's table; the spec has only the gfx11+ MSG_RTN ids).
_MESSAGES_GFX9 = {1: "MSG_INTERRUPT", 2: "MSG_GS", 3: "MSG_GS_DONE", 4: "MSG_SAVEWAVE",
                  5: "MSG_STALL_WAVE_GEN", 6: "MSG_HALT_WAVES", 7: "MSG_ORDERED_PS_DONE",
                  8: "MSG_EARLY_PRIM_DEALLOC", 9: "MSG_GS_ALLOC_REQ", 10: "MSG_GET_DOORBELL",
                  15: "MSG_SYSMSG"}
_MESSAGES_GFX11 = {1: "MSG_INTERRUPT", 2: "MSG_HS_TESSFACTOR", 3: "MSG_DEALLOC_VGPRS",
                   5: "MSG_STALL_WAVE_GEN", 6: "MSG_HALT_WAVES", 9: "MSG_GS_ALLOC_REQ", 15: "MSG_SYSMSG",
                   128: "MSG_RTN_GET_DOORBELL", 129: "MSG_RTN_GET_DDID", 130: "MSG_RTN_GET_TMA",
                   131: "MSG_RTN_GET_REALTIME", 132: "MSG_RTN_SAVE_WAVE", 133: "MSG_RTN_GET_TBA",
                   134: "MSG_RTN_GET_TBA_TO_PC"}
_MESSAGES_GFX12 = {**{k: v for k, v in _MESSAGES_GFX11.items() if k not in (5, 6)},
                   135: "MSG_RTN_GET_SE_AID_ID"}
MESSAGES = {"cdna": _MESSAGES_GFX9, "rdna3": _MESSAGES_GFX11, "rdna4": _MESSAGES_GFX12}
SYSMSG, MSG_GS, MSG_GS_DONE = 15, 2, 3
SYSMSG_OPS = {1: "SYSMSG_OP_ECC_ERR_INTERRUPT", 2: "SYSMSG_OP_REG_RD", 4: "SYSMSG_OP_TTRACE_PC"}
GS_OPS = {0: "GS_OP_NOP", 1: "GS_OP_CUT", 2: "GS_OP_EMIT", 3: "GS_OP_EMIT_CUT"}


def _message_fields(value: int, arch: str) -> tuple[int, int, int]:
    """(message id, operation, stream): gfx11+ has an 8-bit id only; gfx9 packs 4+3+2 bits."""
    if arch != "cdna":
        return value & 0xFF, 0, 0
    return value & 0xF, (value >> 4) & 7, (value >> 8) & 3


def _message_ops(msg: int, arch: str) -> dict[int, str] | None:
    """The operation names a message takes (None: it takes no operation)."""
    if msg == SYSMSG:
        return SYSMSG_OPS
    return GS_OPS if arch == "cdna" and msg in (MSG_GS, MSG_GS_DONE) else None


def _message_op_is_valid(msg: int, op: int, op_names: dict[int, str] | None) -> bool:
    if op_names is None:
        return op == 0
    return op in op_names and not (msg == MSG_GS and op == 0)


def _message_has_stream(msg: int, op: int, arch: str) -> bool:
    return arch == "cdna" and msg in (MSG_GS, MSG_GS_DONE) and op != 0


def sendmsg_text(value: int, arch: str) -> str:
    """`sendmsg(MSG_..., OP, stream)` as LLVM prints it; numbers where a part has no name.

    Like LLVM, a named message is printed from its id bits alone; an unnamed one only when no
    other bit is set, and the plain number otherwise.
    """
    msg, op, stream = _message_fields(value, arch)
    name, op_names = MESSAGES[arch].get(msg), _message_ops(msg, arch)
    stream_ok = stream == 0 or _message_has_stream(msg, op, arch)
    if name and _message_op_is_valid(msg, op, op_names) and stream_ok:
        parts = [name]
        if op_names is not None:
            parts.append(op_names[op])
            if _message_has_stream(msg, op, arch):
                parts.append(str(stream))
        return f"sendmsg({', '.join(parts)})"
    if msg | (op << 4) | (stream << 8) == value:
        return f"sendmsg({msg}, {op}, {stream})"
    return str(value)


def call_arguments(piece: Piece, function: str) -> list[Piece] | None:
    """The comma-separated arguments of ``function(...)`` in ``piece`` (each with its column), or
    None if the piece is not that call."""
    m = re.fullmatch(rf"{function}\((.*)\)", piece.text, re.IGNORECASE | re.DOTALL)
    if m is None:
        return None
    args, position = [], m.start(1)
    for part in m.group(1).split(","):
        if part.strip():
            args.append(Piece(part.strip(), piece.column + position + len(part) - len(part.lstrip())))
        position += len(part) + 1
    return args


def symbol_or_number(piece: Piece, names: dict[int, str], message: str) -> int:
    """A name from ``names`` (value -> name) or an integer."""
    for value, name in names.items():
        if name == piece.text:
            return value
    number = ops.parse_int(piece.text)
    if number is None:
        raise piece.error(message)
    return number


def parse_sendmsg(piece: Piece, arch: str) -> int:
    args = call_arguments(piece, "sendmsg")
    if args is None:
        return parse_immediate(piece, 16)
    if not 1 <= len(args) <= 3:
        raise piece.error("invalid operand for instruction")
    msg = symbol_or_number(args[0], MESSAGES[arch], "expected a message name or an absolute expression")
    op_names = _message_ops(msg, arch) or {}
    op = symbol_or_number(args[1], op_names, "expected an operation name or an absolute expression") \
        if len(args) > 1 else 0
    stream = symbol_or_number(args[2], {}, "expected an absolute expression") if len(args) > 2 else 0
    value = msg | (op << 4) | (stream << 8)
    if _message_fields(value, arch) != (msg, op, stream):
        raise piece.error("invalid message id")
    return value


GPR_INDEX_MODES = {1: "SRC0", 2: "SRC1", 4: "SRC2", 8: "DST"}


def gpr_index_text(value: int) -> str:
    """s_set_gpr_idx_on/_mode's mode bits: `gpr_idx(SRC0,DST)`, hex when undefined bits are set."""
    if value > 15:
        return f"0x{value:x}"
    return f"gpr_idx({','.join(name for bit, name in GPR_INDEX_MODES.items() if value & bit)})"


def parse_gpr_index(piece: Piece, bits: int) -> int:
    args = call_arguments(piece, "gpr_idx")
    if args is None:
        return parse_immediate(piece, bits)
    value = 0
    for arg in args:
        bit = symbol_or_number(Piece(arg.text.upper(), arg.column), GPR_INDEX_MODES, "expected a VGPR index mode")
        if bit not in GPR_INDEX_MODES or value & bit:
            raise arg.error("expected a VGPR index mode")
        value |= bit
    return value


def parse_immediate(piece: Piece, bits: int, signed_ok: bool = True) -> int:
    """An integer immediate of ``bits`` bits (negative values wrap when ``signed_ok``)."""
    number = ops.parse_int(piece.text)
    low = -(1 << (bits - 1)) if signed_ok else 0
    if number is None or not low <= number < (1 << bits):
        raise piece.error("invalid operand for instruction")
    return number & ((1 << bits) - 1)


# ---- SOP1 / SOP2 / SOPC ----------------------------------------------------------------------

# The spec types these sources as register-only (OPR_SREG), but LLVM takes any scalar source.
ANY_SOURCE = {"S_MOVRELSD_2_B32", "S_SWAPPC_B64"}

# Operations that exist only with a literal: the K constant's place among the text's operands.
CONSTANT_POSITION = {"S_FMAAK_F32": 3, "S_FMAMK_F32": 2}


def candidates_with_literal(isa: ISA, base: Format):
    """The base format's operations, and those only its _LIT variant allows (in that variant)."""
    with_literal = isa.formats.get(f"{base.name}_LIT")
    for idef in isa.instructions:
        if idef.name in base.allowed:
            yield common.lower_name(idef), base, idef
        elif with_literal and idef.name in with_literal.allowed:
            yield common.lower_name(idef), with_literal, idef


def register_only(idef: InstrDef, operand: Operand) -> bool:
    return operand.type == "OPR_SREG" and idef.name not in ANY_SOURCE


def literal_only(base: Format, idef: InstrDef) -> bool:
    """Operations the spec allows only in the _LIT variant carry their literal as an operand (K)."""
    return idef.name not in base.allowed


@register("SOP1", "SOP2", "SOPC")
class ScalarALU(FormatSyntax):
    def fields(self, idef: InstrDef) -> list[str]:
        return [f for f in SCALAR_FIELDS if idef.operand(f)]

    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def render(self, inst: Instruction) -> str:
        root = inst.isa.root_of(inst.fmt)
        literal = inst.get("literal")
        texts = [self._operand_text(inst, root, f, literal) for f in self.fields(inst.idef)]
        if literal_only(inst.isa.formats[root], inst.idef):
            texts.insert(CONSTANT_POSITION.get(inst.name, len(texts)), ops.literal_text(literal))
        return f"{self.mnemonic(inst)} {', '.join(texts)}" if texts else self.mnemonic(inst)

    def _operand_text(self, inst: Instruction, root: str, name: str, literal: int | None) -> str:
        operand, value, arch = inst.idef.operand(name), inst[name], inst.isa.arch
        if operand.type == "OPR_SENDMSG_RTN":
            return sendmsg_text(value, arch)
        if operand.type == "OPR_SIMM4":
            return gpr_index_text(value)
        if name == "sdst":
            return required_register_text(value, common.dwords(operand), arch, name)
        if register_only(inst.idef, operand) and is_immediate_code(value):
            # LLVM decodes a constant in a register-only source and prints it flagged.
            number = literal if value == ops.LITERAL else inline_value(value)
            return f"{imm32_text(number)}/*Invalid immediate*/"
        # LLVM's barrier-id operand class takes src_lds_direct without a complaint.
        flag_lds_direct = operand.type != "OPR_SSRC_BARRIER_ID"
        return source_text(value, literal, source_kind(root, operand), arch, flag_lds_direct)

    def candidates(self, isa: ISA, base: Format):
        return candidates_with_literal(isa, base)

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        root = isa.root_of(fmt)
        names = self.fields(idef)
        pieces = list(stmt.operands)
        constant_piece = None
        if literal_only(isa.formats[root], idef):
            common.expect_count(pieces, len(names) + 1, stmt.mnemonic.column)
            constant_piece = pieces.pop(CONSTANT_POSITION.get(idef.name, len(names)))
        if stmt.modifiers:
            raise stmt.modifiers[0].error("invalid operand for instruction")
        common.expect_count(pieces, len(names), stmt.mnemonic.column)
        fields, literal = {"op": idef.opcode}, None
        if constant_piece is not None:
            literal = parse_constant(constant_piece)
        for name, piece in zip(names, pieces):
            value, lit = self._parse_operand(isa, root, idef, name, piece)
            fields[name] = value
            if lit is not None:
                if literal is not None and lit != literal:
                    raise piece.error("only one unique literal operand is allowed")
                literal = lit
        if literal is None:
            return fmt, fields
        fields["literal"] = literal
        return isa.formats[f"{root}_LIT"], fields

    def _parse_operand(self, isa: ISA, root: str, idef: InstrDef, name: str,
                       piece: Piece) -> tuple[int, int | None]:
        operand = idef.operand(name)
        if operand.type == "OPR_SENDMSG_RTN":
            return parse_sendmsg(piece, isa.arch), None
        if operand.type == "OPR_SIMM4":
            return parse_gpr_index(piece, 8), None
        if name == "sdst" or register_only(idef, operand):
            dwords = common.dwords(operand)
            return parse_scalar_register(piece, dwords, isa.arch, destination=name == "sdst"), None
        return parse_source(piece, source_kind(root, operand), isa.arch)


def parse_constant(piece: Piece) -> int:
    """The K of s_fmaak/s_fmamk: a 32-bit integer, or a float's single-precision bits."""
    number = ops.parse_int(piece.text)
    if number is not None:
        if not -2**31 <= number < 2**32:
            raise piece.error("invalid operand for instruction")
        return number & 0xFFFFFFFF
    try:
        return ops.float_bits(float(piece.text), 32)
    except ValueError:
        raise piece.error("invalid operand for instruction") from None

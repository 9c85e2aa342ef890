"""Parameter interpolation: LDSDIR (gfx11) / VDSDIR (gfx12) loads and VINTERP arithmetic.

Text:
- `lds_param_load v1, attr0.x wait_vdst:0`, `lds_direct_load v1 wait_vdst:0` (gfx11);
  `ds_param_load v1, attr0.x wait_va_vdst:0 wait_vm_vsrc:0` (gfx12). Every wait field is printed.
- `v_interp_p10_f16_f32 v1, -v2.l, v3, v4.h clamp op_sel:[0,0,1,0] wait_exp:0`. The sources are
  VGPRs; LLVM prints other encodings with a complaint. On gfx11 the 16-bit operands are VGPR halves
  (`.l`/`.h`, the half chosen by op_sel); on gfx12 they are plain VGPRs and op_sel stands alone.
"""
from __future__ import annotations

import re

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef, Operand
from gpubench.isa.syntax import common
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.image import Modifiers
from gpubench.isa.syntax.statement import AsmError, Piece, Statement


class InvalidInterpEncoding(ValueError):
    """Bits that LLVM's decoder rejects."""


def lower_candidates(isa: ISA, base: Format):
    for idef in isa.instructions:
        if idef.name in base.allowed:
            yield common.lower_name(idef), base, idef


def parse_named_value(piece: Piece, name: str, limit: int, message: str) -> int:
    """The number in `name:N`, at most ``limit``."""
    number = ops.parse_int(piece.text[len(name) + 1:])
    if number is None or not 0 <= number <= limit:
        raise piece.error(message)
    return number


# ---- LDSDIR / VDSDIR ------------------------------------------------------------------------

ATTR_CHANNELS = "xyzw"
MAX_ATTR = 32  # LLVM's limit on interpolation attribute numbers
ATTR = re.compile(r"^attr(\d+)\.(\w+)$", re.IGNORECASE)


def wait_fields(fmt: Format) -> list[str]:
    """The format's wait counters (wait_vdst; wait_va_vdst, wait_vm_vsrc), in the spec's order."""
    return [f.name for f in fmt.fields if f.name.startswith("wait_")]


@register("LDSDIR", "VDSDIR")
class LdsDirectSyntax(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def render(self, inst: Instruction) -> str:
        check_unused_bits(inst)
        texts = [ops.register_range("v", inst["vdst"], 1)]
        if inst.idef.operand("attr"):
            texts.append(f"attr{inst['attr']}.{ATTR_CHANNELS[inst['attr_chan']]}")
        waits = [f"{name}:{inst[name]}" for name in wait_fields(inst.fmt)]
        return " ".join([self.mnemonic(inst), ", ".join(texts), *waits])

    def candidates(self, isa: ISA, base: Format):
        return lower_candidates(isa, base)

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        has_attr = idef.operand("attr") is not None
        common.expect_count(stmt.operands, 2 if has_attr else 1, stmt.mnemonic.column)
        fields = {"op": idef.opcode, "vdst": common.parse_vgpr(stmt.operands[0], idef.operand("vdst"), isa.arch)}
        if has_attr:
            fields["attr"], fields["attr_chan"] = parse_attr(stmt.operands[1])
        waits = wait_fields(fmt)
        mods = Modifiers(stmt.modifiers, [(name,) for name in waits])
        for name, piece in mods.pieces.items():
            fields[name] = parse_named_value(piece, name, fmt.field(name).mask, f"invalid {name} value.")
        return fmt, fields


def check_unused_bits(inst: Instruction) -> None:
    """LLVM's LDSDIR/VDSDIR encodings fix the bits that no field covers to 0."""
    covered = 0
    for f in inst.fmt.fields:
        covered |= f.mask << f.lo
    if inst.word & ~covered & ((1 << 8 * inst.size) - 1):
        raise InvalidInterpEncoding(f"{inst.name}: reserved bits are set")


def parse_attr(piece: Piece) -> tuple[int, int]:
    m = ATTR.match(piece.text)
    if m is None:
        raise piece.error("invalid operand for instruction")
    if int(m.group(1)) > MAX_ATTR:
        raise piece.error("out of bounds interpolation attribute number")
    channel = m.group(2).lower()
    if len(channel) != 1 or channel not in ATTR_CHANNELS:
        raise piece.error("invalid or missing interpolation attribute channel")
    return int(m.group(1)), ATTR_CHANNELS.index(channel)


# ---- VINTERP --------------------------------------------------------------------------------

SOURCES = ("src0", "src1", "src2")
DEST_OPSEL_BIT = 3  # op_sel bits: src0, src1, src2, then vdst
MAX_WAIT_EXP = 7
# Named sources LLVM prints bare in a VGPR-only slot; other scalar registers get a complaint.
# (230/231 are gfx11's flat scratch base apertures, absent from the shared operand tables.)
UNCHECKED_SOURCES = {124: "null", 230: "src_flat_scratch_base_lo", 231: "src_flat_scratch_base_hi",
                     235: "src_shared_base", 236: "src_shared_limit", 237: "src_private_base",
                     238: "src_private_limit", 239: "src_pops_exiting_wave_id", 251: "src_vccz",
                     252: "src_execz", 253: "src_scc"}
NOT_VGPR = "/*Invalid register, operand has 'VGPR_32' register class*/"
NOT_IMMEDIATE = "/*Invalid immediate*/"


def vgpr_slot_text(value: int, arch: str, negated: bool) -> str:
    """A 9-bit source in an operand that only takes a VGPR, as LLVM prints whatever is there:
    registers of another file with a complaint, constants with another (negated as `neg(...)`)."""
    sign = "-" if negated else ""
    if value >= ops.VGPR_BASE:
        return sign + ops.register_range("v", value - ops.VGPR_BASE, 1)
    if value in UNCHECKED_SOURCES:
        return sign + UNCHECKED_SOURCES[value]
    constant = ops.inline_constant(value, 32)
    if constant is not None:
        text = constant + NOT_IMMEDIATE
        return f"neg({text})" if negated else text
    name = ops.source_name(value, 1, arch)
    if name is None or value == ops.LITERAL:
        raise InvalidInterpEncoding(f"source {value} is not an operand")
    return sign + name + NOT_VGPR


def is_half(operand: Operand | None) -> bool:
    return operand is not None and operand.bits == 16


def uses_true16(isa: ISA) -> bool:
    """gfx11 names 16-bit VINTERP operands as VGPR halves; gfx12 as whole VGPRs."""
    return isa.arch == "rdna3"


def has_op_sel(idef: InstrDef) -> bool:
    return any(is_half(o) for o in idef.operands)


@register("VINTERP")
class VinterpSyntax(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def render(self, inst: Instruction) -> str:
        idef, opsel = inst.idef, inst["opsel"]
        halves = uses_true16(inst.isa)
        texts = [self.vgpr_text(inst["vdst"], halves and is_half(idef.operand("vdst")), opsel >> DEST_OPSEL_BIT & 1)]
        for i, name in enumerate(SOURCES):
            negated = bool(inst["neg"] >> i & 1)
            if halves and is_half(idef.operand(name)):
                # LLVM reads a VGPR half from the low 8 bits, whatever the source's top bit says.
                texts.append(("-" if negated else "") + self.vgpr_text(inst[name] & 0xFF, True, opsel >> i & 1))
            else:
                texts.append(vgpr_slot_text(inst[name], inst.isa.arch, negated))
        words = [", ".join(texts)]
        if inst["clmp"]:
            words.append("clamp")
        if has_op_sel(idef) and opsel:
            words.append(f"op_sel:[{','.join(str(opsel >> i & 1) for i in range(4))}]")
        words.append(f"wait_exp:{inst['waitexp']}")
        return f"{self.mnemonic(inst)} {' '.join(words)}"

    @staticmethod
    def vgpr_text(index: int, half: bool, high: int) -> str:
        text = ops.register_range("v", index, 1)
        return f"{text}.{'h' if high else 'l'}" if half else text

    def candidates(self, isa: ISA, base: Format):
        return lower_candidates(isa, base)

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        common.expect_count(stmt.operands, 1 + len(SOURCES), stmt.mnemonic.column)
        fields = {"op": idef.opcode, "neg": 0, "clmp": 0, "waitexp": 0}
        suffix_hi, suffix_lo = 0, 0  # op_sel bits the .h/.l suffixes set, and those they clear
        unsuffixed = []  # 16-bit operands written without a suffix
        for i, (name, piece) in enumerate(zip(("vdst", *SOURCES), stmt.operands)):
            bit = DEST_OPSEL_BIT if name == "vdst" else i - 1
            negated, text = split_negation(piece) if name != "vdst" else (False, piece.text)
            half = is_half(idef.operand(name))
            index, high = parse_vgpr_half(piece, text, half, isa.arch)
            fields[name] = index if name == "vdst" else index + ops.VGPR_BASE
            fields["neg"] |= negated << bit
            if high is None:
                unsuffixed += [piece] if half else []
            else:
                suffix_hi |= high << bit
                suffix_lo |= (not high) << bit
        # Suffixes select LLVM's true16 form of the instruction: then every 16-bit operand needs one.
        if (suffix_hi | suffix_lo) and unsuffixed:
            raise unsuffixed[0].error("invalid operand for instruction")
        if (suffix_hi | suffix_lo) and not uses_true16(isa):
            raise stmt.mnemonic.error("operands are not valid for this GPU or mode")
        slots = [("clamp",), ("op_sel",), ("wait_exp",)] if has_op_sel(idef) else [("clamp",), ("wait_exp",)]
        mods = Modifiers(stmt.modifiers, slots)
        fields["clmp"] = mods.flag("clamp")
        if "wait_exp" in mods.pieces:
            fields["waitexp"] = parse_named_value(mods.pieces["wait_exp"], "wait_exp", MAX_WAIT_EXP,
                                                  "invalid wait_exp value.")
        op_sel = 0
        if "op_sel" in mods.pieces:
            op_sel = parse_op_sel(mods.pieces["op_sel"])
            if op_sel & suffix_lo:
                raise mods.pieces["op_sel"].error("op_sel operand conflicts with 16-bit operand suffix")
        fields["opsel"] = suffix_hi | op_sel
        return fmt, fields


def split_negation(piece: Piece) -> tuple[bool, str]:
    """`-v2` and `neg(v2)` negate a source."""
    text = piece.text.strip()
    if text.startswith("-"):
        return True, text[1:].strip()
    if text.lower().startswith("neg(") and text.endswith(")"):
        return True, text[4:-1].strip()
    return False, text


def parse_vgpr_half(piece: Piece, text: str, half: bool, arch: str) -> tuple[int, int | None]:
    """(VGPR index, 1 for `.h`, 0 for `.l`, None without suffix); only 16-bit operands take one."""
    base, suffix = text, None
    if half and text[-2:].lower() in (".l", ".h"):
        base, suffix = text[:-2], text[-1].lower()
    reg = ops.parse_register(base, arch)
    if reg is None or reg.file != "v" or reg.count != 1:
        raise piece.error("invalid operand for instruction")
    return reg.value - ops.VGPR_BASE, None if suffix is None else int(suffix == "h")


OP_SEL = re.compile(r"^op_sel:\[([01]),([01]),([01]),([01])\]$", re.IGNORECASE)


def parse_op_sel(piece: Piece) -> int:
    m = OP_SEL.match(piece.text.replace(" ", ""))
    if m is None:
        raise AsmError("invalid op_sel operand", piece.column)
    return sum(int(bit) << i for i, bit in enumerate(m.groups()))

"""Flat, global and scratch memory: FLAT/GLOBAL/SCRATCH (gfx11, gfx9), VFLAT/VGLOBAL/VSCRATCH (gfx12);
and the cache-policy modifiers that buffer.py shares.

Text: `mnemonic vdst, vaddr, data, saddr offset:N cache-policy` with the operands the instruction
has. An atomic writes vdst only when it returns the old value (glc on gfx11, sc0 on gfx9, a
TH_ATOMIC_RETURN hint on gfx12). The address: flat takes a 64-bit VGPR address; global a 64-bit
one with saddr `off`, else a 32-bit offset from the SGPR pair; scratch a 32-bit VGPR offset when
the `sve` bit says so (else `off`), plus an optional SGPR (`off` when null). Offsets are signed,
except flat's on gfx11 and gfx9 (12 bits unsigned).

Cache policy: `glc slc dlc` (gfx11), `sc0 nt sc1` (gfx9), `th:TH_... scope:SCOPE_... nv` (gfx12).
"""
from __future__ import annotations

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Format, InstrDef
from gpubench.isa.syntax import common, salu
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.ds import (InvalidEncoding, Modifier, base_opcodes, data_in_agprs,
                                    modifiers_of, operand_pieces, parse_vector, register_class,
                                    vector_text)
from gpubench.isa.syntax.statement import AsmError, Piece, Statement

# ---- cache policy, shared with buffer.py --------------------------------------------------------

# The bits, in LLVM's order of printing, per family: field name -> word.
CACHE_BITS = {"rdna3": {"glc": "glc", "slc": "slc", "dlc": "dlc"},
              "cdna": {"sc0": "sc0", "nt": "nt", "sc1": "sc1"}}
# The bit that makes an atomic return the old value.
RETURN_BIT = {"rdna3": "glc", "cdna": "sc0"}

LOAD, STORE, ATOMIC = "LOAD", "STORE", "ATOMIC"
# gfx12 temporal hints per kind of operation; 3 is *_BYPASS at system scope.
TH_NAMES = {
    LOAD: {1: "NT", 2: "HT", 3: "LU", 4: "NT_RT", 5: "RT_NT", 6: "NT_HT"},
    STORE: {1: "NT", 2: "HT", 3: "WB", 4: "NT_RT", 5: "RT_NT", 6: "NT_HT", 7: "NT_WB"},
}
TH_BYPASS = 3
TH_ATOMIC_RETURN, TH_ATOMIC_NT, TH_ATOMIC_CASCADE = 1, 2, 4
SCOPES = {1: "SCOPE_SE", 2: "SCOPE_DEV", 3: "SCOPE_SYS"}
SCOPE_DEV, SCOPE_SYS = 2, 3


def operation_kind(idef: InstrDef) -> str:
    """Which temporal hints apply: by name, as LLVM's instruction flags have it."""
    if "_ATOMIC_" in idef.name:
        return ATOMIC
    return STORE if "STORE" in idef.name else LOAD


def returns_data(inst: Instruction) -> bool:
    """Whether an atomic returns the pre-op value (its vdst is an operand)."""
    if inst.isa.arch == "rdna4":
        return bool(inst["th"] & TH_ATOMIC_RETURN)
    return bool(inst[RETURN_BIT[inst.isa.arch]])


def th_text(kind: str, th: int, scope: int) -> str:
    if kind == ATOMIC:
        if th & TH_ATOMIC_CASCADE:
            if scope < SCOPE_DEV:
                return f"TH_ATOMIC_0x{th:x}"
            return "TH_ATOMIC_CASCADE_" + ("NT" if th & TH_ATOMIC_NT else "RT")
        if th & TH_ATOMIC_NT:
            return "TH_ATOMIC_NT" + ("_RETURN" if th & TH_ATOMIC_RETURN else "")
        return "TH_ATOMIC_RETURN"
    if th not in TH_NAMES[kind]:  # a load's 7 is reserved
        return f"0x{th:x}"
    name = "BYPASS" if th == TH_BYPASS and scope == SCOPE_SYS else TH_NAMES[kind][th]
    return f"TH_{kind}_{name}"


def cache_policy_words(inst: Instruction, kind: str) -> list[str]:
    arch = inst.isa.arch
    if arch != "rdna4":
        return [word for name, word in CACHE_BITS[arch].items() if inst[name]]
    th, scope = inst["th"], inst["scope"]
    words = [f"th:{th_text(kind, th, scope)}"] if th else []
    if scope:
        words.append(f"scope:{SCOPES[scope]}")
    return words + (["nv"] if inst["nv"] else [])


def _th_value(kind: str, text: str) -> int | None:
    """The hint a `th:` value names; `TH_<KIND>_BYPASS` needs system scope (checked by the caller)."""
    if kind == ATOMIC:
        names = {"TH_ATOMIC_RT": 0, "TH_ATOMIC_RETURN": 1, "TH_ATOMIC_NT": 2, "TH_ATOMIC_NT_RETURN": 3,
                 "TH_ATOMIC_CASCADE_RT": 4, "TH_ATOMIC_CASCADE_NT": 6}
        return names.get(text)
    prefix = f"TH_{kind}_"
    if not text.startswith(prefix):
        return None
    name = text[len(prefix):]
    if name in ("RT", "BYPASS"):
        return 0 if name == "RT" else TH_BYPASS
    return next((th for th, n in TH_NAMES[kind].items() if n == name), None)


CACHE_WORDS = {"glc", "slc", "dlc", "sc0", "sc1", "nt", "th", "scope", "nv"}


def reject_repeats(modifiers: list[Modifier]) -> None:
    seen = set()
    for modifier in modifiers:
        if modifier.name in seen:
            duplicate_policy = modifier.name in CACHE_WORDS
            message = "duplicate cache policy modifier" if duplicate_policy else "not a valid operand."
            raise modifier.piece.error(message)
        seen.add(modifier.name)


def assemble_cache_policy(arch: str, kind: str, modifier: Modifier, fields: dict[str, int]) -> bool:
    """Sets the field of one cache-policy modifier; False if it is none."""
    if arch != "rdna4":
        name = next((f for f, word in CACHE_BITS[arch].items() if word == modifier.name), None)
        if name is None or modifier.value is not None:
            return False
        fields[name] = 1
        return True
    if modifier.name == "nv" and modifier.value is None:
        raise modifier.piece.error("nv is not supported on this GPU")  # it decodes, though
    if modifier.name == "th" and modifier.value is not None:
        th = _th_value(kind, modifier.value.upper())
        if th is None and any(_th_value(k, modifier.value.upper()) is not None for k in (LOAD, STORE, ATOMIC)):
            raise modifier.piece.error(f"invalid th value for {kind.lower()} instructions")
        if th is None:
            raise modifier.value_piece().error("invalid th value")
        fields["th"] = th
        if modifier.value.upper().endswith("_BYPASS"):
            fields["scope"] = SCOPE_SYS
    elif modifier.name == "scope" and modifier.value is not None:
        scope = next((s for s, n in SCOPES.items() if n == modifier.value.upper()), None)
        if scope is None and modifier.value.upper() != "SCOPE_CU":
            raise modifier.value_piece().error("invalid scope value")
        fields["scope"] = scope or 0
    else:
        return False
    return True


def check_returning_atomic(arch: str, kind: str, returning: bool, fields: dict[str, int],
                           modifiers: list[Modifier], stmt: Statement) -> None:
    """An atomic written with a destination must ask for the old value; gfx9/gfx11 also forbid asking
    without one (gfx12 LLVM encodes the hint as written)."""
    if kind != ATOMIC:
        return
    if arch == "rdna4":
        if returning and not fields.get("th", 0) & TH_ATOMIC_RETURN:
            raise AsmError("instruction must use th:TH_ATOMIC_RETURN", stmt.mnemonic.column)
        return
    word = CACHE_BITS[arch][RETURN_BIT[arch]]
    if returning and not fields.get(RETURN_BIT[arch]):
        raise AsmError(f"instruction must use {word}", stmt.mnemonic.column)
    if not returning and fields.get(RETURN_BIT[arch]):
        piece = next(m.piece for m in modifiers if m.name == word)
        raise piece.error(f"instruction must not use {word}")


# ---- flat/global/scratch --------------------------------------------------------------------

FLAT, GLOBAL, SCRATCH = "FLAT", "GLOBAL", "SCRATCH"
SEGMENT_OF = {"FLAT": FLAT, "GLOBAL": GLOBAL, "SCRATCH": SCRATCH,
              "VFLAT": FLAT, "VGLOBAL": GLOBAL, "VSCRATCH": SCRATCH}
# gfx12 LLVM decodes bit 48 as gfx1250's `scale_offset` (the spec has no field there), and prints it,
# but assembles it on no target of ours.
SCALE_OFFSET_BIT = 48
# Field names per family: the spec renamed them for gfx12.
ADDRESS = {"rdna3": "addr", "cdna": "addr", "rdna4": "vaddr"}
DATA = {"rdna3": "data", "cdna": "data", "rdna4": "vsrc"}
OFFSET = {"rdna3": "offset", "cdna": "offset", "rdna4": "ioffset"}
# The saddr value that means none (`off`), and what the flat segment, which has none, encodes.
NULL_SADDR = {"rdna3": 124, "rdna4": 124, "cdna": 127}
FLAT_SADDR = {"rdna3": 124, "rdna4": 124, "cdna": 0}
# LLVM's classes for saddr leave out exec (64-bit) and exec_hi (32-bit): it flags them. The
# addtid operations and the loads into LDS take any SGPR pair.
SADDR_EXCLUDED = {2: ("exec", "SReg_64_XEXEC_XNULL"), 1: ("exec_hi", "SReg_32_XEXEC_HI")}


def saddr_excluded(idef: InstrDef, dwords: int) -> tuple[str | None, str]:
    if "_ADDTID_" in idef.name or (dwords == 2 and loads_to_lds(idef)):
        return None, ""
    return SADDR_EXCLUDED[dwords]


# Operations of the spec that LLVM 22 lacks on a family (both ways): gfx11's loads into LDS and
# flat (not global) csub. (They belong in autogen's per-target `missing` lists.)
NOT_IN_LLVM = {"rdna3": {"FLAT_ATOMIC_CSUB_U32", "GLOBAL_LOAD_LDS_ADDTID_B32", "GLOBAL_LOAD_LDS_U8",
                         "GLOBAL_LOAD_LDS_I8", "GLOBAL_LOAD_LDS_U16", "GLOBAL_LOAD_LDS_I16", "GLOBAL_LOAD_LDS_B32",
                         "SCRATCH_LOAD_LDS_U8", "SCRATCH_LOAD_LDS_I8", "SCRATCH_LOAD_LDS_U16",
                         "SCRATCH_LOAD_LDS_I16", "SCRATCH_LOAD_LDS_B32"}}


def segment(inst_or_fmt) -> str:
    fmt = inst_or_fmt.fmt if isinstance(inst_or_fmt, Instruction) else inst_or_fmt
    return SEGMENT_OF[fmt.name]


def offset_bits(arch: str, fmt: Format) -> int:
    return fmt.field(OFFSET[arch]).width


# gfx9/gfx11 flat offsets: LLVM prints the field (13 bits on gfx11) but assembles 12 bits unsigned.
FLAT_OFFSET_BITS = 12


def signed_offset(arch: str, seg: str) -> bool:
    return arch == "rdna4" or seg != FLAT


def loads_to_lds(idef: InstrDef) -> bool:
    """global/scratch loads into LDS (gfx9): LLVM writes no vdst, whatever the spec lists."""
    return "_LOAD_LDS_" in idef.name


class Layout:
    """Which operands an instruction writes, in order, for one encoding (or, assembling, one form)."""

    def __init__(self, arch: str, seg: str, idef: InstrDef, returning: bool):
        self.arch, self.seg, self.idef = arch, seg, idef
        self.kind = operation_kind(idef)
        spec = {o.field for o in idef.operands}
        self.has_vdst = "vdst" in spec and not loads_to_lds(idef) and (self.kind != ATOMIC or returning)
        self.has_address = ADDRESS[arch] in spec
        self.has_data = DATA[arch] in spec
        self.has_saddr = "saddr" in spec and seg != FLAT

    def data_operands(self) -> int:
        return self.has_vdst + self.has_data

    def vdst_dwords(self, wave_size: int) -> int:
        data = self.idef.operand(DATA[self.arch])
        if self.kind == ATOMIC and data is not None:
            # An atomic returns one value of the data's width, half of it for compare-swap.
            return max(1, common.dwords(data) // (2 if "CMPSWAP" in self.idef.name else 1))
        dwords = common.dwords(self.idef.operand("vdst"))
        if "_LOAD_TR_" in self.idef.name and wave_size == 64:
            return dwords // 2  # a transposing load spreads its block over twice the lanes
        return dwords

    def address_dwords(self, saddr_null: bool) -> int:
        return 2 if self.seg == FLAT or (self.seg == GLOBAL and saddr_null) else 1

    def saddr_dwords(self) -> int:
        return 2 if self.seg == GLOBAL else 1


@register("FLAT", "GLOBAL", "SCRATCH", "VFLAT", "VGLOBAL", "VSCRATCH")
class FlatMemory(FormatSyntax):
    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def render(self, inst: Instruction) -> str:
        isa, idef, arch, seg = inst.isa, inst.idef, inst.isa.arch, segment(inst)
        self.check_encoding(inst, seg)
        layout = Layout(arch, seg, idef, returns_data(inst))
        agpr = bool(inst.get("acc"))
        klass = register_class(layout.data_operands(), agpr)
        saddr_null = inst["saddr"] == NULL_SADDR[arch]
        texts = []
        if layout.has_vdst:
            texts.append(vector_text(isa, inst["vdst"], layout.vdst_dwords(isa.wave_size), agpr, klass))
        if layout.has_address:
            texts.append(self.address_text(inst, layout, saddr_null))
        if layout.has_data:
            dwords = common.dwords(idef.operand(DATA[arch]))
            texts.append(vector_text(isa, inst[DATA[arch]], dwords, agpr, klass))
        if layout.has_saddr:
            texts.append("off" if saddr_null else self.saddr_text(inst, layout))
        if not texts:  # gfx12's cache controls (global_inv ...): only the cache policy
            return " ".join([self.mnemonic(inst), *cache_policy_words(inst, layout.kind)])
        words = [f"{self.mnemonic(inst)} {', '.join(texts)}"]
        offset = inst[OFFSET[arch]]
        if signed_offset(arch, seg):
            offset = salu.signed(offset, offset_bits(arch, inst.fmt))
        if offset:
            words.append(f"offset:{offset}")
        if arch == "rdna4" and inst.word >> SCALE_OFFSET_BIT & 1:
            words.append("scale_offset")
        return " ".join(words + cache_policy_words(inst, layout.kind))

    @staticmethod
    def check_encoding(inst: Instruction, seg: str) -> None:
        idef, arch = inst.idef, inst.isa.arch
        if not idef.name.startswith(seg + "_") or idef.name in NOT_IN_LLVM.get(arch, ()):
            raise InvalidEncoding(f"LLVM has no {idef.name} in the {seg.lower()} segment")
        if loads_to_lds(idef) and inst.get("acc"):
            raise InvalidEncoding(f"{idef.name} has no AGPR form")
        if seg != SCRATCH and inst["sve"]:
            raise InvalidEncoding("sve is a scratch bit")
        if (seg == FLAT or idef.operand("saddr") is None) and inst["saddr"] != FLAT_SADDR[arch]:
            raise InvalidEncoding(f"{idef.name} takes no saddr (saddr={inst['saddr']})")

    @staticmethod
    def address_text(inst: Instruction, layout: Layout, saddr_null: bool) -> str:
        if layout.seg == SCRATCH and not inst["sve"]:
            return "off"
        return vector_text(inst.isa, inst[ADDRESS[layout.arch]], layout.address_dwords(saddr_null))

    @staticmethod
    def saddr_text(inst: Instruction, layout: Layout) -> str:
        dwords = layout.saddr_dwords()
        text = salu.scalar_register_text(inst["saddr"], dwords, layout.arch)
        if text is None:
            raise InvalidEncoding(f"saddr={inst['saddr']} names no {dwords}-dword register")
        excluded, klass = saddr_excluded(inst.idef, dwords)
        if text == excluded:
            text += f"/*Invalid register, operand has '{klass}' register class*/"
        return text

    def candidates(self, isa: ISA, base: Format):
        seg = segment(base)
        for idef in base_opcodes(isa, base):
            if idef.name.startswith(seg + "_") and idef.name not in NOT_IN_LLVM.get(isa.arch, ()):
                yield common.lower_name(idef), base, idef

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        arch, seg = isa.arch, segment(fmt)
        kind = operation_kind(idef)
        returning = kind == ATOMIC and self.written_with_destination(arch, seg, idef, stmt)
        layout = Layout(arch, seg, idef, returning)
        names = [n for n, present in (("vdst", layout.has_vdst), ("address", layout.has_address),
                                      ("data", layout.has_data), ("saddr", layout.has_saddr)) if present]
        pieces = dict(zip(names, operand_pieces(stmt, len(names))))
        fields = {"op": idef.opcode, "saddr": FLAT_SADDR[arch] if seg == FLAT else NULL_SADDR[arch]}
        if layout.has_saddr:
            self.assemble_saddr(isa, layout, pieces["saddr"], fields)
        agpr_ok = fmt.field("acc") is not None
        data = []
        if layout.has_vdst:
            fields["vdst"], agpr = parse_vector(isa, pieces["vdst"], layout.vdst_dwords(isa.wave_size), agpr_ok)
            data.append((pieces["vdst"], agpr))
        if layout.has_address:
            self.assemble_address(isa, layout, pieces["address"], pieces.get("saddr"), fields)
        if layout.has_data:
            dwords = common.dwords(idef.operand(DATA[arch]))
            fields[DATA[arch]], agpr = parse_vector(isa, pieces["data"], dwords, agpr_ok)
            data.append((pieces["data"], agpr))
        if data_in_agprs(data):
            fields["acc"] = 1
        modifiers = modifiers_of(stmt, len(names))
        self.assemble_modifiers(isa, fmt, layout, modifiers, fields)
        check_returning_atomic(arch, kind, returning, fields, modifiers, stmt)
        return fmt, fields

    @staticmethod
    def written_with_destination(arch: str, seg: str, idef: InstrDef, stmt: Statement) -> bool:
        """Whether an atomic is written in its returning form: one operand more than without."""
        without = Layout(arch, seg, idef, returning=False)
        count = without.has_address + without.has_data + without.has_saddr
        return len(stmt.operands) > count

    @staticmethod
    def assemble_saddr(isa: ISA, layout: Layout, piece: Piece, fields: dict[str, int]) -> None:
        if piece.text.strip().lower() == "off":
            return
        reg = salu.parse_register_piece(piece, isa.arch)
        excluded, _ = saddr_excluded(layout.idef, layout.saddr_dwords())
        if reg is None or reg.value >= 128 or piece.text.strip().lower() == excluded:
            raise piece.error("invalid operand for instruction")
        code = salu.scalar_register_code(piece, reg, layout.saddr_dwords(), isa.arch)
        if code == NULL_SADDR[isa.arch]:  # null means `off`, which must be written so
            raise piece.error("invalid operand for instruction")
        fields["saddr"] = code

    @staticmethod
    def assemble_address(isa: ISA, layout: Layout, piece: Piece, saddr: Piece | None,
                         fields: dict[str, int]) -> None:
        """The VGPR address; like LLVM, blame a global address of the wrong width on saddr."""
        if layout.seg == SCRATCH:
            if piece.text.strip().lower() == "off":
                return
            fields["sve"] = 1
        dwords = layout.address_dwords(fields["saddr"] == NULL_SADDR[isa.arch])
        reg = salu.parse_register_piece(piece, isa.arch)
        if layout.seg == GLOBAL and reg is not None and reg.file == "v" and reg.count == 3 - dwords:
            raise saddr.error("invalid operand for instruction")
        fields[ADDRESS[isa.arch]], _ = parse_vector(isa, piece, dwords)

    @staticmethod
    def assemble_modifiers(isa: ISA, fmt: Format, layout: Layout, modifiers: list[Modifier],
                           fields: dict[str, int]) -> None:
        arch = isa.arch
        for modifier in modifiers:
            if modifier.name == "offset" and modifier.value is not None:
                fields[OFFSET[arch]] = FlatMemory.offset_value(arch, fmt, layout.seg, modifier)
            elif modifier.name == "scale_offset" and arch == "rdna4":
                raise modifier.piece.error("scale_offset is not supported on this GPU")
            elif not assemble_cache_policy(arch, layout.kind, modifier, fields):
                raise modifier.piece.error("invalid operand for instruction")
        reject_repeats(modifiers)

    @staticmethod
    def offset_value(arch: str, fmt: Format, seg: str, modifier: Modifier) -> int:
        if not signed_offset(arch, seg):
            limit = (1 << FLAT_OFFSET_BITS) - 1
            return modifier.integer(0, limit, f"expected a {FLAT_OFFSET_BITS}-bit unsigned offset")
        bits = offset_bits(arch, fmt)
        half = 1 << (bits - 1)
        value = modifier.integer(-half, half - 1, f"expected a {bits}-bit signed offset")
        return value & ((1 << bits) - 1)

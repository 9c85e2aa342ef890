"""Image memory instructions: MIMG (gfx11), VIMAGE and VSAMPLE (gfx12).

Text: `mnemonic vdata, vaddr, rsrc[, samp] dmask:0xf dim:SQ_RSRC_IMG_2D ...flags`.

The encodings do not say how many VGPRs vdata and vaddr span: LLVM derives it from the opcode,
dmask, d16, tfe, dim and a16 (AMDGPUDisassembler::convertMIMGInst), and where no instruction of
that size exists it prints the operands at the size its decoder table defaults to. `decoded_layout`
follows that logic; the facts it needs about each opcode (MIMGBaseOpcode in LLVM's
MIMGInstructions.td) come from the opcode's name, see `ImageOp`.

Addresses are one VGPR range (gfx11's default encoding) or a bracketed list of VGPRs, each in its
own byte: gfx11's NSA form (bit `nsa`, with a dword of extra addresses the spec's format does not
model) and every gfx12 encoding. When the list is full, its last register holds the rest
("partial NSA"): `[v4, v6, v7, v8, v[9:13]]`.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Field, Format, InstrDef
from gpubench.isa.syntax import common
from gpubench.isa.syntax import operands as ops
from gpubench.isa.syntax.base import AsmContext, FormatSyntax, register
from gpubench.isa.syntax.statement import AsmError, Piece, Statement


class InvalidImageEncoding(ValueError):
    """Bits that LLVM's decoder rejects for this opcode."""


# ---- LLVM's facts about image opcodes -------------------------------------------------------


@dataclass(frozen=True)
class Dim:
    name: str  # as in dim:SQ_RSRC_IMG_<name>
    coordinates: int
    gradients: int


# By encoding (AMDGPUDimProps in LLVM's SIInstrInfo.td).
DIMS = (Dim("1D", 1, 2), Dim("2D", 2, 4), Dim("3D", 3, 6), Dim("CUBE", 3, 4), Dim("1D_ARRAY", 2, 2),
        Dim("2D_ARRAY", 3, 4), Dim("2D_MSAA", 3, 4), Dim("2D_MSAA_ARRAY", 4, 4))
DIM_PREFIX = "SQ_RSRC_IMG_"

# Sample/gather name parts that add an address dword (compare value, bias, texel offset) and
# those that add a lod or clamp component (AMDGPUSampleVariant in LLVM).
EXTRA_ARG_PARTS = {"C", "B", "O"}
LOD_CLAMP_PARTS = {"L", "CL"}

# The ray layout of LLVM's BVH instructions: VGPRs per address operand (node pointer, ray extent,
# origin, direction, inverse direction or offset).
BVH_ADDRESSES = {
    "IMAGE_BVH_INTERSECT_RAY": (1, 1, 3, 3, 3),
    "IMAGE_BVH64_INTERSECT_RAY": (2, 1, 3, 3, 3),
    "IMAGE_BVH8_INTERSECT_RAY": (2, 2, 3, 3, 1),
    "IMAGE_BVH_DUAL_INTERSECT_RAY": (2, 2, 3, 3, 2),
}

# Address dword counts of LLVM's non-sampler instruction variants (vaddr of 1 to 4 VGPRs).
NON_SAMPLER_ADDRESS_WORDS = (1, 2, 3, 4)


@dataclass(frozen=True)
class ImageOp:
    """What LLVM knows about an image opcode beyond the spec: how to size its operands."""

    sampler: bool  # takes a sampler descriptor
    msaa: bool  # reads one fragment of a multisampled image
    gather4: bool  # returns 4 dwords whatever dmask says (gather4, msaa_load)
    atomic: bool
    store: bool
    ray: tuple[int, ...]  # BVH_ADDRESSES of a BVH instruction, else ()
    has_d16: bool
    coordinates: bool
    lod_clamp_mip: int  # 1 when a lod, clamp or mip level follows the coordinates
    extra_args: int  # dwords before the coordinates (offset, bias, compare value)
    gradients: bool
    g16: bool  # 16-bit gradients, packed two to a dword
    address_words: tuple[int, ...]  # every address size some dim/a16 gives (AllNumAddrWords)
    data_sizes: tuple[int, ...]  # the vdata sizes LLVM has instructions for
    raw_data: int  # the vdata size LLVM prints when it cannot size vdata

    @property
    def bvh(self) -> bool:
        return bool(self.ray)

    def ray_addresses(self, a16: int) -> tuple[int, ...]:
        """VGPRs per BVH address operand; with a16 (gfx11) direction and inverse share three."""
        return self.ray[:-1] if a16 else self.ray


@functools.cache
def image_op(idef: InstrDef) -> ImageOp:
    name = idef.name
    sampler = idef.operand("ssamp") is not None or idef.operand("samp") is not None
    msaa = name == "IMAGE_MSAA_LOAD"
    gather4 = "GATHER4" in name or msaa
    atomic, cmpswap = "ATOMIC" in name, "CMPSWAP" in name
    ray = BVH_ADDRESSES.get(name, ())
    parts = set(name.split("_")[2:]) if sampler else set()
    # A lod, clamp or mip level follows the coordinates; get_resinfo's mip level is its only address.
    lod_clamp_mip = int(bool(parts & LOD_CLAMP_PARTS) or "MIP" in name.split("_") or name == "IMAGE_GET_RESINFO")
    gradients, g16 = "D" in parts, "G16" in parts
    extra_args = len(parts & EXTRA_ARG_PARTS)
    if sampler:
        low, high = (2, 7 if g16 else 9) if gradients else (1, 3)
        words = tuple(w + extra_args for w in range(low, high + 1 + lod_clamp_mip))
    else:
        words = NON_SAMPLER_ADDRESS_WORDS
    if atomic:
        data_sizes = (2, 3, 4, 5) if cmpswap else (1, 2, 3)
    elif msaa:
        data_sizes = (2, 3, 4, 5)
    elif gather4:
        data_sizes = (2, 4, 5)
    else:
        data_sizes = (1, 2, 3, 4, 5)
    raw_data = 4 if msaa else data_sizes[0]
    has_d16 = not (atomic or ray or "PCK" in name or name in ("IMAGE_GET_RESINFO", "IMAGE_GET_LOD"))
    return ImageOp(sampler, msaa, gather4, atomic, "STORE" in name, ray, has_d16,
                   name != "IMAGE_GET_RESINFO", lod_clamp_mip, extra_args, gradients, g16, words,
                   data_sizes, raw_data)


# ---- operand sizes --------------------------------------------------------------------------


@dataclass(frozen=True)
class AddressForm:
    separate: bool  # a list of VGPRs, one per encoded byte, rather than one range
    min_operands: int
    max_operands: int  # a longer address puts the rest in the last register (partial NSA)


PACKED = AddressForm(False, 1, 1)
GFX11_NSA = AddressForm(True, 2, 5)
GFX12_IMAGE = AddressForm(True, 1, 4)

# LLVM defines a packed-address instruction per range's top size when any size in the range
# occurs (vaddr of 3 VGPRs also gets a 4-VGPR variant, 5-7 an 8-VGPR one ...).
PACKED_RANGES = ((1, 1), (2, 2), (3, 3), (3, 4), (5, 5), (6, 6), (7, 7), (5, 8), (9, 9), (10, 10),
                 (11, 11), (12, 12), (13, 16))


def packed_sizes(op: ImageOp) -> list[int]:
    """Packed vaddr sizes with an instruction, the one LLVM's decoder defaults to first."""
    return [high for low, high in PACKED_RANGES if any(low <= w <= high for w in op.address_words)]


@dataclass(frozen=True)
class Layout:
    data: int  # VGPRs of vdata
    addresses: tuple[int, ...]  # VGPRs of each address operand


def data_size(op: ImageOp, dmask: int, d16: int, tfe: int) -> int:
    size = 4 if op.gather4 else max(1, (dmask & 0xF).bit_count())
    if d16:
        size = (size + 1) // 2
    return size + tfe


def address_size(op: ImageOp, dim: Dim, a16: int) -> int:
    """Address dwords (AMDGPU::getAddrSizeMIMGOp; RDNA has 16-bit gradients only in _g16 ops)."""
    components = (dim.coordinates if op.coordinates else 0) + op.lod_clamp_mip
    words = op.extra_args + (math.ceil(components / 2) if a16 else components)
    if op.gradients:
        words += (dim.gradients // 2 + 1) // 2 * 2 if op.g16 else dim.gradients
    return words


def address_layout(op: ImageOp, form: AddressForm, size: int) -> tuple[int, ...] | None:
    """VGPRs per address operand of the instruction for ``size`` dwords; None if LLVM has none."""
    if not form.separate:
        return (size,) if size in packed_sizes(op) else None
    if size not in op.address_words or size < form.min_operands:
        return None
    if size <= form.max_operands:
        return (1,) * size
    return (1,) * (form.max_operands - 1) + (size - form.max_operands + 1,)


def raw_layout(op: ImageOp, form: AddressForm) -> Layout:
    """The operand sizes of the instruction LLVM's decoder table picks for the opcode."""
    if not form.separate:
        return Layout(op.raw_data, (packed_sizes(op)[0],))
    count = max(w for w in op.address_words if form.min_operands <= w <= form.max_operands)
    return Layout(op.raw_data, (1,) * count)


def decoded_layout(op: ImageOp, form: AddressForm, dim: Dim, a16: int, dmask: int, d16: int,
                   tfe: int, vdata: int, addresses: list[int]) -> Layout:
    """The operand sizes LLVM prints: sized by dmask/d16/tfe and dim/a16 where it can (VGPR
    numbers ``vdata`` and ``addresses`` decide whether a widened register still fits)."""
    raw = raw_layout(op, form)
    data, size = data_size(op, dmask, d16, tfe), address_size(op, dim, a16)
    if data == raw.data and size == sum(raw.addresses):
        return raw
    layout = address_layout(op, form, size)
    if layout is None or data not in op.data_sizes:
        return raw
    if data != raw.data and vdata + data > ops.VGPR_BASE:
        return raw
    widened = len(raw.addresses) - 1  # the register LLVM widens: vaddr0, or the last one (partial)
    if layout[-1] > 1 and size != sum(raw.addresses) and addresses[widened] + layout[-1] > ops.VGPR_BASE:
        return raw
    return Layout(data, layout)


def bvh_layout(idef: InstrDef, a16: int, separate: bool) -> Layout:
    addresses = image_op(idef).ray_addresses(a16)
    return Layout(common.dwords(idef.operand("vdata")), addresses if separate else (sum(addresses),))


# ---- scalar descriptors ---------------------------------------------------------------------

SGPR_COUNT = 106
TTMP_COUNT = 16
NULL = 124


def descriptor_text(value: int, dwords: int) -> str:
    """An SGPR tuple in the 9-bit source space as LLVM prints it: tuples start at a multiple of 4;
    constants and VGPRs come out with LLVM's complaint, reserved values are invalid."""
    bits = 32 * dwords
    if value < SGPR_COUNT:
        first = value & ~3
        if first + dwords <= SGPR_COUNT:
            return ops.register_range("s", first, dwords)
    elif ops.TTMP_BASE <= value < ops.TTMP_BASE + TTMP_COUNT:
        first = (value - ops.TTMP_BASE) & ~3
        if first + dwords <= TTMP_COUNT:
            return ops.register_range("ttmp", first, dwords)
    elif value == NULL:
        return "null"
    elif value >= ops.VGPR_BASE:
        text = ops.register_range("v", value - ops.VGPR_BASE, dwords)
        return f"{text}/*Invalid register, operand has 'SReg_{bits}_XNULL' register class*/"
    elif (constant := ops.inline_constant(value, 32)) is not None:
        return f"{constant}/*Invalid immediate*/"
    raise InvalidImageEncoding(f"{value} names no {bits}-bit scalar register tuple")


def parse_descriptor(piece: Piece, dwords: int, arch: str) -> int:
    """An aligned SGPR/TTMP tuple (never null: LLVM's assembler refuses it) as a source value."""
    reg = ops.parse_register(piece.text, arch)
    if reg is None or reg.file != "s" or reg.count != dwords or reg.value == NULL:
        raise piece.error("invalid operand for instruction")
    first = reg.value - ops.TTMP_BASE if reg.value >= ops.TTMP_BASE else reg.value
    if first % 4:
        raise piece.error("invalid register alignment")
    return reg.value


# ---- addresses as text ----------------------------------------------------------------------


def vgprs_text(first: int, count: int) -> str:
    return ops.register_range("v", first, count)


def addresses_text(registers: list[int], layout: tuple[int, ...], separate: bool) -> str:
    texts = [vgprs_text(reg, count) for reg, count in zip(registers, layout)]
    return f"[{', '.join(texts)}]" if separate and len(texts) > 1 else texts[0]


@dataclass(frozen=True)
class VGPRs:
    first: int  # VGPR index
    count: int
    piece: Piece  # where the text says so


def parse_vgprs(piece: Piece, arch: str) -> VGPRs:
    reg = ops.parse_register(piece.text, arch)
    if reg is None or reg.file != "v":
        raise piece.error("invalid operand for instruction")
    return VGPRs(reg.value - ops.VGPR_BASE, reg.count, piece)


def parse_addresses(piece: Piece, arch: str) -> tuple[list[VGPRs], bool]:
    """The address operand: one register (range), or a bracketed list (separate addresses)."""
    text = piece.text
    if not (text.startswith("[") and text.endswith("]")):
        return [parse_vgprs(piece, arch)], False
    items, column = [], piece.column + 1
    for item in text[1:-1].split(","):
        stripped = item.strip()
        where = Piece(stripped, column + len(item) - len(item.lstrip()))
        items.append(parse_vgprs(where, arch))
        column += len(item) + 1
    return items, len(items) > 1


# ---- modifiers ------------------------------------------------------------------------------


class Modifiers:
    """A statement's space-separated modifiers, read as LLVM does: in the order of ``slots``, each
    a tuple of names (a slot of several, like a cache policy, takes them in any order). A modifier
    that fits no later slot, or comes again, is an error at its column."""

    def __init__(self, pieces: list[Piece], slots: list[tuple[str, ...]], policy: tuple[str, ...] = ()):
        self.pieces: dict[str, Piece] = {}
        slot = 0
        for piece in pieces:
            name = piece.text.split(":", 1)[0].lower()
            while slot < len(slots) and name not in slots[slot]:
                slot += 1
            if slot == len(slots) or name in self.pieces:
                raise modifier_error(piece, name, name in self.pieces, policy)
            self.pieces[name] = piece
            if len(slots[slot]) == 1:
                slot += 1

    def flag(self, name: str) -> int:
        return int(name in self.pieces)

    def value(self, name: str) -> tuple[str, int] | None:
        """(text after `name:`, its column); None if absent."""
        piece = self.pieces.get(name)
        if piece is None:
            return None
        return piece.text.split(":", 1)[1] if ":" in piece.text else "", piece.column + len(name) + 1


def modifier_error(piece: Piece, name: str, repeated: bool, policy: tuple[str, ...]) -> AsmError:
    """LLVM's words for a modifier it could not place (cache policy words are parsed apart)."""
    if name in policy and repeated and ":" not in piece.text:
        return piece.error("duplicate cache policy modifier")
    if ":" in piece.text and name not in policy:
        return piece.error("not a valid operand.")
    return piece.error("invalid operand for instruction")


def parse_dmask(mods: Modifiers) -> int:
    value = mods.value("dmask")
    if value is None:
        return 0
    number = ops.parse_int(value[0])
    if number is None:
        raise AsmError("expected absolute expression", value[1])
    return number & 0xF


def parse_dim(mods: Modifiers, stmt: Statement) -> int:
    value = mods.value("dim")
    if value is None:
        raise stmt.mnemonic.error("missing dim operand")
    name = value[0].upper().removeprefix(DIM_PREFIX)
    for encoding, dim in enumerate(DIMS):
        if dim.name == name:
            return encoding
    raise AsmError("invalid dim value", value[1])


# ---- gfx12 cache policy (th:, scope:) -------------------------------------------------------

SCOPES = ("SCOPE_CU", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS")
SCOPE_DEV, SCOPE_SYS = 2, 3
TH_BYPASS = 3  # LU for loads, WB for stores; BYPASS at system scope
TH_RESERVED = 7  # no load name
TH_NAMES = {1: "NT", 2: "HT", 4: "NT_RT", 5: "RT_NT", 6: "NT_HT", 7: "NT_WB"}
TH_ATOMIC_RETURN, TH_ATOMIC_NT, TH_ATOMIC_CASCADE = 1, 2, 4


def th_kind(op: ImageOp) -> str:
    return "ATOMIC" if op.atomic else "STORE" if op.store else "LOAD"


def th_text(op: ImageOp, th: int, scope: int) -> str | None:
    """LLVM's name for a temporal hint (AMDGPUInstPrinter::printTH); None for the default."""
    if th == 0:
        return None
    kind = th_kind(op)
    if kind == "ATOMIC":
        if th & TH_ATOMIC_CASCADE:
            name = f"CASCADE_{'NT' if th & TH_ATOMIC_NT else 'RT'}" if scope >= SCOPE_DEV else f"0x{th:x}"
        elif th & TH_ATOMIC_NT:
            name = "NT_RETURN" if th & TH_ATOMIC_RETURN else "NT"
        else:
            name = "RETURN"
        return f"TH_ATOMIC_{name}"
    if kind == "LOAD" and th == TH_RESERVED:
        return f"0x{th:x}"
    if th == TH_BYPASS:
        name = "BYPASS" if scope == SCOPE_SYS else "WB" if kind == "STORE" else "LU"
    else:
        name = TH_NAMES[th]
    return f"TH_{kind}_{name}"


def th_value(op: ImageOp, name: str, scope: int, column: int) -> int:
    """The temporal hint named ``name`` (at ``column``, after `th:`) at this scope."""
    kind = th_kind(op)
    prefix, piece_column = f"TH_{kind}_", column - len("th:")
    if not name.startswith("TH_"):
        raise AsmError("expected an identifier", column)
    if not name.startswith(prefix):
        raise AsmError(f"invalid th value for {kind.lower()} instructions", piece_column)
    named = {}
    for th in range(1, 8):  # the lowest value of a name (cascades print without their return bit)
        named.setdefault(th_text(op, th, scope), th)
    if name in named and "0x" not in name:  # the printer's fallback for unnamed hints is no name
        return named[name]
    if name in (f"{prefix}BYPASS", f"{prefix}LU", f"{prefix}WB"):
        raise AsmError("scope and th combination is not valid", piece_column)
    raise AsmError("invalid th value", column)


def parse_cache_policy(op: ImageOp, mods: Modifiers) -> tuple[int, int]:
    """(th, scope) from `th:TH_...` and `scope:SCOPE_...`."""
    scope = 0
    if (value := mods.value("scope")) is not None:
        if value[0] not in SCOPES:
            raise AsmError("invalid scope value", value[1])
        scope = SCOPES.index(value[0])
    th = 0
    if (value := mods.value("th")) is not None:
        th = th_value(op, value[0], scope, value[1])
    return th, scope


# ---- the syntax -----------------------------------------------------------------------------

# Flags after the cache policy, in LLVM's order (`dmask dim unorm <policy> r128 a16 tfe lwe d16`).
FLAGS_AFTER_POLICY = ("r128", "a16", "tfe", "lwe", "d16")


class ImageSyntax(FormatSyntax):
    """What MIMG and VIMAGE/VSAMPLE share; the subclasses name their fields and cache policy."""

    RESOURCE = "rsrc"
    SAMPLER = "samp"
    BVH_FIXED: tuple[tuple[str, int], ...] = ()  # LLVM's fixed field values of the BVH instructions
    BVH_ZERO: tuple[str, ...] = ()  # fields the BVH instructions leave 0
    BVH_FLAGS: tuple[str, ...] = ()  # flags the BVH instructions take
    POLICY: tuple[str, ...] = ()  # the cache policy modifiers

    # -- what the encodings do differently
    def separate(self, inst: Instruction) -> bool:
        """Whether the addresses are a list of VGPRs rather than one range."""
        raise NotImplementedError

    def address_form(self, op: ImageOp, separate: bool) -> AddressForm:
        raise NotImplementedError

    def address_registers(self, inst: Instruction) -> list[int]:
        raise NotImplementedError

    def address_fields(self, fmt: Format, addresses: list[VGPRs], separate: bool) -> tuple[Format, dict[str, int]]:
        raise NotImplementedError

    def policy_words(self, inst: Instruction, op: ImageOp) -> list[str]:
        raise NotImplementedError

    def parse_policy(self, op: ImageOp, mods: Modifiers) -> dict[str, int]:
        raise NotImplementedError

    def check_unused_addresses(self, inst: Instruction, op: ImageOp) -> None:
        """Encodings whose unused address bytes LLVM's decoder insists on being 0 say so here."""

    def spacing(self, inst: Instruction, op: ImageOp) -> str:
        return " "

    # -- shared
    def mnemonic(self, inst: Instruction) -> str:
        return common.lower_name(inst.idef)

    def candidates(self, isa: ISA, base: Format):
        for idef in isa.instructions:
            if idef.name in base.allowed:
                yield common.lower_name(idef), base, idef

    @staticmethod
    def scale(fmt: Format, field: str) -> int:
        """A descriptor field holds an SGPR number, or (SRsrcField) the number of an SGPR quad."""
        return 4 if fmt.field(field).kind == "SRsrcField" else 1

    def check(self, inst: Instruction, op: ImageOp) -> None:
        if not op.has_d16:
            check_zero(inst, ("d16",), f"in {inst.name}")
        if not op.sampler:
            check_zero(inst, (self.SAMPLER,), f"in {inst.name}: it takes no sampler")
        if not op.bvh:
            self.check_unused_addresses(inst, op)
            return
        check_zero(inst, self.BVH_ZERO, f"in {inst.name}")
        for name, value in self.BVH_FIXED:
            if inst[name] != value:
                raise InvalidImageEncoding(f"{inst.name} needs {name}={value:#x}")

    def render(self, inst: Instruction) -> str:
        op = image_op(inst.idef)
        self.check(inst, op)
        form = self.address_form(op, self.separate(inst))
        registers = self.address_registers(inst)
        if op.bvh:
            layout = bvh_layout(inst.idef, inst.get("a16", 0), form.separate)
        else:
            layout = decoded_layout(op, form, DIMS[inst["dim"]], inst["a16"], inst["dmask"],
                                    inst["d16"], inst["tfe"], inst["vdata"], registers)
        texts = [vgprs_text(inst["vdata"], layout.data),
                 addresses_text(registers, layout.addresses, form.separate),
                 self.descriptor_operand(inst, self.RESOURCE)]
        if op.sampler:
            texts.append(self.descriptor_operand(inst, self.SAMPLER))
        words = [", ".join(texts), *self.flags(inst, op)]
        return f"{self.mnemonic(inst)}{self.spacing(inst, op)}{' '.join(words)}"

    def descriptor_operand(self, inst: Instruction, field: str) -> str:
        value = inst[field] * self.scale(inst.fmt, field)
        return descriptor_text(value, common.dwords(inst.idef.operand(field)))

    def flags(self, inst: Instruction, op: ImageOp) -> list[str]:
        if op.bvh:
            return [name for name in self.BVH_FLAGS if inst[name]]
        words = [f"dmask:0x{inst['dmask']:x}"] if inst["dmask"] else []
        words.append(f"dim:{DIM_PREFIX}{DIMS[inst['dim']].name}")
        if inst.get("unrm"):
            words.append("unorm")
        words += self.policy_words(inst, op)
        return words + [name for name in FLAGS_AFTER_POLICY if inst.get(name)]

    def assemble(self, isa: ISA, stmt: Statement, fmt: Format, idef: InstrDef, ctx: AsmContext):
        op = image_op(idef)
        common.expect_count(stmt.operands, 4 if op.sampler else 3, stmt.mnemonic.column)
        vdata_piece, address_piece = stmt.operands[:2]
        vdata = parse_vgprs(vdata_piece, isa.arch)
        addresses, separate = parse_addresses(address_piece, isa.arch)
        self.check_address_count(stmt, op, addresses)
        fields = {"op": idef.opcode, "vdata": vdata.first}
        descriptors = [(self.RESOURCE, stmt.operands[2])] + ([(self.SAMPLER, stmt.operands[3])] if op.sampler else [])
        for field, piece in descriptors:
            value = parse_descriptor(piece, common.dwords(idef.operand(field)), isa.arch)
            fields[field] = value // self.scale(fmt, field)
        mods = Modifiers(stmt.modifiers, self.modifier_slots(op, fmt), self.POLICY)
        if op.bvh:
            if vdata.count != common.dwords(idef.operand("vdata")):
                raise vdata_piece.error("invalid operand for instruction")
            fields.update(self.BVH_FIXED, **{name: mods.flag(name) for name in self.BVH_FLAGS})
            layout = bvh_layout(idef, fields.get("a16", 0), separate).addresses
        else:
            fields.update(self.flag_fields(op, fmt, stmt, mods))
            expected = data_size(op, fields["dmask"], fields.get("d16", 0), fields["tfe"])
            if vdata.count != expected:
                modifiers = "dmask, d16 and tfe" if op.has_d16 else "dmask and tfe"
                raise stmt.mnemonic.error(f"image data size does not match {modifiers}")
            size = address_size(op, DIMS[fields["dim"]], fields["a16"])
            layout = address_layout(op, self.address_form(op, separate), size)
        self.check_addresses(stmt, addresses, separate, layout, op)
        variant, address_fields = self.address_fields(fmt, addresses, separate)
        return variant, {**fields, **address_fields}

    def flag_fields(self, op: ImageOp, fmt: Format, stmt: Statement, mods: Modifiers) -> dict[str, int]:
        fields = {"dmask": parse_dmask(mods), "dim": parse_dim(mods, stmt)}
        if op.msaa and "MSAA" not in DIMS[fields["dim"]].name:
            raise mods.pieces["dim"].error("invalid dim; must be MSAA type")
        fields.update(self.parse_policy(op, mods))
        if fmt.field("unrm"):
            fields["unrm"] = mods.flag("unorm")
        fields.update({name: mods.flag(name) for name in FLAGS_AFTER_POLICY if fmt.field(name)})
        return fields

    def modifier_slots(self, op: ImageOp, fmt: Format) -> list[tuple[str, ...]]:
        """LLVM's modifier order: dmask dim unorm <cache policy> r128 a16 tfe lwe d16."""
        if op.bvh:
            return [(name,) for name in self.BVH_FLAGS]
        slots = [("dmask",), ("dim",)] + ([("unorm",)] if fmt.field("unrm") else []) + [self.POLICY]
        return slots + [(name,) for name in FLAGS_AFTER_POLICY if fmt.field(name) and (name != "d16" or op.has_d16)]

    def check_addresses(self, stmt: Statement, addresses: list[VGPRs], separate: bool,
                        layout: tuple[int, ...] | None, op: ImageOp) -> None:
        """The address operands against the instruction's address size, with LLVM's errors."""
        mismatch = stmt.mnemonic.error("image address size does not match " + ("a16" if op.bvh else "dim and a16"))
        if not separate:
            self.check_single_address(stmt, addresses[0], layout, op, mismatch)
            return
        form = self.address_form(op, separate)
        if layout is None or len(addresses) != len(layout):
            # LLVM picks the instruction by the number of addresses: single VGPRs but for a full
            # list's last; a wider one is that operand's fault, else the count is wrong.
            wide = next((a for a in addresses[:form.max_operands - 1] if a.count != 1 and not op.bvh), None)
            raise mismatch if wide is None else wide.piece.error("invalid operand for instruction")
        for address, count in zip(addresses, layout):
            if address.count != count:
                raise address.piece.error("invalid operand for instruction")

    def check_address_count(self, stmt: Statement, op: ImageOp, addresses: list[VGPRs]) -> None:
        """No instruction takes more separate addresses than the opcode can use (or its encoding has)."""
        most = len(op.ray) if op.bvh else min(self.address_form(op, True).max_operands, max(op.address_words))
        if len(addresses) > most:
            # LLVM's parser takes the list's end as the next operand's start.
            if stmt.modifiers:
                raise stmt.modifiers[0].error("not a valid operand.")
            raise addresses[most].piece.error("invalid operand for instruction")

    def check_single_address(self, stmt: Statement, address: VGPRs, layout: tuple[int, ...] | None,
                             op: ImageOp, mismatch: AsmError) -> None:
        raise NotImplementedError


def check_zero(inst: Instruction, names: tuple[str, ...], why: str) -> None:
    for name in names:
        if inst.get(name):
            raise InvalidImageEncoding(f"{name} must be 0 {why}")


# ---- gfx11: MIMG ----------------------------------------------------------------------------

NSA_ADDRESSES = 4  # vaddr1-vaddr4, a byte each in the dword after the 8-byte MIMG word
CACHE_POLICY_GFX11 = ("glc", "slc", "dlc")


@functools.cache
def nsa_format(mimg: Format) -> Format:
    """MIMG with the NSA dword of addresses 1-4: how the syntax reads and writes them."""
    extra = tuple(Field(f"vaddr{i}", 8 * mimg.size + 8 * i - 1, 8 * mimg.size + 8 * (i - 1), "VGPRField")
                  for i in range(1, NSA_ADDRESSES + 1))
    return Format(mimg.name, mimg.parent, mimg.size + 4, mimg.fields + extra, mimg.allowed)


@register("MIMG")
class MimgSyntax(ImageSyntax):
    RESOURCE = "srsrc"
    SAMPLER = "ssamp"
    BVH_FIXED = (("dmask", 0xF), ("unrm", 1), ("r128", 1))
    BVH_ZERO = ("dim", "d16", "tfe", "lwe", *CACHE_POLICY_GFX11)
    BVH_FLAGS = ("a16",)
    POLICY = CACHE_POLICY_GFX11

    def separate(self, inst: Instruction) -> bool:
        return bool(inst["nsa"])

    def address_form(self, op: ImageOp, separate: bool) -> AddressForm:
        return GFX11_NSA if separate else PACKED

    def address_registers(self, inst: Instruction) -> list[int]:
        registers = [inst["vaddr"]]
        if self.separate(inst):
            nsa = nsa_format(inst.fmt)
            registers += [nsa.field(f"vaddr{i}").get(inst.word) for i in range(1, NSA_ADDRESSES + 1)]
        return registers

    def address_fields(self, fmt: Format, addresses: list[VGPRs], separate: bool):
        fields = {"vaddr": addresses[0].first}
        if not separate:
            return fmt, fields
        fields["nsa"] = 1
        for i, address in enumerate(addresses[1:], 1):
            fields[f"vaddr{i}"] = address.first
        return nsa_format(fmt), fields

    def spacing(self, inst: Instruction, op: ImageOp) -> str:
        # LLVM's NSA sample/gather asm strings have an extra space after the mnemonic.
        return "  " if self.separate(inst) and op.sampler else " "

    def policy_words(self, inst: Instruction, op: ImageOp) -> list[str]:
        return [name for name in CACHE_POLICY_GFX11 if inst[name]]

    def parse_policy(self, op: ImageOp, mods: Modifiers) -> dict[str, int]:
        return {name: mods.flag(name) for name in CACHE_POLICY_GFX11}

    def check_single_address(self, stmt, address, layout, op, mismatch):
        count = address.count
        sizes = {sum(op.ray_addresses(a16)) for a16 in (0, 1)} if op.bvh else packed_sizes(op)
        if count not in sizes:
            raise address.piece.error("invalid operand for instruction")
        if op.bvh:
            if (count,) != layout:
                raise mismatch
            return
        # LLVM still takes an 8-VGPR vaddr where 5-7 are needed (written before those sizes existed).
        if layout is None or not (count == layout[0] or count == 8 and 5 <= layout[0] <= 7):
            raise mismatch


# ---- gfx12: VIMAGE, VSAMPLE -----------------------------------------------------------------

GFX12_ADDRESSES = 5  # vaddr0-vaddr4; VSAMPLE has vaddr0-vaddr3


@register("VIMAGE", "VSAMPLE")
class Gfx12ImageSyntax(ImageSyntax):
    BVH_FIXED = (("dmask", 0xF), ("r128", 1))
    BVH_ZERO = ("dim", "d16", "a16", "nv", "th", "scope", "tfe")
    POLICY = ("th", "scope", "nv")

    @staticmethod
    def address_names(fmt: Format) -> list[str]:
        return [f"vaddr{i}" for i in range(GFX12_ADDRESSES) if fmt.field(f"vaddr{i}")]

    def separate(self, inst: Instruction) -> bool:
        return True

    def address_form(self, op: ImageOp, separate: bool) -> AddressForm:
        return GFX12_IMAGE

    def address_registers(self, inst: Instruction) -> list[int]:
        return [inst[name] for name in self.address_names(inst.fmt)]

    def address_fields(self, fmt: Format, addresses: list[VGPRs], separate: bool):
        return fmt, {name: address.first for name, address in zip(self.address_names(fmt), addresses)}

    def check_unused_addresses(self, inst: Instruction, op: ImageOp) -> None:
        # LLVM's decoder tables only hold instructions with as many addresses as the opcode can use.
        most = max(op.address_words)
        check_zero(inst, tuple(self.address_names(inst.fmt)[most:]), f"in {inst.name}: it has at most {most} addresses")

    def check_single_address(self, stmt, address, layout, op, mismatch):
        if address.count != 1:  # a VGPR range is gfx11's form
            raise stmt.mnemonic.error("operands are not valid for this GPU or mode")
        if layout != (1,):
            raise mismatch

    def policy_words(self, inst: Instruction, op: ImageOp) -> list[str]:
        words = []
        th = th_text(op, inst["th"], inst["scope"])
        if th:
            words.append(f"th:{th}")
        if inst["scope"]:
            words.append(f"scope:{SCOPES[inst['scope']]}")
        return words + (["nv"] if inst["nv"] else [])

    def parse_policy(self, op: ImageOp, mods: Modifiers) -> dict[str, int]:
        if "nv" in mods.pieces:
            raise mods.pieces["nv"].error("nv is not supported on this GPU")
        th, scope = parse_cache_policy(op, mods)
        return {"th": th, "scope": scope}

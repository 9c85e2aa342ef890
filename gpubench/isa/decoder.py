"""Bytes -> instructions, driven by the generated format tables.

A format is found from its fixed first-dword bits and the opcode it allows; a variant of it
(DPP16, DPP8, SDWA, a literal, an SGPR destination, MFMA) from the source operand that selects it
or from the opcode. Anything that matches no format is a `DecodeError` naming offset and bytes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gpubench.isa.arch import ISA
from gpubench.isa.model import Format, InstrDef

LITERAL = 255
DPP16 = 250
DPP8 = (233, 234)
SDWA = 249
SOURCE_KINDS = ("SrcField", "SSrcField")


class DecodeError(ValueError):
    def __init__(self, offset: int, data: bytes, reason: str):
        self.offset, self.data, self.reason = offset, data, reason
        shown = ",".join(f"0x{b:02x}" for b in data)
        super().__init__(f"invalid instruction at offset 0x{offset:x}: [{shown}]: {reason}")


@dataclass(frozen=True)
class Instruction:
    """A decoded instruction: its (variant) format, definition and the raw encoding as an integer."""

    isa: ISA = field(repr=False)
    fmt: Format
    idef: InstrDef
    word: int
    size: int
    offset: int = 0
    idef_y: InstrDef | None = None  # VOPD: the second (Y) operation

    def __getitem__(self, name: str) -> int:
        fld = self.fmt.field(name)
        if fld is None:
            raise KeyError(f"{self.fmt.name} has no field '{name}'")
        return fld.get(self.word)

    def get(self, name: str, default: int | None = None) -> int | None:
        fld = self.fmt.field(name)
        return default if fld is None else fld.get(self.word)

    @property
    def name(self) -> str:
        return self.idef.name

    @property
    def bytes(self) -> bytes:
        return self.word.to_bytes(self.size, "little")

    def pseudocode(self) -> str | None:
        return self.isa.pseudocode_of(self.idef)


def _sources(fmt: Format, word: int) -> list[int]:
    return [f.get(word) for f in fmt.fields if f.kind in SOURCE_KINDS]


def _variant_holds(isa: ISA, base: Format, variant: Format, idef: InstrDef, word: int) -> bool:
    """Whether each suffix of the variant's name (DPP16, LIT, SDST ...) holds for this encoding."""
    if idef.name not in variant.allowed:
        return False
    src0 = base.field("src0")
    src0_value = src0.get(word) if src0 else None
    for part in variant.name[len(base.name) + 1:].split("_"):
        if part == "DPP16" and src0_value != DPP16:
            return False
        if part == "DPP8" and src0_value not in DPP8:
            return False
        if part == "SDWA" and src0_value != SDWA:
            return False
        if part == "LIT" and LITERAL not in _sources(base, word) and idef.name in base.allowed:
            return False
        if part in ("SDST", "MFMA") and not _only_variants_allow(isa, base, part, idef):
            return False
    return True


def _only_variants_allow(isa: ISA, base: Format, part: str, idef: InstrDef) -> bool:
    """SDST/MFMA variants are chosen by opcode: the op is allowed there and not in the plain format."""
    plain = [v for v in isa.variants[base.name] if part not in v.name.split("_")]
    return not any(idef.name in f.allowed for f in [base, *plain]
                   if not (set(f.name.split("_")) & {"DPP16", "DPP8", "SDWA", "LIT"}))


def _pick_variant(isa: ISA, base: Format, idef: InstrDef, word: int) -> Format:
    best, best_parts = (base if idef.name in base.allowed else None), 0
    for variant in isa.variants[base.name]:
        parts = len(variant.name.split("_"))
        if parts > best_parts and _variant_holds(isa, base, variant, idef, word):
            best, best_parts = variant, parts
    if best is None:
        raise LookupError(f"{idef.name} is not legal in {base.name}")
    return best


def decode(isa: ISA, data: bytes, offset: int = 0) -> Instruction:
    """Decode the instruction at ``data[offset:]``."""
    head = data[offset:offset + 4]
    if len(head) < 4:
        raise DecodeError(offset, head, "truncated: fewer than 4 bytes")
    word0 = int.from_bytes(head, "little")
    failures = []
    for matcher in isa.matchers:
        if word0 & matcher.mask != matcher.value:
            continue
        base = matcher.fmt
        raw = data[offset:offset + base.size]
        if len(raw) < base.size:
            failures.append(f"truncated {base.name} ({base.size} bytes)")
            continue
        word = int.from_bytes(raw, "little")
        opfields = base.opcode_fields
        idef = isa.instr(base, opfields[0].name, word) if opfields else None
        if idef is None:
            failures.append(f"no {base.name} opcode {opfields[0].get(word) if opfields else '?'}")
            continue
        try:
            fmt = _pick_variant(isa, base, idef, word)
        except LookupError as e:
            failures.append(str(e))
            continue
        raw = data[offset:offset + fmt.size]
        if len(raw) < fmt.size:
            raise DecodeError(offset, raw, f"truncated {fmt.name}: needs {fmt.size} bytes")
        word = int.from_bytes(raw, "little")
        idef_y = isa.instr(fmt, opfields[1].name, word) if len(opfields) > 1 else None
        if len(opfields) > 1 and idef_y is None:
            failures.append(f"no {base.name} opcode {opfields[1].get(word)} in {opfields[1].name}")
            continue
        return Instruction(isa, fmt, idef, word, fmt.size, offset, idef_y)
    raise DecodeError(offset, data[offset:offset + 8], "; ".join(failures) or "no encoding matches")


def decode_all(isa: ISA, data: bytes) -> list[Instruction]:
    """Decode a whole instruction stream; stops with a DecodeError at the first invalid word."""
    result, offset = [], 0
    while offset < len(data):
        inst = decode(isa, data, offset)
        result.append(inst)
        offset += inst.size
    return result

"""`gpubench isa coverage`: for each instruction of a target, where the emulator's semantics come
from and whether a test executes it.

- source: "pseudocode" (compiled from AMD's pseudocode), "pseudocode+correction" (compiled from AMD's
  pseudocode with the hardware corrections of gpubench/isa/corrections.py), "manual" (a hand-written
  handler) or "unimplemented" (no handler, or its pseudocode does not compile), as
  `gpubench.emu.ops.semantics_source` says for the instruction encoded in one of its formats.
- graphics_only: for an unimplemented instruction of the graphics pipeline (images and samplers,
  exports, GWS ...), its group in graphics_only.RULES; the summary counts these apart from the
  unemulated compute instructions.
- executed: the instruction is in tests/emu/executed.json, the record `python tools/coverage_record.py`
  writes from the emulator's test runs (kernel cases and hand-written assembly tests). The record
  is committed and rebuilt by hand; without it, "executed" is unknown (None).

This is the emulator's layer: the ISA layer (gpubench.isa) does not import the emulator.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from gpubench.emu import graphics_only
from gpubench.isa.arch import ISA
from gpubench.isa.decoder import DecodeError, Instruction, decode
from gpubench.isa.encoder import encode
from gpubench.isa.model import Format, InstrDef

RECORD = Path(__file__).resolve().parents[2] / "tests" / "emu" / "executed.json"
SOURCES = ("pseudocode", "pseudocode+correction", "manual", "unimplemented")
GRAPHICS_ONLY = "graphics-only"
CATEGORIES = (*SOURCES, GRAPHICS_ONLY)  # what the summary counts: an unimplemented instruction is one of the last two
VALU_FAMILIES = ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD", "VOP3P", "VOPD", "VINTERP")
SALU_FAMILIES = ("SOP1", "SOP2", "SOPC", "SOPK", "SOPP")
VGPR_0 = 256  # v0 in the 9-bit source operand space
# Operand fields tried after all-zero ones, for handlers that model only some values: s_getreg/
# s_setreg's hardware register (simm16 1 = HW_REG_MODE), s_sendmsg_rtn's message (0x83 = GET_REALTIME).
OPERAND_CHOICES = ({}, {"simm16": 1}, {"ssrc0": 0x83})


@dataclass(frozen=True)
class Entry:
    name: str
    family: str  # the opcode enum's format: VOP1, DS, SOPP ...
    source: str  # one of SOURCES
    executed: bool | None  # None: no record for the target
    graphics_only: str | None = None  # unimplemented and of the graphics pipeline: its group (graphics_only.py)

    @property
    def category(self) -> str:
        return GRAPHICS_ONLY if self.graphics_only else self.source


def family_of(idef: InstrDef) -> str:
    return idef.enum.removesuffix("Op")


def _formats(isa: ISA, idef: InstrDef) -> list[Format]:
    """The encodings ``idef`` is legal in: the base format first, then variants with fewer parts."""
    found = [f for f in isa.formats.values()
             if idef.name in f.allowed and any(fld.enum == idef.enum for fld in f.opcode_fields)]
    if not found:  # a format with no opcode field holds one instruction (EXP)
        found = [f for f in isa.formats.values() if not f.opcode_fields and f.name == family_of(idef)]
    return sorted(found, key=lambda f: (f.parent is not None, len(f.name.split("_")), f.name))


def instruction_of(isa: ISA, idef: InstrDef, extra: dict[str, int] | None = None) -> Instruction | None:
    """A decoded instance of ``idef``: its opcode encoded (VALU sources v0, other fields 0) in its first legal
    format and decoded back; built directly from that word if the decoder reads it otherwise."""
    for fmt in _formats(isa, idef):
        # VOPD: the operation in both halves, or in Y alone (with X's opcode 0) if X cannot hold it
        fields = {fld.name: idef.opcode if idef.opcode <= fld.mask else 0
                  for fld in fmt.opcode_fields if fld.enum == idef.enum}
        # 9-bit VALU sources (src0/src1/src2) name v0: some instructions take only VGPRs there
        fields |= {fld.name: VGPR_0 for fld in fmt.fields
                   if fld.name in ("src0", "src1", "src2") and fld.width == 9 and fld.kind != "FixedBitField"}
        if extra and not all(fmt.field(name) for name in extra):
            continue
        data = encode(fmt, fields | (extra or {}))
        try:
            inst = decode(isa, data + bytes(16))
            if idef in (inst.idef, inst.idef_y):
                return inst
        except DecodeError:
            pass
        idef_y = idef if len(fmt.opcode_fields) > 1 else None  # VOPD: the same operation in both halves
        return Instruction(isa, fmt, idef, int.from_bytes(data, "little"), fmt.size, 0, idef_y)
    return None


def semantics_source(isa: ISA, idef: InstrDef) -> str:
    """The source of the first of OPERAND_CHOICES that the emulator implements for ``idef``."""
    from gpubench.emu.ops import semantics_source as source_of
    for extra in OPERAND_CHOICES:
        inst = instruction_of(isa, idef, extra)
        if inst is None:
            continue
        try:
            source = source_of(inst)
        except Exception:  # noqa: BLE001 - a factory that cannot build this encoding: not emulated
            source = "unimplemented"
        if source != "unimplemented":
            return source
    return "unimplemented"


def load_record(path: Path = RECORD) -> dict[str, set[str]] | None:
    """The executed instruction names by target, from the committed record; None if there is none."""
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    return {target: set(names) for target, names in data["executed"].items()}


def coverage(target: str, record: Path = RECORD) -> list[Entry]:
    isa = ISA.get(target)
    executed = load_record(record)
    names = None if executed is None else executed.get(target, set())
    entries = []
    for idef in isa.instructions:
        family, source = family_of(idef), semantics_source(isa, idef)
        rule = graphics_only.rule_for(family, idef.name) if source == "unimplemented" else None
        entries.append(Entry(idef.name, family, source, None if names is None else idef.name in names,
                             rule.what if rule else None))
    return entries


def summary(entries: list[Entry]) -> dict:
    """Counts per family (instructions, each category, executed), the graphics-only instructions per
    group, and the VALU/SALU executed shares."""
    families: dict[str, Counter] = {}
    for e in entries:
        counts = families.setdefault(e.family, Counter())
        counts["instructions"] += 1
        counts[e.category] += 1
        counts["executed"] += bool(e.executed)
    result = {"families": {f: {k: c[k] for k in ("instructions", *CATEGORIES, "executed")}
                           for f, c in sorted(families.items())}}
    total = Counter()
    for c in families.values():
        total.update(c)
    result["total"] = {k: total[k] for k in ("instructions", *CATEGORIES, "executed")}
    groups = Counter(e.graphics_only for e in entries if e.graphics_only)
    result[GRAPHICS_ONLY] = {rule.what: groups[rule.what] for rule in graphics_only.RULES if groups[rule.what]}
    for group, members in (("VALU", VALU_FAMILIES), ("SALU", SALU_FAMILIES)):
        group_entries = [e for e in entries if e.family in members]
        done = sum(bool(e.executed) for e in group_entries)
        result[group] = {"instructions": len(group_entries), "executed": done,
                         "share": round(done / len(group_entries), 4) if group_entries else None}
    return result


def as_json(target: str, entries: list[Entry]) -> str:
    has_record = any(e.executed is not None for e in entries)
    return json.dumps({"target": target, "record": str(RECORD) if has_record else None,
                       "summary": summary(entries), "instructions": [asdict(e) for e in entries]}, indent=1)


def as_table(target: str, entries: list[Entry], listing: bool = False) -> str:
    s = summary(entries)
    has_record = any(e.executed is not None for e in entries)
    header = (f"{'family':<10}{'instrs':>7}{'pseudo':>8}{'correct':>8}{'manual':>8}{'unimpl':>8}{'gfxonly':>8}"
              f"{'executed':>10}")
    lines = [f"instruction coverage of the emulator for {target}", header, "-" * len(header)]
    rows = [*s["families"].items(), ("total", s["total"])]
    for i, (family, c) in enumerate(rows):
        if i == len(rows) - 1:
            lines.append("-" * len(header))
        executed = c["executed"] if has_record else "n/a"
        lines.append(f"{family:<10}{c['instructions']:>7}{c['pseudocode']:>8}{c['pseudocode+correction']:>8}"
                     f"{c['manual']:>8}{c['unimplemented']:>8}{c[GRAPHICS_ONLY]:>8}{executed:>10}")
    groups = ", ".join(f"{what} {n}" for what, n in s[GRAPHICS_ONLY].items())
    lines.append(f"unemulated compute: {s['total']['unimplemented']}; graphics-only, not emulated: "
                 f"{s['total'][GRAPHICS_ONLY]}" + (f" ({groups})" if groups else ""))
    for group in ("VALU", "SALU"):
        g = s[group]
        if has_record and g["instructions"]:
            lines.append(f"{group} opcodes executed by tests: {g['executed']}/{g['instructions']} "
                         f"({100 * g['share']:.1f}%)")
    if not has_record:
        lines.append(f"no record of executed instructions ({RECORD}): run `python tools/coverage_record.py`")
    if listing:
        lines.append("")
        for e in sorted(entries, key=lambda e: (e.family, e.name)):
            executed = "-" if e.executed is None else "executed" if e.executed else "not-executed"
            lines.append(f"{e.family:<10}{e.name:<40}{e.category:<22}{executed}")
    return "\n".join(lines)

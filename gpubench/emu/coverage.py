"""`gpubench isa coverage`: for each instruction of a target, where the emulator's semantics come
from and whether a test executes it.

- source: "pseudocode" (compiled from AMD's pseudocode), "pseudocode+correction" (compiled from AMD's
  pseudocode with the hardware corrections of gpubench/isa/corrections.py), "manual" (a hand-written
  handler) or "unimplemented" (no handler, or its pseudocode does not compile), as
  `gpubench.emu.ops.semantics_source` says for the instruction encoded in one of its formats.
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

from gpubench.isa.arch import ISA
from gpubench.isa.decoder import DecodeError, Instruction, decode
from gpubench.isa.encoder import encode
from gpubench.isa.model import Format, InstrDef

RECORD = Path(__file__).resolve().parents[2] / "tests" / "emu" / "executed.json"
SOURCES = ("pseudocode", "pseudocode+correction", "manual", "unimplemented")
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
    return [Entry(idef.name, family_of(idef), semantics_source(isa, idef), None if names is None else idef.name in names)
            for idef in isa.instructions]


def summary(entries: list[Entry]) -> dict:
    """Counts per family (instructions, each source, executed) and the VALU/SALU executed shares."""
    families: dict[str, Counter] = {}
    for e in entries:
        counts = families.setdefault(e.family, Counter())
        counts["instructions"] += 1
        counts[e.source] += 1
        counts["executed"] += bool(e.executed)
    result = {"families": {f: {k: c[k] for k in ("instructions", *SOURCES, "executed")}
                           for f, c in sorted(families.items())}}
    total = Counter()
    for c in families.values():
        total.update(c)
    result["total"] = {k: total[k] for k in ("instructions", *SOURCES, "executed")}
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
    header = f"{'family':<10}{'instrs':>7}{'pseudo':>8}{'correct':>8}{'manual':>8}{'unimpl':>8}{'executed':>10}"
    lines = [f"instruction coverage of the emulator for {target}", header, "-" * len(header)]
    rows = [*s["families"].items(), ("total", s["total"])]
    for i, (family, c) in enumerate(rows):
        if i == len(rows) - 1:
            lines.append("-" * len(header))
        executed = c["executed"] if has_record else "n/a"
        lines.append(f"{family:<10}{c['instructions']:>7}{c['pseudocode']:>8}{c['pseudocode+correction']:>8}"
                     f"{c['manual']:>8}{c['unimplemented']:>8}{executed:>10}")
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
            lines.append(f"{e.family:<10}{e.name:<40}{e.source:<22}{executed}")
    return "\n".join(lines)

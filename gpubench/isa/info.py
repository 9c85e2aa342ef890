"""What `gpubench isa info` shows: an instruction's encodings, operands, pseudocode and the hardware
corrections the emulator applies to it (corrections.py)."""
from __future__ import annotations

import textwrap

from gpubench.isa import corrections
from gpubench.isa.arch import ISA
from gpubench.isa.model import InstrDef

SUFFIXES = ("", "_E32", "_E64")


def find(isa: ISA, name: str) -> list[InstrDef]:
    """Instructions named ``name`` (any case), with or without the spec's _E32/_E64 suffix."""
    wanted = {name.upper() + s for s in SUFFIXES} | {name.upper().removesuffix(s) for s in SUFFIXES[1:]}
    return [i for i in isa.instructions if i.name in wanted]


def describe(isa: ISA, idef: InstrDef) -> str:
    formats = [f.name for f in isa.formats.values() if idef.name in f.allowed]
    lines = [f"{idef.name}  ({isa.target.name}, {isa.arch})",
             f"  opcode   {idef.opcode} (0x{idef.opcode:x}) in {idef.enum}",
             f"  formats  {', '.join(formats)}"]
    for fmt_name in formats:
        fmt = isa.formats[fmt_name]
        layout = " ".join(f"{f.name}[{f.hi}:{f.lo}]" + (f"={f.value}" if f.value is not None else "")
                          for f in sorted(fmt.fields, key=lambda f: -f.hi))
        lines.append(f"    {fmt_name:14} {fmt.size} bytes: {layout}")
    lines.append("  operands")
    for o in idef.operands:
        lines.append(f"    {o.field:8} {o.bits:4} bits  {o.type:28} {o.fmt}")
    code = isa.pseudocode_of(idef)
    lines.append("  pseudocode" if code else "  pseudocode: none in the manual (prose only)")
    lines.extend("    " + line for line in (code or "").splitlines())
    fields = {f.name for name in formats for f in isa.formats[name].fields}
    for correction in (*corrections.of(isa.arch, idef.name), *corrections.field_rules(isa.arch, fields)):
        lines.append(f"  hardware correction{f' ({correction.operand_rule})' if correction.operand_rule else ''}")
        lines.extend(textwrap.wrap(correction.rule, 100, initial_indent="    rule      ", subsequent_indent=" " * 14))
        lines.extend(textwrap.wrap(correction.evidence, 100, initial_indent="    evidence  ",
                                   subsequent_indent=" " * 14))
    supplied = [c.text for c in corrections.of(isa.arch, idef.name) if c.text is not None]
    if supplied:
        lines.append("  pseudocode the emulator runs (supplied by the correction)")
        lines.extend("    " + line for line in supplied[0].splitlines())
    if code and any(c.edits for c in corrections.of(isa.arch, idef.name)):
        lines.append("  pseudocode as the emulator runs it (with the corrections)")
        lines.extend("    " + line for line in corrections.corrected(isa.arch, idef.name, code).splitlines())
    return "\n".join(lines)

"""Reads AMD's spec JSON and applies the fix-up tables kept beside the generator in YAML."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import yaml

ARCHES = ("rdna3", "rdna4", "cdna")
HERE = Path(__file__).resolve().parent
DEFAULT_SPEC_DIR = HERE.parent.parent / "shared" / "isa-spec"


def spec_dir(override: str | None = None) -> Path:
    """The spec folder: the flag, else $GPUBENCH_ISA_SPEC, else ../shared/isa-spec beside the repo."""
    return Path(override or os.environ.get("GPUBENCH_ISA_SPEC") or DEFAULT_SPEC_DIR)


def load_yaml(path: Path) -> dict:
    with open(path) as f:
        return yaml.safe_load(f) or {}


def load_arch(arch: str, directory: Path) -> dict:
    """The spec of one architecture with its fix-ups applied."""
    with open(directory / f"{arch}.json") as f:
        spec = json.load(f)
    apply_fixups(spec, load_yaml(HERE / "fixups" / f"{arch}.yaml"))
    return spec


def _extend_allowed(spec: dict, rule: dict) -> None:
    """Allow in each ``to`` format the opcodes of format ``from`` whose names match ``matching``."""
    pattern = re.compile(rule["matching"])
    source = next(f for f in spec["formats"][rule["from"]]["fields"] if f["kind"] == "EnumBitField")
    names = [n for n in source["allowed"] if pattern.search(n)]
    for target in rule["to"]:
        field = next(f for f in spec["formats"][target]["fields"] if f["kind"] == "EnumBitField")
        field["allowed"] = sorted(set(field["allowed"]) | set(names))


def apply_fixups(spec: dict, fixups: dict) -> None:
    """Fill the gaps of the spec that the fix-up table names.

    Opcodes listed in a format's ``allowed`` list but absent from ``instructions`` (mostly the
    ones without operands, like S_ENDPGM) are added from their enum. The fix-up table's operand
    tables replace the spec's (which for a few instructions are empty or incomplete).
    """
    by_key = {(i["enum"], i["name"]): i for i in spec["instructions"]}
    added_operands = fixups.get("operands", {})
    for instr in spec["instructions"]:
        if instr["name"] in added_operands:
            instr["operands"] = dict(added_operands[instr["name"]])
    for fmt in spec["formats"].values():
        for fld in fmt["fields"]:
            if fld["kind"] != "EnumBitField":
                continue
            for name in fld.get("allowed", ()):
                if (fld["enum"], name) in by_key:
                    continue
                instr = {"name": name, "enum": fld["enum"], "opcode": spec["enums"][fld["enum"]][name],
                         "operands": dict(added_operands.get(name, {})), "pseudocode": None}
                by_key[(fld["enum"], name)] = instr
                spec["instructions"].append(instr)
    for rule in fixups.get("allowed_from", ()):
        _extend_allowed(spec, rule)
    for name in fixups.get("remove", ()):
        spec["instructions"] = [i for i in spec["instructions"] if i["name"] != name]
    spec["instructions"].sort(key=lambda i: (i["enum"], i["opcode"], i["name"]))

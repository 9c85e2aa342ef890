"""Checks the disassembler and assembler against a corpus of LLVM's own (bytes, text) pairs.

The corpus (tests/corpus/<target>.jsonl, written by tools/build_corpus.py from llvm-mc-22) holds
one JSON object per line: format, name, bytes (hex), text, asm (LLVM's bytes for the text, or null)
and wave (32/64 when the text depends on the wave size, else null). Entries whose difference is
understood are listed with a reason in known-differences.yaml beside the corpus.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from gpubench.isa.arch import ISA
from gpubench.isa.asm import AssemblyError, assemble
from gpubench.isa.decoder import DecodeError
from gpubench.isa.disasm import disassemble_at

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "tests" / "corpus"
THRESHOLD = 99.5


@dataclass(frozen=True)
class Failure:
    entry: dict
    expected: str
    got: str
    known: str | None = None  # the reason, when known-differences.yaml lists it


@dataclass
class Report:
    target: str
    entries: int = 0
    opcodes: int = 0
    known: int = 0
    asm_entries: int = 0
    disasm_failures: list[Failure] = field(default_factory=list)
    asm_failures: list[Failure] = field(default_factory=list)

    @property
    def disasm_pct(self) -> float:
        return 100.0 * (self.entries - len(self.disasm_failures)) / max(1, self.entries)

    @property
    def asm_pct(self) -> float:
        return 100.0 * (self.asm_entries - len(self.asm_failures)) / max(1, self.asm_entries)

    @property
    def unexplained(self) -> list[Failure]:
        return [f for f in self.disasm_failures + self.asm_failures if f.known is None]

    @property
    def passes(self) -> bool:
        """At least THRESHOLD % agreement each way, and every difference listed with its reason."""
        return (self.entries > 0 and self.disasm_pct >= THRESHOLD and self.asm_pct >= THRESHOLD
                and not self.unexplained)


def load_entries(target: str, directory: Path = DEFAULT_DIR) -> list[dict]:
    with open(directory / f"{target}.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_known(directory: Path = DEFAULT_DIR) -> dict[tuple[str, str, str], str]:
    """(target, direction, hex bytes) -> reason."""
    path = directory / "known-differences.yaml"
    if not path.exists():
        return {}
    known = {}
    for item in yaml.safe_load(path.read_text()) or []:
        known[(item["target"], item["direction"], item["bytes"])] = item["reason"]
    return known


def disasm_text(isa: ISA, data: bytes) -> str:
    try:
        inst, text = disassemble_at(isa, data)
    except DecodeError as e:
        return f"<DecodeError: {e.reason}>"
    except Exception as e:  # a bug in a syntax module: the report shows it, whatever it was
        return f"<{type(e).__name__}: {e}>"
    return text if inst.size == len(data) else f"{text} <{inst.size} of {len(data)} bytes>"


def asm_bytes(isa: ISA, text: str) -> str:
    try:
        return assemble(isa, text).data.hex()
    except AssemblyError as e:
        return f"<error: {e.message}>"
    except Exception as e:
        return f"<{type(e).__name__}: {e}>"


def check_target(target: str, directory: Path = DEFAULT_DIR, only_format: str | None = None) -> Report:
    report = Report(target)
    known = load_known(directory)
    opcodes = set()
    for entry in load_entries(target, directory):
        if only_format and entry["format"] != only_format:
            continue
        isa = ISA.get(target, entry.get("wave"))
        report.entries += 1
        opcodes.add((entry["format"], entry["name"]))
        got = disasm_text(isa, bytes.fromhex(entry["bytes"]))
        if got != entry["text"]:
            reason = known.get((target, "disasm", entry["bytes"]))
            report.known += reason is not None
            report.disasm_failures.append(Failure(entry, entry["text"], got, reason))
        if entry.get("asm") is None:
            continue
        report.asm_entries += 1
        got = asm_bytes(isa, entry["text"])
        if got != entry["asm"]:
            reason = known.get((target, "asm", entry["bytes"]))
            report.known += reason is not None
            report.asm_failures.append(Failure(entry, entry["asm"], got, reason))
    report.opcodes = len(opcodes)
    return report

"""Our disassembler and assembler against LLVM's own output (tests/corpus, from llvm-mc-22)."""
import pytest

from gpubench.isa import corpus

TARGETS = ("gfx1100", "gfx1201", "gfx942", "gfx950")


@pytest.fixture(scope="module", params=TARGETS)
def report(request):
    return corpus.check_target(request.param)


def _summary(failures, n=5):
    return "\n".join(f"{f.entry['format']} {f.entry['bytes']}: llvm '{f.expected}' ours '{f.got}'" for f in failures[:n])


def test_disassembly_matches_llvm(report):
    assert report.entries > 0
    assert report.disasm_pct >= corpus.THRESHOLD, _summary(report.disasm_failures)


def test_assembly_matches_llvm(report):
    assert report.asm_pct >= corpus.THRESHOLD, _summary(report.asm_failures)


def test_every_difference_has_a_reason(report):
    """A difference not in known-differences.yaml is a regression (or a new one to explain there)."""
    assert not report.unexplained, _summary(report.unexplained, 10)


def test_known_differences_are_still_different():
    """An entry in known-differences.yaml that now agrees is stale: remove it."""
    known = corpus.load_known()
    for target in TARGETS:
        entries = {e["bytes"]: e for e in corpus.load_entries(target)}
        for (t, direction, data), reason in known.items():
            if t != target or data not in entries:
                continue
            entry = entries[data]
            from gpubench.isa.arch import ISA
            isa = ISA.get(target, entry.get("wave"))
            if direction == "disasm":
                assert corpus.disasm_text(isa, bytes.fromhex(data)) != entry["text"], (target, data, reason)
            else:
                assert corpus.asm_bytes(isa, entry["text"]) != entry["asm"], (target, data, reason)

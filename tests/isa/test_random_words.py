"""Random instruction words: we never crash, and we accept and reject what LLVM does.

tests/corpus/<target>.random.jsonl holds random byte strings with LLVM's verdict (text and length,
or null when LLVM rejects the first instruction).
"""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpubench.isa import corpus
from gpubench.isa.arch import ISA
from gpubench.isa.decoder import DecodeError
from gpubench.isa.disasm import disassemble_at

TARGETS = ("gfx1100", "gfx1201", "gfx942", "gfx950")
AGREEMENT = 99.0


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=300, deadline=None)
@given(data=st.binary(min_size=4, max_size=16))
def test_random_bytes_never_crash(target, data):
    isa = ISA.get(target)
    try:
        inst, text = disassemble_at(isa, data)
    except DecodeError as e:
        assert e.offset == 0 and e.reason
        return
    assert text and 4 <= inst.size <= len(data)


def _verdicts(target):
    with open(corpus.DEFAULT_DIR / f"{target}.random.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.mark.parametrize("target", TARGETS)
def test_accepts_and_rejects_like_llvm(target):
    isa = ISA.get(target)
    entries = _verdicts(target)
    disagreements = []
    for entry in entries:
        try:
            inst, text = disassemble_at(isa, bytes.fromhex(entry["bytes"]))
            ours = (text, inst.size)
        except DecodeError:
            ours = (None, None)
        if ours != (entry["text"], entry["length"]):
            disagreements.append((entry["bytes"], entry["text"], ours[0]))
    agreement = 100.0 * (len(entries) - len(disagreements)) / len(entries)
    assert agreement >= AGREEMENT, disagreements[:10]

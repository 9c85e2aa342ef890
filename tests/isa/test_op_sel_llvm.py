"""VOP3 op_sel:[...] of every length against llvm-mc-22, byte for byte and for the printed text.

LLVM reads one to four op_sel entries on any operation, whatever its number of op_sel bits. A
seeded sample of LLVM's own VOP3 texts (tests/corpus) gets random op_sel arrays of one to four
entries; llvm-mc-22 assembles them all in one run, and gpubench must accept the same lines, encode
them to the same bytes and print them as llvm-mc does (or reject them too).
"""
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpubench.isa.arch import ISA
from gpubench.isa.asm import AssemblyError, assemble
from gpubench.isa.decoder import decode
from gpubench.isa.disasm import disassemble
from gpubench.isa.syntax import valu

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
LLVM_MC = shutil.which("llvm-mc-22")
SAMPLE = 80  # corpus texts per target, each with two op_sel arrays
OP_SEL = re.compile(r"\s*op_sel:\[[01,]*\]")
# LLVM takes op_sel after the operands and before every other modifier.
LATER_MODIFIERS = re.compile(r"(?= (?:clamp|mul:|div:|quad_perm:|row_|dpp8:|fi:|bound_ctrl:|byte_sel:|bitop3:))|$")


def sample_lines(target: str, rng: random.Random) -> list[str]:
    """LLVM's texts of VOP3 forms that have op_sel (without their own op_sel), each with two random
    op_sel arrays of one to four entries."""
    isa = ISA.get(target)
    by_name = {i.name: i for i in isa.instructions}
    texts = set()
    for row in map(json.loads, (CORPUS / f"{target}.jsonl").read_text().splitlines()):
        idef = by_name.get(row["name"])
        if (row["asm"] and row["format"].startswith("VOP3") and not row["format"].startswith("VOP3P")
                and row["wave"] in (None, isa.wave_size) and "/*" not in row["text"]
                and idef is not None and valu.has_op_sel(isa, idef)):
            texts.add(OP_SEL.sub("", row["text"]))
    if isa.arch == "rdna3":  # whole-register texts are LLVM's fake16 forms, which take no op_sel
        texts = {text for text in texts if re.search(r"\.[lh]\b", text)}
    lines = []
    for text in rng.sample(sorted(texts), min(SAMPLE, len(texts))):
        for _ in range(2):
            entries = [rng.randint(0, 1) for _ in range(rng.randint(1, 4))]
            lines.append(LATER_MODIFIERS.sub(f" op_sel:[{','.join(map(str, entries))}]", text, count=1))
    return lines


def llvm_mc(target: str, lines: list[str]) -> list[tuple[str, str] | None]:
    """llvm-mc-22's (text, encoding hex) per line, None where it reports an error."""
    result = subprocess.run([LLVM_MC, "-arch=amdgcn", f"-mcpu={target}", "-show-encoding"],
                            input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    rejected = {int(n) for n in re.findall(r"^<stdin>:(\d+):\d+: error:", result.stderr, re.M)}
    printed = iter(line for line in result.stdout.splitlines() if "; encoding:" in line)
    answers = []
    for number in range(1, len(lines) + 1):
        if number in rejected:
            answers.append(None)
            continue
        text, encoding = next(printed).split("; encoding:")
        answers.append((text.strip(), bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]+)", encoding)).hex()))
    return answers


def gpubench_asm(isa: ISA, line: str) -> tuple[str, str] | None:
    try:
        data = assemble(isa, line).data
    except AssemblyError:
        return None
    return disassemble(decode(isa, data)), data.hex()


@pytest.mark.llvm
@pytest.mark.skipif(LLVM_MC is None, reason="needs llvm-mc-22")
@pytest.mark.parametrize("target", ["gfx1100", "gfx1201", "gfx942", "gfx950"])
def test_op_sel_arrays_of_any_length_as_llvm_mc(target):
    lines = sample_lines(target, random.Random(f"op_sel {target}"))
    isa = ISA.get(target)
    differences = [(line, expected, got) for line, expected in zip(lines, llvm_mc(target, lines))
                   if (got := gpubench_asm(isa, line)) != expected]
    assert len(lines) > 100
    assert differences == []


# The case the brief found, and what llvm-mc-22 makes of it, by hand.
@pytest.mark.parametrize("target,text,data,printed", [
    ("gfx950", "v_cvt_scalef32_pk_fp4_f16 v1, v2, v3 op_sel:[0,1,1]", "01304cd202070200",
     "v_cvt_scalef32_pk_fp4_f16 v1, v2, v3 op_sel:[0,1,1,0]"),
    ("gfx950", "v_add_i16 v1, v2, v3 op_sel:[1,1,1,1]", "01589ed202070200", "v_add_i16 v1, v2, v3 op_sel:[1,1,1]"),
    ("gfx942", "v_fma_f16 v1, v2, v3, v4 op_sel:[1]", "010806d202071204", "v_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0,0]"),
    ("gfx1100", "v_add_f16_e64 v1.l, v2.h, v3.l op_sel:[1]", "010832d502070200",
     "v_add_f16_e64 v1.l, v2.h, v3.l op_sel:[1,0,0]"),
    ("gfx1100", "v_sat_pk_u8_i16_e64 v1.l, v2 op_sel:[1]", "0108e2d502010000", "v_sat_pk_u8_i16_e64 v1.l, v2 op_sel:[1,0]"),
    # plain VGPRs carry no suffix for op_sel to conflict with (a regression: they were taken as .l)
    ("gfx1100", "v_mad_u16 v1, v2, v3, v4 op_sel:[0,0,0,1] clamp", "01c041d602071204",
     "v_mad_u16 v1.h, v2.l, v3.l, v4.l op_sel:[0,0,0,1] clamp"),  # as llvm-mc disassembles it
])
def test_short_and_long_op_sel(target, text, data, printed):
    isa = ISA.get(target)
    assert gpubench_asm(isa, text) == (printed, data)


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_op_sel_read_but_not_encoded(target):
    """llvm-mc-22 echoes this op_sel in its text, but its encoding (and its disassembly) has none."""
    assert gpubench_asm(ISA.get(target), "v_pk_fmac_f16_e64 v1, v2, v3 op_sel:[1,0,1] clamp") == (
        "v_pk_fmac_f16_e64 v1, v2, v3 clamp", "01803cd102070200")


@pytest.mark.parametrize("target,text,message,column", [
    ("gfx1100", "v_add_f16_e64 v1.l, v2.l, v3.l op_sel:[1]", "op_sel operand conflicts with 16-bit operand suffix", 32),
    ("gfx1201", "v_dot2_f16_f16 v1, v2, v3, v4 op_sel:[1,0,0,0]", "invalid op_sel operand", 31),
    ("gfx1201", "v_permlane16_b32 v1, v2, s3, s4 op_sel:[0,1,1]", "invalid op_sel operand", 33),
    ("gfx950", "v_add_i16 v1, v2, v3 op_sel:[0,0,0,0,1]", "expected a closing square bracket", 37),
])
def test_op_sel_errors_as_llvm_mc(target, text, message, column):
    with pytest.raises(AssemblyError) as error:
        assemble(ISA.get(target), text)
    assert (error.value.message, error.value.column) == (message, column)

#!/usr/bin/env python3
"""Build LLVM reference corpora of AMD GPU instruction encodings.

Candidate encodings are built bit by bit from AMD's ISA spec JSON (../shared/isa-spec), decoded
with llvm-mc and re-assembled from LLVM's own text. The surviving (bytes, text, asm) triples are
test vectors for gpubench's disassembler and assembler. A second file per target records LLVM's
verdict on random instruction words, for property tests.

    python tools/build_corpus.py --all                 # rebuild tests/corpus/
    python tools/build_corpus.py --target gfx1100
    python tools/build_corpus.py --all --check 200     # re-ask LLVM about 200 entries per target

Facts about llvm-mc that shape this file (LLVM 22):
- `--disassemble` joins all input lines into ONE byte stream, so an instruction that LLVM thinks
  is longer than its line eats the next line's bytes.
- `; encoding:` shows the decoded instruction re-encoded, not the input bytes: ignored bits come
  back as 0, and a literal LLVM read but cannot use (`/*Invalid immediate*/`) is dropped, so it
  does not even give the length reliably.
- Warnings carry exact line:column positions; after an invalid encoding LLVM skips 4 bytes.
- A literal cut off by the end of the data crashes llvm-mc (segfault, stdout lost). `[...]` blocks
  and `]` separators would isolate lines but hit that crash on every such line. A few complete
  encodings crash it too (gfx1201 s_barrier_signal with a literal); those are set aside.
So every line is: the candidate, two invalid words (an instruction that runs past the candidate
eats those, and LLVM resynchronises on the rest), and a marker instruction `s_mov_b32 s0,
0xffffNNNN` (NNNN = line index; its literal is an invalid word too). The instructions printed
between markers N-1 and N came from line N, and the invalid words' warnings pin where they end.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS_DIR = REPO / "tests" / "corpus"
DEFAULT_SPEC_DIR = REPO.parent / "shared" / "isa-spec"

TARGETS = {"gfx1100": "rdna3", "gfx1201": "rdna4", "gfx942": "cdna", "gfx950": "cdna"}
WAVE64 = ["-mattr=+wavefrontsize64"]  # RDNA defaults to wave32; CDNA is wave64 only.
MAX_WORKERS = 2
MAX_FORMS = 10
RANDOM_COUNT = 4000
RANDOM_LENGTHS = (4, 8, 12)

MARKER_PREFIX = bytes([0xFF, 0x00, 0x80, 0xBE])  # s_mov_b32 s0, <literal> on every target here
MARKER_TAG = 0xFFFF0000  # marker literal = tag | line index; invalid as an instruction word
MARKER_RE = re.compile(r"s_mov_b32 s0, 0xffff([0-9a-f]{4})")
MAX_LINES = 0x10000  # line indexes must fit the marker
SEPARATOR = b"\xff" * 8  # invalid words between a candidate and its marker
PADDING = b"\xff" * 16  # invalid words, so no instruction runs off the end of the stream
INVALID_MESSAGE = "invalid instruction encoding"

Arch = namedtuple("Arch", "m0 null saddr_off sgpr_top specials dpp")
# specials: SrcField values tried as "special register" sources (vcc_lo, exec_lo, m0/null, ...).
ARCHES = {
    "rdna": Arch(m0=125, null=124, saddr_off=124, sgpr_top=106, specials=(106, 126, 125, 124),
                 dpp=(0x1B, 0x101, 0x140, 0x153, 0x11F, 0x141, 0x165, 0x121, 0x12F, 0x111,
                      0x10F, 0x15F, 0x160)),
    # gfx9: 124 is M0 and there is no NULL; s102..s105 are flat_scratch/xnack_mask.
    "cdna": Arch(m0=124, null=124, saddr_off=127, sgpr_top=102, specials=(106, 126, 124, 108),
                 dpp=(0x1B, 0x101, 0x140, 0x130, 0x11F, 0x141, 0x142, 0x121, 0x134, 0x143,
                      0x138, 0x13C, 0x12F, 0x153)),
}

VCC_LO, EXEC_LO, LITERAL = 106, 126, 255
DPP16_SRC, DPP8_SRC, DPP8_FI_SRC, SDWA_SRC = 250, 233, 234, 249
INTS = (129, 193, 192, 208, 128, 135)        # 1, -1, 64, -16, 0, 7
FLOATS = (242, 247, 248, 240, 243)           # 1.0, -4.0, 1/(2*pi), 0.5, -1.0
LIT_BASE = 0x12345678
LIT_VALUES = (0x3F800000, 0x40, 0xFFFFFFF0, 0x4048F5C3, 0x80000000, 0xFFFF)

# Source operand types that never take an SGPR or constant, and the VGPR-or-constant ones.
VGPR_ONLY_TYPES = {"OPR_SRC_VGPR", "OPR_SRC_VGPR_OR_ACCVGPR", "OPR_SRC_ACCVGPR"}
CONST_OK_TYPES = {"OPR_SRC_VGPR_OR_INLINE", "OPR_SRC_VGPR_OR_ACCVGPR_OR_CONST"}
VGPR_SRC_TYPES = {"OPR_SRC", "OPR_SRC_NOLIT", "OPR_SRC_SIMPLE", "OPR_SRC_NOLDS"}

# Base values of plain bit fields that are not 0 in the simplest encoding.
BASE_BITS = {"row_mask": 0xF, "bank_mask": 0xF, "dpp": 0xE4, "dst_sel": 6, "src0_sel": 6,
             "src1_sel": 6, "dmask": 1, "en": 0xF, "imm": 1, "dfmt": 1, "format": 1,
             "literal": LIT_BASE}

# Alternative values tried for plain bit fields (filtered to those that fit the field).
FIELD_MENUS = {
    "abs": (1, 2, 4, 7), "neg": (1, 2, 4, 7), "neg_hi": (1, 2, 4, 7), "clmp": (1,),
    "omod": (1, 2, 3), "opsel": (1, 2, 4, 8, 15), "opsel_hi": (0, 1, 2), "opsel_hi2": (0,),
    "row_mask": (0x3, 0xA), "bank_mask": (0x5, 0xC), "bc": (1,), "fi": (1,),
    "src0_neg": (1,), "src0_abs": (1,), "src1_neg": (1,), "src1_abs": (1,),
    # SDWA selects: 0-3 BYTE_n, 4-5 WORD_n, 6 DWORD
    "dst_sel": (0, 3, 4, 5), "src0_sel": (1, 4, 5, 0), "src1_sel": (2, 5, 0),
    "dst_unused": (1, 2), "src0_sext": (1,), "src1_sext": (1,),
    "cbsz": (1, 2), "abid": (1, 3), "acc_cd": (1,), "acc": (1, 3, 2), "blgp": (1, 4),
    "offset0": (16, 255), "offset1": (1, 255), "gds": (1,), "glc": (1,), "slc": (1,),
    "dlc": (1,), "sc0": (1,), "sc1": (1,), "nt": (1,), "tfe": (1,), "lwe": (1,), "lds": (1,),
    "offen": (1,), "idxen": (1,), "sve": (1,), "nv": (1,), "scope": (1, 2, 3), "th": (1, 3, 7, 2),
    "format": (22, 63, 77), "dfmt": (4, 14), "nfmt": (7, 4),
    "dmask": (3, 15, 8), "dim": (1, 2, 3, 5, 6, 7), "unrm": (1,), "r128": (1,), "a16": (1,),
    "d16": (1,),
    "en": (1, 3, 0), "target": (8, 9, 12, 20, 32), "done": (1,), "row": (1,),
    "attr": (0, 32), "attr_chan": (1, 3), "wait_vdst": (1, 15), "wait_va_vdst": (1, 15),
    "wait_vm_vsrc": (1,), "waitexp": (1, 7),
}

# simm16 values by operand type; the first is the base form.
SIMM16_MENUS = {
    "OPR_LABEL": (0x10, 0, 1, 0xFFFF, 0x8000, 0x7FFF, 0xFFF0),
    "OPR_WAITCNT": (0, 0x7, 0x70, 0xF00, 0xFC00, 0xC07F, 0x3F7F, 0xFFFF),
    "OPR_DELAY": (0x1, 0x9, 0x91, 0x1A3, 0x5, 0xB, 0xFFF),
    "OPR_WAITCNT_DEPCTR": (0xFFE3, 0xFFFF, 0x0FFF, 0xFF9F, 0xFFFE, 0xF1FF, 0),
    "OPR_WAIT_ALU": (0xFFE3, 0xFFFF, 0x0FFF, 0xFF9F, 0xFFFE, 0xF1FF, 0),
    "OPR_CLAUSE": (0x1, 0x3F, 0x103, 0x2),
    "OPR_VERSION": (0, 1, 7, 0x100),
    "OPR_WAIT_EVENT": (0, 1, 2, 3),
    "OPR_SLEEP": (1, 0, 0x7F, 0x8000, 0xFFFF),
    "OPR_WAIT_MEM_DS": (0, 0x102, 0x3F3F, 0x500),
    "OPR_SIMM16": (0x1234, 0, 1, 0xFFFF, 0x8000, 0x7FFF, 0x3),
    "OPR_SENDMSG": (1, 3, 9, 0x22, 0x8A),
}
NO_OPERAND_SIMM16 = (0, 1)
SMALL_IMMEDIATES = (3, 0, 1, 0x1F, 0x7F)  # immediates stored in register fields (OPR_SIMM*)

Candidate = namedtuple("Candidate", "format name bytes")
Decoded = namedtuple("Decoded", "text length warned")
INVALID = "invalid"      # LLVM rejects the first instruction
UNPINNED = "unpinned"    # the first instruction runs past the bytes, or its length is unclear
CRASHED = "crashed"      # llvm-mc crashes on these bytes
BATCH_LINES = 4000       # lines per llvm-mc run: re-running one after a crash stays cheap


# ----------------------------------------------------------------------------------------------
# Spec


class Spec:
    """One arch's spec JSON with the lookups the generator needs."""

    def __init__(self, path, arch):
        data = json.loads(Path(path).read_text())
        self.arch = ARCHES["cdna" if arch == "cdna" else "rdna"]
        self.enums = data["enums"]
        self.operands = {i["name"]: i["operands"] for i in data["instructions"]}
        self.formats = {name: Format(name, f) for name, f in sorted(data["formats"].items())}

    def opcodes(self, fmt):
        """(name, opcode, rotation index) of every opcode the format allows, by opcode value."""
        op = fmt.fields.get("op")
        if op is None:  # EXP/VEXPORT: one instruction, no opcode field
            members = self.enums.get(fmt.name + "Op", {})
        else:
            enum = self.enums[op["enum"]]
            members = {name: enum[name] for name in op["allowed"]}
        ordered = sorted(members.items(), key=lambda item: (item[1], item[0]))
        return [(name, value, k) for k, (name, value) in enumerate(ordered)]


class Format:
    def __init__(self, name, spec):
        self.name = name
        fields = spec["fields"]
        # A variant re-declares some parent bits under new names (VOP3P_MFMA's cbsz sits on
        # neg_hi); the later, variant-specific field wins.
        kept, taken = set(), 0
        for f in reversed(fields):
            mask = field_mask(f) << f["lo"]
            if not mask & taken:
                kept.add(f["name"])
            taken |= mask
        self.fields = {f["name"]: f for f in fields if f["name"] in kept}
        top_bit = max(f["hi"] for f in fields)
        self.length = max(spec["size_bytes"], (top_bit // 32 + 1) * 4)
        self.variant = next((s for s in ("DPP16", "DPP8", "SDWA") if f"_{s}" in name), None)
        self.has_literal = "literal" in self.fields

    def pack(self, values):
        word = 0
        for name, field in self.fields.items():
            if field["kind"] == "FixedBitField":
                value = field["value"]
            else:
                value = values.get(name, 0)
            if not 0 <= value <= field_mask(field):
                raise ValueError(f"{self.name}.{name} = {value:#x} does not fit")
            word |= value << field["lo"]
        return word.to_bytes(self.length, "little")


def field_mask(field):
    return (1 << (field["hi"] - field["lo"] + 1)) - 1


def field_width(field):
    return field["hi"] - field["lo"] + 1


# ----------------------------------------------------------------------------------------------
# Candidate generation


def nregs(bits):
    return max(1, (bits + 31) // 32)


def alignment(n):
    """Tuples are aligned to their size (64 -> even, 128 -> 4, 256 and up -> 8)."""
    align = 1
    while align < n and align < 8:
        align *= 2
    return align


class RegAlloc:
    """Hands out aligned register numbers, upwards from a low start or downwards from a top."""

    def __init__(self, start, down=False):
        self.next, self.down = start, down

    def take(self, bits):
        n, align = nregs(bits), alignment(nregs(bits))
        if self.down:
            reg = (self.next - n) // align * align
            self.next = reg
        else:
            reg = -(-self.next // align) * align
            self.next = reg + n
        return reg


def interleave(groups):
    """Round-robin over lists, so every group contributes before any contributes twice."""
    out = []
    for i in range(max((len(g) for g in groups), default=0)):
        out.extend(g[i] for g in groups if i < len(g))
    return out


def rotate(seq, k):
    seq = list(seq)
    return seq[k % len(seq):] + seq[:k % len(seq)] if seq else seq


class FormBuilder:
    """Builds the candidate encodings of one opcode in one format.

    Forms are the base encoding (plain registers, no modifiers) plus variations, each changing
    one idea (a source kind, a modifier, a memory flag, ...). The variation order rotates with
    the opcode's index so that, across a format, every field value gets exercised.
    """

    def __init__(self, spec, fmt, name, opcode, k):
        self.spec, self.arch, self.fmt, self.name, self.k = spec, spec.arch, fmt, name, k
        self.opcode = opcode
        self.operands = spec.operands.get(name, {})
        self.values = {}
        self.vgprs, self.sgprs = RegAlloc(1), RegAlloc(2)
        self.roles = {f: self.role(f) for f in fmt.fields}
        for fname in fmt.fields:
            self.values[fname] = self.base_value(fname)
        # _LIT formats: the base form reads the literal through the first source that can.
        self.literal_fields = [f for f in self.fields_with("src") if self.takes_literal(f)]
        self.literal_home = None
        if fmt.has_literal and self.literal_fields:
            self.literal_home = self.values[self.literal_fields[0]]
            self.values[self.literal_fields[0]] = LITERAL

    # -- field roles and base values

    def operand(self, fname):
        """Operand info of a field. The spec calls the first source src0 or vsrc0 regardless of
        the format (RDNA VOP3 often says vsrc0); DPP/SDWA keep src0's register in vsrc0."""
        if fname in ("src0", "vsrc0") and fname not in self.operands:
            return self.operands.get("vsrc0" if fname == "src0" else "src0")
        return self.operands.get(fname)

    def bits(self, fname):
        return (self.operand(fname) or {}).get("bits", 32)

    def type(self, fname):
        return (self.operand(fname) or {}).get("type", "")

    def role(self, fname):
        field, kind, opr = self.fmt.fields[fname], self.fmt.fields[fname]["kind"], self.type(fname)
        if kind == "FixedBitField" or kind == "EnumBitField":
            return "fixed"
        if fname == "src0" and self.fmt.variant:
            return "variant_src"
        if kind in ("SrcField", "SSrcField", "SGPRField") and (
                opr.startswith("OPR_SIMM") or opr == "OPR_SENDMSG_RTN"):
            return "imm"
        if opr == "OPR_EXEC" or (kind == "SSrcField" and fname == "vdst"):
            return "sdst"  # VOPC/VOPCX e64 destinations, and v_readfirstlane's SGPR
        if kind in ("SrcField", "SSrcField"):
            return "src" if opr else "unused"
        if kind == "SGPRField":
            return "sgpr" if opr or fname in ("saddr", "soffset") else "unused"
        if kind in ("VGPRField", "VDSTYField"):
            return "vgpr" if opr else "unused"
        if kind in ("SBaseField", "SRsrcField"):
            return "sgpr" if opr else "unused"
        if opr.startswith("OPR_SRC") and field_width(field) == 9:
            return "src"  # VOP3PX2 scale_src0/1 are plain bit fields in the spec
        if opr == "OPR_SREG":
            return "sgpr"  # RDNA4 rsrc/samp: an SGPR number in a plain bit field
        if re.fullmatch(r"vaddr[0-3]", fname):
            return "vgpr"  # RDNA4 VIMAGE/VSAMPLE address VGPRs; LLVM rejects an unused vaddr4
        return "bits"

    def fields_with(self, role):
        return [f for f, r in self.roles.items() if r == role]

    def vgpr_src(self, fname):
        """Whether a source field's simplest value is a VGPR (else an SGPR)."""
        opr = self.type(fname)
        return self.fmt.fields[fname]["kind"] != "SSrcField" and (
            "VGPR" in opr or opr in VGPR_SRC_TYPES)

    def takes_literal(self, fname):
        return "NOLIT" not in self.type(fname) and self.type(fname) not in VGPR_ONLY_TYPES

    def base_value(self, fname):
        role, field = self.roles[fname], self.fmt.fields[fname]
        if role == "fixed":
            return field.get("value", self.opcode)
        if role == "variant_src":
            return {"DPP16": DPP16_SRC, "DPP8": DPP8_SRC, "SDWA": SDWA_SRC}[self.fmt.variant]
        if role == "imm":
            return self.imm_menu(fname)[0]
        if role == "src":
            if self.vgpr_src(fname):
                return 256 + self.vgprs.take(self.bits(fname))
            return self.sgprs.take(self.bits(fname))
        if role == "sdst":
            return EXEC_LO if self.type(fname) == "OPR_EXEC" else self.sgprs.take(self.bits(fname))
        if role == "sgpr":
            return self.base_sgpr(fname)
        if role == "vgpr":
            return self.vgprs.take(self.bits(fname))
        if role == "unused":
            return 0
        if fname == "simm16":
            return self.simm16_menu()[0]
        if fname == "x2encoding":
            return self.ld_scale_prefix()
        if fname.startswith("lane_sel_"):
            return int(fname[-1])
        if self.fmt.name == "VOP3PX2" and fname == "abid":
            return 1  # LLVM's scaled MFMA always sets bit 75, the spec's abid
        return field.get("default", BASE_BITS.get(fname, 0))

    def base_sgpr(self, fname):
        kind = self.fmt.fields[fname]["kind"]
        if fname == "saddr" and not self.operand(fname):
            return self.arch.saddr_off  # FLAT ops: no scalar address
        if fname == "soffset" and kind == "SGPRField" and self.is_smem():
            # SMEM's simplest form is an immediate offset only (CDNA: soffset_en=0 ignores it).
            return 0 if "soffset_en" in self.fmt.fields else self.arch.null
        if self.type(fname) == "OPR_SDST_NULL":
            return self.arch.null
        reg = self.sgprs.take(self.bits(fname))
        return reg // {"SBaseField": 2, "SRsrcField": 4}.get(kind, 1)

    def is_smem(self):
        return self.fmt.name == "SMEM"

    def ld_scale_prefix(self):
        """VOP3PX2 (gfx950 scaled MFMA) starts with a V_MFMA_LD_SCALE_B32 VOP3P word."""
        vop3p = self.spec.formats["VOP3P"].fields
        shift = vop3p["encoding"]["lo"] - vop3p["op"]["lo"]
        ld_scale = self.spec.enums["VOP3POp"]["V_MFMA_LD_SCALE_B32"]
        return vop3p["encoding"]["value"] << shift | ld_scale

    # -- menus

    def imm_menu(self, fname):
        if self.type(fname) == "OPR_SENDMSG_RTN":
            return list(self.spec.enums.get("MSG", {}).values()) or [128]
        return [v for v in SMALL_IMMEDIATES if v <= field_mask(self.fmt.fields[fname])]

    def simm16_menu(self):
        opr = self.type("simm16")
        if opr == "OPR_HWREG":
            return self.hwreg_menu()
        if opr == "OPR_SENDMSG":
            msgs = [v for v in self.spec.enums.get("MSG", {}).values() if v < 0x10000]
            return list(SIMM16_MENUS[opr]) + msgs[:2]
        return list(SIMM16_MENUS.get(opr, NO_OPERAND_SIMM16))

    def hwreg_menu(self):
        """hwreg(id) for a spread of the spec's HWREG ids, a bit range, and an unnamed id."""
        ids = sorted(self.spec.enums.get("HWREG", {}).values()) or [1]
        picks = [ids[0], ids[len(ids) // 3], ids[2 * len(ids) // 3], ids[-1]]
        full = [i | 31 << 11 for i in dict.fromkeys(picks)]
        return full + [ids[0] | 4 << 6 | 7 << 11, 0x3F | 31 << 11]

    def bits_menu(self, fname):
        field = self.fmt.fields[fname]
        if fname == "simm16":
            menu = self.simm16_menu()
        elif fname in ("offset", "ioffset"):
            width = field_width(field)
            menu = [0x10, (1 << (width - 1)) - 1, (1 << width) - 8]  # small, max, -8 if signed
        elif fname == "dpp":
            menu = self.arch.dpp
        else:
            menu = FIELD_MENUS.get(fname, ())
        base = self.values[fname]
        return [v for v in menu if v != base and v <= field_mask(field)]

    # -- variation groups (each a list of {field: value} overrides)

    def source_group(self):
        """Sources as SGPR, inline integer, inline float or special register, one at a time."""
        fields = [f for f in self.fields_with("src") if self.values[f] != LITERAL]
        out = []
        for r in range(3):
            for j, fname in enumerate(fields):
                kind = ("sgpr", "int", "float", "special")[(r + j + self.k) % 4]
                value = self.alternative_source(fname, kind, r)
                if value is not None:
                    out.append({fname: value})
        return out

    def alternative_source(self, fname, kind, r):
        opr = self.type(fname)
        if opr in VGPR_ONLY_TYPES or (opr in CONST_OK_TYPES and kind in ("sgpr", "special")):
            return None
        if kind == "sgpr":  # for a source whose base is an SGPR: another SGPR, or a VGPR
            if self.vgpr_src(fname) or self.fmt.fields[fname]["kind"] == "SSrcField":
                return self.sgprs.take(self.bits(fname))
            return 256 + self.vgprs.take(self.bits(fname))
        if kind == "int":
            return INTS[(r + self.k) % len(INTS)]
        if kind == "float":
            return FLOATS[(r + self.k) % len(FLOATS)]
        return self.arch.specials[(r + self.k) % len(self.arch.specials)]

    def literal_group(self):
        """_LIT formats: the literal in each source in turn, other values, and no source using
        it (V_FMAAK-style instructions whose literal is implicit)."""
        if not self.fmt.has_literal:
            return []
        out = [{"literal": v} for v in rotate(LIT_VALUES, self.k)[:3]]
        if self.literal_home is not None:
            first, home = self.literal_fields[0], self.literal_home
            out += [{first: home, other: LITERAL} for other in self.literal_fields[1:]]
            out.append({first: home})
        return out

    def field_group(self):
        fields = [f for f in rotate(self.fields_with("bits"), self.k) if f != "literal"]
        fields += self.fields_with("imm")
        menus = []
        for fname in fields:
            if self.roles[fname] == "bits":
                menu = self.bits_menu(fname)
            else:
                menu = self.imm_menu(fname)[1:]
            menus.append([{fname: v} for v in rotate(menu, self.k)])
        return interleave(menus)

    def scalar_group(self):
        """Scalar destinations and offsets as special registers; scalar address on/off."""
        out = []
        for fname in self.fields_with("sgpr") + self.fields_with("sdst"):
            kind, base = self.fmt.fields[fname]["kind"], self.values[fname]
            if fname == "saddr":
                off = self.arch.saddr_off
                out.append({fname: off} if base != off else {fname: self.sgprs.take(64)})
                if "sve" in self.fmt.fields:
                    out.append({fname: off, "sve": 1})
            elif fname == "soffset" and kind == "SGPRField" and "soffset_en" not in self.fmt.fields:
                out += [{fname: v} for v in (self.sgprs.take(32), self.arch.m0, self.arch.null)
                        if v != base]
            elif fname in ("sdst", "vdst"):
                out += [{fname: v} for v in rotate((VCC_LO, self.arch.null, EXEC_LO), self.k)
                        if v != base]
        if "soffset_en" in self.fmt.fields:  # CDNA SMEM: SGPR offset with or without imm
            sgpr = self.sgprs.take(32)
            out += [{"soffset_en": 1, "soffset": sgpr, "offset": 0x10},
                    {"imm": 0, "offset": sgpr}]
        return out

    def variant_group(self):
        """DPP8 lane selects and fi; SDWA scalar sources and scalar destination."""
        out = []
        if self.fmt.variant == "DPP8":
            rng = random.Random(f"{self.fmt.name}:{self.name}")
            for lanes in ([7 - i for i in range(8)], [1] * 8, [rng.randrange(8) for _ in range(8)]):
                out.append({f"lane_sel_{i}": lane for i, lane in enumerate(lanes)})
            out.append({"src0": DPP8_FI_SRC})
        if self.fmt.variant == "SDWA":
            for flag, reg in (("s0", "vsrc0"), ("s1", "vsrc1")):
                if flag in self.fmt.fields:
                    out.append({flag: 1, reg: self.sgprs.take(self.bits(reg))})
            if "s0" in self.fmt.fields:
                out.append({"s0": 1, "vsrc0": INTS[self.k % len(INTS)]})
            if "sd" in self.fmt.fields:
                out.append({"sd": 1, "sdst": self.sgprs.take(64)})
        return out

    def high_register_group(self):
        """Every register operand near the top of its file (v255, s105/s101 and below)."""
        vgprs = RegAlloc(256, down=True)
        sgprs = RegAlloc(self.arch.sgpr_top, down=True)
        high = {}
        for fname, role in self.roles.items():
            base = self.values[fname]
            if role == "vgpr":
                high[fname] = vgprs.take(self.bits(fname))
            elif role == "src" and base >= 256 and base != LITERAL:
                high[fname] = 256 + vgprs.take(self.bits(fname))
            elif role in ("src", "sdst") and base < self.arch.sgpr_top:
                high[fname] = sgprs.take(self.bits(fname))
            elif (role == "sgpr" and self.type(fname) and base < self.arch.sgpr_top
                  and not (self.is_smem() and fname == "soffset")):
                kind = self.fmt.fields[fname]["kind"]
                scale = {"SBaseField": 2, "SRsrcField": 4}.get(kind, 1)
                high[fname] = sgprs.take(max(self.bits(fname), 32 * scale)) // scale
        return [high] if high else []

    def candidates(self):
        groups = [self.literal_group(), self.source_group(), self.field_group(),
                  self.scalar_group(), self.variant_group(), self.high_register_group()]
        seen, out = set(), []
        for overrides in [{}] + interleave(groups):
            blob = self.fmt.pack({**self.values, **overrides})
            if blob not in seen:
                seen.add(blob)
                out.append(Candidate(self.fmt.name, self.name, blob))
            if len(out) == MAX_FORMS:
                break
        return out


def vopd_candidates(spec, fmt):
    """VOPD pairs every X opcode with every Y opcode. Registers respect the bank rules: the
    destinations differ in parity, the two src0s and the two vsrc1s sit in different banks."""
    enum = sorted(spec.enums["VOPDOp"].items(), key=lambda item: item[1])
    xs = [(n, v) for n, v in enum if v <= field_mask(fmt.fields["opx"])]
    base = {"vdstx": 1, "vdsty": 1, "srcx0": 256 + 3, "srcy0": 256 + 4, "vsrcx1": 5, "vsrcy1": 6}
    if fmt.has_literal:
        variants = [{"srcx0": LITERAL, "literal": LIT_BASE},
                    {"srcy0": LITERAL, "literal": 0x3F800000}, {"literal": LIT_BASE}]
    else:
        variants = [{}, {"srcx0": 2}, {"srcy0": 242, "vsrcy1": 7}]
    out = []
    for xname, x in xs:
        for yname, y in enum:
            for v in variants:
                blob = fmt.pack({**base, "opx": x, "opy": y, **v})
                out.append(Candidate(fmt.name, f"{xname}::{yname}", blob))
    return out


def reference_candidates(spec):
    out, seen = [], set()
    for fmt in spec.formats.values():
        if "opx" in fmt.fields:
            cands = vopd_candidates(spec, fmt)
        else:
            cands = [c for name, opcode, k in spec.opcodes(fmt)
                     for c in FormBuilder(spec, fmt, name, opcode, k).candidates()]
        for cand in cands:  # identical bytes from two formats: the first format keeps them
            if cand.bytes not in seen:
                seen.add(cand.bytes)
                out.append(cand)
    return out


def random_words(spec, target):
    """Random instruction words; half have a random format's fixed bits and an allowed opcode
    so that many of them decode."""
    rng = random.Random(f"gpubench-random-{target}")
    formats = list(spec.formats.values())
    out = {}
    while len(out) < RANDOM_COUNT:
        length = rng.choice(RANDOM_LENGTHS)
        word = rng.getrandbits(8 * length)
        if rng.random() < 0.5:
            fmt = rng.choice(formats)
            opcodes = spec.opcodes(fmt)
            for fname, field in fmt.fields.items():
                if field["hi"] >= 8 * length:
                    continue
                if field["kind"] == "FixedBitField":
                    value = field["value"]
                elif fname == "op" and opcodes:
                    value = rng.choice(opcodes)[1]
                else:
                    continue
                word = word & ~(field_mask(field) << field["lo"]) | value << field["lo"]
        blob = word.to_bytes(length, "little")
        out[blob] = None
    return list(out)


# ----------------------------------------------------------------------------------------------
# llvm-mc


WARNING_RE = re.compile(r"^<stdin>:(\d+):(\d+): (warning|error): (.*)$", re.M)
ENCODING_RE = re.compile(r"^\t?(.*?)\s*; encoding: \[([0-9a-fx,]*)\]", re.M)


class LLVM:
    def __init__(self, path):
        self.path = path
        self.pool = ThreadPoolExecutor(MAX_WORKERS)

    def run(self, target, args, text):
        # Files, not pipes: llvm-mc writes its many warnings unbuffered, and a pipe costs a
        # wake-up per write.
        cmd = [self.path, "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}", *args]
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            proc = subprocess.run(cmd, input=text, stdout=out, stderr=err, text=True)
            out.seek(0)
            err.seek(0)
            return subprocess.CompletedProcess(cmd, proc.returncode, out.read(), err.read())

    def map_chunks(self, fn, items, limit=MAX_LINES):
        """Split items into chunks (at least MAX_WORKERS, at most `limit` long), run fn on each
        concurrently, join the results."""
        count = max(MAX_WORKERS, -(-len(items) // limit))
        size = -(-len(items) // count) or 1
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        return [r for part in self.pool.map(fn, chunks) for r in part]

    # -- disassembly

    def decode_batch(self, target, mattrs, blobs):
        """The first event of each blob, decoded in one llvm-mc run: INVALID, a Decoded, UNPINNED,
        or None when a previous blob ran into this one (the caller retries those)."""
        lines = [b + SEPARATOR + MARKER_PREFIX + (MARKER_TAG | i).to_bytes(4, "little")
                 for i, b in enumerate(blobs)] + [PADDING]
        proc = self.run(target, ["--disassemble", "-show-encoding", *mattrs], hex_lines(lines))
        if proc.returncode != 0:
            raise LLVMCrash(proc)
        warnings = parse_warnings(proc.stderr)
        regions = split_at_markers(parse_instructions(proc.stdout), len(blobs))
        results = []
        for i, (blob, region) in enumerate(zip(blobs, regions)):
            warns = warnings.get(i, {})
            if region is None or region is UNPINNED:
                results.append(INVALID if INVALID_MESSAGE in warns.get(0, ()) else region)
            elif any(offset >= len(blob) + len(SEPARATOR) for offset in warns):
                raise RuntimeError(f"llvm-mc output out of step at line {i + 1}")
            else:
                results.append(first_event(region, warns, len(blob), len(SEPARATOR)))
        return results

    def decode_surviving(self, target, mattrs, blobs):
        """decode_batch, setting aside blobs that crash llvm-mc. Its warnings are unbuffered, so
        the last one shows roughly where it died: re-run the lines before that, the next line
        alone, and the rest."""
        if not blobs:
            return []
        try:
            return self.decode_batch(target, mattrs, blobs)
        except LLVMCrash as crash:
            if len(blobs) == 1:
                return [CRASHED]
            k = min(max(parse_warnings(crash.stderr), default=-1) + 1, len(blobs) - 1)
            return (self.decode_surviving(target, mattrs, blobs[:k])
                    + self.decode_surviving(target, mattrs, blobs[k:k + 1])
                    + self.decode_surviving(target, mattrs, blobs[k + 1:]))

    def decode(self, target, mattrs, blobs):
        """decode_surviving over all blobs, retrying the ones a neighbour ran into."""
        def run(indices):
            events = self.decode_surviving(target, mattrs, [blobs[i] for i in indices])
            return list(zip(indices, events))

        results = [None] * len(blobs)
        pending = list(range(len(blobs)))
        while pending:
            for i, event in self.map_chunks(run, pending, BATCH_LINES):
                results[i] = event
            # A chunk's first blob is never run into, so each round makes progress.
            pending = [i for i in pending if results[i] is None]
        return results

    def decode_alone(self, target, mattrs, blob):
        """The first event of one blob with nothing after it. A crash (literal cut off) is
        LLVM's way of rejecting it."""
        proc = self.run(target, ["--disassemble", "-show-encoding", *mattrs], hex_lines([blob]))
        if proc.returncode != 0:
            return INVALID
        return first_event(parse_instructions(proc.stdout),
                           parse_warnings(proc.stderr).get(0, {}), len(blob), 0)

    # -- assembly

    def assemble(self, target, mattrs, texts):
        """LLVM's encoding of each text, or None where LLVM reports an error. A marker line
        follows each text because an error does not always stop the instruction being emitted
        (gfx12 `nv`)."""
        def run(chunk):
            source = "".join(f"{t}\ns_mov_b32 s0, 0x{MARKER_TAG | i:x}\n"
                             for i, t in enumerate(chunk))
            proc = self.run(target, ["-show-encoding", *mattrs], source)
            if proc.returncode not in (0, 1):
                raise LLVMCrash(proc)
            failed = {(int(m[1]) - 1) // 2  # text i is on line 2i + 1
                      for m in WARNING_RE.finditer(proc.stderr) if m[3] == "error"}
            out, current, expected = [], [], 0
            for m in ENCODING_RE.finditer(proc.stdout):
                marker = MARKER_RE.fullmatch(m[1])
                if marker and int(marker[1], 16) == expected:
                    if len(current) > 1 and expected not in failed:
                        raise RuntimeError(f"{target}: {chunk[expected]!r} assembled to "
                                           f"{len(current)} instructions")
                    out.append(current[0] if current and expected not in failed else None)
                    current, expected = [], expected + 1
                else:
                    current.append(parse_encoding(m[2]))
            if expected != len(chunk):
                raise RuntimeError(f"{target}: assembler output out of step at text {expected}")
            return out
        return self.map_chunks(run, texts)


class LLVMCrash(RuntimeError):
    def __init__(self, proc):
        super().__init__(f"llvm-mc exited {proc.returncode}: {proc.stderr[-2000:]}")
        self.stderr = proc.stderr


def parse_encoding(text):
    return bytes(int(x, 16) for x in text.split(",") if x)


def hex_lines(lines):
    return "".join(",".join(f"0x{x:02x}" for x in line) + "\n" for line in lines)


def parse_instructions(stdout):
    """(text, re-encoded length) of each printed instruction, in order."""
    return [(m[1], len(parse_encoding(m[2]))) for m in ENCODING_RE.finditer(stdout)]


def parse_warnings(stderr):
    """{line index: {byte offset: [messages]}} from llvm-mc's diagnostics."""
    out = {}
    for m in WARNING_RE.finditer(stderr):
        line, col = int(m[1]) - 1, int(m[2]) - 1
        if col % 5:  # each byte is a 5-character "0xNN," token
            raise RuntimeError(f"unexpected diagnostic column: {m[0]}")
        out.setdefault(line, {}).setdefault(col // 5, []).append(m[4])
    return out


def split_at_markers(insts, count):
    """Per line, the instructions printed before its marker; UNPINNED for a line whose marker
    was eaten (one of its instructions ran past its end) and None for the lines after it up to
    the next marker (run into, so unknown)."""
    regions = [None] * count
    current, expected = [], 0
    for text, length in insts:
        m = MARKER_RE.fullmatch(text)
        index = int(m[1], 16) if m else -1
        if expected <= index < count:
            regions[expected] = current if index == expected else UNPINNED
            current, expected = [], index + 1
        else:
            current.append((text, length))
    if expected < count:
        regions[expected] = UNPINNED
    return regions


def first_event(insts, warnings, size, tail):
    """The first event in `size` bytes followed by `tail` bytes of invalid words, given the
    instructions LLVM printed there and its warnings by offset.

    Lengths come from the re-encodings, accepted only if they tile the bytes exactly around the
    invalid words. A lone instruction spans whatever the invalid words leave before them, whatever
    its re-encoding says. An instruction reaching into the tail is UNPINNED.
    """
    end = size + tail
    invalid = {offset for offset, msgs in warnings.items() if INVALID_MESSAGE in msgs}
    if 0 in invalid:
        return INVALID
    if not insts:
        raise RuntimeError("llvm-mc printed nothing for bytes it did not reject")
    pos, k = 0, 0
    while pos < end:
        if pos in invalid:
            pos += 4
        elif k < len(insts):
            pos, k = pos + insts[k][1], k + 1
        else:
            break
    length = insts[0][1]
    if pos != end or k != len(insts):
        first_invalid = min(invalid, default=end)
        if len(insts) > 1 or invalid != set(range(first_invalid, end, 4)):
            return UNPINNED
        length = first_invalid
    if length > size:
        return UNPINNED
    return Decoded(insts[0][0], length, bool(warnings.get(0)))


# ----------------------------------------------------------------------------------------------
# Corpus


def is_rdna(target):
    return TARGETS[target] != "cdna"


def exact_text(event, blob):
    """LLVM's text when it decoded exactly one instruction over all of blob, cleanly."""
    if isinstance(event, Decoded) and event.length == len(blob) and not event.warned:
        return event.text
    return None


def views(llvm, target, blobs):
    """(wave32 text, wave64 text) per blob (CDNA has one mode, reported as both), and how many
    blobs crashed llvm-mc."""
    modes = [[], WAVE64] if is_rdna(target) else [[]]
    events = [llvm.decode(target, mattrs, blobs) for mattrs in modes]
    crashed = sum(CRASHED in per_blob for per_blob in zip(*events))
    texts = [[exact_text(e, b) for e, b in zip(mode, blobs)] for mode in events]
    return list(zip(texts[0], texts[-1])), crashed


def records_for(cand, text32, text64):
    """One record when both wave modes agree (wave null), else one per mode that decodes."""
    base = {"format": cand.format, "name": cand.name, "bytes": cand.bytes.hex()}
    if text32 is not None and text32 == text64:
        return [{**base, "text": text32, "wave": None}]
    return [{**base, "text": t, "wave": w}
            for t, w in ((text32, 32), (text64, 64)) if t is not None]


def add_asm(llvm, target, records):
    for wave64 in (False, True):
        subset = [r for r in records if (r["wave"] == 64) == wave64]
        if subset:
            encodings = llvm.assemble(target, WAVE64 if wave64 else [], [r["text"] for r in subset])
            for r, enc in zip(subset, encodings):
                r["asm"] = enc.hex() if enc is not None else None


def record_key(r):
    return (r["format"], r["name"], r["bytes"], {None: 0, 32: 1, 64: 2}[r["wave"]])


def build_reference(llvm, spec, target):
    cands = reference_candidates(spec)
    pairs, crashed = views(llvm, target, [c.bytes for c in cands])
    records = []
    for cand, (t32, t64) in zip(cands, pairs):
        records += records_for(cand, t32, t64)
    add_asm(llvm, target, records)
    records.sort(key=record_key)
    tried = {(c.format, c.name) for c in cands}
    valid = {(r["format"], r["name"]) for r in records}
    stats = {"formats": len(spec.formats), "candidates": len(cands), "crashed": crashed,
             "opcodes_tried": len(tried), "opcodes_valid": len(valid), "entries": len(records),
             "asm_null": sum(r["asm"] is None for r in records)}
    return [order_record(r) for r in records], stats


def order_record(r):
    return {k: r[k] for k in ("format", "name", "bytes", "text", "asm", "wave")}


def random_verdicts(llvm, target, blobs):
    """LLVM's verdict on each blob alone, {"text", "length"} (both None when it rejects the
    first instruction), or CRASHED / UNPINNED when there is no verdict to record."""
    events = llvm.decode(target, [], blobs)
    # The first instruction read past the blob: ask again with nothing after the blob.
    unpinned = [i for i, e in enumerate(events) if e is UNPINNED]
    alone = list(llvm.pool.map(lambda i: llvm.decode_alone(target, [], blobs[i]), unpinned))
    for i, event in zip(unpinned, alone):
        events[i] = event
    verdicts = []
    for event in events:
        if isinstance(event, Decoded):
            verdicts.append({"text": event.text, "length": event.length})
        elif event is INVALID:
            verdicts.append({"text": None, "length": None})
        else:  # no verdict: llvm-mc crashed, or its output does not pin the length
            verdicts.append(event)
    return verdicts, len(unpinned)


def build_random(llvm, spec, target):
    blobs = sorted(random_words(spec, target), key=lambda b: b.hex())
    verdicts, alone = random_verdicts(llvm, target, blobs)
    entries = [{"bytes": b.hex(), **v} for b, v in zip(blobs, verdicts) if isinstance(v, dict)]
    stats = {"random": len(entries), "random_valid": sum(e["text"] is not None for e in entries),
             "random_alone": alone, "random_crashed": verdicts.count(CRASHED),
             "random_unpinned": verdicts.count(UNPINNED)}
    return entries, stats


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def llvm_version(llvm):
    out = subprocess.run([llvm.path, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"LLVM version (\S+)", out)
    return m[1] if m else "unknown"


def write_readme(llvm):
    rows = []
    for target in TARGETS:
        ref, rnd = CORPUS_DIR / f"{target}.jsonl", CORPUS_DIR / f"{target}.random.jsonl"
        if not ref.exists() or not rnd.exists():
            continue
        records, randoms = read_jsonl(ref), read_jsonl(rnd)
        rows.append(f"| {target} | {TARGETS[target]}.json | {len(records)} | "
                    f"{len({(r['format'], r['name']) for r in records})} | "
                    f"{sum(r['asm'] is None for r in records)} | "
                    f"{sum(r['wave'] is not None for r in records)} | {len(randoms)} | "
                    f"{sum(r['text'] is not None for r in randoms)} |")
    (CORPUS_DIR / "README.md").write_text(README.format(version=llvm_version(llvm),
                                                         rows="\n".join(rows)))


README = """\
# LLVM reference corpus

Test vectors for gpubench's AMD GPU disassembler and assembler, produced by LLVM {version}
(`llvm-mc`) from candidate encodings that `tools/build_corpus.py` builds bit by bit from AMD's
ISA spec (`../shared/isa-spec/`). Everything here is LLVM's output: where LLVM disagrees with
the AMD documents, these files say what LLVM says.

Rebuild (a few minutes, needs `llvm-mc-22`):

    python tools/build_corpus.py --all
    python tools/build_corpus.py --all --check 200   # re-ask LLVM about a sample; exit 1 on drift

## `<target>.jsonl`

One instruction per line, sorted by format, name, bytes:

    {{"format":"VOP2","name":"V_ADD_F32_E32","bytes":"02070206",
     "text":"v_add_f32_e32 v1, v2, v3","asm":"02070206","wave":null}}

- `format`, `name`: the spec's encoding format and instruction the candidate was built for
  (VOPD names are `X::Y` pairs).
- `bytes`: the encoding (hex, memory order). LLVM decoded it as exactly one instruction covering
  every byte, without a warning. (Candidates that crash llvm-mc are left out.)
- `text`: LLVM's disassembly, as printed (leading tab and `; encoding` comment removed). A few
  texts carry LLVM's own remarks, e.g. `/*Invalid immediate*/`; their `asm` is usually null.
- `asm`: LLVM's encoding when it assembles `text` again, or null if it reports an error for its
  own text (even where it still emits bytes, as for gfx12's `nv`). It differs from `bytes` for
  non-canonical encodings (ignored bits set, unused registers, truncated literals, ...).
- `wave`: null when the text is the same in wave32 and wave64. On RDNA targets, where the two
  differ (vcc_lo vs vcc, ...) or only one mode decodes the bytes, there is one record per mode
  (32 or 64; wave64 is `-mattr=+wavefrontsize64`). CDNA targets are wave64 only: always null.

## `<target>.random.jsonl`

Random instruction words of 4, 8 and 12 bytes (seeded; half start with a random format's fixed
bits and an allowed opcode) with LLVM's verdict on the bytes alone: `text` and `length` (bytes
consumed by the first instruction, possibly fewer than given), or both null when LLVM reports
the first instruction invalid (including when it needs more bytes than there are). Words that
crash llvm-mc, or whose first instruction's length LLVM's output does not pin down, are left out.

## Counts

| target | spec | entries | formats+names | asm null | per-wave | random | random decoded |
|---|---|---|---|---|---|---|---|
{rows}
"""


# ----------------------------------------------------------------------------------------------
# Drift check


def check_target(llvm, target, n, seed):
    """Re-ask LLVM about a sample of the committed entries; return a list of differences."""
    rng = random.Random(f"{seed}-{target}")
    records = read_jsonl(CORPUS_DIR / f"{target}.jsonl")
    randoms = read_jsonl(CORPUS_DIR / f"{target}.random.jsonl")
    diffs = []

    by_bytes = {}
    for r in records:
        by_bytes.setdefault(r["bytes"], []).append(r)
    sample = rng.sample(sorted(by_bytes), min(n, len(by_bytes)))
    blobs = [bytes.fromhex(h) for h in sample]
    for h, (t32, t64) in zip(sample, views(llvm, target, blobs)[0]):
        first = by_bytes[h][0]
        cand = Candidate(first["format"], first["name"], bytes.fromhex(h))
        expected = {(r["wave"], r["text"]) for r in by_bytes[h]}
        actual = {(r["wave"], r["text"]) for r in records_for(cand, t32, t64)}
        if expected != actual:
            diffs.append(f"{target} {h}: committed {sorted(expected, key=str)}, "
                         f"LLVM now {sorted(actual, key=str)}")
    committed = [r for h in sample for r in by_bytes[h]]
    rebuilt = [dict(r) for r in committed]
    add_asm(llvm, target, rebuilt)
    for old, new in zip(committed, rebuilt):
        if old["asm"] != new["asm"]:
            diffs.append(f"{target} asm of {old['text']!r}: committed {old['asm']}, "
                         f"LLVM now {new['asm']}")

    rsample = rng.sample(randoms, min(n, len(randoms)))
    verdicts, _ = random_verdicts(llvm, target, [bytes.fromhex(r["bytes"]) for r in rsample])
    for r, v in zip(rsample, verdicts):
        now = (v["text"], v["length"]) if isinstance(v, dict) else v
        if (r["text"], r["length"]) != now:
            diffs.append(f"{target} random {r['bytes']}: committed {r['text']!r}/{r['length']}, "
                         f"LLVM now {now}")
    return diffs


# ----------------------------------------------------------------------------------------------
# CLI


def spec_path(args, target):
    spec_dir = Path(args.spec_dir or os.environ.get("GPUBENCH_ISA_SPEC") or DEFAULT_SPEC_DIR)
    return spec_dir / f"{TARGETS[target]}.json"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--target", choices=sorted(TARGETS))
    which.add_argument("--all", action="store_true", help="all of " + ", ".join(TARGETS))
    parser.add_argument("--llvm-mc", default="llvm-mc-22",
                        help="llvm-mc binary (default %(default)s)")
    parser.add_argument("--spec-dir", help="ISA spec JSON directory (default: $GPUBENCH_ISA_SPEC "
                        "or ../shared/isa-spec next to the repository)")
    parser.add_argument("--check", type=int, metavar="N",
                        help="instead of rebuilding, re-ask LLVM about N sampled entries per "
                        "target (and N random words) and exit 1 on any difference")
    parser.add_argument("--seed", type=int, default=0, help="sample seed for --check")
    args = parser.parse_args(argv)
    targets = list(TARGETS) if args.all else [args.target]
    if not shutil.which(args.llvm_mc):
        parser.error(f"{args.llvm_mc} not found")
    missing = [str(spec_path(args, t)) for t in targets if not spec_path(args, t).exists()]
    if missing and args.check is None:
        parser.error(f"ISA spec not found: {', '.join(missing)} (see --spec-dir)")
    llvm = LLVM(args.llvm_mc)

    if args.check is not None:
        diffs = []
        for target in targets:
            found = check_target(llvm, target, args.check, args.seed)
            print(f"{target}: {len(found)} differences in a sample of {args.check}")
            diffs += found
        for d in diffs:
            print(d)
        return 1 if diffs else 0

    CORPUS_DIR.mkdir(parents=True, exist_ok=True)
    for target in targets:
        start = time.monotonic()
        spec = Spec(spec_path(args, target), TARGETS[target])
        records, stats = build_reference(llvm, spec, target)
        randoms, rstats = build_random(llvm, spec, target)
        write_jsonl(CORPUS_DIR / f"{target}.jsonl", records)
        write_jsonl(CORPUS_DIR / f"{target}.random.jsonl", randoms)
        stats.update(rstats, seconds=round(time.monotonic() - start, 1))
        print(target, " ".join(f"{k}={v}" for k, v in stats.items()), flush=True)
    write_readme(llvm)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One ALU instruction on one emulated wave32 against AMD's pseudocode (with the hardware corrections of
gpubench/isa/corrections.py, as the emulator compiles it) run by the reference evaluator.

    case = Case.of(isa, idef)             # operands: VALU v10/v12/v14 -> v16, SALU s2/s4 -> s6
    mismatch = case.compare(seed)         # None, or the first differing lane/register as text
    # raises Unreferenced(reason) when the reference evaluator cannot run the instruction

Sources are plain registers (64-bit ones as pairs, hence the even, spaced numbers); lane masks read
as VCC by VOP3 forms (v_cndmask, carry-ins) come from s10 and those written as VCC by VOP3SD go to
sdst (s8); VOP3 compares write s8. EXEC is all ones; everything is random (seeded) with a few
special float patterns in the first lanes.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
from asm_dispatch import CODE_BASE, Dispatch

from gpubench.compiler.pcode import Environment, InstructionLibrary, Record, Reg, evaluate, parse
from gpubench.emu import coverage, executor
from gpubench.emu.waves import EXEC_LO, VCC_LO
from gpubench.isa.asm import assemble
from gpubench.isa.corrections import hardware_pseudocode
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import InstrDef

FAMILIES = ("SOP1", "SOP2", "SOPC", "SOPK", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD")
SALU = ("SOP1", "SOP2", "SOPC", "SOPK")
VGPR = 256
V_SRC = {"src0": 10, "vsrc0": 10, "src1": 12, "vsrc1": 12, "src2": 14}  # VGPR numbers
S_SRC = {"src0": 20, "vsrc0": 20, "src1": 22, "vsrc1": 22, "src2": 10}  # SGPR numbers, SGPR-only sources
V_DST, S_LANEMASK_DST, S_VCC_IN = 16, 8, 10
SALU_REGS = {"ssrc0": 2, "ssrc1": 4, "sdst": 6}
F32_SPECIALS = (0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x00000001, 0x3F800000)
F16_SPECIALS = (0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x0001, 0x3C00)
F64_HI_SPECIALS = (0x00000000, 0x80000000, 0x7FF00000, 0xFFF00000, 0x7FF80000, 0x7FF00000, 0x00000000, 0x3FF00000)
WAVE = 32
TARGET = "gfx1100"


class Unreferenced(Exception):
    """The reference evaluator cannot run this instruction (the reason is the message)."""


@functools.cache
def _library(arch: str) -> InstructionLibrary:
    return InstructionLibrary(hardware_pseudocode(arch))


@functools.cache
def _parsed(text: str):
    return parse(text)


def pseudocode_text(arch: str, idef: InstrDef) -> str | None:
    """The text the emulator compiles (alu.compiled_semantics's lookup, e64 falling back to e32)."""
    names = [(idef.enum, idef.name)]
    if idef.enum == "VOP3Op" and idef.name.endswith("_E64"):
        names += [(enum, idef.name.removesuffix("_E64") + "_E32") for enum in ("VOP1Op", "VOP2Op", "VOPCOp")]
    table = hardware_pseudocode(arch)
    return next((table[n] for n in names if n in table), None)


def candidates(isa) -> list[InstrDef]:
    return [d for d in isa.instructions if coverage.family_of(d) in FAMILIES
            and coverage.semantics_source(isa, d) in ("pseudocode", "pseudocode+correction")]


def _is_sgpr_source(op) -> bool:
    return op.type in ("OPR_SREG", "OPR_SSRC", "OPR_SSRC_LANESEL")


@dataclass
class Case:
    isa: object
    idef: InstrDef
    family: str
    inst: Instruction
    data: bytes

    @staticmethod
    def of(isa, idef: InstrDef) -> Case:
        family = coverage.family_of(idef)
        extra: dict[str, int] = {}
        if family in SALU:
            for op in idef.operands:
                if op.field in SALU_REGS:
                    extra[op.field] = SALU_REGS[op.field]
            if family == "SOPK":
                extra["sdst"] = SALU_REGS["sdst"]
        else:
            for op in idef.operands:
                field = {"vsrc0": "src0"}.get(op.field, op.field) if family in ("VOP3", "VOP3SD") else op.field
                if field in ("src0", "src1", "src2"):
                    extra[field] = S_SRC[field] if _is_sgpr_source(op) else VGPR + V_SRC[field]
                elif field == "vsrc1":
                    extra[field] = V_SRC[field]
                elif field == "vdst":
                    lanemask = op.type in ("OPR_SREG", "OPR_EXEC", "OPR_SDST") or family == "VOPC"
                    extra[field] = S_LANEMASK_DST if lanemask else V_DST
                elif field == "sdst":
                    extra[field] = S_LANEMASK_DST
        inst = coverage.instruction_of(isa, idef, extra)
        if inst is None or inst.idef is not idef:
            inst = coverage.instruction_of(isa, idef, {k: v for k, v in extra.items()
                                                        if k in ("vdst", "sdst", "vsrc1", "ssrc0", "ssrc1")})
        assert inst is not None and inst.idef is idef, idef.name
        return Case(isa, idef, family, inst, inst.word.to_bytes(inst.size, "little"))

    # --- running ---------------------------------------------------------------------------------

    def operand(self, field: str):
        return next((op for op in self.idef.operands if op.field == field), None)

    def compare(self, seed: int) -> str | None:
        rng = np.random.default_rng(seed)
        run = Dispatch(TARGET, WAVE, vgprs=32)
        run.vgpr[0, :, :] = rng.integers(0, 1 << 32, run.vgpr.shape[1:], dtype=np.uint64).astype(np.uint32)
        run.sgpr[0, :32] = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
        for i in range(len(F32_SPECIALS)):  # special float patterns in the first lanes' sources
            for k, reg in enumerate((10, 12, 14)):
                j = (i + 3 * k) % len(F32_SPECIALS)
                if self.family not in SALU:
                    width = max((op.bits for op in self.idef.operands if op.field != "vdst"), default=32)
                    if width == 16:
                        run.vgpr[0, reg, i] = F16_SPECIALS[j] | (int(run.vgpr[0, reg, i]) & 0xFFFF0000)
                    elif width == 64:
                        run.vgpr[0, reg + 1, i] = F64_HI_SPECIALS[j]
                        run.vgpr[0, reg, i] = 0 if j != 5 else 1
                    else:
                        run.vgpr[0, reg, i] = F32_SPECIALS[j]
        run.vgpr[0, 12:14, 8:10] = run.vgpr[0, 10:12, 8:10]  # lanes 8, 9: S1 == S0 (compares' equal case)
        if self.family in SALU and rng.integers(0, 4) == 0:
            run.sgpr[0, 4:6] = run.sgpr[0, 2:4]  # SSRC1 == SSRC0 (compares' equal case)
        scc0 = int(rng.integers(0, 2))
        run.waves.scc[0] = scc0
        vcc0 = int(rng.integers(0, 1 << 32))
        run.sgpr[0, VCC_LO] = vcc0
        if self.family == "SOPK":
            simm16 = int(rng.integers(0, 1 << 16))
        before_v = run.vgpr[0].copy()
        before_s = run.sgpr[0].copy()
        ieee = int(run.waves.mode[0] >> 9 & 1)

        text = pseudocode_text(self.isa.arch, self.idef)
        if re.search(r"\bPC\s*=[^=]", text):
            raise Unreferenced("writes PC (control flow): not a single-instruction comparison")
        literal = None
        if self.inst.fmt.field("literal") is not None or self.inst.size > self.inst.fmt.size:
            literal = int(rng.integers(0, 1 << 32))

        # the emulator
        word = self.inst_bytes()
        if literal is not None:
            word = word[:-4] + literal.to_bytes(4, "little")
        if self.family == "SOPK":
            word = self.with_simm16(word, simm16)
        code = word + assemble(run.isa, "s_endpgm\n").data
        run.device.alloc_at(CODE_BASE, code)
        run.waves.pc[:] = CODE_BASE
        executor.run(run.context())
        after_v, after_s = run.vgpr[0], run.sgpr[0]
        scc1 = int(run.waves.scc[0])

        program = _parsed(text)
        lib = _library(self.isa.arch)
        extra_state = {} if literal is None else {"SIMM32": literal}
        if "PC" in text:  # s_getpc_b64 reads the address of the instruction
            extra_state["PC"] = CODE_BASE

        def s64(reg, s):
            return int(s[reg]) | int(s[reg + 1]) << 32

        def value(field, bits, lane, regs_v, regs_s):
            op = self.operand(field)
            if self.family in SALU:
                reg = SALU_REGS[field if field != "simm16" else "sdst"]
                return s64(reg, regs_s) if bits == 64 else int(regs_s[reg])
            if field in ("src0", "src1", "src2", "vsrc0", "vsrc1") and (op is not None and _is_sgpr_source(op)):
                reg = S_SRC[field]
                return s64(reg, regs_s) if bits == 64 else int(regs_s[reg])
            reg = V_SRC[field]
            v = int(regs_v[reg, lane]) | (int(regs_v[reg + 1, lane]) << 32 if bits == 64 else 0)
            return v & ((1 << bits) - 1) if bits in (16, 32, 64) else v

        if self.family in SALU:
            ports = {"S0": "ssrc0", "S1": "ssrc1"}
            if self.family == "SOPK":
                ports = {"S0": "sdst"}
            sdst = self.operand("sdst")
            dbits = sdst.bits if sdst is not None else 32
            env_b = {}
            for port, field in ports.items():
                op = self.operand(field)
                if op is not None:
                    env_b[port] = value(field, op.bits, 0, before_v, before_s)
            d0 = s64(6, before_s) if dbits == 64 else int(before_s[6])
            env = Environment(**env_b, D0=d0, SCC=scc0, VCC=vcc0, EXEC=0xFFFFFFFF, laneId=0, WAVE32=1, WAVE64=0,
                              WAVE_MODE=Record({"IEEE": Reg.of(ieee, 1)}),
                              **({"SIMM16": simm16} if self.family == "SOPK" else {}), **extra_state)
            try:
                evaluate(program, env, library=lib)
            except Exception as e:  # noqa: BLE001 - unimplemented helper, undefined state ...
                raise Unreferenced(f"reference evaluator: {type(e).__name__}: {e}") from None
            problems = []
            if sdst is not None:
                want = env.bits("D0") & ((1 << dbits) - 1)
                got = s64(6, after_s) if dbits == 64 else int(after_s[6])
                if got != want:
                    problems.append(f"D0(s6) emulator {got:#x} reference {want:#x}")
            if scc1 != env.bits("SCC"):
                problems.append(f"SCC emulator {scc1} reference {env.bits('SCC')}")
            vcc_want = env.bits("VCC") & 0xFFFFFFFF
            if int(after_s[VCC_LO]) != vcc_want:
                problems.append(f"VCC emulator {int(after_s[VCC_LO]):#x} reference {vcc_want:#x}")
            if problems:
                srcs = {k: hex(v) for k, v in env_b.items()}
                return f"{'; '.join(problems)} (inputs {srcs}, SCC={scc0})"
            return None

        # VALU: lane by lane
        vdst = self.operand("vdst")
        sdst = self.operand("sdst")
        lanemask_d0 = self.family == "VOPC" or (vdst is not None and vdst.type in ("OPR_SREG", "OPR_EXEC", "OPR_SDST")
                                                  and vdst.bits == 64)
        vcc_in_reg = VCC_LO
        src2 = self.operand("src2")
        if self.family in ("VOP3", "VOP3SD") and src2 is not None and src2.type == "OPR_SREG":
            vcc_in_reg = S_VCC_IN
        vcc_out_reg = S_LANEMASK_DST if self.family == "VOP3SD" else VCC_LO
        d0_reg = (VCC_LO if self.family == "VOPC" else S_LANEMASK_DST) if lanemask_d0 else None
        vcc_in = int(before_s[vcc_in_reg])
        vcc_before_out = int(before_s[vcc_out_reg])
        ports = {"S0": ("src0", "vsrc0"), "S1": ("src1", "vsrc1"), "S2": ("src2",)}
        exp_vcc_out, exp_exec, exp_d0_mask = vcc_before_out, 0xFFFFFFFF, (int(before_s[d0_reg]) if d0_reg else 0)
        problems = []
        for lane in range(WAVE):
            env_b = {}
            for port, fields in ports.items():
                for field in fields:
                    op = self.operand(field)
                    if op is not None:
                        if op.bits > 64:
                            raise Unreferenced(f"{op.bits}-bit operand {field}")
                        env_b[port] = value(field, op.bits, lane, before_v, before_s)
                        break
            if lanemask_d0:
                d0 = int(before_s[d0_reg])
            elif vdst is not None:
                d0 = int(before_v[V_DST, lane]) | (int(before_v[V_DST + 1, lane]) << 32 if vdst.bits == 64 else 0)
            else:
                d0 = 0
            if "S2" in text and "S2" not in env_b and "MAC" in self.idef.name:  # v_fmac_*: S2 is the destination
                env_b["S2"] = d0
            # VCC as read (v_cndmask's mask, carry-in) is vcc_in; written carries land in vcc_out
            env = Environment(**env_b, D0=d0, SCC=scc0, VCC=vcc_in, EXEC=0xFFFFFFFF, laneId=lane, WAVE32=1,
                              WAVE64=0, WAVE_MODE=Record({"IEEE": Reg.of(ieee, 1)}), **extra_state,
                              **({"D1": 0} if "D1" in text else {}))
            try:
                with np.errstate(all="ignore"):
                    evaluate(program, env, library=lib)
            except Exception as e:  # noqa: BLE001
                raise Unreferenced(f"reference evaluator: {type(e).__name__}: {e}") from None
            bit = 1 << lane
            vcc_bit = env.bits("VCC") & bit
            if self.family == "VOP3SD" and "D1" in text:  # { D1.u1, D0.u64 } = ...: the carry goes to sdst
                vcc_bit = bit if env.bits("D1") & 1 else 0
            if vcc_bit != vcc_in & bit or vcc_in_reg == vcc_out_reg or self.family == "VOP3SD":
                exp_vcc_out = (exp_vcc_out & ~bit) | vcc_bit
            if not env.bits("EXEC") & bit:
                exp_exec &= ~bit
            if lanemask_d0:
                exp_d0_mask = (exp_d0_mask & ~bit) | (env.bits("D0") & bit)
            elif vdst is not None and not problems:
                width = vdst.bits if vdst.bits in (16, 64) else 32
                want = env.bits("D0") & ((1 << width) - 1)
                got = int(after_v[V_DST, lane]) | (int(after_v[V_DST + 1, lane]) << 32 if width == 64 else 0)
                got &= (1 << width) - 1
                if got != want:
                    problems.append(f"lane {lane}: D0(v{V_DST}) emulator {got:#x} reference {want:#x} "
                                    f"(inputs { {k: hex(v) for k, v in env_b.items()} })")
        if lanemask_d0 and int(after_s[d0_reg]) != exp_d0_mask and d0_reg != vcc_out_reg:
            problems.append(f"D0 lane mask (s{d0_reg}) emulator {int(after_s[d0_reg]):#010x} "
                            f"reference {exp_d0_mask:#010x}")
        if lanemask_d0 and d0_reg == vcc_out_reg and d0_reg == VCC_LO:
            if int(after_s[VCC_LO]) != exp_d0_mask:
                problems.append(f"D0 lane mask (VCC) emulator {int(after_s[VCC_LO]):#010x} "
                                f"reference {exp_d0_mask:#010x}")
        elif int(after_s[vcc_out_reg]) != exp_vcc_out & 0xFFFFFFFF:
            problems.append(f"VCC (s{vcc_out_reg}) emulator {int(after_s[vcc_out_reg]):#010x} "
                            f"reference {exp_vcc_out & 0xFFFFFFFF:#010x}")
        if int(after_s[EXEC_LO]) != exp_exec:
            problems.append(f"EXEC emulator {int(after_s[EXEC_LO]):#010x} reference {exp_exec:#010x}")
        return "; ".join(problems) or None

    def inst_bytes(self) -> bytes:
        return self.inst.word.to_bytes(self.inst.size, "little")

    def with_simm16(self, word: bytes, simm16: int) -> bytes:
        v = int.from_bytes(word[:4], "little")
        return ((v & ~0xFFFF) | simm16).to_bytes(4, "little") + word[4:]

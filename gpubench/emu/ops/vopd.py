"""Dual issue (VOPD, wave32 RDNA): two independent VALU operations in one instruction.

Each half (X, Y) is a plain VOP1/VOP2 operation: V_DUAL_<OP> has <OP>'s semantics, from its own
pseudocode where the manual gives one (gfx12), else from V_<OP>_E32's. The halves read all their
sources before either writes (AMD's RDNA3 ISA manual, "VOPD"), so a half may read what the other
overwrites. Operands: X has srcx0, vsrcx1, vdstx; Y has srcy0, vsrcy1 and vdsty, whose lowest bit
is the opposite of vdstx's. Both share the literal (a literal source and fmaak's/fmamk's K); VCC
(v_dual_cndmask_b32) is implicit.
"""
from __future__ import annotations

import numpy as np

from gpubench.compiler.backend import BackendUnsupported, compile_instruction
from gpubench.emu.context import Context
from gpubench.emu.ops import Deferred, Unsupported, factory
from gpubench.emu.ops import operands as opnd
from gpubench.emu.ops.valu import Destination, Operands, Source, VectorOp
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import InstrDef
from gpubench.isa.syntax.vopd import HALF_X, HALF_Y, Half, spec_operand, vdsty_register

PLAIN_ENUMS = ("VOP2Op", "VOP1Op")


@factory
def dual_issue(inst: Instruction):
    if inst.isa.root_of(inst.fmt) != "VOPD":
        return None

    def build():
        x, y = (half_operation(inst, half, idef) for half, idef in ((HALF_X, inst.idef), (HALF_Y, inst.idef_y)))

        def run(ctx: Context, waves: np.ndarray) -> None:
            gathered_x, gathered_y = x.gather(ctx, waves), y.gather(ctx, waves)
            results_x, results_y = x.compute(gathered_x), y.compute(gathered_y)
            x.scatter(ctx, waves, gathered_x, results_x)
            y.scatter(ctx, waves, gathered_y, results_y)
            ctx.waves.pc[waves] += inst.size

        return run

    return Deferred(build)


def half_operation(inst: Instruction, half: Half, idef: InstrDef) -> VectorOp:
    """One half (X or Y) as a VALU operation bound to its operands (the native engine binds it too)."""
    op = _semantics(inst, idef)
    sources = {}
    for port, role, fld in (("S0", "src0", half.src0), ("S1", "vsrc1", half.vsrc1)):
        operand = spec_operand(idef, role)
        if operand is not None:
            value = inst[fld] + (opnd.VGPR_BASE if role == "vsrc1" else 0)
            sources[port] = Source(value, operand.bits, operand.fmt)
    vdst = inst[half.vdst] if half is HALF_X else vdsty_register(inst[half.vdst], inst[HALF_X.vdst])
    dest = spec_operand(idef, "vdst")
    operands = Operands(sources, Destination(vdst, dest.bits, dest.fmt), inst.get("literal"))
    return VectorOp(idef.name, op, operands)


def _semantics(inst: Instruction, idef: InstrDef):
    """The half's compiled semantics: its own pseudocode, else its plain VOP1/VOP2 e32 operation's."""
    arch = inst.isa.arch
    plain = "V_" + idef.name.removeprefix("V_DUAL_") + "_E32"
    candidates = [(arch, idef.enum, idef.name)] + [(arch, enum, plain) for enum in PLAIN_ENUMS]
    if arch == "rdna3":  # RDNA3's manual gives V_DUAL_DOT2ACC_F32_BF16 no pseudocode; RDNA4's, the same op, does
        candidates.append(("rdna4", idef.enum, idef.name))
    for source_arch, enum, name in candidates:
        try:
            return compile_instruction(source_arch, enum, name)
        except KeyError:
            continue
        except BackendUnsupported as e:
            raise Unsupported(str(e)) from None
    raise Unsupported(f"{idef.name}: no semantics (neither its own pseudocode nor {plain}'s)")

"""SALU and VALU instructions whose semantics the compiler made from AMD's pseudocode.

The handler binds the compiled function's ports (S0, D0, SCC, VCC, EXEC ...) to the encoding's
operand fields, gathers them for all given waves (and their lanes), calls the function once, and
scatters the results: vector results only to lanes that EXEC enables (valu.py binds VALU ports,
with modifiers, 16-bit halves, VOP3P packing and DPP). The pseudocode is AMD's with the hardware
corrections of gpubench/isa/corrections.py applied (the compiler's tables).
"""
from __future__ import annotations

import numpy as np

from gpubench.compiler.backend import BackendUnsupported, compile_instruction
from gpubench.emu.context import Context
from gpubench.emu.ops import Deferred, Unsupported, factory, float_modes, modes, valu
from gpubench.emu.ops import operands as opnd
from gpubench.emu.waves import EXEC_LO, VCC_LO
from gpubench.isa.decoder import Instruction

VALU_NO_OPERATION = ("V_NOP", "V_PIPEFLUSH")  # no pseudocode; nothing to do in the emulator
SALU_SOURCES = {"SOP1": ("ssrc0",), "SOP2": ("ssrc0", "ssrc1"), "SOPC": ("ssrc0", "ssrc1"), "SOPK": ("sdst",),
                "SOPP": ()}
# STATUS.COND_DBG_SYS/USER, which s_cbranch_cdbg* test: set by a debugger, which the emulator never has
CONDITIONAL_DEBUG_FLAGS = ("WAVE_STATUS_COND_DBG_SYS", "WAVE_STATUS_COND_DBG_USER")
# Instructions the manual gives no text that run another's: GFX9's S_RFE_RESTORE_B64 is S_RFE_B64 (PRIV
# cleared, PC = S0) that also restores the IOMMU address-translation bit of instruction fetch (INST_ATC) from
# S1[0], which the emulator does not model (inferred from LLVM's operands: a 64-bit PC and a 32-bit S1)
PSEUDOCODE_OF = {"S_RFE_RESTORE_B64": ("SOP1Op", "S_RFE_B64")}


def compiled_semantics(inst: Instruction):
    """The instruction's compiled pseudocode; None if the manual has none (another family's handler,
    or Unsupported). CDNA's manual gives a VOP1/VOP2/VOPC operation's pseudocode in its e32 form only:
    its VOP3 (e64) form, the same operation, takes it from there."""
    idef = inst.idef
    names = [(idef.enum, idef.name), *([PSEUDOCODE_OF[idef.name]] if idef.name in PSEUDOCODE_OF else [])]
    if idef.enum == "VOP3Op" and idef.name.endswith("_E64"):
        names += [(enum, idef.name.removesuffix("_E64") + "_E32") for enum in ("VOP1Op", "VOP2Op", "VOPCOp")]
    for enum, name in names:
        try:
            return compile_instruction(inst.isa.arch, enum, name)
        except BackendUnsupported as e:
            raise Unsupported(str(e)) from None
        except KeyError:
            continue
    return None


def port_width(op, port: str) -> int:
    spec = next(p for p in op.inputs + op.outputs if p.name == port)
    return 64 if np.dtype(spec.dtype) == np.uint64 else 32


@factory
def scalar_alu(inst: Instruction):
    root = inst.isa.root_of(inst.fmt)
    if root not in SALU_SOURCES:
        return None
    op = compiled_semantics(inst)
    if op is None:
        return None
    sources = dict(zip(("S0", "S1"), SALU_SOURCES[root]))
    reads = {p.name for p in op.inputs}
    # SOPK: the manuals name the immediate SIMM16, S1 (CDNA's s_cmpk_*, whose S0 is the register in
    # sdst) or S0 (CDNA's and gfx12's s_movk/s_addk/s_mulk, which read no other S).
    immediate_port = None if root != "SOPK" or "SIMM16" in reads else "S1" if "S1" in reads else "S0"
    literal = inst.get("literal")
    m0 = 124 if inst.isa.arch == "cdna" else 125
    sdst = inst.get("sdst")
    operand_fmt = {f: (inst.idef.operand(f).fmt if inst.idef.operand(f) else None) for f in ("ssrc0", "ssrc1", "sdst")}
    uses_float = any(opnd.float_kind(fmt) for fmt in operand_fmt.values())
    float_rules = float_modes.ScalarFloatModes(inst.name, op, operand_fmt, sources) if uses_float else None

    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        float_mode = modes.float_modes(ctx, waves) if uses_float else None  # gfx11.5/gfx12 SALU floats
        args = []
        for port in op.inputs:
            name = port.name
            if name == immediate_port:
                args.append(np.full(len(waves), inst["simm16"], np.uint32))
            elif name in sources:
                field = sources[name]
                args.append(opnd.read_scalar(ctx, waves, inst[field], port_width(op, name), operand_fmt[field], literal))
            elif name == "D0":
                args.append(opnd.read_scalar(ctx, waves, sdst, port_width(op, name)))
            elif name == "SCC":
                args.append(w.scc[waves])
            elif name in ("EXEC", "VCC", "M0"):
                reg = {"EXEC": EXEC_LO, "VCC": VCC_LO, "M0": m0}[name]
                args.append(opnd.read_scalar(ctx, waves, reg, port_width(op, name)))
            elif name == "SIMM16":
                args.append(np.full(len(waves), inst["simm16"], np.uint32))
            elif name == "SIMM32":
                args.append(np.full(len(waves), literal, np.uint32))
            elif name == "PC":
                args.append(w.pc[waves].astype(np.uint64))
            elif name in ("WAVE32", "WAVE64"):
                args.append(np.full(len(waves), w.wave_size == int(name[4:]), bool))
            elif name in ("VCCZ", "EXECZ"):
                mask = w.read_mask(VCC_LO if name == "VCCZ" else EXEC_LO, waves)
                args.append(~mask.any(axis=1))
            elif name == "WAVE_MODE_IEEE":
                args.append(modes.flag(ctx, waves, modes.IEEE))
            elif name in CONDITIONAL_DEBUG_FLAGS:
                args.append(np.zeros(len(waves), bool))  # no debugger attached: the flags stay clear
            elif name == "TRAPSTS_INVALID":
                args.append((valu.trap_status(ctx)[waves] & valu.INVALID) != 0)
            else:
                raise Unsupported(f"{inst.name}: the emulator does not provide {name} to scalar instructions")
        if float_mode is not None:  # not the default: flush inputs, round in the mode (float_modes.py)
            float_rules.read(float_mode, args)
        with np.errstate(all="ignore"):
            results = op.fn(len(waves), *args)
            if float_mode is not None:
                results = float_rules.rounded(float_mode, args, results)
        new_pc = None
        for port, value in zip(op.outputs, results):
            name = port.name
            if name == "D0":
                if float_mode is not None:
                    value = float_rules.flushed_output(float_mode, value)
                opnd.write_scalar(ctx, waves, sdst, value, port_width(op, name))
            elif name == "SCC":
                w.scc[waves] = value
            elif name in ("EXEC", "VCC", "M0"):
                reg = {"EXEC": EXEC_LO, "VCC": VCC_LO, "M0": m0}[name]
                opnd.write_scalar(ctx, waves, reg, value, 64 if w.wave_size == 64 and name != "M0" else 32)
            elif name == "PC":
                new_pc = value.astype(np.int64)
            elif name == "TRAPSTS_INVALID":  # gfx12's s_min/max_num: a signaling NaN input raises INVALID
                valu.trap_status(ctx)[waves] |= np.asarray(value, bool).astype(np.uint32) * valu.INVALID
            elif name == "WAVE_STATUS_PRIV" and not np.any(value):
                pass  # s_rfe_b64 leaves privileged mode: the emulator runs no trap handler, no wave is privileged
            else:
                raise Unsupported(f"{inst.name}: the emulator does not take {name} from scalar instructions")
        w.pc[waves] = new_pc if new_pc is not None else w.pc[waves] + inst.size

    return run


@factory
def vector_alu(inst: Instruction):
    root = inst.isa.root_of(inst.fmt)
    if root not in valu.SOURCE_FIELDS:
        return None
    if inst.name.startswith(VALU_NO_OPERATION):
        def advance(ctx: Context, waves: np.ndarray) -> None:
            ctx.waves.pc[waves] += inst.size
        return advance
    op = compiled_semantics(inst)
    if op is None:
        return None

    def build():
        bound = valu.VectorOp(inst.name, op, valu.operands_of(inst, op))

        def run(ctx: Context, waves: np.ndarray) -> None:
            bound(ctx, waves)
            ctx.waves.pc[waves] += inst.size

        return run

    return Deferred(build)

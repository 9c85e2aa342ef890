"""SALU and VALU instructions whose semantics the compiler made from AMD's pseudocode.

The handler binds the compiled function's ports (S0, D0, SCC, VCC, EXEC ...) to the encoding's
operand fields, gathers them for all given waves (and their lanes), calls the function once, and
scatters the results: vector results only to lanes that EXEC enables.
"""
from __future__ import annotations

import numpy as np

from gpubench.compiler.backend import BackendUnsupported, compile_instruction
from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, factory
from gpubench.emu.ops import operands as opnd
from gpubench.emu.waves import EXEC_LO, VCC_LO
from gpubench.isa.decoder import Instruction

SALU_SOURCES = {"SOP1": ("ssrc0",), "SOP2": ("ssrc0", "ssrc1"), "SOPC": ("ssrc0", "ssrc1"), "SOPK": (),
                "SOPP": ()}
VALU_SOURCES = {"VOP1": ("src0",), "VOP2": ("src0", "vsrc1"), "VOPC": ("src0", "vsrc1"),
                "VOP3": ("src0", "src1", "src2"), "VOP3SD": ("src0", "src1", "src2")}
SIGN_BITS = {16: 15, 32: 31, 64: 63}


def _compiled(inst: Instruction):
    try:
        return compile_instruction(inst.isa.arch, inst.idef.enum, inst.idef.name)
    except BackendUnsupported as e:
        raise Unsupported(str(e)) from None
    except KeyError:
        return None  # no pseudocode: another family's handler, or Unsupported


def _width(op, port: str) -> int:
    spec = next(p for p in op.inputs + op.outputs if p.name == port)
    return 64 if np.dtype(spec.dtype) == np.uint64 else 32


def _source_value(inst: Instruction, field: str) -> int:
    fld = inst.fmt.field(field)
    return inst[field] + (opnd.VGPR_BASE if fld.kind == "VGPRField" else 0)


@factory
def scalar_alu(inst: Instruction):
    root = inst.isa.root_of(inst.fmt)
    if root not in SALU_SOURCES:
        return None
    op = _compiled(inst)
    if op is None:
        return None
    sources = dict(zip(("S0", "S1"), SALU_SOURCES[root]))
    literal = inst.get("literal")
    m0 = 124 if inst.isa.arch == "cdna" else 125
    sdst = inst.get("sdst")
    operand_fmt = {f: (inst.idef.operand(f).fmt if inst.idef.operand(f) else None) for f in ("ssrc0", "ssrc1", "sdst")}

    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        args = []
        for port in op.inputs:
            name = port.name
            if name in sources:
                field = sources[name]
                args.append(opnd.read_scalar(ctx, waves, inst[field], _width(op, name), operand_fmt[field], literal))
            elif name == "D0":
                args.append(opnd.read_scalar(ctx, waves, sdst, _width(op, name)))
            elif name == "SCC":
                args.append(w.scc[waves])
            elif name in ("EXEC", "VCC", "M0"):
                reg = {"EXEC": EXEC_LO, "VCC": VCC_LO, "M0": m0}[name]
                args.append(opnd.read_scalar(ctx, waves, reg, _width(op, name)))
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
            else:
                raise Unsupported(f"{inst.name}: the emulator does not provide {name} to scalar instructions")
        with np.errstate(all="ignore"):
            results = op.fn(len(waves), *args)
        new_pc = None
        for port, value in zip(op.outputs, results):
            name = port.name
            if name == "D0":
                opnd.write_scalar(ctx, waves, sdst, value, _width(op, name))
            elif name == "SCC":
                w.scc[waves] = value
            elif name in ("EXEC", "VCC", "M0"):
                reg = {"EXEC": EXEC_LO, "VCC": VCC_LO, "M0": m0}[name]
                opnd.write_scalar(ctx, waves, reg, value, 64 if w.wave_size == 64 and name != "M0" else 32)
            elif name == "PC":
                new_pc = value.astype(np.int64)
            else:
                raise Unsupported(f"{inst.name}: the emulator does not take {name} from scalar instructions")
        w.pc[waves] = new_pc if new_pc is not None else w.pc[waves] + inst.size

    return run


def _apply_input_modifiers(inst: Instruction, index: int, values: np.ndarray, kind: int | None) -> np.ndarray:
    """VOP3's abs/neg bits on a float source (per source index); integer sources are left alone."""
    if kind is None:
        return values
    sign = values.dtype.type(1) << values.dtype.type(SIGN_BITS[kind])
    if (inst.get("abs", 0) >> index) & 1:
        values = values & ~sign
    if (inst.get("neg", 0) >> index) & 1:
        values = values ^ sign
    return values


def _apply_output_modifiers(inst: Instruction, values: np.ndarray, kind: int | None) -> np.ndarray:
    omod, clamp = inst.get("omod", 0), inst.get("clmp", 0)
    if not (omod or clamp):
        return values
    if kind not in (32, 64):
        raise Unsupported(f"{inst.name}: output modifiers on a non-f32/f64 result are not emulated yet")
    ftype, itype = (np.float32, np.uint32) if kind == 32 else (np.float64, np.uint64)
    result = values.astype(itype).view(ftype)
    if omod:
        result = result * ftype((2.0, 4.0, 0.5)[omod - 1])
    if clamp:
        result = np.where(np.isnan(result), ftype(0), np.clip(result, ftype(0), ftype(1)))
    return result.astype(ftype).view(itype)


@factory
def vector_alu(inst: Instruction):
    root = inst.isa.root_of(inst.fmt)
    if root not in VALU_SOURCES or inst.fmt.name != root and not inst.fmt.name.endswith(("_LIT", "_SDST")):
        return None  # DPP, SDWA: their own handlers
    op = _compiled(inst)
    if op is None:
        return None
    fields = dict(zip(("S0", "S1", "S2"), VALU_SOURCES[root]))
    literal = inst.get("literal")
    operand = {f: inst.idef.operand(f) for f in ("src0", "src1", "src2", "vsrc1", "vdst")}
    kinds = {f: opnd.float_kind(o.fmt) if o else None for f, o in operand.items()}
    src2 = operand["src2"]
    vcc_in = "src2" if root == "VOP3SD" or (src2 is not None and src2.type == "OPR_SREG") else "VCC"
    vcc_out = "sdst" if root == "VOP3SD" else "VCC"
    compare_dest = "vdst" if root == "VOP3" else "VCC"  # VOPC e32 writes VCC; its VOP3 form an SGPR

    def lane_bits(ctx, waves, where: str) -> np.ndarray:
        reg = VCC_LO if where == "VCC" else inst[where]
        return ctx.waves.read_mask(reg, waves)

    def run(ctx: Context, waves: np.ndarray) -> None:
        w = ctx.waves
        size = w.wave_size
        n = len(waves) * size
        active = w.exec_mask(waves)
        args = []
        for port in op.inputs:
            name = port.name
            if name in fields:
                field = fields[name]
                values = opnd.read_vector(ctx, waves, _source_value(inst, field), _width(op, name),
                                          operand[field].fmt if operand[field] else None, literal)
                values = _apply_input_modifiers(inst, "S0 S1 S2".split().index(name), values, kinds[field])
                args.append(values.reshape(n))
            elif name == "D0":
                args.append(opnd.read_vector(ctx, waves, inst["vdst"] + opnd.VGPR_BASE, _width(op, name)).reshape(n))
            elif name == "VCC":
                args.append(lane_bits(ctx, waves, vcc_in).reshape(n))
            elif name == "EXEC":
                args.append(active.reshape(n))
            elif name == "laneId":
                args.append(np.tile(np.arange(size, dtype=np.uint32), len(waves)))
            elif name in ("WAVE32", "WAVE64"):
                args.append(np.full(n, size == int(name[4:]), bool))
            else:
                raise Unsupported(f"{inst.name}: the emulator does not provide {name} to vector instructions")
        with np.errstate(all="ignore"):
            results = op.fn(n, *args)
        for port, value in zip(op.outputs, results):
            name = port.name
            value = np.asarray(value).reshape(len(waves), size)
            if name == "D0" and value.dtype == bool:  # a compare: one bit per lane
                dest = VCC_LO if compare_dest == "VCC" else inst["vdst"]
                w.write_mask(dest, waves, value & active)
            elif name == "D0":
                value = _apply_output_modifiers(inst, value, kinds["vdst"])
                opnd.write_vector(ctx, waves, inst["vdst"], value, _width(op, name), active)
            elif name == "VCC":
                w.write_mask(VCC_LO if vcc_out == "VCC" else inst[vcc_out], waves, value & active)
            elif name == "EXEC":
                w.write_mask(EXEC_LO, waves, value & active)
            else:
                raise Unsupported(f"{inst.name}: the emulator does not take {name} from vector instructions")
        w.pc[waves] += inst.size

    return run

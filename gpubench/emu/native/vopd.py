"""Native handlers for dual issue (VOPD: v_dual_* on RDNA3/RDNA4), two VALU operations in one instruction.

Each half (X, Y) is bound as the reference engine binds it (ops/vopd.py: its semantics and operands),
its ports read and written as alu.py's VALU handlers do. One lane loop runs both: for each lane it reads
every source of X and of Y, then computes both, then writes both, so a half reads what the other
overwrites as it was before the instruction (the reference gathers both halves before either
scatters). A lane's writes touch only that lane's VGPRs and the halves write nothing else, so ordering
the reads and writes per lane keeps the reference's order for the whole wave.

Left to the reference engine (the binder returns None, or the definition refuses): a half whose ports
alu.py does not read or write natively, and, when the instruction runs, a wave whose MODE is not the
default float mode. gfx12's v_dual_min_num/max_num_f32 raise the trap status's INVALID when any
active lane of the half saw a signaling NaN.
"""
from __future__ import annotations

from llvmlite import ir

from gpubench.compiler.native.lower import ElementSemantics, emit_lanes
from gpubench.emu.context import Context
from gpubench.emu.native.alu import (
    TRAP_STATUS,
    Bound,
    Operands,
    as_port,
    int_type,
    lane_bit,
    lane_mask,
    lane_on,
    mode_check,
    modified,
    new_handler,
    raise_invalid,
    read_ieee,
    read_invalid,
    read_register,
    semantics_of,
    text_digest,
    valu_output,
    valu_source,
    write_vgpr,
)
from gpubench.emu.native.build import I32, I64, Code, const
from gpubench.emu.native.layout import Status
from gpubench.emu.ops import Unsupported
from gpubench.emu.ops import vopd as reference
from gpubench.emu.waves import EXEC_LO
from gpubench.isa.decoder import Instruction
from gpubench.isa.syntax.vopd import HALF_X, HALF_Y

UNIFORM = ("sgpr", "const", "mask_bit", "ieee", TRAP_STATUS)  # source kinds read once per wave, not per lane
SOURCE_KINDS = ("vgpr", *UNIFORM)  # what a VOPD half reads (no operation reads laneId or EXEC's bit)
OUTPUT_KINDS = ("vgpr", TRAP_STATUS)


def bind_dual(inst: Instruction, ctx: Context) -> Bound | None:
    words = Operands()  # one record: X's words, then Y's
    halves, keys, float_check = [], [], False
    try:
        for half, idef in ((HALF_X, inst.idef), (HALF_Y, inst.idef_y)):
            vector = reference.half_operation(inst, half, idef)
            op, ops = vector.op, vector.operands
            sources = {p.name: valu_source(ctx, inst, ops, p, words) for p in op.inputs}
            outputs = {p.name: valu_output(ctx, ops, p, words) for p in op.outputs}
            if any(src.kind not in SOURCE_KINDS for src in sources.values()) or \
                    any(out.kind not in OUTPUT_KINDS for out in outputs.values()):
                return None
            float_check |= vector.float_modes is not None
            arch, enum, name, text = semantics_of(op)
            halves.append(((arch, enum, name, text), sources, outputs))
            keys.append(f"{arch} {enum} {name} {text_digest(text)} in={sorted(sources.items())} "
                        f"out={sorted(outputs.items())}")
    except Unsupported:
        return None
    wave_size = ctx.waves.wave_size
    key = f"vopd wave{wave_size} mode={float_check} x=({keys[0]}) y=({keys[1]})"

    def define(module: ir.Module, symbol: str) -> None:
        bound = [(ElementSemantics(module, *semantics), sources, outputs) for semantics, sources, outputs in halves]
        _define_dual(module, symbol, bound, wave_size, float_check)

    return Bound(Code(key, define), tuple(words.words))


def _define_dual(module: ir.Module, symbol: str, halves: list, wave_size: int, float_check: bool) -> None:
    fn, b = new_handler(module, symbol)
    frame, record = fn.args
    if float_check:
        mode_check(b, frame)
    exec_mask = lane_mask(b, frame, const(EXEC_LO), wave_size)
    ports = [{p.name: p for p in semantics.inputs} for semantics, _, _ in halves]
    uniform = [{name: _uniform(b, frame, record, source, port[name], wave_size) for name, source in sources.items()
                if source.kind in UNIFORM} for (_, sources, _), port in zip(halves, ports, strict=True)]

    def active(b, lane):
        return lane_on(b, exec_mask, lane, wave_size)

    def read(b, lane):  # every read of both halves first ...
        return [{name: _per_lane(b, frame, record, source, port[name], once.get(name), lane, wave_size)
                 for name, source in sources.items()}
                for (_, sources, _), port, once in zip(halves, ports, uniform, strict=True)]

    def write(b, lane, results, carried):  # ... then every write
        on = active(b, lane)
        (raised,) = carried
        for (semantics, _, outputs), values in zip(halves, results, strict=True):
            values = dict(zip([p.name for p in semantics.outputs], values, strict=True))
            for name, out in outputs.items():
                if out.kind == TRAP_STATUS:
                    raised = b.or_(raised, b.select(on, b.zext(values[name], I64), const(0)))
                else:
                    write_vgpr(b, frame, record, out, lane, on, values[name], wave_size)
        return [raised]

    # one lane loop for both halves (and, were a half to call numpy's loops, one call per wave: emit_lanes)
    (raised,) = emit_lanes(b, wave_size, [semantics for semantics, _, _ in halves], read, write, [const(0)])
    if any(out.kind == TRAP_STATUS for _, _, outputs in halves for out in outputs.values()):
        raise_invalid(b, frame, raised)
    b.ret(const(int(Status.NEXT), I32))


def _uniform(b, frame, record, source, port, wave_size: int) -> ir.Value:
    """What is the same for every lane, read (and modified) once before the loop: an SGPR or constant
    as the port takes it, a whole lane mask (VCC), MODE's IEEE bit."""
    if source.kind == "mask_bit":
        return lane_mask(b, frame, Operands.read(b, record, source.operand), wave_size)
    if source.kind == TRAP_STATUS:
        return as_port(b, read_invalid(b, frame), port)
    if source.kind == "ieee":
        return as_port(b, read_ieee(b, frame), port)
    value = read_register(b, frame, record, source, None, wave_size) if source.kind == "sgpr" else \
        Operands.read(b, record, source.operand, int_type(source.width))
    return as_port(b, modified(b, value, source), port)


def _per_lane(b, frame, record, source, port, once: ir.Value | None, lane, wave_size: int) -> ir.Value:
    """One lane's value of a source: its VGPR (modified), its bit of a lane mask, or the uniform value."""
    if source.kind == "vgpr":
        return as_port(b, modified(b, read_register(b, frame, record, source, lane, wave_size), source), port)
    if source.kind == "mask_bit":
        return as_port(b, lane_bit(b, once, lane), port)
    return once

"""Binding a VALU operation's ports to its operands, for all lanes of many waves at once.

An operation's semantics (compiled pseudocode, or a manual function with the same interface:
``inputs``/``outputs`` PortSpecs and ``fn(n, *arrays)``) see one element per lane. `VectorOp`
gathers each input port from the instruction's operands, calls the function once, and scatters the
outputs to the lanes that write (EXEC's, less those DPP disables). What the pseudocode leaves to
the hardware around it is done here, from AMD's ISA manuals:
  - sources: the operand space (operands.py), 16-bit halves (true16 ``.h`` in e32 VGPR fields,
    VOP3 op_sel bits 0-2), neg/abs, VOP3P's op_sel/op_sel_hi/neg_lo/neg_hi, DPP's permutation of
    src0's lanes (dpp.py), GFX9 SDWA's byte/word selection (src*_sel, zero- or sign-extended);
  - implicit state: VCC and EXEC (this lane's bit, or the whole register), laneId, WAVE32/WAVE64,
    MODE bits (WAVE_MODE_IEEE), the literal as SIMM32/SIMM16 (fmamk/fmaak's K), the modifier
    fields OPSEL/OPSEL_HI/NEG/NEG_HI for the pseudocode that reads them (v_fma_mix*, v_dot*_iu*,
    GFX9's *_legacy_f16), and TRAPSTS.INVALID (gfx12's min/max_num: bit 0 of the trap status's
    math exceptions, TRAPSTS or EXCP_FLAG_USER, kept by hwregs.py; any lane sets it);
  - destinations: a VGPR or its 16-bit half (op_sel bit 3), or SDWA's byte/word of it (dst_sel;
    dst_unused pads the rest with 0, sign-extends into it, or keeps it), compare bits to VCC or an
    SGPR pair, VOP3SD's SGPR for the carry (VCC) or D1 (v_mad_u64_u32's carry), EXEC (v_cmpx);
  - output modifiers: omod and clamp of float results, clamp as saturation of integer add/sub; omod
    is ignored while MODE.IEEE is set where the hardware does so, and GFX9's 16-bit results clear the
    high half of their VGPR (gpubench/isa/corrections.py);
  - MODE's float round and denormal modes, when a wave is not in the default (float_modes.py).
`operands_of(inst)` reads where the operands are from a VOP1/VOP2/VOPC/VOP3/VOP3SD/VOP3P encoding
(and their DPP and SDWA forms); vopd.py builds them for each half of a dual-issue instruction.
"""
from __future__ import annotations

import re

from dataclasses import dataclass, field, replace

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops import Unsupported, dpp, hwregs, modes
from gpubench.emu.ops import operands as opnd
from gpubench.emu.ops.dpp import LanePermutation
from gpubench.emu.ops.float_modes import FloatModes
from gpubench.emu.waves import EXEC_LO, VCC_LO
from gpubench.isa import corrections
from gpubench.isa.decoder import Instruction
from gpubench.isa.model import Operand

SOURCE_FIELDS = {"VOP1": ("src0",), "VOP2": ("src0", "vsrc1"), "VOPC": ("src0", "vsrc1"),
                 "VOP3": ("src0", "src1", "src2"), "VOP3SD": ("src0", "src1", "src2"),
                 "VOP3P": ("src0", "src1", "src2"), "VINTERP": ("src0", "src1", "src2")}
E32 = ("VOP1", "VOP2", "VOPC")  # 16-bit VGPR operands name their half with bit 7 of the field
# SDWA selections (src*_sel, dst_sel): (bit offset, width) of BYTE_0..3, WORD_0..1, DWORD.
SDWA_SELECTS = ((0, 8), (8, 8), (16, 8), (24, 8), (0, 16), (16, 16), (0, 32))
UNUSED_PAD, UNUSED_SEXT, UNUSED_PRESERVE = 0, 1, 2
TRAP_STATUS = {"rdna4": "HW_REG_WAVE_EXCP_FLAG_USER", "rdna3": "HW_REG_TRAPSTS", "cdna": "HW_REG_TRAPSTS"}
INVALID = np.uint32(1)  # the trap status's first math exception
FNUZ_TARGETS = ("gfx942",)  # FP8/BF8 in the FNUZ formats (matrix.py's MFMA too)
SATURATING = {"ADD": lambda a, b: a + b, "SUB": lambda a, b: a - b, "SUBREV": lambda a, b: b - a}


@dataclass(frozen=True)
class Source:
    """One source operand: where it is and what is done to it before the operation sees it."""

    value: int  # the 9-bit operand space: SGPRs, constants, 255 = literal, VGPR_BASE + n
    bits: int  # the operand's width in the spec; 16 = one half of a register
    fmt: str | None
    high: bool = False  # a 16-bit operand in bits 31:16
    neg: bool = False
    absolute: bool = False
    sign_bit: int | None = None  # where neg/abs act (None: the operand's own top bit)
    packed: tuple[bool, bool, bool, bool] | None = None  # VOP3P: (op_sel, op_sel_hi, neg_lo, neg_hi)
    select: tuple[int, int, bool] | None = None  # SDWA: (bit offset, width, sign-extend)
    quad_lane: int | None = None  # VINTERP: read from this lane of the lane's quad (corrections.py)


@dataclass(frozen=True)
class Destination:
    """The VGPR an operation writes, and which of its bits."""

    reg: int
    bits: int  # 16: one half of the VGPR (``high``)
    fmt: str | None
    high: bool = False
    result_half: bool | None = None  # v_fma_mixlo/hi: the half of the 32-bit D0 that holds the f16 result
    select: tuple[int, int, int] | None = None  # SDWA: (bit offset, width, dst_unused)


@dataclass(frozen=True)
class Operands:
    """Where one operation's operands are, read from its encoding."""

    sources: dict[str, Source]  # by port: S0, S1, S2
    vdst: Destination | None
    literal: int | None = None
    mask_in: int = VCC_LO  # the SGPR(s) holding the VCC a lane reads (VOP3's src2 for v_cndmask_b32_e64)
    mask_out: int = VCC_LO  # where a VCC (carry) or D1 result goes (VOP3SD: sdst)
    compare_out: int = VCC_LO  # where a compare's bits go (VOP3: the SGPR in vdst)
    scalar_out: int | None = None  # gfx12's v_s_* (transcendentals of a scalar): the SGPR in vdst
    dpp: LanePermutation | None = None  # permutes S0's lanes
    clamp: bool = False
    omod: int = 0
    omod_ignored_in_ieee_mode: bool = False  # hardware corrections of the target (corrections.py)
    zeroes_high_half: bool = False  # a 16-bit result in the low half clears bits 31:16 (GFX9)
    selects: dict[str, int] = field(default_factory=dict)  # OPSEL, OPSEL_HI, NEG, NEG_HI for the pseudocode


@dataclass
class Gathered:
    """One call's inputs: the arrays in the function's order, and the lanes that write."""

    args: list
    active: np.ndarray  # bool [waves, lanes]: EXEC
    writable: np.ndarray  # bool [waves, lanes]: the lanes that write (EXEC, less those DPP disables)
    nan_to_zero: np.ndarray | None = None  # bool [waves, 1]: MODE.DX10_CLAMP (a clamped NaN is 0)
    omod_ignored: np.ndarray | None = None  # bool [waves, 1]: MODE.IEEE, where omod is then ignored
    float_mode: np.ndarray | None = None  # uint32 [elements]: MODE's float bits, None in the default mode


class VectorOp:
    """One VALU operation (``name``, for messages) bound to its operands: ``op(ctx, waves)`` runs it
    for those waves; VOPD runs the gather/compute/scatter steps of two operations interleaved."""

    def __init__(self, name: str, op, operands: Operands):
        self.name, self.op, self.operands = name, op, operands
        uses_float = any(opnd.float_kind(s.fmt) for s in operands.sources.values()) or \
            bool(operands.vdst and opnd.float_kind(operands.vdst.fmt))
        self.float_modes = FloatModes(name, op, operands) if uses_float else None
        self.readers = [self._reader(port) for port in op.inputs]
        self.writers = [self._writer(port) for port in op.outputs]
        self.saturate = self._saturation() if operands.clamp else None

    def __call__(self, ctx: Context, waves: np.ndarray) -> None:
        gathered = self.gather(ctx, waves)
        self.scatter(ctx, waves, gathered, self.compute(gathered))

    def gather(self, ctx: Context, waves: np.ndarray) -> Gathered:
        float_mode = modes.float_modes(ctx, waves) if self.float_modes is not None else None
        active = ctx.waves.exec_mask(waves)
        permutation = self.operands.dpp
        gathered = Gathered([], active, active if permutation is None else permutation.writable(active))
        gathered.args = [read(ctx, waves, gathered) for read in self.readers]
        if float_mode is not None:  # not the default: flush inputs, check the round mode (float_modes.py)
            gathered.float_mode = np.repeat(float_mode, ctx.waves.wave_size)
            self.float_modes.read(gathered)
        if self.operands.clamp or self.operands.omod:
            gathered.nan_to_zero = modes.flag(ctx, waves, modes.DX10_CLAMP)[:, None]
        if self.operands.omod and self.operands.omod_ignored_in_ieee_mode:
            gathered.omod_ignored = modes.flag(ctx, waves, modes.IEEE)[:, None]
        return gathered

    def compute(self, gathered: Gathered) -> tuple:
        n = gathered.writable.size
        with np.errstate(all="ignore"):
            results = self.op.fn(n, *gathered.args)
            return results if gathered.float_mode is None else self.float_modes.rounded(gathered, results)

    def scatter(self, ctx: Context, waves: np.ndarray, gathered: Gathered, results: tuple) -> None:
        shape = gathered.writable.shape
        for write, value in zip(self.writers, results):
            value = np.asarray(value)
            write(ctx, waves, gathered, value.reshape(shape + value.shape[1:]))

    # -- inputs --

    def _reader(self, port):
        name, ops = port.name, self.operands
        if name in ops.sources:
            return self._source_reader(ops.sources[name], port, ops.dpp if name == "S0" else None)
        if name == "D0":  # the old destination, for what the operation does not write
            dest = ops.vdst
            if dest is None:
                raise Unsupported(f"{self.name}: reads D0 without a VGPR destination")
            if dest.select is not None:  # SDWA: dst_sel/dst_unused alone say what the rest becomes
                return lambda ctx, waves, g: np.zeros(g.writable.size, port.dtype)
            return self._source_reader(Source(opnd.VGPR_BASE + dest.reg, dest.bits, dest.fmt, dest.high), port)
        if name == "D1":  # written only in its low bit (v_mad_u64_u32's carry): the rest is 0
            return lambda ctx, waves, g: np.zeros(g.writable.size, np.uint32)
        if name in ("VCC", "EXEC"):
            reg = ops.mask_in if name == "VCC" else EXEC_LO
            if port.lane_bit:
                return lambda ctx, waves, g: (g.active if name == "EXEC" else _mask_bits(ctx, waves, reg)).reshape(-1)
            return self._lanes(lambda ctx, waves, g: opnd.read_vector(ctx, waves, reg, port.width))
        if name == "laneId":
            return lambda ctx, waves, g: np.tile(np.arange(ctx.waves.wave_size, dtype=np.uint32), len(waves))
        if name in ("WAVE32", "WAVE64"):
            return lambda ctx, waves, g: np.full(g.writable.size, ctx.waves.wave_size == int(name[4:]), bool)
        if name == "WAVE_MODE_IEEE":
            return lambda ctx, waves, g: np.repeat(modes.flag(ctx, waves, modes.IEEE), ctx.waves.wave_size)
        if name == "FP8_FNUZ":  # gfx942's FP8/BF8 are the FNUZ formats, gfx950's and gfx12's the OCP ones
            return lambda ctx, waves, g: np.full(g.writable.size, ctx.isa.target.name in FNUZ_TARGETS, bool)
        if name in ("SIMM32", "SIMM16") and ops.literal is not None:
            return lambda ctx, waves, g: np.full(g.writable.size, ops.literal, np.uint32)
        if name in ops.selects:
            return lambda ctx, waves, g: np.full(g.writable.size, ops.selects[name], np.uint32)
        if name == "TRAPSTS_INVALID":
            return lambda ctx, waves, g: np.repeat((trap_status(ctx)[waves] & INVALID) != 0, ctx.waves.wave_size)
        raise Unsupported(f"{self.name}: the emulator does not provide {name} to vector instructions")

    @staticmethod
    def _lanes(read):
        """A reader of [waves, lanes(, words)] values, flattened to the function's elements."""
        def flat(ctx, waves, g):
            values = read(ctx, waves, g)
            return np.ascontiguousarray(values).reshape((g.writable.size,) + values.shape[2:])
        return flat

    def _source_reader(self, src: Source, port, permutation: LanePermutation | None = None):
        width = min(port.width, src.bits) if src.bits else port.width  # 16: a half, read as its register
        dtype = np.dtype(port.dtype)
        literal = self.operands.literal
        transform = _source_transform(src)

        def read(ctx, waves, g):
            values = opnd.read_vector(ctx, waves, src.value, width, src.fmt, literal)
            if src.quad_lane is not None:
                lanes = np.arange(values.shape[1])
                values = values[:, lanes - lanes % 4 + src.quad_lane]
            if permutation is not None:
                values = permutation.permute(values, g.active)
            values = transform(values)
            if port.words and values.ndim == 2:  # a wide port over a narrower operand: zero-extended words
                return _as_words(values, port.words)
            return values if values.dtype == dtype or port.words else values.astype(dtype)

        return self._lanes(read)

    # -- outputs --

    def _writer(self, port):
        name, ops = port.name, self.operands
        if port.lane_bit:
            reg = {"D0": ops.compare_out, "VCC": ops.mask_out, "EXEC": EXEC_LO}.get(name)
            if reg is None:
                raise Unsupported(f"{self.name}: vector instructions cannot write {name}'s lane bits in the emulator")
            return lambda ctx, waves, g, value: _write_mask(ctx, waves, reg, value & g.writable)
        if name == "D1":  # one bit per lane into the SGPR destination
            return lambda ctx, waves, g, value: _write_mask(ctx, waves, ops.mask_out, ((value & 1) != 0) & g.writable)
        if name == "D0" and ops.vdst is not None:
            return self._vgpr_writer(port)
        if name == "D0" and ops.scalar_out is not None:
            # every lane computes the same value from the scalar sources: the SGPR takes lane 0's
            reg = ops.scalar_out
            return lambda ctx, waves, g, value: opnd.write_scalar(ctx, waves, reg, value[:, 0], port.width)
        source = ops.sources.get(name)
        if source is not None and source.value >= opnd.VGPR_BASE:  # v_swap_*: the source VGPR is written too
            reg, bits = source.value - opnd.VGPR_BASE, 16 if source.bits == 16 else port.width
            return lambda ctx, waves, g, value: opnd.write_vector(ctx, waves, reg, value, bits, g.writable, source.high)
        if name == "TRAPSTS_INVALID":
            def raise_invalid(ctx, waves, g, value):
                status = trap_status(ctx)
                status[waves] |= (value & g.writable).any(axis=1).astype(np.uint32) * INVALID
            return raise_invalid
        raise Unsupported(f"{self.name}: the emulator does not take {name} from vector instructions")

    def _vgpr_writer(self, port):
        dest, ops = self.operands.vdst, self.operands
        kind = opnd.float_kind(dest.fmt)
        packed = bool(dest.fmt and "PK2" in dest.fmt)
        float_modifiers = (ops.clamp and kind) or ops.omod
        if ops.omod and not kind or float_modifiers and "BF16" in (dest.fmt or ""):
            raise Unsupported(f"{self.name}: omod/clamp of a {dest.fmt} result is not emulated")
        low_half = dest.select is None and (dest.bits == 16 and not dest.high or dest.result_half is False)
        zero_high = ops.zeroes_high_half and low_half
        width = 32 if zero_high else 16 if dest.bits == 16 else port.width

        def write(ctx, waves, g, value):
            if float_modifiers:
                modified = _float_modifiers(value, kind, packed, dest.result_half, ops.omod, ops.clamp, g.nan_to_zero)
                if g.omod_ignored is not None:
                    without_omod = _float_modifiers(value, kind, packed, dest.result_half, 0, ops.clamp, g.nan_to_zero)
                    modified = np.where(g.omod_ignored, without_omod, modified)
                value = modified
            elif self.saturate is not None:
                value = self.saturate(g.args, value).reshape(value.shape)
            if g.float_mode is not None:
                value = self.float_modes.flushed_output(g, value)
            if dest.select is not None:
                value = _placed(value, dest.select, ctx.waves.vgpr[waves, dest.reg, :])
            if zero_high:
                value = value & opnd.HALF
            opnd.write_vector(ctx, waves, dest.reg, value, width, g.writable, dest.high)

        return write

    def _saturation(self):
        """clamp on an integer result: the exact sum, difference or multiply-add (a * b + c, each source
        in its own width: v_mad_u32_u16's 16-bit factors and 32-bit addend), saturated to the result's
        range. A destination whose half the pseudocode places (GFX9's v_mad_legacy_u16/i16) keeps the
        other half as the pseudocode wrote it."""
        dest = self.operands.vdst
        if dest is None or opnd.float_kind(dest.fmt):
            return None
        stem = self.name.removeprefix("V_").removeprefix("PK_").split("_")[0]
        fmt = dest.fmt or ""
        packed = "PK2" in fmt
        bits = 16 if "16" in fmt else 32
        # the signedness of the operation: its result's format, or (b16 results) its name
        signed = "_I" in fmt or ("_B" in fmt and re.search(r"_I\d+", self.name) is not None)
        if stem not in SATURATING and stem != "MAD" or "64" in fmt:
            raise Unsupported(f"{self.name}: clamp (saturation) of this integer result is not emulated")
        inputs = [p.name for p in self.op.inputs]
        ports = ("S0", "S1", "S2") if stem == "MAD" else ("S0", "S1")
        indices = [inputs.index(port) for port in ports]
        widths = [bits if packed else _integer_width(self.operands.sources[port].fmt, bits) for port in ports]
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        halves = ((0, 16), (16, 16)) if packed else ((0, bits),)
        placed = None if dest.result_half is None else 16 if dest.result_half else 0

        def saturated(args, value):
            result = np.zeros(args[indices[0]].shape, np.uint32)
            for shift, width in halves:
                terms = [_as_int(args[i], shift, w, signed) for i, w in zip(indices, widths)]
                exact = terms[0] * terms[1] + terms[2] if stem == "MAD" else SATURATING[stem](*terms)
                exact = np.clip(exact, lo, hi)
                result |= (exact.astype(np.int64) & ((1 << width) - 1)).astype(np.uint32) << np.uint32(shift)
            if placed is not None:
                value = value.reshape(-1).astype(np.uint32)
                return (value & ~np.uint32(0xFFFF << placed)) | (result << np.uint32(placed))
            return result

        return saturated


def _integer_width(fmt: str | None, default: int) -> int:
    """The width of an integer operand format (FMT_NUM_U16 -> 16, FMT_NUM_I24 -> 24)."""
    found = re.search(r"_[BIU](\d+)$", fmt or "")
    return int(found.group(1)) if found else default


def _as_words(values: np.ndarray, words: int) -> np.ndarray:
    """uint32/uint64 [waves, lanes] as uint32 [waves, lanes, words], least significant word first."""
    wide = values.astype(np.uint64)
    low, high = (wide & np.uint64(0xFFFFFFFF)).astype(np.uint32), (wide >> np.uint64(32)).astype(np.uint32)
    padding = [np.zeros_like(low)] * (words - 2)
    return np.stack([low, high, *padding], axis=-1)


def _as_int(values: np.ndarray, shift: int, width: int, signed: bool) -> np.ndarray:
    field_ = (values.astype(np.int64) >> shift) & ((1 << width) - 1)
    return np.where(field_ >> (width - 1) & 1, field_ - (1 << width), field_) if signed else field_


def _float_modifiers(value, kind, packed, result_half, omod: int, clamp: bool, nan_to_zero):
    if result_half is None:
        return opnd.float_result_modifiers(value, kind, omod, clamp, nan_to_zero, packed)
    shift = np.uint32(16 if result_half else 0)
    clamped = opnd.float_result_modifiers((value >> shift) & opnd.HALF, 16, omod, clamp, nan_to_zero)
    return (value & ~(opnd.HALF << shift)) | (clamped << shift)


def _placed(value: np.ndarray, select: tuple[int, int, int], old: np.ndarray) -> np.ndarray:
    """An SDWA result: its low ``width`` bits at ``offset``; the other bits 0, its sign, or kept."""
    offset, width, unused = select
    field_ = value.astype(np.uint32) & np.uint32((1 << width) - 1)
    if unused == UNUSED_SEXT:
        field_ = (field_.astype(np.int32) << (32 - width) >> (32 - width)).astype(np.uint32)
    placed = field_ << np.uint32(offset)
    if unused == UNUSED_PRESERVE:
        keep = np.uint32(~(((1 << width) - 1) << offset) & 0xFFFFFFFF)
        placed = (old & keep) | (placed & ~keep)
    return placed


def _source_transform(src: Source):
    """What is done to a source's values after they are read: SDWA selection, half, VOP3P packing,
    neg/abs."""
    def transform(values):
        if src.select is not None:
            offset, width, sign_extend = src.select
            field_ = (values >> np.uint32(offset)) & np.uint32((1 << width) - 1) if width < 32 else values
            if sign_extend and width < 32:
                field_ = (field_.astype(np.int32) << (32 - width) >> (32 - width)).astype(np.uint32)
            values = field_
        if src.bits == 16:
            values = opnd.half(values, src.high)
        if src.packed is not None:
            return opnd.packed_halves(values, *src.packed)
        if src.neg or src.absolute:
            sign_bit = src.sign_bit if src.sign_bit is not None else \
                (opnd.float_kind(src.fmt) or src.bits or values.dtype.itemsize * 8) - 1
            values = opnd.sign_modifiers(values, sign_bit, src.neg, src.absolute)
        return values
    return transform


def trap_status(ctx: Context) -> np.ndarray:
    """Every wave's trap status register (where math exceptions such as INVALID are recorded)."""
    return hwregs.wave_registers(ctx)[TRAP_STATUS[ctx.isa.arch]]


def _mask_bits(ctx: Context, waves: np.ndarray, reg: int) -> np.ndarray:
    """A lane mask (an SGPR pair in wave64, or a constant) as bool [waves, lanes]."""
    if reg < 128:
        return ctx.waves.read_mask(reg, waves)
    value = opnd.read_scalar(ctx, waves, reg, 64).astype(np.uint64)
    bits = np.arange(ctx.waves.wave_size, dtype=np.uint64)
    return ((value[:, None] >> bits) & np.uint64(1)).astype(bool)


def _write_mask(ctx: Context, waves: np.ndarray, reg: int, bits: np.ndarray) -> None:
    if not opnd.is_null(ctx, reg):
        ctx.waves.write_mask(reg, waves, bits)


# -- the operands of an encoding ------------------------------------------------------------------


def operands_of(inst: Instruction, op) -> Operands:
    """Where the operands of a VOP1/VOP2/VOPC/VOP3/VOP3SD/VOP3P instruction (or its DPP form) are."""
    root = inst.isa.root_of(inst.fmt)
    reads = {p.name for p in op.inputs}
    permutation = dpp.for_instruction(inst, inst.isa.wave_size)
    # RDNA4's tables name a VOP3 source 0 that the VOP1/VOP2 form holds in a VGPR "vsrc0"
    sources = {f"S{index}": _source(inst, root, index, fld, inst.idef.operand(fld) or inst.idef.operand(f"v{fld}"),
                                    permutation is not None, "OPSEL" in reads)
               for index, fld in enumerate(SOURCE_FIELDS[root])
               if f"S{index}" in reads and (fld != "src2" or inst.idef.operand("src2") is not None)}
    if root == "VINTERP" and corrections.operand_rule(inst.isa.arch, inst.name, "vinterp"):
        # P10: src0 from lane 1 and src2 from lane 0 of the quad; P2: src0 from lane 2 (inactive lanes too).
        # src0's is a lane permutation, as DPP's (the native engine leaves such instructions to this one).
        p10 = "_P10_" in inst.name
        lanes = np.arange(inst.isa.wave_size)
        permutation = dpp.LanePermutation(lanes - lanes % 4 + (1 if p10 else 2), np.ones(len(lanes), bool), True,
                                          True)
        if p10:
            sources["S2"] = replace(sources["S2"], quad_lane=0)
    vdst = inst.idef.operand("vdst")
    # VOP2's multiply-accumulates, also in their VOP3 form (which has no src2): the accumulator is vdst.
    if "S2" in reads and "S2" not in sources and vdst is not None:
        sources["S2"] = Source(opnd.VGPR_BASE + inst["vdst"], vdst.bits, vdst.fmt)
    destination = _destination(inst, root, vdst, "OPSEL" in reads) if vdst is not None and vdst.type == "OPR_VGPR" \
        else None
    # SDWA selects within a 32-bit VGPR: a 64-bit result (v_cvt_pk_f32_fp8_sdwa) fills its pair
    if destination is not None and "SDWA" in inst.fmt.name and destination.bits <= 32:
        destination = replace(destination, bits=32, select=(*SDWA_SELECTS[inst["dst_sel"]], inst["dst_unused"]))
    src2 = inst.idef.operand("src2")
    compare_out = inst["vdst"] if root == "VOP3" else inst["sdst"] if inst.get("sd") else VCC_LO
    return Operands(
        sources, destination, inst.get("literal"),
        mask_in=inst["src2"] if root in ("VOP3", "VOP3SD") and src2 is not None and src2.type == "OPR_SREG"
        else VCC_LO,
        mask_out=inst["sdst"] if root == "VOP3SD" else VCC_LO,
        compare_out=compare_out,
        scalar_out=inst["vdst"] if vdst is not None and vdst.type == "OPR_SREG" and root == "VOP3" else None,
        dpp=permutation, clamp=bool(inst.get("clmp", 0)), omod=inst.get("omod", 0),
        omod_ignored_in_ieee_mode=corrections.operand_rule(inst.isa.arch, inst.name, "omod"),
        zeroes_high_half=corrections.operand_rule(inst.isa.arch, inst.name, "zero-high-half"),
        selects=_selects(inst))


def _source(inst: Instruction, root: str, index: int, fld: str, operand: Operand | None, is_dpp: bool,
            mix: bool) -> Source:
    value = inst[fld] + (opnd.VGPR_BASE if inst.fmt.field(fld).kind == "VGPRField" else 0)
    if index == 0 and is_dpp:
        value = inst["vsrc0"] + opnd.VGPR_BASE
    bits, fmt = (operand.bits, operand.fmt) if operand else (0, None)
    if "SDWA" in inst.fmt.name:
        return _sdwa_source(inst, index, bits, fmt)
    src = Source(value, bits, fmt)
    if bits == 16 and root in E32 and inst.isa.arch != "cdna" and value >= opnd.VGPR_BASE:
        value, high = opnd.true16_vgpr(value)
        src = replace(src, value=value, high=high)
    elif bits == 16 and root in ("VOP3", "VOP3SD", "VINTERP"):
        src = replace(src, high=bool(inst.get("opsel", 0) >> index & 1))
    if root == "VOP3P":
        return _packed_source(inst, index, src, mix)
    if root in ("VOP3", "VOP3SD", "VINTERP"):
        return replace(src, neg=bool(inst.get("neg", 0) >> index & 1), absolute=bool(inst.get("abs", 0) >> index & 1))
    if inst.fmt.name.endswith("_DPP16") and index < 2:
        return replace(src, neg=bool(inst[f"src{index}_neg"]), absolute=bool(inst[f"src{index}_abs"]))
    return src


def _sdwa_source(inst: Instruction, index: int, bits: int, fmt: str | None) -> Source:
    """A GFX9 SDWA source: src0 in vsrc0, src1 in vsrc1; the S0/S1 bit makes it an SGPR or constant."""
    value = inst["vsrc0" if index == 0 else "vsrc1"] + (0 if inst[f"s{index}"] else opnd.VGPR_BASE)
    select = (*SDWA_SELECTS[inst[f"src{index}_sel"]], bool(inst[f"src{index}_sext"]))
    return Source(value, bits, fmt, neg=bool(inst[f"src{index}_neg"]), absolute=bool(inst[f"src{index}_abs"]),
                  select=select)


def _packed_source(inst: Instruction, index: int, src: Source, mix: bool) -> Source:
    opsel, opsel_hi = inst["opsel"] >> index & 1, _opsel_hi(inst) >> index & 1
    neg, neg_hi = inst["neg"] >> index & 1, inst["neg_hi"] >> index & 1
    if mix:
        # v_fma_mix: op_sel_hi says f16 (op_sel picks its half) or f32; neg_hi is abs (LLVM's
        # SISrcMods, NEG_HI = ABS). Constants take the type the source is read as.
        sign_bit = 15 if opsel_hi and not opsel else 31
        fmt = "FMT_NUM_F16" if opsel_hi else "FMT_NUM_F32"
        return replace(src, fmt=fmt, neg=bool(neg), absolute=bool(neg_hi), sign_bit=sign_bit)
    if src.fmt and "PK2" in src.fmt:
        is_float = opnd.float_kind(src.fmt) is not None
        return replace(src, packed=(bool(opsel), bool(opsel_hi), bool(neg and is_float), bool(neg_hi and is_float)))
    if neg_hi and opnd.float_kind(src.fmt):
        raise Unsupported(f"{inst.name}: neg_hi on the 32-bit source {index}")
    # 32-bit sources (v_dot2's f32 accumulator): neg negates a float; integer dots read NEG themselves
    return replace(src, neg=bool(neg and opnd.float_kind(src.fmt)))


def _opsel_hi(inst: Instruction) -> int:
    return inst.get("opsel_hi", 0) | inst.get("opsel_hi2", 0) << 2


def _selects(inst: Instruction) -> dict[str, int]:
    """The modifier fields, for pseudocode that reads them (0 where the encoding has none)."""
    return {"OPSEL": inst.get("opsel", 0), "OPSEL_HI": _opsel_hi(inst), "NEG": inst.get("neg", 0),
            "NEG_HI": inst.get("neg_hi", 0)}


def _destination(inst: Instruction, root: str, vdst: Operand, reads_opsel: bool) -> Destination:
    reg, bits = inst["vdst"], vdst.bits
    if bits == 16 and root == "VOP3P":  # v_fma_mixlo/hi: the pseudocode writes its half of D0 itself
        return Destination(reg, 32, vdst.fmt, result_half=inst.name.endswith("MIXHI_F16"))
    if bits == 16 and reads_opsel:  # GFX9's *_legacy_f16, v_mac_f16: the pseudocode places the half (OPSEL[3])
        return Destination(reg, 32, vdst.fmt, result_half=bool(inst.get("opsel", 0) >> 3 & 1))
    if bits == 16 and root in E32 and inst.isa.arch != "cdna":
        value, high = opnd.true16_vgpr(reg + opnd.VGPR_BASE)
        return Destination(value - opnd.VGPR_BASE, 16, vdst.fmt, high)
    if bits == 16 and root in ("VOP3", "VOP3SD", "VINTERP"):
        return Destination(reg, 16, vdst.fmt, bool(inst.get("opsel", 0) >> 3 & 1))
    return Destination(reg, bits, vdst.fmt)


"""A VALU operation's float operands bound to the MODE rules of modes.py (manual): which ports are
flushed in which type, how the result is rounded in a directed mode, and which result is flushed.
`VectorOp` uses it only when some wave at the PC is not in the default float mode. A directed round
mode is applied by rounding.py where it has the operation (exact in numpy), else by the reference
evaluator on the lanes that ask for it (evaluated.py); SALU float operations use the same rules."""
from __future__ import annotations

import re

import numpy as np

from gpubench.emu.ops import Unsupported, evaluated, modes, rounding
from gpubench.emu.ops import operands as opnd

# Operations whose result never rounds: the round mode does not matter (modes.py).
EXACT = re.compile(r"CMPX?_\w+|(MIN|MAX)3?_F\d+|MED3_F\d+|(MINMAX|MAXMIN)_F\d+|(FLOOR|CEIL|TRUNC|RNDNE|FREXP_MANT)_F\d+"
                   r"|FREXP_EXP_I\d+_F\d+|CVT_(FLOOR_)?[IU]\d+_F\d+|CVT_PK_[IU]16_F32|CVT_F32_F16"
                   r"|CVT_F64_(F32|I32|U32)|CVT_F32_UBYTE\d|CVT_OFF_F32_I4|CVT_PK_RTZ_F16_F32|PACK_B32_F16")
NOT_FLUSHED = re.compile(r"CMPX?_CLASS_F\d+|PACK_B32_F16")  # classify raw bits / move them


def layout(fmt: str | None, sign_bit: int | None = None) -> tuple[int, tuple[int, ...]] | None:
    """(float width, bit offsets of the values) of an operand format; None: not f16/f32/f64."""
    width = opnd.float_kind(fmt)
    if width is None or "BF16" in fmt:
        return None
    if "PK2" in fmt:
        return width, (0, 16)
    return width, (16,) if width == 16 and sign_bit == 31 else (0,)  # v_fma_mix: the half op_sel picks


class FloatModes:
    def __init__(self, name: str, op, operands):
        self.name, self.op, key = name, op, rounding.operation(name)
        self.exact = EXACT.fullmatch(key) is not None
        self.directed = rounding.directed(key) if key in rounding.DIRECTED else None
        types = [t for t in key.split("_") if t in ("F16", "F32", "F64")]
        dest = operands.vdst
        self.output = layout(dest.fmt) if dest is not None and dest.result_half is None else \
            (16, (16 if dest.result_half else 0,)) if dest is not None else None
        self.result_width = self.output[0] if self.output else int(types[0][1:]) if types else None
        flushed = NOT_FLUSHED.fullmatch(key) is None
        terms = rounding.TERMS[key.split("_")[0]] if self.directed else ()
        self.inputs = []  # (argument index, width, offsets)
        for index, port in enumerate(op.inputs):
            source = operands.sources.get(port.name)
            if source is not None:
                placed = layout(source.fmt, source.sign_bit)
            else:  # v_fmac's accumulator D0 and v_fmamk/fmaak's K are terms of the result's type
                placed = self.output if port.name in terms else None
            if placed is not None and flushed:
                self.inputs.append((index, *placed))
        if not flushed:
            self.output = None
        self.ports = [p.name for p in op.inputs]
        self.d0 = next((i for i, p in enumerate(op.outputs) if p.name == "D0"), None)

    def read(self, gathered) -> None:
        """Flush the gathered float inputs."""
        mode = gathered.float_mode
        for index, width, offsets in self.inputs:
            gathered.args[index] = modes.flush_denormals(gathered.args[index], width, modes.flushes(mode, width, False),
                                                         offsets)

    def rounding(self, mode: np.ndarray) -> np.ndarray:
        """Each element's FP_ROUND for the result's type (an operation without one: the f32 field, else
        the f16/f64 one)."""
        if self.result_width:
            return modes.round_mode(mode, self.result_width)
        single = modes.round_mode(mode, 32)
        return np.where(single != 0, single, modes.round_mode(mode, 16))

    def rounded(self, gathered, results: tuple) -> tuple:
        """The results with D0 rounded in each element's directed mode."""
        if self.exact:
            return results
        if self.directed is None:
            return self.evaluated(gathered.args, self.rounding(gathered.float_mode), results)
        if self.d0 is None:
            return results
        mode = modes.round_mode(gathered.float_mode, self.result_width)
        if not mode.any():
            return results
        values = dict(zip(self.ports, gathered.args))
        results = list(results)
        results[self.d0] = self.directed(values, mode, np.asarray(results[self.d0]))
        return tuple(results)

    def evaluated(self, args: list, mode: np.ndarray, results: tuple) -> tuple:
        """The results of the elements in a directed round mode, from the reference evaluator."""
        if not mode.any():
            return results
        try:
            return evaluated.run(self.op, args, mode, mode != 0, results)
        except Exception as e:  # noqa: BLE001 - an evaluator that cannot run this text names why
            raise Unsupported(f"{self.name} under a directed round mode: the reference evaluator, which rounds it, "
                              f"cannot run it ({type(e).__name__}: {e})") from None

    def flushed_output(self, gathered, value: np.ndarray) -> np.ndarray:
        if self.output is None:
            return value
        width, offsets = self.output
        flush = modes.flushes(gathered.float_mode, width, True).reshape(value.shape[:2])
        return modes.flush_denormals(value, width, flush, offsets)


class ScalarFloatModes:
    """The same MODE rules for a SALU float operation (gfx11.5, gfx12: s_add_f32, s_fmamk_f32, s_cvt_f32_i32,
    s_cmp_*_f32 ...), over one element per wave: its float sources (and s_fmac's accumulator D0, s_fmamk's
    K) flushed in their type's input mode, a directed round mode applied by the reference evaluator, the
    float result flushed in its output mode."""

    def __init__(self, name: str, op, formats: dict[str, str | None], sources: dict[str, str]):
        self.name, self.op = name, op
        key = name.removeprefix("S_")
        self.exact = EXACT.fullmatch(key) is not None
        flushed = NOT_FLUSHED.fullmatch(key) is None
        self.output = opnd.float_kind(formats.get("sdst")) if flushed else None
        widths = {port: opnd.float_kind(formats.get(field)) for port, field in sources.items()}
        widths.update({"D0": self.output, "SIMM32": self.output})
        self.inputs = [(index, widths[port.name]) for index, port in enumerate(op.inputs)
                       if flushed and widths.get(port.name) and "BF16" not in (formats.get("sdst") or "")]
        kinds = [w for w in (*widths.values(),) if w]
        self.result_width = self.output or (max(kinds) if kinds else 32)

    def read(self, mode: np.ndarray, args: list) -> None:
        for index, width in self.inputs:
            args[index] = modes.flush_denormals(np.asarray(args[index]), width, modes.flushes(mode, width, False))

    def rounded(self, mode: np.ndarray, args: list, results: tuple) -> tuple:
        if self.exact:
            return results
        rounding = modes.round_mode(mode, self.result_width)
        if not rounding.any():
            return results
        try:
            return evaluated.run(self.op, args, rounding, rounding != 0, results)
        except Exception as e:  # noqa: BLE001
            raise Unsupported(f"{self.name} under a directed round mode: the reference evaluator, which rounds it, "
                              f"cannot run it ({type(e).__name__}: {e})") from None

    def flushed_output(self, mode: np.ndarray, value: np.ndarray) -> np.ndarray:
        if not self.output:
            return value
        return modes.flush_denormals(np.asarray(value), self.output, modes.flushes(mode, self.output, True))

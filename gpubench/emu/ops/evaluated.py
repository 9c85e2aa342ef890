"""Lanes whose float mode the compiled numpy semantics do not cover, run by the reference evaluator.

The compiled pseudocode rounds to nearest even; rounding.py recomputes add/sub/mul/fma and the
narrowing conversions exactly for a directed MODE.FP_ROUND. Every other float operation
(transcendentals, division helpers, f64 fma, ldexp, dot products, packed f16, the SALU floats of
gfx11.5/gfx12 ...) honours a directed round mode here: the lanes that ask for one run the same
pseudocode (AMD's text with the corrections of isa/corrections.py) through the reference evaluator
(gpubench/compiler/pcode), one lane at a time, with ROUND_MODE bound to the lane's FP_ROUND for the
result's type. The evaluator computes every arithmetic result exactly (fractions) and rounds it once
in that mode, so these results are the correctly rounded ones; a transcendental (exp, log, sqrt, sin,
cos, rcp ...) is its float64 libm value rounded once in the mode (for f64 results, the libm value
itself): the hardware's own approximations are not documented, so no more is claimed (inferred).

Denormal flushing is not done here: the caller has already flushed the inputs and flushes the
results (float_modes.py). Slow (a Python interpreter per lane), and used only for waves in a
directed round mode.
"""
from __future__ import annotations

import functools

import numpy as np

from gpubench.compiler.backend.ports import RECORD_FIELDS
from gpubench.compiler.pcode import Environment, InstructionLibrary, Record, Reg, evaluate, parse
from gpubench.compiler.pcode.dtypes import DataType
from gpubench.isa.corrections import hardware_pseudocode

ROUND_MODE_TYPE = DataType("u", 2)
# "WAVE_MODE_IEEE" -> ("WAVE_MODE", "IEEE"): the ports that are fields of a state record
RECORD_PORTS = {f"{record}_{name}": (record, name) for record, names in RECORD_FIELDS.items() for name in names}


@functools.cache
def _program(text: str):
    return parse(text)


@functools.cache
def _library(arch: str) -> InstructionLibrary:
    return InstructionLibrary(hardware_pseudocode(arch))


def _element(array: np.ndarray, i: int, words: int) -> int:
    if words:
        return sum(int(w) << (32 * k) for k, w in enumerate(array[i]))
    return int(array[i])


def run(op, args: list, rounding: np.ndarray, lanes: np.ndarray, results: tuple) -> tuple:
    """``results`` (the compiled function's outputs) with the elements where ``lanes`` holds recomputed
    by the evaluator under ``rounding`` (FP_ROUND, per element)."""
    where = np.flatnonzero(lanes)
    if where.size == 0:
        return results
    program, library = _program(op.text), _library(op.arch)
    n = len(lanes)
    outputs = []
    for port, value in zip(op.outputs, results):
        value = np.array(np.broadcast_to(value, (n,) + np.shape(value)[1:]))  # a writable copy
        outputs.append(value)
    inputs = [(port, np.broadcast_to(a, (n,) + np.shape(a)[1:])) for port, a in zip(op.inputs, args)]
    names = {port.name for port in op.inputs}
    for i in where:
        lane = int(inputs[[p.name for p, _ in inputs].index("laneId")][1][i]) if "laneId" in names else 0
        bindings: dict[str, object] = {}
        records: dict[str, dict[str, Reg]] = {}
        for port, array in inputs:
            value = _element(array, i, port.words)
            if port.name in RECORD_PORTS:
                record, field = RECORD_PORTS[port.name]
                records.setdefault(record, {})[field] = Reg.of(value, 1)
            elif port.lane_bit:
                bindings[port.name] = (value & 1) << lane
            elif port.width == 1:
                bindings[port.name] = bool(value)
            else:
                bindings[port.name] = value
        for port in op.outputs:  # written ports the pseudocode does not read start as 0
            if port.name in RECORD_PORTS:
                record, field = RECORD_PORTS[port.name]
                records.setdefault(record, {}).setdefault(field, Reg.of(0, 1))
            else:
                bindings.setdefault(port.name, False if port.width == 1 and not port.lane_bit else 0)
        bindings.setdefault("laneId", lane)
        env = Environment(**bindings, **{name: Record(fields) for name, fields in records.items()},
                          ROUND_MODE=Reg(int(rounding[i]), ROUND_MODE_TYPE))
        with np.errstate(all="ignore"):
            evaluate(program, env, library=library)
        for port, out in zip(op.outputs, outputs):
            if port.name in RECORD_PORTS:
                record, field = RECORD_PORTS[port.name]
                bits = env[record].fields[field].bits
            else:
                bits = env.bits(port.name)
            if port.lane_bit:
                out[i] = bool(bits >> lane & 1)
            elif port.width == 1:
                out[i] = bool(bits & 1)
            elif port.words:
                out[i] = [(bits >> (32 * k)) & 0xFFFFFFFF for k in range(port.words)]
            else:
                out[i] = bits & ((1 << port.width) - 1)
    return tuple(outputs)

"""Checking a compiled op against the reference evaluator, lane by lane, bit for bit.

    inputs = random_inputs(op, 300, np.random.default_rng(0))
    report = check(op, inputs)          # report.mismatches: lanes where the two differ

Random inputs mix special values (zeros of both signs, infinities, quiet and signaling NaNs with
payloads, denormals, integer extremes, f16 specials in either half) with ordinary numbers and raw
bits. The evaluator runs each lane in an environment whose registers hold that lane's port values
(full 64-bit registers; a lane-bit port is that lane's bit of a random mask), so what the backend
sees is exactly what the evaluator sees. Lanes where the evaluator raises are counted, not compared.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpubench.compiler.backend import runtime as rt
from gpubench.compiler.backend.cache import library
from gpubench.compiler.backend.compiled import CompiledOp
from gpubench.compiler.backend.ports import FLAGS, RECORD_FIELDS, field_port
from gpubench.compiler.pcode import Environment, Memory, Record, Reg, evaluate, parse

_F32_SPECIALS = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                 0xFF800123, 0x7FC00ABC, 0x00000001, 0x807FFFFF, 0x00800000, 0x3F800000, 0xBF800000, 0x3F000000,
                 0x7F7FFFFF, 0xFF7FFFFF, 0x4B000000, 0xCB800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x00000002, 0x0000001F,
                 0x00000020, 0x00000021, 0x0000003F, 0x00000040, 0x0000FFFF, 0x00010000]
_F16_SPECIALS = [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE55, 0x0001, 0x83FF, 0x0400, 0x3C00, 0xBC00,
                 0x3800, 0x7BFF, 0xFBFF, 0x7FFF, 0xFFFF]
_F64_SPECIALS = [0x0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                 0x7FF0000000000001, 0xFFF4000000000123, 0x0000000000000001, 0x800FFFFFFFFFFFFF, 0x0010000000000000,
                 0x3FF0000000000000, 0xBFF0000000000000, 0x7FEFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF,
                 0x8000000000000000 | 0x3FE0000000000000, 0x4330000000000000]


def _random_u32(rng: np.random.Generator, n: int) -> np.ndarray:
    """Specials, ordinary f32 values, pairs of f16 values, small integers and raw bits, mixed."""
    kind = rng.integers(0, 6, n)
    specials = np.array(_F32_SPECIALS, dtype=np.uint32)[rng.integers(0, len(_F32_SPECIALS), n)]
    floats32 = (rng.uniform(-1, 1, n) * 2.0 ** rng.integers(-30, 30, n)).astype(np.float32).view(np.uint32)
    h = np.array(_F16_SPECIALS, dtype=np.uint32)
    halves = rng.uniform(-4, 4, (n, 2)).astype(np.float16).view(np.uint16).astype(np.uint32)
    halves = np.where(rng.random((n, 2)) < 0.4, h[rng.integers(0, len(h), (n, 2))], halves)
    pairs = halves[:, 0] | (halves[:, 1] << np.uint32(16))
    small = rng.integers(-70, 70, n).astype(np.int64).astype(np.uint32)
    raw = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    return np.choose(kind, [specials, floats32, pairs, small, raw, raw])


def _random_u64(rng: np.random.Generator, n: int) -> np.ndarray:
    kind = rng.integers(0, 5, n)
    specials = np.array(_F64_SPECIALS, dtype=np.uint64)[rng.integers(0, len(_F64_SPECIALS), n)]
    floats64 = (rng.uniform(-1, 1, n) * 2.0 ** rng.integers(-60, 60, n)).view(np.uint64)
    two = _random_u32(rng, n).astype(np.uint64) | (_random_u32(rng, n).astype(np.uint64) << np.uint64(32))
    small = rng.integers(-70, 70, n).astype(np.int64).astype(np.uint64)
    raw = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n, dtype=np.uint64)
    return np.choose(kind, [specials, floats64, two, small, raw])


@dataclass
class Inputs:
    """One set of lanes: the backend's port arrays and, per lane, the evaluator's register values."""

    n: int
    ports: dict[str, np.ndarray]
    registers: dict[str, np.ndarray] = field(default_factory=dict)  # full 64-bit values (object ints)
    lane: np.ndarray | None = None


def random_inputs(op: CompiledOp, n: int, rng: np.random.Generator) -> Inputs:
    lane = rng.integers(0, 64, n)
    registers: dict[str, np.ndarray] = {}
    ports: dict[str, np.ndarray] = {}
    for spec in op.inputs:
        if spec.lane_bit:
            mask = _random_u64(rng, n)
            registers[spec.name] = mask
            ports[spec.name] = ((mask >> lane.astype(np.uint64)) & np.uint64(1)).astype(bool)
        elif spec.width == 1:
            ports[spec.name] = rng.integers(0, 2, n).astype(bool)
            registers[spec.name] = ports[spec.name].astype(np.uint64)
        elif spec.name == "laneId":
            ports[spec.name] = lane.astype(np.uint32)
            registers[spec.name] = lane.astype(np.uint64)
        elif spec.words:
            words = np.stack([_random_u32(rng, n) for _ in range(spec.words)], axis=1)
            ports[spec.name] = words
            registers[spec.name] = words
        else:
            full = _random_u64(rng, n) if spec.width == 64 else (
                _random_u32(rng, n).astype(np.uint64) | (_random_u32(rng, n).astype(np.uint64) << np.uint64(32)))
            registers[spec.name] = full
            ports[spec.name] = full if spec.width == 64 else full.astype(np.uint32)
    return Inputs(n, ports, registers, lane)


def lane_environment(inputs: Inputs, i: int, rng: np.random.Generator) -> Environment:
    """The evaluator's state for lane i: the lane's port values, random values for everything else."""
    def r(bits: int) -> int:
        return int(rng.integers(0, 2**bits, dtype=np.uint64)) if bits < 64 else int(
            rng.integers(0, 2**63, dtype=np.uint64)) * 2 + int(rng.integers(0, 2))

    values: dict[str, object] = {name: r(64) for name in ("S0", "S1", "S2", "D0", "D1", "VCC", "EXEC", "PC", "SIMM32",
                                                       "SIMM16", "M0", "OPSEL", "OPSEL_HI", "NEG", "NEG_HI")}
    values.update({name: r(1) for name in FLAGS})
    lane = int(inputs.lane[i])
    values["laneId"] = lane
    fields: dict[str, dict[str, int]] = {record: {f: r(1) for f in fs} for record, fs in RECORD_FIELDS.items()}
    for name, array in inputs.registers.items():
        if array.ndim == 2:  # a wide register: a plain int would be cut to 64 bits
            values[name] = Reg.of(sum(int(w) << (32 * k) for k, w in enumerate(array[i])), 32 * array.shape[1])
            continue
        value = int(array[i])
        record_field = _record_field(name)
        if record_field:
            fields[record_field[0]][record_field[1]] = value
        else:
            values[name] = value
    records = {record: Record({f: Reg.of(v, 1) for f, v in fs.items()}) for record, fs in fields.items()}
    records["WAVE_MODE"].fields["CSP"] = Reg.of(0, 3)
    return Environment(**values, **records, MEM=Memory(8), SGPR=Memory(32))


@dataclass
class Report:
    lanes: int = 0
    compared: int = 0
    evaluator_errors: int = 0
    first_error: str = ""
    mismatches: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return self.compared > 0 and not self.mismatches


def check(op: CompiledOp, inputs: Inputs, seed: int = 0, max_reports: int = 5) -> Report:
    """Run the evaluator lane by lane, then the backend on the lanes the evaluator completes (the others
    read something undefined); report the lanes where the two differ."""
    program = parse(op.text)
    lib = library(op.arch)
    rng = np.random.default_rng(seed)
    report = Report(lanes=inputs.n)
    done: list[tuple[int, Environment]] = []
    for i in range(inputs.n):
        env = lane_environment(inputs, i, rng)
        try:
            evaluate(program, env, lib)
        except Exception as err:  # noqa: BLE001 - the evaluator refusing a lane is data, counted
            report.evaluator_errors += 1
            report.first_error = report.first_error or f"{type(err).__name__}: {err}"
            continue
        done.append((i, env))
    report.compared = len(done)
    lanes = np.array([i for i, _ in done], dtype=np.int64)
    try:
        outputs = op(len(lanes), **{name: array[lanes] for name, array in inputs.ports.items()})
    except rt.UndefinedState as err:
        report.mismatches.append(f"the backend refused lanes the evaluator completes: {err}")
        return report
    for k, (i, env) in enumerate(done):
        for spec in op.outputs:
            expected = _expected(env, spec, int(inputs.lane[i]))
            got = outputs[spec.name][k]
            got = sum(int(w) << (32 * j) for j, w in enumerate(got)) if spec.words else int(got)
            if got == expected:
                continue
            if len(report.mismatches) < max_reports:
                inputs_text = ", ".join(f"{name}={_show(v[i])}" for name, v in inputs.ports.items())
                report.mismatches.append(f"{spec.name}: backend {got:#x} != evaluator {expected:#x} ({inputs_text})")
            else:
                report.mismatches.append("")
    return report


def _expected(env: Environment, spec, lane: int) -> int:
    record_field = _record_field(spec.name)
    reg = env[record_field[0]].fields[record_field[1]] if record_field else env[spec.name]
    bits = reg.bits
    if spec.lane_bit:
        return (bits >> lane) & 1
    return bits & ((1 << spec.width) - 1)


def _record_field(port: str) -> tuple[str, str] | None:
    for record, fs in RECORD_FIELDS.items():
        for f in fs:
            if field_port(record, f) == port:
                return record, f
    return None


def _show(value) -> str:
    if isinstance(value, np.ndarray):
        return "[" + ", ".join(f"{int(w):#x}" for w in value) + "]"
    return f"{int(value):#x}"

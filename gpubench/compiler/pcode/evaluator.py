"""Reference evaluator: runs one lane of an instruction's pseudocode on Python values.

It is written to be obviously right, not fast: every value is typed (``values.py``), every float
result is rounded exactly once (``floats.py``), and every lvalue is a place (``places.py``). A fast
backend can be checked against it instruction by instruction.

The environment binds the names the pseudocode reads: operands (``S0``, ``D0``), wave state (``SCC``,
``VCC``, ``EXEC``, ``laneId``, ``WAVE64``), records (``WAVE_MODE.IEEE``), memories (``MEM``, ``VGPR``)
and constants. Locals (``tmp``) live for one run; their type is fixed by their declaration or first
assignment, and a fresh local written through a slice grows to the bits written (``tmp[31 : 16]``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from gpubench.compiler.pcode import floats, ir
from gpubench.compiler.pcode.dtypes import F32, F64, I32, I64, DataType
from gpubench.compiler.pcode.helpers import HELPERS, UnimplementedHelper, call_helper
from gpubench.compiler.pcode.parser import parse
from gpubench.compiler.pcode.places import BitsPlace, CellPlace, Place, RegPlace, ValuePlace
from gpubench.compiler.pcode.state import Array, Memory, Record, Reg
from gpubench.compiler.pcode.values import (
    PcodeTypeError,
    Value,
    arithmetic,
    bits_of,
    cast,
    compare,
    complement,
    convert,
    from_bool,
    from_int,
    int_value,
    is_float,
    is_untyped_real,
    negate,
    power,
    promote,
    reinterpret,
    shift,
    truthy,
    typed,
)

MAX_WHILE_ITERATIONS = 1 << 16

# The manual's other spellings of state it names elsewhere.
ALIASES: dict[str, ir.Expr] = {
    "laneID": ir.Name("laneId"),
    "wave32": ir.Name("WAVE32"),
    "EXEC_LO": ir.Slice(ir.Name("EXEC"), ir.IntLit(31, None), ir.IntLit(0, None)),
    "EXEC_HI": ir.Slice(ir.Name("EXEC"), ir.IntLit(63, None), ir.IntLit(32, None)),
    "VCC_LO": ir.Slice(ir.Name("VCC"), ir.IntLit(31, None), ir.IntLit(0, None)),
    "VCC_HI": ir.Slice(ir.Name("VCC"), ir.IntLit(63, None), ir.IntLit(32, None)),
}
# ``declare S : 32'B[3]; ... S[i]`` is how V_FMA_MIX indexes its sources S0..S2.
SOURCE_ARRAYS = {"S": ("S0", "S1", "S2")}

# RDNA3 renamed S_FF1_* to S_CTZ_*, but its pseudocode still calls the old names.
_RENAMED_INSTRUCTIONS = {"S_FF1_I32_B32": "S_CTZ_I32_B32", "S_FF1_I32_B64": "S_CTZ_I32_B64"}

# Registers given as plain ints get these widths; any other plain int is a 64-bit register.
_FLAG_WIDTHS = {"SCC": 1, "VCCZ": 1, "EXECZ": 1, "WAVE32": 1, "WAVE64": 1}


class PcodeRuntimeError(RuntimeError):
    """The pseudocode did something the environment cannot support (unknown name, bad assignment ...)."""


@dataclass
class Closure:
    params: tuple[str, ...]
    body: ir.Expr | ir.Block
    scope: Scope


class Scope:
    """Names bound to state. Lookups walk outwards; a new name is bound in the innermost scope."""

    def __init__(self, parent: Scope | None = None):
        self.names: dict[str, object] = {}
        self.parent = parent

    def find(self, name: str) -> object | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def bind(self, name: str, obj: object) -> None:
        self.names[name] = obj

    def root(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


def _builtins() -> dict[str, object]:
    return {
        "PI": Value(None, math.pi),
        "INF": Value(None, math.inf),
        "NAN": Value(None, math.nan),
        "MAX_FLOAT_F32": typed(F32, floats.FORMATS[F32].max_finite),
        "ROUND_NEAREST_EVEN": Value(None, floats.ROUND_NEAREST_EVEN),
        "ROUND_TOWARD_ZERO": Value(None, floats.ROUND_TOWARD_ZERO),
        "ROUND_MODE": Reg(floats.ROUND_NEAREST_EVEN, DataType("u", 2)),
        # V_CVT_OFF_F32_I4 declares this table and gives it in prose: the signed 4-bit input over 16.
        "CVT_OFF_TABLE": Array([Reg(floats.encode(float(i - 16 * (i >= 8)) / 16, floats.FORMATS[F32]), F32)
                                for i in range(16)]),
    }


class Environment:
    """The state one lane runs against. Plain ints become registers (see _FLAG_WIDTHS)."""

    def __init__(self, **bindings: object):
        self.scope = Scope()
        for name, obj in {**_builtins(), **bindings}.items():
            self.scope.bind(name, _as_state(name, obj))

    def __getitem__(self, name: str) -> object:
        obj = self.scope.find(name)
        if obj is None:
            raise KeyError(name)
        return obj

    def bits(self, name: str) -> int:
        reg = self[name]
        if not isinstance(reg, Reg):
            raise TypeError(f"{name} is not a register")
        return reg.bits


def _as_state(name: str, obj: object) -> object:
    if isinstance(obj, bool):
        return Reg.of(int(obj), 1)
    if isinstance(obj, int):
        return Reg.of(obj, _FLAG_WIDTHS.get(name, 64))
    return obj


class InstructionLibrary:
    """Other instructions' pseudocode, for calls such as ``v_min_f32(a, b)`` or ``v_max3_u32(...)``.

    The callee runs with its arguments as S0, S1, S2 and returns D0, read as the type the callee
    writes D0 with (``D0.f32 = ...`` -> f32).
    """

    def __init__(self, pseudocode: Mapping[tuple[str, str], str]):
        self._texts: dict[str, str] = {}
        for (_, name), text in pseudocode.items():
            base = name.removesuffix("_E32").removesuffix("_E64")
            self._texts.setdefault(base, text)
        self._parsed: dict[str, tuple[ir.Program, DataType] | None] = {}

    def find(self, func: str) -> tuple[ir.Program, DataType] | None:
        key = func.upper()
        if key not in self._texts:
            key = _RENAMED_INSTRUCTIONS.get(key, key)
        if key not in self._parsed:
            text = self._texts.get(key)
            self._parsed[key] = None if text is None else _with_result_type(parse(text))
        return self._parsed[key]


def _with_result_type(program: ir.Program) -> tuple[ir.Program, DataType]:
    for node in ir.walk(program):
        if isinstance(node, ir.Assign) and isinstance(node.target, ir.View) and node.target.base == ir.Name("D0"):
            return program, node.target.dtype
    return program, DataType("b", 64)


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: Value):
        super().__init__()
        self.value = value


def evaluate(
    program: ir.Program | str,
    env: Environment | None = None,
    library: InstructionLibrary | None = None,
    **bindings: object,
) -> Environment:
    """Run ``program`` once against ``env`` (or a new Environment of ``bindings``); returns the environment."""
    if isinstance(program, str):
        program = parse(program)
    if env is None:
        env = Environment(**bindings)
    elif bindings:
        raise TypeError("pass either an Environment or bindings, not both")
    try:
        _Interpreter(library).exec_block(program.body, Scope(parent=env.scope))
    except (_Break, _Continue, _Return) as escaped:
        raise PcodeRuntimeError(f"{type(escaped).__name__[1:].lower()} outside a loop or lambda") from None
    return env


class _Interpreter:
    def __init__(self, library: InstructionLibrary | None):
        self.library = library

    # --- statements --------------------------------------------------------------------------------

    def exec_block(self, block: ir.Block, scope: Scope) -> None:
        for stmt in block.stmts:
            self.exec_stmt(stmt, scope)

    def exec_stmt(self, stmt: ir.Stmt, scope: Scope) -> None:
        match stmt:
            case ir.Assign():
                self.assign(stmt, scope)
            case ir.If():
                for branch in stmt.branches:
                    if truthy(self.eval(branch.cond, scope)):
                        self.exec_block(branch.body, scope)
                        return
                if stmt.orelse is not None:
                    self.exec_block(stmt.orelse, scope)
            case ir.For():
                self.exec_for(stmt, scope)
            case ir.While():
                self.exec_while(stmt, scope)
            case ir.Declare():
                self.declare(stmt, scope)
            case ir.ExprStmt():
                if not isinstance(stmt.expr, ir.StringLit):  # a quoted note has no effect
                    self.eval(stmt.expr, scope)
            case ir.Break():
                raise _Break
            case ir.Continue():
                raise _Continue
            case ir.Return():
                raise _Return(self.eval(stmt.value, scope) if stmt.value else Value(None, 0))
            case _:
                raise PcodeRuntimeError(f"unknown statement {stmt!r}")

    def exec_for(self, stmt: ir.For, scope: Scope) -> None:
        start, stop = self.eval(stmt.start, scope), self.eval(stmt.stop, scope)
        var = scope.find(stmt.var)
        if not isinstance(var, Reg):
            var = Reg(0, start.dtype or I32)
            scope.bind(stmt.var, var)
        for i in range(int_value(start), int_value(stop) + 1):
            var.bits = from_int(var.dtype, i).data
            try:
                self.exec_block(stmt.body, scope)
            except _Break:
                break
            except _Continue:
                continue

    def exec_while(self, stmt: ir.While, scope: Scope) -> None:
        for _ in range(MAX_WHILE_ITERATIONS):
            if not truthy(self.eval(stmt.cond, scope)):
                return
            try:
                self.exec_block(stmt.body, scope)
            except _Break:
                return
            except _Continue:
                continue
        raise PcodeRuntimeError(f"while loop still running after {MAX_WHILE_ITERATIONS} iterations")

    def declare(self, stmt: ir.Declare, scope: Scope) -> None:
        existing = scope.find(stmt.name)
        if isinstance(existing, Reg):  # the environment provides it; the declaration gives its type
            existing.dtype = stmt.dtype
            existing.bits &= stmt.dtype.mask
        elif existing is None and stmt.name not in SOURCE_ARRAYS:
            if stmt.length is None:
                scope.bind(stmt.name, Reg(0, stmt.dtype))
            else:
                scope.bind(stmt.name, Array.of(stmt.dtype, int_value(self.eval(stmt.length, scope))))

    def assign(self, stmt: ir.Assign, scope: Scope) -> None:
        if isinstance(stmt.value, ir.Lambda):
            if stmt.op is not None or not isinstance(stmt.target, ir.Name):
                raise PcodeRuntimeError("a lambda can only be bound to a name")
            scope.bind(stmt.target.ident, Closure(stmt.value.params, stmt.value.body, scope))
            return
        value = self.eval(stmt.value, scope)
        if stmt.op is not None:
            value = self.binary(stmt.op, self.eval(stmt.target, scope), value, scope)
        self.store(stmt.target, value, scope)

    def store(self, target: ir.Expr, value: Value, scope: Scope) -> None:
        if isinstance(target, ir.Concat):  # { hi, ..., lo } = value: split the bits, last part lowest
            places = [self.place(part, scope, create=True) for part in target.parts]
            bits = bits_of(value, sum(p.dtype.bits for p in places))
            for place in reversed(places):
                place.write(bits & place.dtype.mask)
                bits >>= place.dtype.bits
            return
        if isinstance(target, ir.Name) and scope.find(target.ident) is None and target.ident not in ALIASES:
            scope.bind(target.ident, Reg(0, value.dtype or _literal_type(value)))
        place = self.place(target, scope, create=True)
        if isinstance(place, CellPlace) and not place.sized and value.dtype is not None:
            place = place.resized(value.dtype)
        place.write(self.encode(value, place.dtype, scope))

    def encode(self, value: Value, dtype: DataType, scope: Scope) -> int:
        """The bits an assignment stores: the value converted to the place's type.

        Into raw bits (``b`` types: registers, slices) a float is stored as its bit pattern.
        """
        if dtype.kind == "b" and value.dtype is not None and value.dtype.is_float:
            return bits_of(value, dtype.bits)
        return convert(value, dtype, self.rounding(scope)).data

    # --- places ------------------------------------------------------------------------------------

    def place(self, expr: ir.Expr, scope: Scope, create: bool = False) -> Place:
        located = self.locate(expr, scope, create)
        if not isinstance(located, Place):
            raise PcodeRuntimeError(f"{_describe(expr)} is a {type(located).__name__}, not a value")
        return located

    def locate(self, expr: ir.Expr, scope: Scope, create: bool = False) -> object:
        """The place (or memory, array, record, closure) an expression names."""
        match expr:
            case ir.Name(ident):
                return self.locate_name(ident, scope, create)
            case ir.View(base, dtype):
                located = self.locate(base, scope, create)
                if isinstance(located, ValuePlace):
                    return ValuePlace(reinterpret(located.held, dtype, self.rounding(scope)))
                if isinstance(located, CellPlace):
                    return located.resized(dtype)
                return BitsPlace(self._as_place(located, base), 0, dtype)
            case ir.Field(base, name):
                record = self.locate(base, scope, create)
                if not isinstance(record, Record) or name not in record.fields:
                    raise PcodeRuntimeError(f"{_describe(expr)} is not in the environment")
                return RegPlace(record.fields[name])
            case ir.Index(base, index):
                located = self.locate(base, scope, create)
                i = int_value(self.eval(index, scope))
                if isinstance(located, Memory):
                    return CellPlace(located, i, DataType("b", located.unit_bits), sized=False)
                if isinstance(located, Array):
                    return RegPlace(located.elements[i])
                if isinstance(located, Mapping):  # VGPR: lane -> that lane's registers
                    return located[i]
                return BitsPlace(self._as_place(located, base), i, DataType("u", 1))
            case ir.Slice(base, hi, lo):
                place = self._as_place(self.locate(base, scope, create), base)
                h, low = int_value(self.eval(hi, scope)), int_value(self.eval(lo, scope))
                if h >= low:
                    return BitsPlace(place, low, DataType("b", h - low + 1))
                return BitsPlace(place, h, DataType("b", low - h + 1), reversed=True)
            case ir.PartSelect(base, lo, width):
                place = self._as_place(self.locate(base, scope, create), base)
                low, w = int_value(self.eval(lo, scope)), int_value(self.eval(width, scope))
                return BitsPlace(place, low, DataType("b", w))
            case _:
                return ValuePlace(self.eval(expr, scope))

    def locate_name(self, ident: str, scope: Scope, create: bool) -> object:
        obj = scope.find(ident)
        if obj is None:
            if ident in ALIASES:
                return self.locate(ALIASES[ident], scope, create)
            if ident in SOURCE_ARRAYS and all(isinstance(scope.find(s), Reg) for s in SOURCE_ARRAYS[ident]):
                return Array([scope.find(s) for s in SOURCE_ARRAYS[ident]])
            if not create:
                raise PcodeRuntimeError(f"{ident} is not in the environment")
            obj = Reg(0, DataType("b", 1))  # a fresh local written through a view or slice: it grows
            scope.bind(ident, obj)
        if isinstance(obj, Reg):
            return RegPlace(obj)
        if isinstance(obj, Value):
            return ValuePlace(obj)
        return obj

    @staticmethod
    def _as_place(located: object, expr: ir.Expr) -> Place:
        if not isinstance(located, Place):
            raise PcodeRuntimeError(f"{_describe(expr)} is a {type(located).__name__}; it has no bits to select")
        return located

    # --- expressions -------------------------------------------------------------------------------

    def rounding(self, scope: Scope) -> int:
        mode = scope.find("ROUND_MODE")
        return mode.bits if isinstance(mode, Reg) else floats.ROUND_NEAREST_EVEN

    def eval(self, expr: ir.Expr, scope: Scope) -> Value:
        match expr:
            case ir.IntLit(value, dtype):
                return from_int(dtype, value) if dtype else Value(None, value)
            case ir.FloatLit(value, dtype):
                return convert(Value(None, value), dtype, floats.ROUND_NEAREST_EVEN) if dtype else Value(None, value)
            case ir.Name() | ir.View() | ir.Field() | ir.Index() | ir.Slice() | ir.PartSelect():
                return self.place(expr, scope).value()
            case ir.Cast(dtype, operand):
                return cast(self.eval(operand, scope), dtype, self.rounding(scope))
            case ir.Unary(op, operand):
                return self.unary(op, self.eval(operand, scope))
            case ir.Binary("&&", left, right):
                return from_bool(truthy(self.eval(left, scope)) and truthy(self.eval(right, scope)))
            case ir.Binary("||", left, right):
                return from_bool(truthy(self.eval(left, scope)) or truthy(self.eval(right, scope)))
            case ir.Binary(op, left, right):
                return self.binary(op, self.eval(left, scope), self.eval(right, scope), scope)
            case ir.Ternary(cond, then, orelse):
                return self.eval(then if truthy(self.eval(cond, scope)) else orelse, scope)
            case ir.Call():
                return self.call(expr, scope)
            case ir.Concat(parts):
                return self.concat([self.eval(p, scope) for p in parts])
        raise PcodeRuntimeError(f"{_describe(expr)} is not a value")

    @staticmethod
    def unary(op: str, v: Value) -> Value:
        if op == "!":
            return from_bool(not truthy(v))
        return {"-": negate, "~": complement, "+": promote}[op](v)

    def binary(self, op: str, a: Value, b: Value, scope: Scope) -> Value:
        rounding = self.rounding(scope)
        if op == "**":
            return power(a, b)
        if op in ("<<", ">>"):
            return shift(op, a, b)
        if op in ("==", "!=", "<>", "<", "<=", ">", ">="):
            return compare(op, a, b, rounding)
        return arithmetic(op, a, b, rounding)

    @staticmethod
    def concat(parts: list[Value]) -> Value:
        bits, width = 0, 0
        for part in parts:
            if part.dtype is None:
                raise PcodeTypeError(f"a concatenation needs sized parts, got the literal {part.data}")
            bits = (bits << part.dtype.bits) | part.data
            width += part.dtype.bits
        return typed(DataType("b", width), bits)

    def call(self, expr: ir.Call, scope: Scope) -> Value:
        args = [self.eval(arg, scope) for arg in expr.args]
        closure = scope.find(expr.func)
        if isinstance(closure, Closure):
            return self.call_closure(expr.func, closure, args)
        if expr.func in HELPERS:
            return call_helper(expr.func, self.rounding(scope), args)
        found = self.library.find(expr.func) if self.library else None
        if found is None:
            raise UnimplementedHelper(expr.func)
        return self.call_instruction(*found, args, scope)

    def call_closure(self, name: str, closure: Closure, args: list[Value]) -> Value:
        if len(args) != len(closure.params):
            raise PcodeRuntimeError(f"{name} takes {len(closure.params)} arguments, got {len(args)}")
        frame = Scope(parent=closure.scope)
        for param, arg in zip(closure.params, args, strict=True):
            frame.bind(param, Reg(arg.data, arg.dtype) if arg.dtype else arg)
        if isinstance(closure.body, ir.Block):
            try:
                self.exec_block(closure.body, frame)
            except _Return as ret:
                return ret.value
            raise PcodeRuntimeError(f"{name} ended without a return")
        return self.eval(closure.body, frame)

    def call_instruction(self, program: ir.Program, result: DataType, args: list[Value], scope: Scope) -> Value:
        operands = Scope(parent=scope.root())  # the callee sees the wave state, not the caller's locals
        for i, arg in enumerate(args):
            if arg.dtype is None:  # an untyped literal argument is a 32-bit operand
                arg = convert(arg, F32 if is_float(arg) else DataType("u", 32), floats.ROUND_NEAREST_EVEN)
            operands.bind(f"S{i}", Reg.of(arg.data, arg.dtype.bits))
        d0 = Reg.of(0, 64)
        operands.bind("D0", d0)
        self.exec_block(program.body, Scope(parent=operands))
        return typed(result, d0.bits)


def _literal_type(value: Value) -> DataType:
    """The type a local gets from an untyped literal: C's int, a 64-bit int if it needs one, or double."""
    if is_untyped_real(value):
        return F64
    return I32 if -(1 << 31) <= value.data < (1 << 31) else I64


def _describe(expr: ir.Expr) -> str:
    match expr:
        case ir.Name(ident):
            return ident
        case ir.View(base, dtype):
            return f"{_describe(base)}.{dtype}"
        case ir.Field(base, name):
            return f"{_describe(base)}.{name}"
        case ir.Index(base) | ir.Slice(base) | ir.PartSelect(base):
            return f"{_describe(base)}[...]"
    return type(expr).__name__

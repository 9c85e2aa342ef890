"""IR -> vectorized numpy source: one Python function per instruction, run over all lanes at once.

Control flow becomes data flow. Every statement runs under a lane mask (None: all lanes):
  - ``if``/``elsif``/``else``: each branch runs under ``mask & cond & ~earlier``, and an assignment
    under a mask is ``x = select(mask, new, x)`` (runtime.select: np.where or a bit blend);
  - loops with constant bounds are unrolled at compile time (the loop variable is a constant in each
    copy, so ``S0.u32[31 - i]`` becomes a constant shift); ``break``/``continue`` remove lanes from
    the loop's live mask, and later statements run under it;
  - lambdas and calls to other instructions are inlined; ``return`` works like ``break``, merging each
    returned value into the result under its mask;
  - ternaries, ``&&`` and ``||`` evaluate both sides on every lane and select.
Statements the evaluator would run on a lane are exactly those whose mask has the lane; the others
compute values that are discarded (numpy warnings for them are silenced by the caller).
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass

from gpubench.compiler.backend import calls, render
from gpubench.compiler.backend import operands as od
from gpubench.compiler.backend.emitter import Emitter
from gpubench.compiler.backend.operands import Arr, BackendUnsupported, Const, Operand
from gpubench.compiler.backend.ops import FALSE, Ops
from gpubench.compiler.backend.placecode import PlaceCompiler
from gpubench.compiler.backend.ports import (
    FLAGS,
    NOT_MODELLED_STATE,
    PROVISIONAL_WIDTH,
    RECORD_FIELDS,
    REGISTERS,
    PortSpec,
    PortUse,
    field_port,
)
from gpubench.compiler.backend.scope import (
    ArrayVar,
    Closure,
    SourceArray,
    ValuePlace,
    Var,
    VarPlace,
)
from gpubench.compiler.pcode import floats, ir
from gpubench.compiler.pcode import values as ref
from gpubench.compiler.pcode.dtypes import F32, F64, I32, I64, U1, DataType
from gpubench.compiler.pcode.evaluator import ALIASES, SOURCE_ARRAYS, InstructionLibrary, Scope
from gpubench.compiler.pcode.helpers import HELPERS, not_modelled_reason
from gpubench.compiler.pcode.values import Value

# Constants the manual uses but never defines. The evaluator fails on the lanes that read one; the
# generated code raises rt.UndefinedState if any lane of the call reads one (lanes that read nothing
# undefined get their values).
_UNDEFINED_CONSTANTS = frozenset({"UNDERFLOW_F32", "UNDERFLOW_F64", "OVERFLOW_F32", "OVERFLOW_F64", "DENORM"})
_NAN_CLASSIFIERS = frozenset({"isNAN", "isQuietNAN", "isSignalNAN"})
_COMPARISONS = frozenset({"==", "!=", "<>", "<", "<=", ">", ">="})
_MAX_CALL_DEPTH = 8


@dataclass
class Frame:
    """A loop or an inlined lambda: the lanes still running in it."""

    kind: str  # "loop" or "lambda"
    live: Operand | None  # None: every lane the frame started with
    iter_live: Operand | None = None
    result: Operand | None = None


class Compiler(PlaceCompiler):
    """Compiles one program. ``specs`` is None in the first pass, which only records port use."""

    def __init__(self, program: ir.Program, name: str, library: InstructionLibrary | None,
                 specs: dict[str, PortSpec] | None):
        self.program = program
        self.name = name
        self.library = library
        self.specs = specs
        self.e = Emitter()
        self.ops = Ops(self.e, name)
        self.uses: dict[str, PortUse] = {}
        self.ports: dict[str, Var] = {}
        self.root = Scope()
        self.mask: Operand | None = None
        # Writes under this mask count as definite for port coverage: None at the top; in an if
        # branch, the branch's mask (so bits every branch of an exhaustive if writes are defined).
        self.definite_mask: Operand | None = None
        self.frames: list[Frame] = []
        self.branch_path: list[tuple[int, int]] = []  # the if branches being compiled, outermost first
        # Inside a ternary branch or the right side of && / ||, the conditions (and whether each must
        # hold) under which the evaluator evaluates it; code here still runs on every lane.
        self.lazy: list[tuple[Operand, bool]] = []
        self.kills = 0
        self.depth = 0
        self._bind_builtins()

    def unsupported(self, what: str) -> BackendUnsupported:
        return self.ops.unsupported(what)

    # --- entry ---------------------------------------------------------------------------------------

    def run(self) -> None:
        self.exec_block(self.program.body, Scope(parent=self.root))

    def _bind_builtins(self) -> None:
        b = self.root.bind
        b("PI", Var("PI", None, Const(Value(None, math.pi))))
        b("INF", Var("INF", None, Const(Value(None, math.inf))))
        b("NAN", Var("NAN", None, Const(Value(None, math.nan))))
        b("MAX_FLOAT_F32", Var("MAX_FLOAT_F32", F32, Const(ref.typed(F32, floats.FORMATS[F32].max_finite))))
        b("ROUND_NEAREST_EVEN", Var("ROUND_NEAREST_EVEN", None, Const(Value(None, floats.ROUND_NEAREST_EVEN))))
        b("ROUND_TOWARD_ZERO", Var("ROUND_TOWARD_ZERO", None, Const(Value(None, floats.ROUND_TOWARD_ZERO))))
        u2 = DataType("u", 2)
        b("ROUND_MODE", Var("ROUND_MODE", u2, Const(ref.typed(u2, floats.ROUND_NEAREST_EVEN)), growable=False))
        table = [Var("CVT_OFF_TABLE", F32, Const(ref.typed(F32, floats.encode(float(i - 16 * (i >= 8)) / 16,
                                                                             floats.FORMATS[F32]))))
                 for i in range(16)]
        b("CVT_OFF_TABLE", ArrayVar(F32, table))

    # --- ports ---------------------------------------------------------------------------------------

    def port(self, name: str, lane_bit: bool) -> Var:
        var = self.ports.get(name)
        use = self.uses.get(name)
        if use is None:
            flag = name in FLAGS or any(name == field_port(r, f) for r, fs in RECORD_FIELDS.items() for f in fs)
            use = self.uses[name] = PortUse(name, flag)
        use.access(lane_bit, self.name)
        if var is not None:
            return var
        spec = self.specs.get(name) if self.specs is not None else None
        if lane_bit or use.flag:
            dtype = U1 if lane_bit else DataType("b", 1)
        else:
            dtype = DataType("b", spec.width if spec else PROVISIONAL_WIDTH)
        is_input = spec.is_input if spec else True
        value = Arr(name, dtype) if is_input else Const(ref.typed(dtype, 0))
        var = Var(name, dtype, value, port=use, growable=self.specs is None, unwritten=not is_input)
        self.ports[name] = var
        return var

    def lookup(self, name: str, scope: Scope) -> object:
        """What a name is bound to: a local, a builtin, an alias's place, or a port (created on use)."""
        found = scope.find(name)
        if found is not None:
            return found
        if name in ALIASES:
            return ALIASES[name]
        if name in SOURCE_ARRAYS:
            return SourceArray(SOURCE_ARRAYS[name])
        if name in REGISTERS or name in FLAGS:
            return self.port(name, lane_bit=False)
        if name in NOT_MODELLED_STATE:
            raise self.unsupported(f"{name}: {NOT_MODELLED_STATE[name]}")
        if name in _UNDEFINED_CONSTANTS:
            return self._undefined(name)
        raise self.unsupported(f"{name} is not wave state the backend knows")

    def _undefined(self, name: str) -> Var:
        """A read of a constant the manual never defines: lanes reaching it make the call raise."""
        reading = self.mask
        for cond, holds in self.lazy:
            reading = self._and(reading, cond if holds else self.ops.logical_not(cond))
        placeholder = Var(name, None, Const(Value(None, math.nan)))
        if reading == FALSE:
            return placeholder
        if reading is None or isinstance(reading, Const):
            raise self.unsupported(f"{name} is never defined by the manual, and every lane reads it")
        self.e.line(f"rt.refuse_lanes({reading.code}, {self.name!r}, {name!r})")
        return placeholder

    # --- statements ----------------------------------------------------------------------------------

    def exec_block(self, block: ir.Block, scope: Scope) -> None:
        base = self.mask
        for stmt in block.stmts:
            if self.mask == FALSE:
                return
            kills = self.kills
            self.e.comment(render.statement(stmt))
            self.exec_stmt(stmt, scope)
            if isinstance(stmt, (ir.Break, ir.Continue, ir.Return)):
                return  # the rest of this block runs on no lane that reached the jump
            if self.kills != kills and self.frames:
                self.mask = self._and(base, self.frames[-1].iter_live)

    def exec_stmt(self, stmt: ir.Stmt, scope: Scope) -> None:
        match stmt:
            case ir.Assign():
                self.assign(stmt, scope)
            case ir.If():
                self.exec_if(stmt, scope)
            case ir.For():
                self.exec_for(stmt, scope)
            case ir.While():
                raise self.unsupported("a while loop (its trip count is only known at run time)")
            case ir.Declare():
                self.declare(stmt, scope)
            case ir.ExprStmt(expr):
                if not isinstance(expr, ir.StringLit):
                    self.value(expr, scope)
            case ir.Break():
                self._kill(self.mask, "loop", continue_only=False)
            case ir.Continue():
                self._kill(self.mask, "loop", continue_only=True)
            case ir.Return(value):
                self.exec_return(value, scope)
            case _:
                raise self.unsupported(f"the statement {type(stmt).__name__}")

    def exec_if(self, stmt: ir.If, scope: Scope) -> None:
        target = stmt.branches[0].body.stmts[0].target if _is_selection(stmt) else None
        if target is not None and (not isinstance(target, ir.Name) or scope.find(target.ident) is not None):
            self.exec_selection(stmt, scope)  # (a fresh local's type would depend on the branch taken)
            return
        saved, saved_definite = self.mask, self.definite_mask
        before = {name: use.defined for name, use in self.uses.items()}
        defined_by_all: dict[str, int] | None = None  # port bits that every branch writes in full

        def run_branch(mask: Operand | None, body: ir.Block) -> None:
            nonlocal defined_by_all
            for name, use in self.uses.items():  # a port first used in an earlier branch starts undefined
                use.defined = before.get(name, 0)
            self.mask = self.definite_mask = mask
            self.branch_path.append((id(stmt), id(body)))
            self.exec_block(body, scope)
            self.branch_path.pop()
            now = {name: use.defined for name, use in self.uses.items()}
            defined_by_all = now if defined_by_all is None else {
                name: bits & now.get(name, 0) for name, bits in defined_by_all.items()}

        rest = saved
        for branch in stmt.branches:
            self.mask = rest  # an inlined call in the condition runs on the lanes that reach it
            cond = self.ops.truthy(self.value(branch.cond, scope))
            if isinstance(cond, Const) and not cond.value.data:
                continue
            run_branch(self._and(rest, cond), branch.body)
            if isinstance(cond, Const):
                rest = FALSE
                break
            rest = self._and(rest, self.ops.logical_not(cond))
            rest = self._and(rest, self._live())
        if rest != FALSE:
            if stmt.orelse is not None:
                run_branch(rest, stmt.orelse)
            else:
                defined_by_all = {}  # lanes that take no branch write nothing
        for name, use in self.uses.items():
            use.defined = before.get(name, 0) | (defined_by_all or {}).get(name, 0)
        self.mask, self.definite_mask = self._and(saved, self._live()), saved_definite

    def exec_selection(self, stmt: ir.If, scope: Scope) -> None:
        """``if c1 then x = v1 elsif c2 then x = v2 ... else x = vn endif``: one assignment of
        ``c1 ? v1 : c2 ? v2 : ... vn``. Selecting on the raw conditions from the last branch back needs no
        masks of the lanes that remain after each branch, and the store is one masked write."""
        target = stmt.branches[0].body.stmts[0].target
        dtype = self.place(target, scope).dtype
        values, conds = [], []
        for branch in stmt.branches:
            with self._evaluated_where([(c, False) for c in conds]):  # earlier conditions failed
                conds.append(self.ops.truthy(self.value(branch.cond, scope)))
                with self._evaluated_where([(conds[-1], True)]):
                    values.append(self._converted(branch.body.stmts[0].value, dtype, scope))
        with self._evaluated_where([(c, False) for c in conds]):
            chosen = self._converted(stmt.orelse.stmts[0].value, dtype, scope)
        for cond, value in zip(reversed(conds), reversed(values), strict=True):
            chosen = self.ops.select(cond, value, chosen)
        self.store(target, chosen, scope)

    @contextmanager
    def _evaluated_where(self, conditions: list[tuple[Operand, bool]]):
        """Code compiled inside runs on every lane, but the evaluator runs it only where each condition
        is (or, with False, is not) true: undefined-constant guards must know."""
        self.lazy.extend(conditions)
        try:
            yield
        finally:
            del self.lazy[len(self.lazy) - len(conditions):]

    def _converted(self, expr: ir.Expr, dtype: DataType, scope: Scope) -> Operand:
        value = self.value(expr, scope)
        return self.ops.bits(value, dtype.bits) if dtype.kind == "b" and value.dtype is not None and \
            value.dtype.is_float else self.ops.convert(value, dtype)

    def exec_for(self, stmt: ir.For, scope: Scope) -> None:
        start, stop = self.value(stmt.start, scope), self.value(stmt.stop, scope)
        if not (isinstance(start, Const) and isinstance(stop, Const)):
            if _has_no_effect(stmt.body):
                return
            raise self.unsupported(f"the loop over {stmt.var} has bounds only known at run time")
        var = scope.find(stmt.var)
        if not isinstance(var, Var):
            var = Var(stmt.var, start.dtype or I32, Const(ref.from_int(start.dtype or I32, 0)))
            scope.bind(stmt.var, var)
        saved = self.mask
        frame = Frame("loop", saved)
        self.frames.append(frame)
        for i in range(od.int_value_of(start.value), od.int_value_of(stop.value) + 1):
            if frame.live == FALSE:
                break
            var.value = Const(ref.from_int(var.dtype, i))
            self.e.comment(f"{stmt.var} = {i}")
            frame.iter_live = frame.live
            self.mask = frame.live
            self.exec_block(stmt.body, scope)
        self.frames.pop()
        self.mask = self._and(saved, self._live())

    def declare(self, stmt: ir.Declare, scope: Scope) -> None:
        existing = scope.find(stmt.name)
        if isinstance(existing, Var):  # an existing register: the declaration gives its type
            existing.value = self.ops.reinterpret(existing.value, stmt.dtype)
            existing.dtype = stmt.dtype
        elif existing is None and stmt.name not in SOURCE_ARRAYS:
            zero = Const(ref.typed(stmt.dtype, 0))
            if stmt.length is None:
                scope.bind(stmt.name, Var(stmt.name, stmt.dtype, zero))
            else:
                length = self.value(stmt.length, scope)
                if not isinstance(length, Const):
                    raise self.unsupported(f"the array {stmt.name} has a length only known at run time")
                n = od.int_value_of(length.value)
                scope.bind(stmt.name, ArrayVar(stmt.dtype, [Var(stmt.name, stmt.dtype, zero) for _ in range(n)]))

    def exec_return(self, value: ir.Expr | None, scope: Scope) -> None:
        frame = next((f for f in reversed(self.frames) if f.kind == "lambda"), None)
        if frame is None:
            raise self.unsupported("return outside a lambda")
        result = self.value(value, scope) if value is not None else Const(Value(None, 0))
        if frame.result is None or self.mask is None:
            frame.result = result
        else:
            frame.result = self.ops.select(self.mask, result, frame.result)
        self._kill(self.mask, "lambda", continue_only=False)

    def _kill(self, mask: Operand | None, upto: str, continue_only: bool) -> None:
        """Lanes under ``mask`` leave the frames up to the innermost ``upto`` (break/continue/return)."""
        self.kills += 1
        for frame in reversed(self.frames):
            if not continue_only:
                frame.live = self._and_not(frame.live, mask)
            frame.iter_live = self._and_not(frame.iter_live if frame.kind == "loop" else frame.live, mask)
            if frame.kind == upto:
                return
        raise self.unsupported(f"{'continue' if continue_only else 'break/return'} outside a {upto}")

    def _live(self) -> Operand | None:
        return self.frames[-1].iter_live if self.frames else None

    def _and(self, a: Operand | None, b: Operand | None) -> Operand | None:
        if a is None:
            return b
        if b is None:
            return a
        return self.ops.logical_and(a, b)

    def _and_not(self, a: Operand | None, m: Operand | None) -> Operand:
        if m is None:
            return FALSE
        return self._and(a, self.ops.logical_not(m))

    # --- assignment ----------------------------------------------------------------------------------

    def assign(self, stmt: ir.Assign, scope: Scope) -> None:
        if isinstance(stmt.value, ir.Lambda):
            if stmt.op is not None or not isinstance(stmt.target, ir.Name):
                raise self.unsupported("a lambda bound to something other than a name")
            scope.bind(stmt.target.ident, Closure(stmt.value.params, stmt.value.body, scope))
            return
        value = self.value(stmt.value, scope)
        if stmt.op is not None:
            value = self.binary(stmt.op, self.value(stmt.target, scope), value)
        self.store(stmt.target, value, scope)

    def store(self, target: ir.Expr, value: Operand, scope: Scope) -> None:
        if isinstance(target, ir.Concat):  # { hi, ..., lo } = value: the last part takes the lowest bits
            places = [self.place(part, scope, create=True) for part in target.parts]
            total = sum(p.dtype.bits for p in places)
            bits = self.ops.bits(value, total)
            offset = 0
            for place in reversed(places):
                width = place.dtype.bits
                self.write(place, self._extract(bits, offset, width), width, (0, width))
                offset += width
            return
        if isinstance(target, ir.Name):
            existing = scope.find(target.ident)
            if existing is None and target.ident not in ALIASES and target.ident not in REGISTERS | FLAGS:
                dtype = value.dtype or self._literal_type(value)
                scope.bind(target.ident, Var(target.ident, dtype, Const(ref.typed(dtype, 0)),
                                             birth=tuple(self.branch_path)))
            elif isinstance(existing, Var):
                self._check_path_type(existing, value)
        place = self.place(target, scope, create=True)
        if isinstance(place, ValuePlace):
            raise self.unsupported(f"assignment to {render.expr(target)}, which is not a register")
        if isinstance(place, VarPlace) and place.var.dtype.kind != "b":
            self.assign_var(place.var, self.ops.convert(value, place.var.dtype), (0, place.var.dtype.bits))
            return
        span = (0, place.dtype.bits)
        if isinstance(place, VarPlace) and place.var.port is not None and value.dtype is not None:
            span = (0, min(value.dtype.bits, place.var.dtype.bits))  # a bare write sizes the port by its value
        self.write(place, self.encode(value, place.dtype), 0, span)

    def _check_path_type(self, var: Var, value: Operand) -> None:
        """The evaluator types a local by the first assignment a lane *runs*. A local born in one if
        branch and assigned in another gets its type there on the lanes that take that branch; the
        backend has one type per local, so the two must agree."""
        if not var.birth or tuple(self.branch_path[:len(var.birth)]) == var.birth:
            return
        natural = value.dtype or self._literal_type(value)
        if natural != var.dtype:
            raise self.unsupported(f"the local {var.name} is a {var.dtype} or a {natural} depending on which "
                                   "if branch first assigns it on a lane")

    def encode(self, value: Operand, dtype: DataType) -> Operand:
        """The bits an assignment stores (evaluator.encode): a float into raw bits keeps its pattern."""
        if dtype.kind == "b" and value.dtype is not None and value.dtype.is_float:
            return self.ops.bits(value, dtype.bits)
        return self.ops.bits(self.ops.convert(value, dtype), dtype.bits)

    def _literal_type(self, value: Operand) -> DataType:
        """The type a local gets from an untyped value: C's int, a 64-bit int if needed, or double."""
        if od.is_real(value):
            return F64
        if isinstance(value, Const):
            return I32 if -(1 << 31) <= value.value.data < (1 << 31) else I64
        if value.literals and all(-(1 << 31) <= x < (1 << 31) for x in value.literals):
            return I32
        raise self.unsupported("a local whose type depends on which untyped literal a lane chose")

    def assign_var(self, var: Var, value: Operand, span: tuple[int, int] | None) -> None:
        """Give a register a new value (already of its type) on the lanes of the current mask."""
        if var.name == "ROUND_MODE" and (not isinstance(value, Const) or self.mask is not None):
            raise self.unsupported("the rounding mode is set to a value only known at run time")
        if var.port is not None:
            lo, hi = span if span is not None else (0, var.dtype.bits)
            var.port.note_write(lo, hi, unconditional=self.mask is self.definite_mask and span is not None)
        if var.dtype is None:
            raise self.unsupported(f"assignment to the lambda parameter {var.name}")
        # An output port that is not an input starts with no meaningful value: the first pass found
        # every lane writes all of it, so a masked write need not keep the other lanes' (unread) bits.
        var.value = value if self.mask is None or var.unwritten else self.ops.select(self.mask, value, var.value)
        var.unwritten = False
        if var.name == "ROUND_MODE":
            self.ops.rounding = value.value.data

    # --- expressions ---------------------------------------------------------------------------------

    def value(self, expr: ir.Expr, scope: Scope) -> Operand:
        match expr:
            case ir.IntLit(v, dtype):
                return Const(ref.from_int(dtype, v) if dtype else Value(None, v))
            case ir.FloatLit(v, dtype):
                return Const(ref.convert(Value(None, v), dtype, floats.ROUND_NEAREST_EVEN) if dtype
                             else Value(None, v))
            case ir.Name() | ir.View() | ir.Field() | ir.Index() | ir.Slice() | ir.PartSelect():
                return self._read(self.place(expr, scope))
            case ir.Cast(dtype, operand):
                return self.cast(dtype, operand, scope)
            case ir.Unary(op, operand):
                return self.unary(op, self.value(operand, scope))
            case ir.Binary("&&", left, right):
                first = self.ops.truthy(self.value(left, scope))
                return self.ops.logical_and(first, self.ops.truthy(self._lazily(right, scope, first, True)))
            case ir.Binary("||", left, right):
                first = self.ops.truthy(self.value(left, scope))
                return self.ops.logical_or(first, self.ops.truthy(self._lazily(right, scope, first, False)))
            case ir.Binary(op, left, right) if op in _COMPARISONS:
                return self.ops.compare(op, self._compared(left, scope), self._compared(right, scope))
            case ir.Binary(op, left, right):
                return self.binary(op, self.value(left, scope), self.value(right, scope))
            case ir.Ternary(cond, then, orelse):
                c = self.ops.truthy(self.value(cond, scope))
                if isinstance(c, Const):
                    return self.value(then if c.value.data else orelse, scope)
                return self.ops.select(c, self._lazily(then, scope, c, True), self._lazily(orelse, scope, c, False))
            case ir.Call():
                return self.call(expr, scope)
            case ir.Concat(parts):
                return self.ops.concat([self.value(p, scope) for p in parts])
        raise self.unsupported(f"{render.expr(expr)} is not a value")

    def _lazily(self, expr: ir.Expr, scope: Scope, cond: Operand, holds: bool) -> Operand:
        """An operand the evaluator evaluates only where ``cond`` is ``holds`` (computed on every lane)."""
        with self._evaluated_where([(cond, holds)]):
            return self.value(expr, scope)

    def _compared(self, expr: ir.Expr, scope: Scope) -> Operand:
        """A comparison operand: a widening float cast (``64'F(S0.f32)``) is compared as its narrower
        float, which has the same value (the comparison converts, ignoring NaN payloads)."""
        inner = self._narrower_float(expr, scope)
        return inner if inner is not None else self.value(expr, scope)

    def _narrower_float(self, expr: ir.Expr, scope: Scope) -> Operand | None:
        """x for ``N'F(x)`` with x a narrower IEEE float (so the cast only widens, exactly); else None."""
        if isinstance(expr, ir.Cast) and expr.dtype.kind == "f":
            inner = self.value(expr.operand, scope)
            if inner.dtype is not None and inner.dtype.kind == "f" and inner.dtype.bits < expr.dtype.bits:
                return inner
        return None

    def cast(self, dtype: DataType, operand: ir.Expr, scope: Scope) -> Operand:
        # N'F(cvtToQuietNAN(M'F(x))) with x an N-bit float and M > N: moving a NaN to a wider format,
        # quieting it and moving it back gives x quieted; other values go and come back unchanged.
        if dtype.kind == "f" and isinstance(operand, ir.Call) and operand.func == "cvtToQuietNAN" and \
                len(operand.args) == 1 and isinstance(operand.args[0], ir.Cast):
            inner = self._narrower_float(operand.args[0], scope)
            if inner is not None and inner.dtype == dtype:
                return calls.call(self.ops, "cvtToQuietNAN", [inner])
        return self.ops.cast(self.value(operand, scope), dtype)

    def unary(self, op: str, v: Operand) -> Operand:
        if op == "!":
            return self.ops.logical_not(self.ops.truthy(v))
        if op == "-":
            return self.ops.negate(v)
        if op == "~":
            return self.ops.complement(v)
        return self.ops.promote(v)

    def binary(self, op: str, a: Operand, b: Operand) -> Operand:
        if op == "**":
            return self.ops.power(a, b)
        if op in ("<<", ">>"):
            return self.ops.shift(op, a, b)
        if op in _COMPARISONS:
            return self.ops.compare(op, a, b)
        if op in ("&&", "||"):
            a, b = self.ops.truthy(a), self.ops.truthy(b)
            return self.ops.logical_and(a, b) if op == "&&" else self.ops.logical_or(a, b)
        return self.ops.arithmetic(op, a, b)

    # --- calls ---------------------------------------------------------------------------------------

    def call(self, expr: ir.Call, scope: Scope) -> Operand:
        closure = scope.find(expr.func)
        if expr.func in _NAN_CLASSIFIERS and len(expr.args) == 1:
            # isNAN(64'F(x)) == isNAN(x): widening keeps a NaN's quiet bit and a non-NaN's class.
            inner = self._narrower_float(expr.args[0], scope)
            args = [inner if inner is not None else self.value(expr.args[0], scope)]
        else:
            args = [self.value(a, scope) for a in expr.args]
        if isinstance(closure, Closure):
            return self.call_closure(expr.func, closure, args)
        if expr.func in HELPERS or expr.func in calls.LOWERINGS or expr.func in ("nop", "s_nop"):
            return calls.call(self.ops, expr.func, args)
        found = self.library.find(expr.func) if self.library else None
        if found is None:
            reason = not_modelled_reason(expr.func) or (
                "it names an instruction this ISA does not have" if expr.func[:2] in ("v_", "s_") else "unknown")
            raise self.unsupported(f"{expr.func}() is not supported: {reason}")
        return self.call_instruction(expr.func, *found, args)

    def call_closure(self, name: str, closure: Closure, args: list[Operand]) -> Operand:
        if len(args) != len(closure.params):
            raise self.unsupported(f"{name} takes {len(closure.params)} arguments, got {len(args)}")
        frame_scope = Scope(parent=closure.scope)
        for param, arg in zip(closure.params, args, strict=True):
            frame_scope.bind(param, Var(param, arg.dtype, arg))
        if not isinstance(closure.body, ir.Block):
            return self.value(closure.body, frame_scope)
        saved = self.mask
        frame = Frame("lambda", saved, iter_live=saved)
        self.frames.append(frame)
        self.exec_block(closure.body, frame_scope)
        self.frames.pop()
        self.mask = saved
        if frame.result is None:
            raise self.unsupported(f"{name} ended without a return")
        return frame.result

    def call_instruction(self, func: str, program: ir.Program, result: DataType, args: list[Operand]) -> Operand:
        """Inline another instruction: arguments become S0.., D0 its result (evaluator.call_instruction)."""
        if self.depth >= _MAX_CALL_DEPTH:
            raise self.unsupported(f"calls nested deeper than {_MAX_CALL_DEPTH} at {func}()")
        operands = Scope(parent=self.root)
        for i, arg in enumerate(args):
            if arg.dtype is None:  # an untyped literal argument is a 32-bit operand
                arg = self.ops.convert(arg, F32 if od.is_real(arg) else DataType("u", 32))
            width = arg.dtype.bits
            operands.bind(f"S{i}", Var(f"S{i}", DataType("b", width), self.ops.bits(arg, width)))
        width = max(32, result.bits)  # the evaluator's D0 is 64 bits; only the result's bits are read
        d0 = Var("D0", DataType("b", width), Const(ref.typed(DataType("b", width), 0)))
        operands.bind("D0", d0)
        self.e.comment(f"inlined {func}()")
        self.depth += 1
        self.exec_block(program.body, Scope(parent=operands))
        self.depth -= 1
        return self.ops.from_bits(self.ops.bits(d0.value, result.bits), result)


def _is_selection(stmt: ir.If) -> bool:
    """An if/elsif/else whose every branch is one plain assignment to the same register or view."""
    if stmt.orelse is None:
        return False
    bodies = [branch.body for branch in stmt.branches] + [stmt.orelse]
    if any(len(body.stmts) != 1 or not isinstance(body.stmts[0], ir.Assign) for body in bodies):
        return False
    first = bodies[0].stmts[0]
    simple = isinstance(first.target, ir.View) and isinstance(first.target.base, ir.Name) or \
        isinstance(first.target, ir.Name)
    return simple and all(body.stmts[0].target == first.target and body.stmts[0].op is None and
                          not isinstance(body.stmts[0].value, ir.Lambda) for body in bodies)


def _has_no_effect(block: ir.Block) -> bool:
    """A loop body that only waits (``nop()``) or documents: skipping it changes nothing."""
    for stmt in block.stmts:
        if isinstance(stmt, ir.ExprStmt) and (
                isinstance(stmt.expr, ir.StringLit) or
                isinstance(stmt.expr, ir.Call) and stmt.expr.func in ("nop", "s_nop")):
            continue
        return False
    return True

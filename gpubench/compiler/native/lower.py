"""Lowering one instruction to an LLVM function that loops over n elements.

The front half is the numpy backend's, unchanged: the parser, name scoping, operand typing, constant
folding and control-flow-to-masks of ``gpubench.compiler.backend`` (``generate``) produce one
straight-line, typed, single-assignment function for the instruction. Every value in it is an array
of one numpy dtype and every operation is an elementwise numpy operator, a dtype conversion
(``astype``/``view``), a select, or a call of a ``runtime`` function (``rt.add(a, b, rt.F32)`` ...).
This module gives each of those its *element* semantics in LLVM IR (llvmlite.ir), so the loop body
computes for element i exactly what the numpy function computes for lane i:

  - numpy's own rules where numpy decides: NEP 50 promotion of mixed operands (typed numpy scalars
    are strong, Python ints weak), wrap-around integer arithmetic, shifts by at least the width
    (``<<`` and unsigned ``>>`` give 0, signed ``>>`` the sign), ``astype`` (truncation, sign or zero
    extension, ``!= 0`` to bool), float16 arithmetic done in float32 and rounded once;
  - the runtime's rules for every ``rt.*`` function, written again element by element: NaN results
    rebuilt from the first NaN operand (quieted) or the default NaN (``_nan_fixed``), float64 ->
    float16 rounded once (round-to-odd to float32, then float32 -> float16), fma rounded once,
    conversions with NaN payloads moved as ``floats.convert_nan`` does, saturating conversions.

Transcendental functions (``rt.sin``, ``rt.cos``, ``rt.log2``, ``rt.pow_positive_base``) call numpy's
own float64 inner loop (``ufuncs``: the same function numpy's dispatch calls, so the same bits whatever
SIMD or libm numpy chose), then round and fix NaNs as the runtime does. A call of numpy's loop for one
element costs 50-90 ns, for many 6-8 ns each (its SIMD path), so the semantics are emitted in lane
loops (`emit_lanes`) that call each loop once for all the lanes: one pass over the lanes gathers the
call's float64 operands into a stack array, numpy's loop runs over it, and the next pass reads the
results back (`NumpyCalls`). A function over n elements (`lower_instruction`) runs in blocks of lanes
(`define_elementwise`).

What has no exact element form here raises the numpy backend's own BackendUnsupported at compile
time: bfloat16, integers wider than an i128 holds (`wide`), run-time refusals of undefined constants
(``rt.refuse_lanes``), and the transcendentals where numpy's loops could not be checked.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
from dataclasses import dataclass

import numpy as np
from llvmlite import ir

from gpubench.compiler.backend import runtime as rt
from gpubench.compiler.backend.cache import compile_text
from gpubench.compiler.backend.generate import Generated
from gpubench.compiler.backend.operands import BackendUnsupported
from gpubench.compiler.backend.ports import PortSpec
from gpubench.compiler.native import ufuncs, wide
from gpubench.compiler.native.wide import I128, OBJECT
from gpubench.compiler.pcode import floats

I1, I8, I16, I32, I64 = (ir.IntType(b) for b in (1, 8, 16, 32, 64))
HALF, FLOAT, DOUBLE = ir.HalfType(), ir.FloatType(), ir.DoubleType()
PTR = ir.PointerType()

_BOOL = np.dtype(np.bool_)
_LL = {np.dtype(t): ty for t, ty in (
    (np.bool_, I1), (np.int8, I8), (np.uint8, I8), (np.int16, I16), (np.uint16, I16), (np.int32, I32),
    (np.uint32, I32), (np.int64, I64), (np.uint64, I64), (np.float16, HALF), (np.float32, FLOAT),
    (np.float64, DOUBLE), (object, I128))}
_FMTS = {id(rt.F16): np.dtype(np.float16), id(rt.F32): np.dtype(np.float32), id(rt.F64): np.dtype(np.float64)}
_UINT = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
F64 = np.dtype(np.float64)


@dataclass(frozen=True)
class Lowered:
    """One instruction as an LLVM function: its symbol and the numpy backend's ports."""

    symbol: str
    inputs: tuple[PortSpec, ...]
    outputs: tuple[PortSpec, ...]


@dataclass(frozen=True)
class V:
    """A run-time element: an LLVM value and the numpy dtype of the array it is an element of; of an
    object array (Python ints, an i128 here), the range of the Python value when the i128 is exact
    (`wide`)."""

    value: ir.Value
    dtype: np.dtype
    span: wide.Span = None


class Weak:
    """A Python int/float/bool in the generated code: NEP 50 gives it the other operand's type."""

    def __init__(self, value):
        self.value = value


def ll_type(dtype: np.dtype) -> ir.Type:
    try:
        return _LL[np.dtype(dtype)]
    except KeyError:
        raise BackendUnsupported(f"the numpy dtype {dtype} has no native element type") from None


def storage_type(dtype: np.dtype) -> ir.Type:
    return I8 if np.dtype(dtype) == _BOOL else ll_type(dtype)


def symbol_for(arch: str, enum: str, name: str) -> str:
    return "gb_" + "".join(c if c.isalnum() else "_" for c in f"{arch}_{enum}_{name}")


def lower_instruction(module: ir.Module, arch: str, enum: str, name: str, text: str) -> Lowered:
    """Add ``void SYMBOL(i64 n, ptr in..., ptr out...)`` for one instruction to ``module``.

    Raises BackendUnsupported (naming the construct) for what the numpy backend refuses and for what
    this lowering has no exact element form of; the module is left without the function then."""
    semantics = ElementSemantics(module, arch, enum, name, text)
    symbol = symbol_for(arch, enum, name)
    try:
        with semantics.named_refusals():
            semantics.lowering.run()
    except Exception:
        _drop(module, symbol)
        raise
    return Lowered(symbol, semantics.inputs, semantics.outputs)


class ElementSemantics:
    """One instruction's semantics for one element, to emit inside a caller's own function (the
    native engine's handlers read operands from registers and write results under EXEC around it).
    ``emit`` raises BackendUnsupported where `lower_instruction` would."""

    def __init__(self, module: ir.Module, arch: str, enum: str, name: str, text: str):
        # The numpy backend's program, generated once per process (and kept on disk) for both backends:
        # generating it was two thirds of lowering a handler variant (benchmarks/native_compile.py).
        op = compile_text(text, arch=arch, enum=enum, name=name)
        generated = Generated(op.fn.__name__, op.source, op.inputs, op.outputs)
        self.name, self.inputs, self.outputs = name, generated.inputs, generated.outputs
        self.lowering = _FunctionLowering(module, symbol_for(arch, enum, name), generated, name)

    def emit(self, b: ir.IRBuilder, raw: dict[str, ir.Value], calls: NumpyCalls | None = None) -> list[ir.Value]:
        """One element's outputs (storage types, in the order of ``outputs``) from ``raw`` (by port
        name). Semantics calling numpy's loops need ``calls``: emit them with `emit_lanes`."""
        with self.named_refusals():
            return self.lowering.emit(b, raw, calls)

    @contextlib.contextmanager
    def named_refusals(self):
        """A refusal names the instruction, and says when it is the lowering's rather than the backend's."""
        try:
            yield
        except BackendUnsupported as err:
            if str(err).startswith(f"{self.name}: "):
                raise
            raise BackendUnsupported(f"{self.name}: native: {err}") from None


def _drop(module: ir.Module, symbol: str) -> None:
    if symbol in module.globals:
        del module.globals[symbol]  # (intrinsic declarations it added stay: unused, harmless)


def ir_digest(module: ir.Module) -> str:
    return hashlib.sha256(str(module).encode()).hexdigest()


# --- lane loops: the semantics of many elements, numpy's loops called once for all of them -------------

BLOCK = 64  # elements per block of a function over n elements (a wave64's lanes)


def counted_loop(b: ir.IRBuilder, count: int | ir.Value, carried: list[ir.Value], body,
                 parallel: bool = False) -> list[ir.Value]:
    """``for i in range(count)`` (count >= 1): ``body(b, i, values) -> values`` with loop-carried
    ``values``; returns their final values. The builder is left after the loop. ``parallel``: the
    body's loads and stores of one iteration touch no memory another iteration's store touches, and
    LLVM is told so (``llvm.loop.parallel_accesses``): it vectorizes without run-time overlap checks."""
    fn = b.function
    before = b.block
    first = len(fn.blocks)
    head = fn.append_basic_block("lanes")
    after = fn.append_basic_block("lanes.done")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64, "lane")
    i.add_incoming(ir.Constant(I64, 0), before)
    phis = []
    for value in carried:
        phi = b.phi(value.type)
        phi.add_incoming(value, before)
        phis.append(phi)
    results = body(b, i, phis)
    nxt = b.add(i, ir.Constant(I64, 1))
    for phi, value in zip(phis, results, strict=True):
        phi.add_incoming(value, b.block)
    i.add_incoming(nxt, b.block)
    limit = ir.Constant(I64, count) if isinstance(count, int) else count
    latch = b.cbranch(b.icmp_unsigned("<", nxt, limit), head, after)
    if parallel:
        _mark_parallel(fn.module, fn.blocks[first:], latch)
    b.position_at_end(after)
    return results


class _Distinct(ir.values.MDValue):
    """A ``distinct`` metadata node (llvmlite prints only uniqued ones): LLVM takes an access group or a
    loop's ID only as one."""

    def descr(self, buf):
        buf += ("distinct ",)
        super().descr(buf)

    __eq__, __hash__ = object.__eq__, object.__hash__  # a loop ID refers to itself


def _mark_parallel(module: ir.Module, blocks: list[ir.Block], latch: ir.Instruction) -> None:
    """The loop of ``blocks`` whose back edge is ``latch``: its loads and stores one access group, and
    the loop's ID (a node naming itself) says the group's accesses carry no dependence between iterations."""
    group = _Distinct(module, [], name=str(len(module.metadata)))
    for block in blocks:
        for instruction in block.instructions:
            if isinstance(instruction, (ir.LoadInstr, ir.StoreInstr)):
                instruction.set_metadata("llvm.access.group", group)
    accesses = module.add_metadata([ir.MetaDataString(module, "llvm.loop.parallel_accesses"), group])
    loop_id = _Distinct(module, [], name=str(len(module.metadata)))
    loop_id.operands = (loop_id, accesses)
    latch.set_metadata("llvm.loop", loop_id)


class _Gathered(Exception):
    """A gathering pass has stored its call's operands: the rest of the element waits for the call."""


class NumpyCalls:
    """The calls of numpy's float64 loops made by the semantics of one lane loop, each once for all lanes.

    `emit_lanes` emits the lane loop once per call and once more: pass p emits each lane's semantics
    up to its p-th call (in emission order), with calls before it read from their results, and stores
    that call's operands into a stack array at the lane's index (`_Gathered` ends the lane there);
    after the loop numpy's loop runs once over every lane, contiguous (step 8), as the reference
    engine's one call over all the lanes of its waves does (EXEC only chooses what is written). The
    last pass meets no new call and finishes the lanes. Each pass is a plain loop over lane indices,
    which LLVM vectorizes."""

    def __init__(self, b: ir.IRBuilder, capacity: int):
        self.module = b.function.module
        entry = b.function.entry_basic_block
        self.entry = ir.IRBuilder(entry)
        self.entry.position_at_start(entry)  # allocas once, in the entry block, not per lane
        self.capacity = capacity
        self.made: list[tuple] = []  # per call: (loop, steps, per operand its array or its constant, out)
        self.stage = 0  # the call the pass being emitted gathers
        self._frame = None  # args, dims, steps of numpy's call
        self.start(None)

    def start(self, lane: ir.Value | None) -> None:
        """A lane's emission begins: its index in the arrays."""
        self.seen, self.lane = 0, lane

    def call(self, b: ir.IRBuilder, name: str, operands: list[ir.Value], steps: tuple[int, ...]) -> ir.Value:
        k = self.seen
        self.seen += 1
        if k < self.stage:  # made: read this lane's result
            found, made_steps, _, out = self.made[k]
            if found.name != name or made_steps != steps:
                raise BackendUnsupported(f"np.{name}: the semantics emitted a different call in another pass")
            return b.load(b.gep(out, [self.lane], source_etype=DOUBLE), typ=DOUBLE)
        self.made.append(self._arrays(name, operands, steps))  # k == stage: gather its operands
        for operand, array in zip(operands, self.made[k][2], strict=True):
            if array is not operand:
                b.store(operand, b.gep(array, [self.lane], source_etype=DOUBLE))
        raise _Gathered

    def _arrays(self, name: str, operands: list[ir.Value], steps: tuple[int, ...]) -> tuple:
        found = ufuncs.loop(name)
        if len(operands) != found.nin or len(steps) != found.nin + 1 or steps[-1] != 8:
            raise BackendUnsupported(f"np.{name} called with {len(operands)} operands, steps {steps}")
        arrays = []
        for operand, step in zip(operands, steps[:-1], strict=True):
            if step == 0 and not isinstance(operand, ir.Constant):
                raise BackendUnsupported(f"np.{name}: an operand of step 0 that is not a constant")
            if step not in (0, 8):
                raise BackendUnsupported(f"np.{name}: an operand of step {step}")
            arrays.append(operand if step == 0 else self.entry.alloca(DOUBLE, self.capacity, name="numpy.in"))
        if all(isinstance(a, ir.Constant) for a in arrays):
            raise BackendUnsupported(f"np.{name} of constants only")
        out = self.entry.alloca(DOUBLE, self.capacity, name="numpy.out")
        return found, steps, arrays, out

    def invoke(self, b: ir.IRBuilder, count: ir.Value) -> None:
        """numpy's loop of the call just gathered, over the ``count`` lanes."""
        found, steps, arrays, out = self.made[self.stage]
        if self._frame is None:
            self._frame = (self.entry.alloca(PTR, 3, name="numpy.args"), self.entry.alloca(I64, name="numpy.n"),
                           self.entry.alloca(I64, 3, name="numpy.steps"))
        args, dims, strides = self._frame
        fn = self.module.globals.get(found.symbol)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [PTR] * 4), found.symbol)
        data = self.module.globals.get(found.data_symbol)
        if data is None:
            data = ir.GlobalVariable(self.module, PTR, found.data_symbol)  # external: bound at load time
        for k, (array, step) in enumerate(zip([*arrays, out], steps, strict=True)):
            if isinstance(array, ir.Constant):  # a broadcast operand: one element, step 0
                slot = self.entry.alloca(DOUBLE, name="numpy.scalar")
                b.store(array, slot)
                array = slot
            b.store(array, b.gep(args, [ir.Constant(I64, k)], source_etype=PTR))
            b.store(ir.Constant(I64, step), b.gep(strides, [ir.Constant(I64, k)], source_etype=I64))
        b.store(count, dims)
        b.call(fn, [args, dims, strides, b.load(data, typ=PTR)])
        self.stage += 1


def emit_lanes(b: ir.IRBuilder, count: int | ir.Value, semantics: list, read, write, carried=(), *,
               capacity: int | None = None) -> list[ir.Value]:
    """Several elements' semantics in loops over ``count`` lanes (at least 1; at most ``capacity``,
    needed when count is a run-time value) at ``b``, each numpy loop they call called once for all
    lanes (`NumpyCalls`): ``read(b, lane)`` gives, for each of ``semantics`` (objects with
    ``emit(b, raw, calls)``: ElementSemantics), its inputs by port name; ``write(b, lane, results,
    values)`` stores the lane's results (each one's outputs, in order) and gives the loop-carried
    ``values`` (from ``carried``), whose final values are returned. Lanes are read once per pass and
    written in the last; a lane's reads and writes touch only that lane's memory (its element of each
    register row), so each pass is a parallel loop (`counted_loop`). Without calls of numpy's loops
    this is one loop, with no cost over a plain one."""
    calls = NumpyCalls(b, capacity if capacity is not None else count)
    gathered = []  # per pass: whether it ended at a call

    def body(b, lane, values):
        calls.start(lane)
        raws = read(b, lane)
        try:
            results = [s.emit(b, raw, calls) for s, raw in zip(semantics, raws, strict=True)]
        except _Gathered:
            gathered[-1] = True
            return values
        return write(b, lane, results, values)

    while True:
        gathered.append(False)
        final = counted_loop(b, count, list(carried), body, parallel=True)
        if not gathered[-1]:
            return final
        calls.invoke(b, ir.Constant(I64, count) if isinstance(count, int) else count)


def define_elementwise(module: ir.Module, symbol: str, inputs: list[tuple[str, ir.Type]],
                       outputs: list[tuple[str, ir.Type]], semantics, block: int = BLOCK) -> ir.Function:
    """``void SYMBOL(i64 n, ptr in..., ptr out...)``: ``semantics.emit(b, raw, calls)`` for each of n
    elements of contiguous arrays, ``block`` elements at a time (`emit_lanes`)."""
    fnty = ir.FunctionType(ir.VoidType(), [I64] + [PTR] * (len(inputs) + len(outputs)))
    fn = ir.Function(module, fnty, symbol)
    fn.args[0].name = "n"
    for k, (arg, (name, _)) in enumerate(zip(fn.args[1:], (*inputs, *outputs), strict=True)):
        arg.name = ("in_" if k < len(inputs) else "out_") + name
    entry, blocks, done = (fn.append_basic_block(name) for name in ("entry", "blocks", "done"))
    b = ir.IRBuilder(entry)
    n = fn.args[0]
    b.cbranch(b.icmp_signed(">", n, ir.Constant(I64, 0)), blocks, done)
    b.position_at_end(blocks)
    base = b.phi(I64, "base")
    base.add_incoming(ir.Constant(I64, 0), entry)
    left = b.sub(n, base)
    width = ir.Constant(I64, block)
    count = b.select(b.icmp_signed("<", left, width), left, width)

    def at(b, array, typ, lane):
        return b.gep(array, [b.add(base, lane)], inbounds=True, source_etype=typ)

    def read(b, lane):
        return [{name: b.load(at(b, arg, typ, lane), typ=typ) for arg, (name, typ) in zip(fn.args[1:], inputs)}]

    def write(b, lane, results, values):
        for arg, value, (_, typ) in zip(fn.args[1 + len(inputs):], results[0], outputs, strict=True):
            b.store(value, at(b, arg, typ, lane))
        return values

    emit_lanes(b, count, [semantics], read, write, capacity=block)
    nxt = b.add(base, width, name="base.next")
    base.add_incoming(nxt, b.block)
    b.cbranch(b.icmp_signed("<", nxt, n), blocks, done)
    b.position_at_end(done)
    b.ret_void()
    return fn


class _Program:
    """A generated function parsed once per source: its AST, its module-level constants, and which of
    its expressions are constant. Every lowering of the instruction shares it (a handler emits the
    semantics once per lane pass, an instruction has a variant per kind of operand and wave size).
    Constness is found in one pass over the tree, module-level constants are evaluated when first
    named, and names, attributes, calls and tuples of constants are evaluated as Python would, not
    compiled: walking each expression's subtree again and compiling every constant were a third of
    the lowering's profile (benchmarks/native_compile.py)."""

    def __init__(self, source: str, function: str):
        self._module = {"np": np, "rt": rt, "object": object}  # a name's value, or the node defining it
        self.fndef = None
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef) and node.name == function:
                self.fndef = node
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self._module[node.targets[0].id] = _Unevaluated(node.value)
        self._constant: set[int] = set()  # id() of the constant nodes: they live as long as fndef
        if self.fndef is not None:
            self._mark(self.fndef)

    def _mark(self, node: ast.AST) -> bool:
        """Whether ``node`` names only module-level values (recording it and every constant below it)."""
        constant = not isinstance(node, ast.Name) or node.id in self._module
        for child in ast.iter_child_nodes(node):
            constant = self._mark(child) and constant
        if constant:
            self._constant.add(id(node))
        return constant

    def is_constant(self, node: ast.AST) -> bool:
        return id(node) in self._constant

    def value(self, node: ast.AST) -> object:
        """A constant expression's value (numpy scalars and tables, formats: never modified)."""
        match node:
            case ast.Constant(value):
                return value
            case ast.Name(ident):
                found = self._module[ident]
                if isinstance(found, _Unevaluated):
                    found = self._module[ident] = self.value(found.node)
                return found
            case ast.Attribute(base, attr):
                return getattr(self.value(base), attr)
            case ast.Call(func, args, []) if not any(isinstance(a, ast.Starred) for a in args):
                return self.value(func)(*[self.value(a) for a in args])
            case ast.Tuple(elts) if not any(isinstance(e, ast.Starred) for e in elts):
                return tuple(self.value(e) for e in elts)
            case ast.UnaryOp(ast.USub(), operand):
                return -self.value(operand)
        namespace = {x.id: self.value(x) for x in ast.walk(node) if isinstance(x, ast.Name)}
        return eval(compile(ast.Expression(node), "<k>", "eval"), namespace)


@dataclass(frozen=True)
class _Unevaluated:
    node: ast.AST


@functools.lru_cache(maxsize=512)
def _program(source: str, function: str) -> _Program:
    return _Program(source, function)


class _FunctionLowering:
    def __init__(self, module: ir.Module, symbol: str, generated, name: str):
        self.module = module
        self.symbol = symbol
        self.g = generated
        self.name = name
        self.program = _program(generated.source, generated.function)
        self.calls: NumpyCalls | None = None

    def unsupported(self, what: str) -> BackendUnsupported:
        return BackendUnsupported(what)

    # --- the function and its loop ---------------------------------------------------------------

    def run(self) -> None:
        ins, outs = self.g.inputs, self.g.outputs
        define_elementwise(self.module, self.symbol, [(p.name, storage_type(p.dtype)) for p in ins],
                           [(p.name, storage_type(p.dtype)) for p in outs], self)

    def prepare(self) -> ast.FunctionDef:
        """The generated function's AST."""
        fndef = self.program.fndef
        if fndef is None:
            raise self.unsupported("the generated function was not found")
        for spec in (*self.g.inputs, *self.g.outputs):
            if spec.words:
                raise self.unsupported(f"the {spec.width}-bit port {spec.name} (wider than 64 bits)")
        return fndef

    def emit(self, b: ir.IRBuilder, raw: dict[str, ir.Value], calls: NumpyCalls | None = None) -> list[ir.Value]:
        """One element's outputs (in their storage types) from its inputs ``raw`` (by port name, in
        their storage types: a bool is an i8), emitted at ``b``'s position; numpy's loops are called
        through ``calls``."""
        fndef = self.prepare()
        self.b, self.calls = b, calls
        env: dict[str, object] = {}
        for spec in self.g.inputs:
            dtype = np.dtype(spec.dtype)
            value = raw[spec.name]
            env[spec.name] = V(b.icmp_unsigned("!=", value, ir.Constant(I8, 0)) if dtype == _BOOL else value, dtype)
        self.env = env
        results = None
        for stmt in fndef.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # the docstring
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                env[stmt.targets[0].id] = self.expr(stmt.value)
                continue
            if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Tuple):
                results = stmt.value.elts
                continue
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                    ast.unparse(stmt.value.func) == "rt.refuse_lanes":
                raise self.unsupported("lanes reading a constant the manual never defines (rt.refuse_lanes: the "
                                       "native function has no way to raise UndefinedState yet)")
            raise self.unsupported(f"the generated statement {ast.unparse(stmt)!r}")
        outs = self.g.outputs
        if results is None or len(results) != len(outs):
            raise self.unsupported("the generated function's results do not match its outputs")
        stored = []
        for node, spec in zip(results, outs, strict=True):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "rt.full":
                value = self.expr(node.args[1])
            else:
                value = self.expr(node)
            dtype = np.dtype(spec.dtype)
            value = self.convert(self.element(value, None), dtype)
            stored.append(b.zext(value.value, I8) if dtype == _BOOL else value.value)
        return stored

    # --- expressions -----------------------------------------------------------------------------

    def expr(self, node: ast.AST) -> object:
        """A V (run-time element) or a constant (numpy scalar, Weak, Fmt, ...)."""
        if self.program.is_constant(node):
            value = self.program.value(node)
            if isinstance(value, (bool, int, float)) and not isinstance(value, np.generic):
                return Weak(value)
            return value
        match node:
            case ast.Name(id=ident):
                if ident in self.env:
                    return self.env[ident]
                raise self.unsupported(f"the name {ident}")
            case ast.BinOp(left, op, right):
                return self.binop(type(op).__name__, self.expr(left), self.expr(right))
            case ast.UnaryOp(op, operand):
                return self.unaryop(type(op).__name__, self.expr(operand))
            case ast.Compare(left, [op], [right]):
                return self.compare(type(op).__name__, self.expr(left), self.expr(right))
            case ast.Subscript(table, index) if self.program.is_constant(table):
                return self.lookup(self.expr(table), index)
            case ast.List(elts):
                return [self.expr(e) for e in elts]
            case ast.Call(ast.Attribute(base, attr), args, []) if attr in ("astype", "view") and len(args) == 1:
                value = self.element(self.expr(base), None)
                dtype = np.dtype(self.expr(args[0]))
                return self.convert(value, dtype) if attr == "astype" else self.view(value, dtype)
            case ast.Call(func, args, keywords):
                name = ast.unparse(func)
                lower = _CALLS.get(name)
                if lower is None:
                    raise self.unsupported(f"{name}() has no native lowering")
                return lower(self, *[self.expr(a) for a in args], **{kw.arg: self.expr(kw.value) for kw in keywords})
        raise self.unsupported(f"the generated expression {ast.unparse(node)!r}")

    def element(self, x: object, dtype: np.dtype | None) -> V:
        """x as a run-time element; a constant becomes an LLVM constant of ``dtype`` (its own if None)."""
        if isinstance(x, V):
            return x if dtype is None else self.convert(x, dtype)
        if isinstance(x, Weak):
            if dtype is None:
                raise self.unsupported("an untyped Python constant where a typed value is needed")
            if dtype == OBJECT:
                return self.wide_constant(x.value)
            value = np.asarray(x.value).astype(dtype)  # NEP 50 would refuse out-of-range values
            if isinstance(x.value, int) and dtype.kind in "iu" and int(value) != x.value:
                raise self.unsupported(f"the Python constant {x.value} does not fit {dtype}")
            x = value[()]
        if isinstance(x, np.generic):
            if x.dtype == object or x.dtype.kind not in "biuf":
                raise self.unsupported(f"a {x.dtype} constant")
            c = self.constant(x)
            return c if dtype is None else self.convert(c, dtype)
        raise self.unsupported(f"the constant {x!r} used as a value")

    def constant(self, x: np.generic) -> V:
        dtype = x.dtype
        if dtype == _BOOL:
            return V(ir.Constant(I1, int(bool(x))), dtype)
        if dtype.kind == "f":
            bits = int(np.asarray(x).view(_UINT[dtype.itemsize])[()])
            return V(self.b.bitcast(ir.Constant(ir.IntType(dtype.itemsize * 8), bits), ll_type(dtype)), dtype)
        return V(ir.Constant(ll_type(dtype), int(x) & ((1 << (dtype.itemsize * 8)) - 1)), dtype)

    def wide_constant(self, value: object) -> V:
        if not isinstance(value, int) or wide.exact(value, value) is None:
            raise self.unsupported(f"the constant {value!r} among Python ints (only those of an i128 are)")
        return V(ir.Constant(I128, value), OBJECT, (int(value), int(value)))

    def k(self, value, dtype) -> V:
        return self.constant(np.asarray(value).astype(dtype)[()])

    # --- numpy's promotion and conversions --------------------------------------------------------

    def promote(self, a: object, b: object) -> tuple[V, V, np.dtype]:
        da = a.dtype if isinstance(a, (V, np.generic)) else None
        db = b.dtype if isinstance(b, (V, np.generic)) else None
        if da is not None and db is not None:
            t = np.result_type(da, db)
        elif da is not None or db is not None:
            strong, weak = (da, b) if da is not None else (db, a)
            if not isinstance(weak, Weak):
                raise self.unsupported(f"an operand {weak!r}")
            if isinstance(weak.value, float) and strong == OBJECT:
                raise self.unsupported("a Python float among Python ints")
            if isinstance(weak.value, float) and strong.kind in "biu":
                t = F64
            elif isinstance(weak.value, bool):
                t = strong
            elif strong == _BOOL:
                t = np.dtype(np.int64)
            else:
                t = strong
        else:
            raise self.unsupported("an operation on two untyped constants")
        if t.kind not in "biuf" and t != OBJECT:
            raise self.unsupported(f"numpy promotes to {t}")
        return self.element(a, t), self.element(b, t), t

    def convert(self, x: V, t: np.dtype) -> V:
        """``x.astype(t)`` for one element."""
        s, b = x.dtype, self.b
        if s == t:
            return x
        if OBJECT in (s, t):
            return self.convert_wide(x, t)
        lt = ll_type(t)
        if t == _BOOL:
            if s.kind == "f":
                return V(b.fcmp_unordered("!=", x.value, ir.Constant(x.value.type, 0.0)), t)
            return V(b.icmp_unsigned("!=", x.value, ir.Constant(x.value.type, 0)), t)
        if s == _BOOL:
            return V(b.uitofp(x.value, lt) if t.kind == "f" else b.zext(x.value, lt), t)
        if s.kind in "iu" and t.kind in "iu":
            if t.itemsize == s.itemsize:
                return V(x.value, t)
            if t.itemsize < s.itemsize:
                return V(b.trunc(x.value, lt), t)
            return V(b.sext(x.value, lt) if s.kind == "i" else b.zext(x.value, lt), t)
        if s.kind in "iu" and t.kind == "f":
            if t.itemsize == 2:  # exact in float64 below 2**53; beyond, both roundings overflow float16
                wide = b.sitofp(x.value, DOUBLE) if s.kind == "i" else b.uitofp(x.value, DOUBLE)
                return self.narrow(V(wide, F64), t)
            return V(b.sitofp(x.value, lt) if s.kind == "i" else b.uitofp(x.value, lt), t)
        if s.kind == "f" and t.kind == "f":
            if t.itemsize > s.itemsize:
                return V(b.fpext(x.value, lt), t)
            return self.narrow(V(b.fpext(x.value, DOUBLE), F64) if s.itemsize < 8 else x, t)
        raise self.unsupported(f"astype from {s} to {t} (out-of-range floats have no numpy-defined integer)")

    def convert_wide(self, x: V, t: np.dtype) -> V:
        """``astype`` to or from Python ints: exact both ways, or numpy would raise (OverflowError)."""
        s, b = x.dtype, self.b
        if t == OBJECT:
            if s.kind not in "biu":
                raise self.unsupported(f"astype from {s} to Python ints")
            extend = b.sext if s.kind == "i" else b.zext
            return V(extend(x.value, I128), t, wide.span_of(s))
        if t == _BOOL:
            if x.span is None:
                raise self.unsupported("a Python int tested for zero whose value an i128 may not hold")
            return V(b.icmp_unsigned("!=", x.value, ir.Constant(I128, 0)), t)
        if t.kind not in "iu" or not wide.fits(x.span, t):
            raise self.unsupported(f"astype of Python ints in {x.span} to {t} (numpy raises OverflowError)")
        return V(b.trunc(x.value, ll_type(t)), t)

    def view(self, x: V, t: np.dtype) -> V:
        if x.dtype == t:
            return x
        if x.dtype.itemsize != t.itemsize or _BOOL in (x.dtype, t):
            raise self.unsupported(f"a view of {x.dtype} as {t}")
        return V(self.b.bitcast(x.value, ll_type(t)), t)

    # --- operators -------------------------------------------------------------------------------

    def binop(self, op: str, a: object, b: object) -> V:
        x, y, t = self.promote(a, b)
        if t == OBJECT:
            return self.wide_binop(op, x, y)
        bd = self.b
        if op in ("BitAnd", "BitOr", "BitXor"):
            if t.kind == "f":
                raise self.unsupported(f"{op} on floats")
            fn = {"BitAnd": bd.and_, "BitOr": bd.or_, "BitXor": bd.xor}[op]
            return V(fn(x.value, y.value), t)
        if op in ("LShift", "RShift"):
            return self.shift(op, x, y, t)
        if op in ("Add", "Sub", "Mult"):
            if t == _BOOL:
                raise self.unsupported(f"{op} on bool arrays")
            if t.kind == "f":
                return self.float_op(op, x, y, t)
            fn = {"Add": bd.add, "Sub": bd.sub, "Mult": bd.mul}[op]
            return V(fn(x.value, y.value), t)
        raise self.unsupported(f"the operator {op}")

    def wide_binop(self, op: str, x: V, y: V) -> V:
        """``x OP y`` on Python ints: modulo 2**128 in an i128, the span saying when that is exact."""
        bd = self.b
        if op in ("LShift", "RShift"):
            needs_exact_value = op == "RShift" and x.span is None  # >> is not a ring operation
            if needs_exact_value or y.span is None or y.span[0] < 0:
                raise self.unsupported(f"{op} of Python ints an i128 may not hold (or by a negative count)")
            fits = bd.icmp_unsigned("<", y.value, ir.Constant(I128, wide.SHIFT_LIMIT))
            if op == "LShift":
                value = bd.select(fits, bd.shl(x.value, bd.select(fits, y.value, ir.Constant(I128, 0))),
                                  ir.Constant(I128, 0))
            else:
                value = bd.ashr(x.value, bd.select(fits, y.value, ir.Constant(I128, wide.SHIFT_LIMIT - 1)))
            return V(value, OBJECT, wide.shifted(op, x.span, y.span))
        fn = {"BitAnd": bd.and_, "BitOr": bd.or_, "BitXor": bd.xor, "Add": bd.add, "Sub": bd.sub,
              "Mult": bd.mul}.get(op)
        if fn is None:
            raise self.unsupported(f"the operator {op} on Python ints")
        return V(fn(x.value, y.value), OBJECT, wide.combine(op, x.span, y.span))

    def float_op(self, op: str, x: V, y: V, t: np.dtype) -> V:
        """An IEEE operation as numpy does it: float16 in float32, rounded once to float16."""
        bd = self.b
        fn = {"Add": bd.fadd, "Sub": bd.fsub, "Mult": bd.fmul, "Div": bd.fdiv}[op]
        if t.itemsize == 2:
            r = fn(bd.fpext(x.value, FLOAT), bd.fpext(y.value, FLOAT))
            return V(bd.fptrunc(r, HALF), t)
        return V(fn(x.value, y.value), t)

    def shift(self, op: str, x: V, y: V, t: np.dtype) -> V:
        """numpy's npy_lshift / npy_rshift: a count of at least the width (or negative) gives 0, or the
        sign for a signed right shift."""
        if t.kind not in "iu":
            raise self.unsupported(f"a shift of {t}")
        bd = self.b
        ty = ll_type(t)
        bits = t.itemsize * 8
        wide = bd.sext(y.value, I64) if t.kind == "i" and bits < 64 else (
            bd.zext(y.value, I64) if bits < 64 else y.value)
        ok = bd.icmp_unsigned("<", wide, ir.Constant(I64, bits))
        count = bd.select(ok, y.value, ir.Constant(ty, 0))
        if op == "LShift":
            return V(bd.select(ok, bd.shl(x.value, count), ir.Constant(ty, 0)), t)
        if t.kind == "u":
            return V(bd.select(ok, bd.lshr(x.value, count), ir.Constant(ty, 0)), t)
        return V(bd.select(ok, bd.ashr(x.value, count), bd.ashr(x.value, ir.Constant(ty, bits - 1))), t)

    def unaryop(self, op: str, a: object) -> V:
        x = self.element(a, None)
        bd = self.b
        if op == "Invert":
            if x.dtype.kind == "f":
                raise self.unsupported("~ of a float")
            return V(bd.not_(x.value), x.dtype, wide.negated(x.span, inverted=True))
        if op == "USub":
            if x.dtype == _BOOL:
                raise self.unsupported("- of a bool")
            if x.dtype.kind == "f":
                return V(bd.fneg(x.value), x.dtype)
            return V(bd.neg(x.value), x.dtype, wide.negated(x.span, inverted=False))
        if op == "UAdd":
            return x
        raise self.unsupported(f"the unary operator {op}")

    def compare(self, op: str, a: object, b: object) -> V:
        x, y, t = self.promote(a, b)
        sym = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">="}[op]
        bd = self.b
        if t == OBJECT and (x.span is None or y.span is None):
            raise self.unsupported("a comparison of Python ints an i128 may not hold")
        if t.kind == "f":
            r = bd.fcmp_unordered(sym, x.value, y.value) if sym == "!=" else bd.fcmp_ordered(sym, x.value, y.value)
        elif t.kind == "i" or t == OBJECT:
            r = bd.icmp_signed(sym, x.value, y.value)
        else:
            r = bd.icmp_unsigned(sym, x.value, y.value)
        return V(r, _BOOL)

    def select(self, mask: object, a: object, b: object) -> V:
        m = self.element(mask, None)
        if m.dtype != _BOOL:
            m = self.convert(m, _BOOL)
        x, y, t = self.promote(a, b)
        return V(self.b.select(m.value, x.value, y.value), t, wide.union(x.span, y.span))

    def minmax(self, a: object, b: object, smaller: bool) -> V:
        x, y, t = self.promote(a, b)
        if t.kind not in "biu" and t != OBJECT:
            raise self.unsupported("np.minimum / np.maximum of floats (NaN propagation)")
        less = self.compare("Lt", x, y).value
        return V(self.b.select(less, x.value, y.value) if smaller else self.b.select(less, y.value, x.value), t)

    def choose(self, index: V, options: list) -> V:
        """options[index] for an index already in range: a chain of selects."""
        if not options:
            raise self.unsupported("a choice among no options")
        t = options[0].dtype if isinstance(options[0], (V, np.generic)) else None
        for o in options[1:]:
            t = self.promote(options[0] if t is None else np.zeros((), t)[()], o)[2]
        values = [self.element(o, t) for o in options]
        wide = self.convert(index, np.dtype(np.int64))
        chosen = values[0].value
        for j, v in enumerate(values[1:], start=1):
            hit = self.b.icmp_signed("==", wide.value, ir.Constant(I64, j))
            chosen = self.b.select(hit, v.value, chosen)
        return V(chosen, t)

    def lookup(self, table: object, index: ast.AST) -> V:
        """``_kN[np.clip(i, 0, len - 1)]``: an element of a constant table, the index clipped in range."""
        if not (isinstance(table, np.ndarray) and table.ndim == 1 and table.dtype.kind in "biuf"):
            raise self.unsupported(f"indexing {type(table).__name__}")
        clipped = isinstance(index, ast.Call) and ast.unparse(index.func) == "np.clip" and \
            len(index.args) == 3 and ast.unparse(index.args[1]) == "0" and \
            ast.unparse(index.args[2]) == str(len(table) - 1)
        if not clipped:
            raise self.unsupported("a table index not clipped to the table")
        return self.choose(self.element(self.expr(index), None), list(table))

    # --- float helpers ---------------------------------------------------------------------------

    def fmt(self, f: object) -> np.dtype:
        if isinstance(f, rt.Fmt) and id(f) in _FMTS:
            return _FMTS[id(f)]
        raise self.unsupported(f"the float format {getattr(f, 'name', f)} (bfloat16 has no native lowering yet)")

    def bits(self, x: V) -> V:
        return self.view(x, _UINT[x.dtype.itemsize])

    def isnan(self, x: V) -> ir.Value:
        return self.b.fcmp_unordered("uno", x.value, x.value)

    def intrinsic(self, name: str, x: V, *more: V) -> V:
        ty = x.value.type
        fnty = ir.FunctionType(ty, [ty] * (1 + len(more)))
        fn = self.module.declare_intrinsic(name, [ty], fnty)
        return V(self.b.call(fn, [x.value, *(m.value for m in more)]), x.dtype)

    def isfinite(self, x: V) -> ir.Value:
        absolute = self.intrinsic("llvm.fabs", x)
        return self.b.fcmp_ordered("!=", absolute.value, ir.Constant(x.value.type, float("inf")))

    def narrow(self, x: V, t: np.dtype) -> V:
        """float64 -> t rounded once to nearest even (runtime.narrow_f64)."""
        if t == F64:
            return x
        if t.itemsize == 4:
            return V(self.b.fptrunc(x.value, FLOAT), t)
        odd = self.round_to_odd_f32(x)
        return V(self.b.fptrunc(odd.value, HALF), t)

    def round_to_odd_f32(self, x: V) -> V:
        bd = self.b
        r = V(bd.fptrunc(x.value, FLOAT), np.dtype(np.float32))
        back = bd.fpext(r.value, DOUBLE)
        u = self.bits(r).value
        even = bd.icmp_unsigned("==", bd.and_(u, ir.Constant(I32, 1)), ir.Constant(I32, 0))
        inexact = bd.and_(bd.and_(bd.fcmp_unordered("!=", back, x.value), even), self.isfinite(x))
        up = bd.fcmp_ordered(">", self.intrinsic("llvm.fabs", x).value,
                             self.intrinsic("llvm.fabs", V(back, F64)).value)
        stepped = bd.select(up, bd.add(u, ir.Constant(I32, 1)), bd.sub(u, ir.Constant(I32, 1)))
        return V(bd.bitcast(bd.select(inexact, stepped, u), FLOAT), r.dtype)

    def nan_fixed(self, r: V, operands: list[V]) -> V:
        """runtime._nan_fixed: a NaN result is the first NaN operand quieted, else the default NaN."""
        bd = self.b
        t = r.dtype
        f = {2: rt.F16, 4: rt.F32, 8: rt.F64}[t.itemsize]
        ity = ll_type(_UINT[t.itemsize])
        chosen = ir.Constant(ity, int(f.default_nan))
        for x in reversed(operands):
            quieted = bd.or_(self.bits(x).value, ir.Constant(ity, int(f.quiet_bit)))
            chosen = bd.select(self.isnan(x), quieted, chosen)
        out = bd.select(self.isnan(r), chosen, self.bits(r).value)
        return V(bd.bitcast(out, ll_type(t)), t)

    def to_f64(self, x: V) -> V:
        return x if x.dtype == F64 else V(self.b.fpext(x.value, DOUBLE), F64)

    def numpy_loop(self, name: str, operands: list[ir.Value], steps: tuple[int, ...]) -> ir.Value:
        """The element's result of numpy's float64 loop of ``np.<name>`` (operands with step 0 are the
        same for every element), called once for all the lanes of the loop being emitted."""
        if self.calls is None:
            raise self.unsupported(f"np.{name}'s loop outside a lane loop (emit_lanes calls it)")
        return self.calls.call(self.b, name, operands, steps)

    def floats(self, f: object, *xs: object) -> tuple[np.dtype, list[V]]:
        t = self.fmt(f)
        return t, [self.element(x, t) for x in xs]


# --- runtime functions, element by element -----------------------------------------------------------

def _binary(op: str):
    def lower(self: _FunctionLowering, a, b, f) -> V:
        t, (x, y) = self.floats(f, a, b)
        return self.nan_fixed(self.float_op(op, x, y, t), [x, y])
    return lower


def _fma(self: _FunctionLowering, a, b, c, f) -> V:
    t, (x, y, z) = self.floats(f, a, b, c)
    if t.itemsize == 4:
        r = self.intrinsic("llvm.fma", x, y, z)  # one rounding, as the runtime's algorithm gives
    elif t.itemsize == 8:
        # runtime._fma_f64: one rounding, except on lanes with a zero or non-finite operand, where it
        # (and the evaluator) computes a * b + c with the product rounded: fma(2**600, -2**600, inf) is NaN
        bd = self.b
        zero = ir.Constant(DOUBLE, 0.0)
        finite = bd.and_(bd.and_(self.isfinite(x), self.isfinite(y)), self.isfinite(z))
        simple = bd.or_(bd.or_(bd.fcmp_ordered("==", x.value, zero), bd.fcmp_ordered("==", y.value, zero)),
                        bd.not_(finite))
        plain = bd.fadd(bd.fmul(x.value, y.value), z.value)
        r = V(bd.select(simple, plain, self.intrinsic("llvm.fma", x, y, z).value), t)
    else:
        bd = self.b
        wx, wy, wz = (self.to_f64(v).value for v in (x, y, z))
        p = bd.fmul(wx, wy)  # exact: 22 significant bits
        s = bd.fadd(p, wz)
        bb = bd.fsub(s, p)
        err = bd.fadd(bd.fsub(p, bd.fsub(s, bb)), bd.fsub(wz, bb))  # TwoSum
        u = bd.bitcast(s, I64)
        even = bd.icmp_unsigned("==", bd.and_(u, ir.Constant(I64, 1)), ir.Constant(I64, 0))
        finite = self.isfinite(V(s, F64))
        inexact = bd.and_(bd.and_(bd.fcmp_unordered("!=", err, ir.Constant(DOUBLE, 0.0)), even), finite)
        away = bd.icmp_unsigned("==", bd.fcmp_ordered(">", err, ir.Constant(DOUBLE, 0.0)),
                                bd.fcmp_ordered(">", s, ir.Constant(DOUBLE, 0.0)))
        stepped = bd.select(away, bd.add(u, ir.Constant(I64, 1)), bd.sub(u, ir.Constant(I64, 1)))
        odd = bd.bitcast(bd.select(inexact, stepped, u), DOUBLE)
        r = self.narrow(V(odd, F64), t)
    return self.nan_fixed(r, [x, y, z])


def _unary_exact(intrinsic: str):
    def lower(self: _FunctionLowering, a, f) -> V:
        t, (x,) = self.floats(f, a)
        if t.itemsize == 2:
            wide = V(self.b.fpext(x.value, FLOAT), np.dtype(np.float32))
            r = V(self.b.fptrunc(self.intrinsic(intrinsic, wide).value, HALF), t)
        else:
            r = self.intrinsic(intrinsic, x)
        return self.nan_fixed(r, [x])
    return lower


def _sqrt(self: _FunctionLowering, a, f) -> V:
    t, (x,) = self.floats(f, a)
    return self.nan_fixed(self.narrow(self.intrinsic("llvm.sqrt", self.to_f64(x)), t), [x])


def _via_f64(name: str):
    """runtime._via_f64(x, fmt, np.<name>): numpy's float64 loop, rounded once, NaNs as _nan_fixed."""
    def lower(self: _FunctionLowering, a, f) -> V:
        t, (x,) = self.floats(f, a)
        r = V(self.numpy_loop(name, [self.to_f64(x).value], (8, 8)), F64)
        return self.nan_fixed(self.narrow(r, t), [x])
    return lower


def _pow_positive_base(self: _FunctionLowering, base, e_wide, f) -> V:
    """runtime.pow_positive_base: np.power(base, e) in float64 (the base broadcast, stride 0, as numpy
    calls its loop for a scalar operand), rounded once; a NaN result is the default NaN."""
    t = self.fmt(f)
    if not (isinstance(base, Weak) and isinstance(base.value, float) or isinstance(base, np.float64)):
        raise self.unsupported(f"pow_positive_base with the base {base!r}")
    e = self.element(e_wide, None)
    if e.dtype != F64:
        raise self.unsupported(f"pow_positive_base of a {e.dtype} exponent")
    value = float(base.value if isinstance(base, Weak) else base)
    r = self.narrow(V(self.numpy_loop("power", [ir.Constant(DOUBLE, value), e.value], (0, 8, 8)), F64), t)
    fm = {2: rt.F16, 4: rt.F32, 8: rt.F64}[t.itemsize]
    u = self.bits(r)
    out = self.b.select(self.isnan(r), ir.Constant(u.value.type, int(fm.default_nan)), u.value)
    return self.view(V(out, u.dtype), t)


def _fract(self: _FunctionLowering, a, f) -> V:
    t, (x,) = self.floats(f, a)
    wide = self.to_f64(x)
    r = V(self.b.fsub(wide.value, self.intrinsic("llvm.floor", wide).value), F64)
    return self.nan_fixed(self.narrow(r, t), [x])


def _isnan(self: _FunctionLowering, a, f) -> V:
    _, (x,) = self.floats(f, a)
    return V(self.isnan(x), _BOOL)


def _sign_bit(self: _FunctionLowering, x: V) -> ir.Constant:
    return ir.Constant(ll_type(_UINT[x.dtype.itemsize]), 1 << (x.dtype.itemsize * 8 - 1))


def _fabs(self: _FunctionLowering, a, f) -> V:
    t, (x,) = self.floats(f, a)
    u = self.bits(x)
    return self.view(V(self.b.and_(u.value, self.b.not_(_sign_bit(self, x))), u.dtype), t)


def _fneg(self: _FunctionLowering, a, f) -> V:
    t, (x,) = self.floats(f, a)
    u = self.bits(x)
    return self.view(V(self.b.xor(u.value, _sign_bit(self, x)), u.dtype), t)


def _sign(self: _FunctionLowering, a, f) -> V:
    _, (x,) = self.floats(f, a)
    u = self.bits(x)
    return V(self.b.icmp_unsigned(">=", u.value, _sign_bit(self, x)), _BOOL)


def _bits_of(self: _FunctionLowering, a, f) -> V:
    _, (x,) = self.floats(f, a)
    return self.bits(x)


def _quiet(self: _FunctionLowering, a, f) -> V:
    t, (x,) = self.floats(f, a)
    fm = {2: rt.F16, 4: rt.F32, 8: rt.F64}[t.itemsize]
    u = self.bits(x)
    q = self.b.or_(u.value, ir.Constant(u.value.type, int(fm.quiet_bit)))
    return self.view(V(self.b.select(self.isnan(x), q, u.value), u.dtype), t)


def _exponent(self: _FunctionLowering, a, f) -> V:
    t, (x,) = self.floats(f, a)
    fm = {2: rt.F16, 4: rt.F32, 8: rt.F64}[t.itemsize]
    u = self.bits(x)
    e = self.b.and_(self.b.lshr(u.value, ir.Constant(u.value.type, fm.man_bits)),
                    ir.Constant(u.value.type, (1 << fm.exp_bits) - 1))
    return self.convert(V(e, u.dtype), np.dtype(np.int32))


def _to_f64(self: _FunctionLowering, a, f) -> V:
    _, (x,) = self.floats(f, a)
    return self.to_f64(x)


def _narrow_f64(self: _FunctionLowering, a, f) -> V:
    t = self.fmt(f)
    return self.narrow(self.element(a, F64), t)


def _convert_float(self: _FunctionLowering, a, src, dst, rounding=None, quieten=None) -> V:
    s, (x,) = self.floats(src, a)
    t = self.fmt(dst)
    mode = floats.ROUND_NEAREST_EVEN if rounding is None else _py(self, rounding)
    bd = self.b
    if s == t:
        r = x
    else:
        wide = self.to_f64(x)
        r = self.narrow(wide, t)
        if mode == floats.ROUND_TOWARD_ZERO:  # step back toward zero where nearest rounded away
            u = self.bits(r)
            away = bd.and_(bd.fcmp_ordered(">", self.intrinsic("llvm.fabs", self.to_f64(r)).value,
                                           self.intrinsic("llvm.fabs", wide).value), self.isfinite(wide))
            r = self.view(V(bd.select(away, bd.sub(u.value, ir.Constant(u.value.type, 1)), u.value), u.dtype), t)
        elif mode != floats.ROUND_NEAREST_EVEN:
            raise self.unsupported(f"rounding mode {mode}")
        # a NaN keeps sign, quiet bit and the top of its payload (runtime._moved_nan)
        fs, fd = ({2: rt.F16, 4: rt.F32, 8: rt.F64}[d.itemsize] for d in (s, t))
        u = self.bits(x).value
        payload = bd.zext(bd.and_(u, ir.Constant(u.type, int(fs.man_mask))), I64) if s.itemsize < 8 else \
            bd.and_(u, ir.Constant(I64, int(fs.man_mask)))
        shift = fd.man_bits - fs.man_bits
        payload = bd.shl(payload, ir.Constant(I64, shift)) if shift >= 0 else bd.lshr(payload, ir.Constant(I64, -shift))
        payload = bd.select(bd.icmp_unsigned("==", payload, ir.Constant(I64, 0)), ir.Constant(I64, 1), payload)
        dty = ll_type(_UINT[t.itemsize])
        payload = bd.trunc(payload, dty) if t.itemsize < 8 else payload
        negative = bd.icmp_unsigned(">=", u, ir.Constant(u.type, int(fs.sign_bit)))
        sign = bd.select(negative, ir.Constant(dty, int(fd.sign_bit)), ir.Constant(dty, 0))
        moved = bd.or_(bd.or_(sign, ir.Constant(dty, int(fd.exp_mask))), payload)
        r = self.view(V(bd.select(self.isnan(x), moved, self.bits(r).value), _UINT[t.itemsize]), t)
    q = quieten is not None and bool(_py(self, quieten))
    return _quiet(self, r, dst) if q else r


def _int_to_float(self: _FunctionLowering, v, f, rounding=None) -> V:
    mode = floats.ROUND_NEAREST_EVEN if rounding is None else _py(self, rounding)
    if mode != floats.ROUND_NEAREST_EVEN:
        raise self.unsupported(f"rounding mode {mode}")
    x = self.element(v, None)
    if x.dtype.kind == "f":
        raise self.unsupported("int_to_float of a float")
    return self.convert(x, self.fmt(f))


def _clip_f64(self: _FunctionLowering, x: ir.Value, low: float, high: float) -> ir.Value:
    bd = self.b
    lo, hi = ir.Constant(DOUBLE, low), ir.Constant(DOUBLE, high)
    x = bd.select(bd.fcmp_ordered("<", x, lo), lo, x)  # np.clip = minimum(maximum(x, lo), hi), no NaN here
    return bd.select(bd.fcmp_ordered(">", x, hi), hi, x)


def _py(self: _FunctionLowering, x) -> object:
    if isinstance(x, Weak):
        return x.value
    if isinstance(x, np.generic):
        return x.item()
    raise self.unsupported(f"a run-time value where the runtime takes a constant ({x!r})")


def _float_to_int_saturated(self: _FunctionLowering, a, f, low, high, box) -> V:
    _, (x,) = self.floats(f, a)
    low, high = _py(self, low), _py(self, high)
    bd = self.b
    wide = self.to_f64(x).value
    wide = bd.select(bd.fcmp_unordered("uno", wide, wide), ir.Constant(DOUBLE, 0.0), wide)
    wide = self.intrinsic("llvm.trunc", V(wide, F64)).value
    clipped = _clip_f64(self, wide, float(low), float(high))
    as_int = bd.fptosi(clipped, I64) if high < 2**63 else bd.fptoui(clipped, I64)
    mid = np.dtype(np.int64) if high < 2**63 else np.dtype(np.uint64)
    return self.convert(V(as_int, mid), np.dtype(box))


def _to_norm(self: _FunctionLowering, a, f, low, scale, box) -> V:
    _, (x,) = self.floats(f, a)
    low, scale = _py(self, low), _py(self, scale)
    bd = self.b
    wide = self.to_f64(x).value
    scaled = bd.fmul(_clip_f64(self, wide, float(low), 1.0), ir.Constant(DOUBLE, float(scale)))
    scaled = bd.select(bd.fcmp_unordered("uno", wide, wide), ir.Constant(DOUBLE, 0.0), scaled)
    rounded = self.intrinsic("llvm.roundeven", V(scaled, F64)).value
    return self.convert(V(bd.fptosi(rounded, I64), np.dtype(np.int64)), np.dtype(box))


def _saturate_int(self: _FunctionLowering, v, low, high, box) -> V:
    clipped = _clip(self, v, low, high)
    return self.convert(clipped, np.dtype(box))


def _clip(self: _FunctionLowering, v, low, high) -> V:
    return self.minmax(self.minmax(v, low, smaller=False), high, smaller=True)


def _is_even(self: _FunctionLowering, a, f) -> V:
    _, (x,) = self.floats(f, a)
    bd = self.b
    wide = self.to_f64(x)
    whole = bd.fcmp_ordered("==", self.intrinsic("llvm.floor", wide).value, wide.value)
    even = bd.fcmp_ordered("==", bd.frem(wide.value, ir.Constant(DOUBLE, 2.0)), ir.Constant(DOUBLE, 0.0))
    return V(bd.and_(bd.and_(self.isfinite(wide), whole), even), _BOOL)


def _c_quotient(self: _FunctionLowering, a, b) -> V:
    x, y, t = self.promote(a, b)
    if t.kind not in "iu" or t.itemsize > 4 and t.kind == "i":
        raise self.unsupported(f"c_quotient of {t}")
    bd = self.b
    zero = bd.icmp_unsigned("==", y.value, ir.Constant(y.value.type, 0))
    safe = bd.select(zero, ir.Constant(y.value.type, 1), y.value)
    if t.kind == "u":
        q = bd.udiv(x.value, safe)
    else:  # in int64 (as the runtime): no overflow for -2**31 / -1
        q = bd.trunc(bd.sdiv(bd.sext(x.value, I64), bd.sext(safe, I64)), x.value.type)
    return V(bd.select(zero, ir.Constant(x.value.type, 0), q), t)


def _c_remainder(self: _FunctionLowering, a, b) -> V:
    x, y, t = self.promote(a, b)
    q = _c_quotient(self, x, y)
    return V(self.b.sub(x.value, self.b.mul(q.value, y.value)), t)


def _reverse_bits(self: _FunctionLowering, u, width) -> V:
    x = self.element(u, None)
    width = _py(self, width)
    if x.dtype.kind != "u":
        raise self.unsupported(f"reverse_bits of {x.dtype}")
    r = self.intrinsic("llvm.bitreverse", x)
    box_bits = x.dtype.itemsize * 8
    if width < box_bits:
        r = V(self.b.lshr(r.value, ir.Constant(r.value.type, box_bits - width)), x.dtype)
    return r


def _ldexp_f64(self: _FunctionLowering, x: ir.Value, n: ir.Value) -> ir.Value:
    fn = self.module.declare_intrinsic("llvm.ldexp", [DOUBLE, I32], ir.FunctionType(DOUBLE, [DOUBLE, I32]))
    return self.b.call(fn, [x, n])


def _clipped_i32(self: _FunctionLowering, n: V, limit: int) -> ir.Value:
    wide = self.convert(n, np.dtype(np.int64))
    return self.b.trunc(_clip(self, wide, Weak(-limit), Weak(limit)).value, I32)


def _ldexp(self: _FunctionLowering, a, count, f) -> V:
    """runtime.ldexp: exact scaling in float64 (clipped where every result has over/underflowed),
    rounded once; inf * 2**n for n <= -1075 is the default NaN, as the evaluator's Python float gives."""
    t, (x,) = self.floats(f, a)
    n = self.element(count, None)
    if n.dtype.kind not in "biu":
        raise self.unsupported(f"ldexp by a {n.dtype} count")
    bd = self.b
    r = V(_ldexp_f64(self, self.to_f64(x).value, _clipped_i32(self, n, 2200 if t == F64 else 400)), F64)
    r = self.nan_fixed(self.narrow(r, t), [x])
    wide_n = self.convert(n, np.dtype(np.int64)).value
    inf = bd.fcmp_ordered("==", self.intrinsic("llvm.fabs", self.to_f64(x)).value, ir.Constant(DOUBLE, float("inf")))
    vanished = bd.and_(bd.icmp_signed("<=", wide_n, ir.Constant(I64, -1075)), inf)
    fm = {2: rt.F16, 4: rt.F32, 8: rt.F64}[t.itemsize]
    u = self.bits(r)
    return self.view(V(bd.select(vanished, ir.Constant(u.value.type, int(fm.default_nan)), u.value), u.dtype), t)


def _pow2(self: _FunctionLowering, count, f) -> V:
    t = self.fmt(f)
    n = self.element(count, None)
    if n.dtype.kind not in "biu":
        raise self.unsupported(f"2 ** a {n.dtype} value")
    return self.narrow(V(_ldexp_f64(self, ir.Constant(DOUBLE, 1.0), _clipped_i32(self, n, 2200)), F64), t)


def _mantissa(self: _FunctionLowering, a, f) -> V:
    """frexp's significand, rounded to the format; NaN -> default NaN; zeros and infinities kept."""
    t, (x,) = self.floats(f, a)
    bd = self.b
    pair = ir.LiteralStructType([DOUBLE, I32])
    fn = self.module.declare_intrinsic("llvm.frexp", [DOUBLE, I32], ir.FunctionType(pair, [DOUBLE]))
    significand = bd.extract_value(bd.call(fn, [self.to_f64(x).value]), 0)
    r = self.narrow(V(significand, F64), t)
    fm = {2: rt.F16, 4: rt.F32, 8: rt.F64}[t.itemsize]
    u = self.bits(r)
    out = bd.select(self.isnan(r), ir.Constant(u.value.type, int(fm.default_nan)), u.value)
    return self.view(V(out, u.dtype), t)


def _signext_from_bit(self: _FunctionLowering, value, width) -> V:
    """runtime.signext_from_bit, in int64 with numpy's shift rules."""
    i64 = np.dtype(np.int64)
    v = self.element(value, i64)
    w = self.convert(self.minmax(self.convert(self.element(width, None), i64), Weak(64), smaller=True), i64)
    one = self.k(1, i64)
    bd = self.b
    mask = self.binop("Sub", self.shift("LShift", one, w, i64), one)
    low = V(bd.and_(v.value, mask.value), i64)
    top = self.minmax(V(bd.sub(w.value, one.value), i64), Weak(0), smaller=False)
    bit = bd.and_(self.shift("RShift", low, top, i64).value, one.value)
    w_pos = bd.icmp_signed(">", w.value, ir.Constant(I64, 0))
    w_small = bd.icmp_signed("<", w.value, ir.Constant(I64, 64))
    negative = bd.and_(bd.and_(w_pos, w_small), bd.icmp_signed("!=", bit, ir.Constant(I64, 0)))
    extended = bd.select(negative, bd.sub(low.value, self.shift("LShift", one, w, i64).value), low.value)
    zero_w = bd.icmp_signed("==", w.value, ir.Constant(I64, 0))
    result = bd.select(w_small, bd.select(zero_w, ir.Constant(I64, 0), extended), v.value)
    return V(result, i64)


def _choose(self: _FunctionLowering, index, options) -> V:
    if not isinstance(options, list):
        raise self.unsupported("rt.choose of something other than a list")
    i = self.convert(self.element(index, None), np.dtype(np.int64))
    i = _clip(self, i, Weak(0), Weak(len(options) - 1))
    return self.choose(i, options)


def _where(self: _FunctionLowering, m, a, b) -> V:
    return self.select(m, a, b)


def _minimum(self: _FunctionLowering, a, b) -> V:
    return self.minmax(a, b, smaller=True)


def _maximum(self: _FunctionLowering, a, b) -> V:
    return self.minmax(a, b, smaller=False)


def _scalar_type(dtype):
    def lower(self: _FunctionLowering, x) -> V:
        return self.convert(self.element(x, None), np.dtype(dtype))
    return lower


_CALLS = {
    "rt.add": _binary("Add"), "rt.sub": _binary("Sub"), "rt.mul": _binary("Mult"), "rt.div": _binary("Div"),
    "rt.fma": _fma, "rt.floor": _unary_exact("llvm.floor"), "rt.trunc": _unary_exact("llvm.trunc"),
    "rt.sqrt": _sqrt, "rt.sin": _via_f64("sin"), "rt.cos": _via_f64("cos"), "rt.log2": _via_f64("log2"),
    "rt.pow_positive_base": _pow_positive_base, "rt.fract": _fract, "rt.isnan": _isnan, "rt.fabs": _fabs, "rt.fneg": _fneg,
    "rt.sign": _sign, "rt.bits_of": _bits_of, "rt.quiet": _quiet, "rt.exponent": _exponent,
    "rt.to_f64": _to_f64, "rt.narrow_f64": _narrow_f64, "rt.convert_float": _convert_float,
    "rt.int_to_float": _int_to_float, "rt.float_to_int_saturated": _float_to_int_saturated,
    "rt.to_norm": _to_norm, "rt.saturate_int": _saturate_int, "rt.is_even": _is_even,
    "rt.c_quotient": _c_quotient, "rt.c_remainder": _c_remainder, "rt.reverse_bits": _reverse_bits,
    "rt.ldexp": _ldexp, "rt.pow2": _pow2, "rt.mantissa": _mantissa, "rt.signext_from_bit": _signext_from_bit,
    "rt.choose": _choose,
    "rt.select": _where, "np.where": _where, "np.minimum": _minimum, "np.maximum": _maximum, "np.clip": _clip,
    **{f"np.{t}": _scalar_type(t) for t in ("bool_", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                                          "int64", "uint64")},
}


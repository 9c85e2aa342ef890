"""The typed tree that the parser builds from one instruction's pseudocode.

Expressions and statements are frozen dataclasses; child sequences are tuples, so trees compare and hash
by value. The tree keeps the manual's spelling (``<>`` stays ``<>``, ``+:`` stays a PartSelect): backends
decide semantics, the evaluator in ``evaluator.py`` is the reference for them.

What a backend should know:
  - Types sit on views, casts and literals; a Name is untyped (operand, local, constant or wave state:
    the environment decides). A local's type is its declaration or its first assignment.
  - Control flow is structured: If/For/While, Break/Continue, and Return only inside a Lambda.
  - A lambda is bound by ``Assign(Name, Lambda)`` before use; calls to it can be inlined.
  - ``a = b = e`` arrives as two Assigns; compound assignments keep ``op`` (``+=`` -> "+").
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields

from gpubench.compiler.pcode.dtypes import DataType


class Node:
    """Base of all tree nodes: iteration over direct children for generic walks."""

    def children(self) -> Iterator[Node]:
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            items = value if isinstance(value, tuple) else (value,)
            yield from (item for item in items if isinstance(item, Node))


class Expr(Node):
    pass


class Stmt(Node):
    pass


# --- expressions -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IntLit(Expr):
    value: int
    dtype: DataType | None  # None: an untyped literal, which takes the type of the operand it meets


@dataclass(frozen=True)
class FloatLit(Expr):
    value: float
    dtype: DataType | None


@dataclass(frozen=True)
class StringLit(Expr):
    """A quoted note such as ``"Wait for all instructions to complete"``: documentation, no effect."""

    text: str


@dataclass(frozen=True)
class Name(Expr):
    """A register, operand, local, constant or wave state: ``S0``, ``tmp``, ``laneId``, ``PI``, ``MEM``."""

    ident: str


@dataclass(frozen=True)
class View(Expr):
    """``x.u32``: the bits of ``x`` read as a type; on an assignment's left, written as that type."""

    base: Expr
    dtype: DataType


@dataclass(frozen=True)
class Field(Expr):
    """``WAVE_MODE.IEEE``, ``TADDR.X``: a named part of a state record."""

    base: Expr
    name: str


@dataclass(frozen=True)
class Index(Expr):
    """``x[i]``: one bit of a value, one element of a declared array, or a cell of MEM/VGPR/SGPR."""

    base: Expr
    index: Expr


@dataclass(frozen=True)
class Slice(Expr):
    """``x[hi : lo]``: bits hi..lo. When hi < lo the bits come out reversed (``S0.u32[0 : 31]``)."""

    base: Expr
    hi: Expr
    lo: Expr


@dataclass(frozen=True)
class PartSelect(Expr):
    """``x[lo +: width]`` (Verilog): ``width`` bits starting at bit ``lo``."""

    base: Expr
    lo: Expr
    width: Expr


@dataclass(frozen=True)
class Cast(Expr):
    """``64'U(x)``, ``32'F(x)``: convert to a sized type (see the evaluator for int/float rules)."""

    dtype: DataType
    operand: Expr


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # - + ! ~
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    op: str  # ** * / % + - << >> < <= > >= == != <> & ^ | && ||
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Ternary(Expr):
    cond: Expr
    then: Expr
    orelse: Expr


@dataclass(frozen=True)
class Call(Expr):
    """A helper (``isNAN``), another instruction (``v_min_f32``) or a local lambda (``LT_NEG_ZERO``)."""

    func: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Concat(Expr):
    """``{ hi, ..., lo }``: bit concatenation, first part most significant."""

    parts: tuple[Expr, ...]


@dataclass(frozen=True)
class Lambda(Expr):
    """``lambda(a, b) (expr)`` or ``lambda(a) (statements with return)``: body is an Expr or a Block."""

    params: tuple[str, ...]
    body: Expr | Block


# --- statements --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block(Node):
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True)
class Assign(Stmt):
    """``target = value``; ``op`` is set for a compound assignment (``+`` for ``+=``)."""

    target: Expr
    value: Expr
    op: str | None = None


@dataclass(frozen=True)
class IfBranch(Node):
    cond: Expr
    body: Block


@dataclass(frozen=True)
class If(Stmt):
    branches: tuple[IfBranch, ...]  # the if and each elsif, in order
    orelse: Block | None


@dataclass(frozen=True)
class For(Stmt):
    """``for var in start : stop do`` — both bounds inclusive."""

    var: str
    start: Expr
    stop: Expr
    body: Block


@dataclass(frozen=True)
class While(Stmt):
    cond: Expr
    body: Block


@dataclass(frozen=True)
class Declare(Stmt):
    """``declare name : 32'U;`` or an array ``declare tmp : 32'B[64];``."""

    name: str
    dtype: DataType
    length: Expr | None = None


@dataclass(frozen=True)
class ExprStmt(Stmt):
    """A call made for its effect (``nop()``) or a quoted note."""

    expr: Expr


@dataclass(frozen=True)
class Break(Stmt):
    pass


@dataclass(frozen=True)
class Continue(Stmt):
    pass


@dataclass(frozen=True)
class Return(Stmt):
    value: Expr | None


@dataclass(frozen=True)
class Program(Node):
    body: Block


def walk(node: Node) -> Iterator[Node]:
    """Every node of a tree, parents before children."""
    yield node
    for child in node.children():
        yield from walk(child)


def called_names(node: Node) -> set[str]:
    """Names the tree calls, minus the lambdas it defines itself."""
    calls = {n.func for n in walk(node) if isinstance(n, Call)}
    lambdas = {
        n.target.ident
        for n in walk(node)
        if isinstance(n, Assign) and isinstance(n.value, Lambda) and isinstance(n.target, Name)
    }
    return calls - lambdas

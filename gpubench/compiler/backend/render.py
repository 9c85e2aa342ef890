"""The pcode spelling of an IR statement, for the comments that tie generated code to its source line."""
from __future__ import annotations

from gpubench.compiler.pcode import ir
from gpubench.compiler.pcode.dtypes import DataType

_CAST_LETTERS = {"u": "U", "i": "I", "b": "B", "f": "F", "bf": "BF"}


def _type_suffix(dtype: DataType) -> str:
    return f"{dtype.bits}'{_CAST_LETTERS.get(dtype.kind, dtype.kind.upper())}"


def expr(e: ir.Expr) -> str:
    match e:
        case ir.IntLit(value, dtype):
            return str(value) if dtype is None else f"{_type_suffix(dtype)}({value})"
        case ir.FloatLit(value, dtype):
            return repr(value) if dtype is None else f"{_type_suffix(dtype)}({value!r})"
        case ir.StringLit(text):
            return f'"{text}"'
        case ir.Name(ident):
            return ident
        case ir.View(base, dtype):
            return f"{expr(base)}.{dtype}"
        case ir.Field(base, name):
            return f"{expr(base)}.{name}"
        case ir.Index(base, index):
            return f"{expr(base)}[{expr(index)}]"
        case ir.Slice(base, hi, lo):
            return f"{expr(base)}[{expr(hi)} : {expr(lo)}]"
        case ir.PartSelect(base, lo, width):
            return f"{expr(base)}[{expr(lo)} +: {expr(width)}]"
        case ir.Cast(dtype, operand):
            return f"{_type_suffix(dtype)}({expr(operand)})"
        case ir.Unary(op, operand):
            return f"{op}{expr(operand)}"
        case ir.Binary(op, left, right):
            return f"({expr(left)} {op} {expr(right)})"
        case ir.Ternary(cond, then, orelse):
            return f"({expr(cond)} ? {expr(then)} : {expr(orelse)})"
        case ir.Call(func, args):
            return f"{func}({', '.join(expr(a) for a in args)})"
        case ir.Concat(parts):
            return "{ " + ", ".join(expr(p) for p in parts) + " }"
        case ir.Lambda(params, _):
            return f"lambda({', '.join(params)}) (...)"
    return type(e).__name__


def statement(s: ir.Stmt) -> str:
    """One line: the statement itself, or the header of a compound statement."""
    match s:
        case ir.Assign(target, value, op):
            return f"{expr(target)} {op or ''}= {expr(value)}"
        case ir.If(branches, _):
            return f"if {expr(branches[0].cond)} then"
        case ir.For(var, start, stop, _):
            return f"for {var} in {expr(start)} : {expr(stop)} do"
        case ir.While(cond, _):
            return f"while {expr(cond)} do"
        case ir.Declare(name, dtype, length):
            return f"declare {name} : {_type_suffix(dtype)}" + (f"[{expr(length)}]" if length else "")
        case ir.ExprStmt(e):
            return expr(e)
        case ir.Return(value):
            return "return" + (f" {expr(value)}" if value else "")
    return type(s).__name__.lower()

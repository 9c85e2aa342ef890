"""Recursive-descent parser for AMD's pseudocode; builds the tree of ``ir.py``.

Grammar (``{x}`` repeats, ``[x]`` optional; a separator is ``;`` or a newline):

  program    = block EOF
  block      = { separator } { statement { separator } }      (ends at a keyword that closes it)
  statement  = "if" expr "then" block { "elsif" expr "then" block } [ "else" block ] "endif"
             | "for" NAME "in" expr ":" expr "do" block "endfor"
             | "while" expr "do" block "endwhile"
             | "declare" NAME ":" TYPE [ "[" expr "]" ]
             | "break" | "continue" | "return" [ expr ]
             | lvalue ( "=" | "+=" | "-=" | ... ) expr
             | call | STRING                                   (an expression statement has an effect)
  expr       = or [ "?" expr ":" expr ]                        (right associative)

Binary operators, loosest first, as in C:  ``||``; ``&&``; ``|``; ``^``; ``&``; ``== != <>``;
``< <= > >=``; ``<< >>``; ``+ -``; ``* / %``. Then unary ``- + ! ~``, then ``**`` (binds tighter than a
unary minus on its left, as in Python), then postfix ``.type`` ``.field`` ``[i]`` ``[hi : lo]``
``[lo +: width]`` and calls. Primaries: literals, names, ``N'T(expr)`` casts, ``(expr)``, ``{a, b}``,
``lambda(params) (body)``.

Newlines end statements, except inside brackets and after an operator: the manual wraps long
conditions inside parentheses and never ends a statement with an operator. Keywords are contextual
(``in`` is also a variable name in V_FMA_MIX).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

from gpubench.compiler.pcode import ir, minifloat_views
from gpubench.compiler.pcode.dtypes import DataType
from gpubench.compiler.pcode.lexer import PcodeSyntaxError, Token, tokenize

_BINARY_PRECEDENCE = {
    "||": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6, "!=": 6, "<>": 6,
    "<": 7, "<=": 7, ">": 7, ">=": 7,
    "<<": 8, ">>": 8,
    "+": 9, "-": 9,
    "*": 10, "/": 10, "%": 10,
}
_UNARY = ("-", "+", "!", "~")
_COMPOUND_ASSIGN = {op + "=": op for op in ("+", "-", "*", "/", "%", "|", "&", "^", "<<", ">>")}
_STATEMENT_KEYWORDS = frozenset({"if", "for", "while", "declare", "break", "continue", "return"})
_RESERVED = _STATEMENT_KEYWORDS | {"then", "elsif", "else", "endif", "do", "endfor", "endwhile", "lambda"}


def parse(text: str) -> ir.Program:
    """Parse one instruction's pseudocode. Raises PcodeSyntaxError when the text is not code. The 8-bit
    float views come out in the types the compiler models (minifloat_views.py)."""
    return minifloat_views.lowered(_Parser(tokenize(text)).program())


class _Parser:
    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.pos = 0
        self.depth = 0  # open brackets: inside any, newlines are insignificant

    # --- token access ------------------------------------------------------------------------------

    def peek(self) -> Token:
        if self.depth > 0:
            self.skip_newlines()
        return self.tokens[self.pos]

    def next(self) -> Token:
        tok = self.peek()
        self.pos += 1
        return tok

    def at(self, *texts: str) -> bool:
        tok = self.peek()
        return tok.kind in ("op", "ident") and tok.text in texts

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.pos += 1
            return True
        return False

    def expect(self, text: str) -> Token:
        if not self.at(text):
            self.fail(f"expected {text!r}")
        return self.next()

    def expect_name(self) -> str:
        tok = self.next()
        if tok.kind != "ident" or tok.text in _RESERVED:
            self.fail("expected a name", tok)
        return tok.text

    def skip_newlines(self) -> None:
        while self.tokens[self.pos].kind == "newline":
            self.pos += 1

    def fail(self, message: str, tok: Token | None = None) -> NoReturn:
        tok = tok or self.tokens[self.pos]
        raise PcodeSyntaxError(f"{message}, found {tok.text or tok.kind!r}", tok.line, tok.col)

    @contextmanager
    def bracketed(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    @contextmanager
    def statements_inside_brackets(self) -> Iterator[None]:
        """A lambda's statement body sits inside ``( )`` but its newlines separate statements."""
        saved, self.depth = self.depth, 0
        try:
            yield
        finally:
            self.depth = saved

    # --- statements --------------------------------------------------------------------------------

    def program(self) -> ir.Program:
        body = self.block(frozenset())
        if self.peek().kind != "eof":
            self.fail("expected a statement")
        return ir.Program(body)

    def block(self, ends: frozenset[str]) -> ir.Block:
        stmts = []
        while True:
            self.skip_separators()
            tok = self.peek()
            if tok.kind == "eof" or (tok.kind in ("ident", "op") and tok.text in ends):
                return ir.Block(tuple(stmts))
            stmts.extend(self.statement())
            tok = self.peek()
            if not (tok.kind in ("newline", "eof") or tok.text == ";" or tok.text in ends):
                self.fail("expected the end of the statement")

    def skip_separators(self) -> None:
        while self.peek().kind == "newline" or self.at(";"):
            self.pos += 1

    def statement(self) -> list[ir.Stmt]:
        tok = self.peek()
        keyword = tok.text if tok.kind == "ident" and tok.text in _STATEMENT_KEYWORDS else None
        if keyword is not None:
            self.pos += 1
            return [getattr(self, f"{keyword}_statement")()]
        target = self.expression()
        op_tok = self.peek()
        if op_tok.kind == "op" and (op_tok.text == "=" or op_tok.text in _COMPOUND_ASSIGN):
            return self.assignment(target, tok)
        if not isinstance(target, (ir.Call, ir.StringLit)):
            self.fail("expected an assignment (an expression alone is not a statement)", tok)
        return [ir.ExprStmt(target)]

    def assignment(self, target: ir.Expr, target_tok: Token) -> list[ir.Stmt]:
        """``t = e``, ``t += e``, or a chain ``a = b = e`` (CDNA's V_CMPX writes EXEC and D0 this way).

        A chain becomes ``b = e; a = b``: as in C, the outer target receives the inner one's stored value.
        """
        targets = []
        op_tok = self.next()
        while True:
            if not _is_lvalue(target):
                self.fail("cannot assign to this", target_tok)
            targets.append(target)
            self.skip_newlines()
            target_tok = self.peek()
            target = self.expression()
            if not (op_tok.text == "=" and self.accept("=")):
                break
        stmts: list[ir.Stmt] = [ir.Assign(targets[-1], target, _COMPOUND_ASSIGN.get(op_tok.text))]
        stmts += [ir.Assign(outer, inner) for outer, inner in zip(targets[-2::-1], targets[:0:-1], strict=True)]
        return stmts

    def if_statement(self) -> ir.If:
        branches = [self.if_branch()]
        while self.accept("elsif"):
            branches.append(self.if_branch())
        orelse = self.block(frozenset({"endif"})) if self.accept("else") else None
        self.expect("endif")
        return ir.If(tuple(branches), orelse)

    def if_branch(self) -> ir.IfBranch:
        cond = self.expression()
        self.expect("then")
        return ir.IfBranch(cond, self.block(frozenset({"elsif", "else", "endif"})))

    def for_statement(self) -> ir.For:
        var = self.expect_name()
        self.expect("in")
        start = self.expression()
        self.expect(":")
        stop = self.expression()
        self.expect("do")
        body = self.block(frozenset({"endfor"}))
        self.expect("endfor")
        return ir.For(var, start, stop, body)

    def while_statement(self) -> ir.While:
        cond = self.expression()
        self.expect("do")
        body = self.block(frozenset({"endwhile"}))
        self.expect("endwhile")
        return ir.While(cond, body)

    def declare_statement(self) -> ir.Declare:
        name = self.expect_name()
        self.expect(":")
        tok = self.next()
        if tok.kind != "type":
            self.fail("expected a sized type such as 32'U", tok)
        length = None
        if self.at("["):
            with self.bracketed():
                self.pos += 1
                length = self.expression()
                self.expect("]")
        return ir.Declare(name, tok.value, length)

    def break_statement(self) -> ir.Break:
        return ir.Break()

    def continue_statement(self) -> ir.Continue:
        return ir.Continue()

    def return_statement(self) -> ir.Return:
        tok = self.peek()
        if tok.kind in ("newline", "eof") or tok.text in (";", ")") or tok.text in _RESERVED:
            return ir.Return(None)
        return ir.Return(self.expression())

    # --- expressions -------------------------------------------------------------------------------

    def expression(self) -> ir.Expr:
        cond = self.binary(1)
        if not self.accept("?"):
            return cond
        self.skip_newlines()
        then = self.expression()
        self.expect(":")
        self.skip_newlines()
        return ir.Ternary(cond, then, self.expression())

    def binary(self, min_precedence: int) -> ir.Expr:
        left = self.unary()
        while True:
            tok = self.peek()
            precedence = _BINARY_PRECEDENCE.get(tok.text) if tok.kind == "op" else None
            if precedence is None or precedence < min_precedence:
                return left
            self.pos += 1
            self.skip_newlines()
            left = ir.Binary(tok.text, left, self.binary(precedence + 1))

    def unary(self) -> ir.Expr:
        tok = self.peek()
        if tok.kind == "op" and tok.text in _UNARY:
            self.pos += 1
            return ir.Unary(tok.text, self.unary())
        base = self.postfix()
        if self.accept("**"):
            self.skip_newlines()
            return ir.Binary("**", base, self.unary())
        return base

    def postfix(self) -> ir.Expr:
        expr = self.primary()
        while True:
            if self.accept("."):
                name = self.expect_name()
                dtype = DataType.from_name(name)
                expr = ir.View(expr, dtype) if dtype else ir.Field(expr, name)
            elif self.at("["):
                expr = self.subscript(expr)
            elif self.at("(") and isinstance(expr, ir.Name):
                expr = ir.Call(expr.ident, self.arguments())
            else:
                return expr

    def subscript(self, base: ir.Expr) -> ir.Expr:
        with self.bracketed():
            self.pos += 1
            first = self.expression()
            if self.accept(":"):
                result: ir.Expr = ir.Slice(base, first, self.expression())
            elif self.accept("+:"):
                result = ir.PartSelect(base, first, self.expression())
            else:
                result = ir.Index(base, first)
            self.expect("]")
        return result

    def arguments(self) -> tuple[ir.Expr, ...]:
        args = []
        with self.bracketed():
            self.expect("(")
            if not self.at(")"):
                args.append(self.expression())
                while self.accept(","):
                    args.append(self.expression())
            self.expect(")")
        return tuple(args)

    def primary(self) -> ir.Expr:
        tok = self.next()
        if tok.kind == "int":
            return ir.IntLit(tok.value, tok.dtype)
        if tok.kind == "float":
            return ir.FloatLit(tok.value, tok.dtype)
        if tok.kind == "string":
            return ir.StringLit(tok.value)
        if tok.kind == "type":
            if not self.at("("):
                self.fail("expected '(' after a sized type")
            args = self.arguments()
            if len(args) != 1:
                self.fail("a cast takes one operand", tok)
            return ir.Cast(tok.value, args[0])
        if tok.kind == "ident" and tok.text == "lambda":
            return self.lambda_expression()
        if tok.kind == "ident" and tok.text not in _RESERVED:
            return ir.Name(tok.text)
        if tok.text == "(":
            with self.bracketed():
                expr = self.expression()
                self.expect(")")
            return expr
        if tok.text == "{":
            with self.bracketed():
                parts = [self.expression()]
                while self.accept(","):
                    parts.append(self.expression())
                self.expect("}")
            return ir.Concat(tuple(parts))
        self.fail("expected an expression", tok)

    def lambda_expression(self) -> ir.Lambda:
        with self.bracketed():
            self.expect("(")
            params = [self.expect_name()] if not self.at(")") else []
            while self.accept(","):
                params.append(self.expect_name())
            self.expect(")")
        with self.bracketed():
            self.expect("(")
            tok = self.peek()
            if tok.kind == "ident" and tok.text in _STATEMENT_KEYWORDS:
                with self.statements_inside_brackets():
                    body: ir.Expr | ir.Block = self.block(frozenset({")"}))
            else:
                body = self.expression()
            self.expect(")")
        return ir.Lambda(tuple(params), body)


def _is_lvalue(expr: ir.Expr) -> bool:
    if isinstance(expr, ir.Name):
        return True
    if isinstance(expr, (ir.View, ir.Field, ir.Index, ir.Slice, ir.PartSelect)):
        return _is_lvalue(expr.base)
    if isinstance(expr, ir.Concat):
        return all(_is_lvalue(part) for part in expr.parts)
    return False

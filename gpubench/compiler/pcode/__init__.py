"""AMD's per-instruction pseudocode: parser, typed tree (IR) and a reference evaluator.

    read_pseudocode(text)  -> ir.Program, or Prose when the manual's text is not code (see prose.py)
    parse(text)            -> ir.Program (raises PcodeSyntaxError)
    evaluate(program, Environment(S0=..., D0=...), library) runs one lane
"""
from gpubench.compiler.pcode.evaluator import Environment, InstructionLibrary, PcodeRuntimeError, evaluate
from gpubench.compiler.pcode.helpers import HELPERS, UnimplementedHelper
from gpubench.compiler.pcode.lexer import PcodeSyntaxError
from gpubench.compiler.pcode.parser import parse
from gpubench.compiler.pcode.prose import Prose, read_pseudocode
from gpubench.compiler.pcode.state import Array, Memory, Record, Reg
from gpubench.compiler.pcode.values import PcodeTypeError, Value

__all__ = [
    "HELPERS",
    "Array",
    "Environment",
    "InstructionLibrary",
    "Memory",
    "PcodeRuntimeError",
    "PcodeSyntaxError",
    "PcodeTypeError",
    "Prose",
    "Record",
    "Reg",
    "UnimplementedHelper",
    "Value",
    "evaluate",
    "parse",
    "read_pseudocode",
]

"""Assembling the generated module: two compilation passes, the function's signature, its return."""
from __future__ import annotations

import re
from dataclasses import dataclass

from gpubench.compiler.backend.codegen import Compiler
from gpubench.compiler.backend.operands import BackendUnsupported, Const
from gpubench.compiler.backend.ports import PortSpec
from gpubench.compiler.pcode import ir
from gpubench.compiler.pcode.evaluator import InstructionLibrary


@dataclass(frozen=True)
class Generated:
    """The generated module for one instruction and the ports of its function."""

    function: str
    source: str
    inputs: tuple[PortSpec, ...]
    outputs: tuple[PortSpec, ...]


# Port order in the generated signature: operands first, then wave state, then anything else by name.
_PORT_ORDER = ("S0", "S1", "S2", "D0", "D1", "SCC", "VCC", "EXEC", "laneId", "M0", "SIMM16", "SIMM32", "OPSEL",
               "OPSEL_HI", "NEG", "NEG_HI", "PC", "VCCZ", "EXECZ", "WAVE32", "WAVE64")


_TEMP = re.compile(r"\bt\d+\b")


def _without_dead_code(lines: list[str], results: list[str]) -> list[str]:
    """Drop temporaries nothing reads (a mask computed for statements a break made unreachable, ...).
    Every line is a comment, a call made for its effect, or ``tN = pure expression``."""
    used = set(_TEMP.findall(" ".join(results)))
    kept: list[str] = []
    for line in reversed(lines):
        target, _, expression = line.strip().partition(" = ")
        if _TEMP.fullmatch(target) and target not in used:
            continue
        used.update(_TEMP.findall(expression if _TEMP.fullmatch(target) else line))
        kept.append(line)
    kept.reverse()
    return kept


def _port_key(name: str) -> tuple[int, str]:
    return (_PORT_ORDER.index(name), "") if name in _PORT_ORDER else (len(_PORT_ORDER), name)


def generate(program: ir.Program, name: str, text: str, library: InstructionLibrary | None,
             header: str) -> Generated:
    """Compile twice: the first pass learns which ports exist and how wide; the second emits the code."""
    try:
        first = Compiler(program, name, library, specs=None)
        first.run()
        specs = {port: use.spec() for port, use in first.uses.items()}
        second = Compiler(program, name, library, specs)
        second.run()
    except BackendUnsupported as err:
        if str(err).startswith(f"{name}: "):
            raise
        raise BackendUnsupported(f"{name}: {err}") from None
    ordered = sorted(specs.values(), key=lambda spec: _port_key(spec.name))
    inputs = tuple(spec for spec in ordered if spec.is_input)
    outputs = tuple(spec for spec in ordered if spec.is_output)
    function = "".join(c if c.isalnum() else "_" for c in name)
    lines = [f"def {function}(n, {', '.join(p.name for p in inputs)}):" if inputs else f"def {function}(n):",
             '    """' + text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') + '\n    """']
    for spec in inputs:
        if spec.words:
            lines.append(f"    {spec.name} = rt.words_to_int({spec.name})")
    results = []
    for spec in outputs:
        var = second.ports[spec.name]
        value = var.value
        if isinstance(value, Const):
            results.append(f"rt.full(n, {second.ops.code(value)})")
        elif spec.words:
            results.append(f"rt.int_to_words({value.code}, {spec.words})")
        else:
            results.append(value.code)
    lines.extend(_without_dead_code(second.e.lines, results))
    lines.append(f"    return ({''.join(r + ', ' for r in results)})")
    module = [header, "import numpy as np", "", "from gpubench.compiler.backend import runtime as rt", "",
              *second.e.module_constants(), "", "", *lines, ""]
    return Generated(function, "\n".join(module), inputs, outputs)

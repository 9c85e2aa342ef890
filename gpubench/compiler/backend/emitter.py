"""Builds the source of one generated function: numbered temporaries, hoisted constants, comments.

Constants (numpy scalars, lookup tables) are hoisted to module level so a call pays nothing to make
them; every temporary is assigned once, so the generated code reads top to bottom like the pcode.
"""
from __future__ import annotations


class Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.constants: dict[str, str] = {}  # source text -> module-level name
        self._temps = 0
        self._computed: dict[str, str] = {}
        self.indent = 1

    def temp(self, code: str) -> str:
        """Assign ``code`` to a fresh temporary and return its name, or reuse the temporary that already
        holds the same code: generated code is straight-line and every temporary is assigned once from
        pure expressions, so equal code means an equal value (common-subexpression elimination)."""
        name = self._computed.get(code)
        if name is None:
            name = f"t{self._temps}"
            self._temps += 1
            self.line(f"{name} = {code}")
            self._computed[code] = name
        return name

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def comment(self, text: str) -> None:
        for part in text.splitlines():
            self.line(f"# {part}".rstrip())

    def constant(self, source: str) -> str:
        """The module-level name of a constant given by its source text (shared between uses)."""
        if source in ("np.True_", "np.False_") or source.lstrip("-").isdigit():
            return source
        name = self.constants.get(source)
        if name is None:
            name = f"_k{len(self.constants)}"
            self.constants[source] = name
        return name

    def module_constants(self) -> list[str]:
        return [f"{name} = {source}" for source, name in self.constants.items()]

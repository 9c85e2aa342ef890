"""The code labels of a loaded code object, which the debugger can break on."""
from __future__ import annotations

from gpubench.isa.codeobject import STT_FUNC, STT_NOTYPE, CodeObject


def labels(code_object: bytes, base: int) -> dict[str, int]:
    """Code labels and functions of a code object by name, at their addresses once loaded at ``base``."""
    obj = CodeObject.load(code_object)
    return {sym.name: base + sym.address for symbols in obj.section_symbols.values() for sym in symbols
            if sym.type in (STT_NOTYPE, STT_FUNC) and sym.name}

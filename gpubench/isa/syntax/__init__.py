"""LLVM's assembly syntax, one module per family of encodings (see base.FormatSyntax)."""
from __future__ import annotations

import importlib
import pkgutil

from gpubench.isa.arch import ISA
from gpubench.isa.model import Format
from gpubench.isa.syntax.base import REGISTRY, FormatSyntax

# Each family module registers its formats when imported.
for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


class NoSyntax(LookupError):
    pass


def syntax_for(isa: ISA, fmt: Format) -> FormatSyntax:
    """The syntax registered for the variant itself (e.g. VOP1_SDWA), else for its base format."""
    for name in (fmt.name, isa.root_of(fmt)):
        if name in REGISTRY:
            return REGISTRY[name]
    raise NoSyntax(f"no syntax for {isa.arch} format {fmt.name}")

<%include file="header.mako"/>\
"""ISA tables of ${arch} (${covers})."""
from gpubench.isa.${arch}.enums import ENUMS
from gpubench.isa.${arch}.formats import FORMATS
from gpubench.isa.${arch}.instructions import INSTRUCTIONS
from gpubench.isa.${arch}.pseudocode import PSEUDOCODE

ARCH = ${repr(arch)}
__all__ = ["ARCH", "ENUMS", "FORMATS", "INSTRUCTIONS", "PSEUDOCODE"]

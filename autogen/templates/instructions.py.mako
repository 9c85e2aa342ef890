<%include file="header.mako"/>\
"""Instructions of ${arch}: opcode enum, opcode value and typed operands."""
from gpubench.isa.model import InstrDef, Operand

INSTRUCTIONS: tuple[InstrDef, ...] = (
% for i in instructions:
    InstrDef(${repr(i['name'])}, ${repr(i['enum'])}, ${i['opcode']}, (
% for fname, o in sorted(i['operands'].items()):
        Operand(${repr(fname)}, ${repr(o['format'])}, ${o['bits']}, ${repr(o['type'])}),
% endfor
    )),
% endfor
)

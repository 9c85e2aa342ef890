<%include file="header.mako"/>\
"""Opcode enums per format, hardware-register ids and message ids of ${arch}."""
from enum import IntEnum
% for ename, members in enums.items():


class ${ename}(IntEnum):
% for member, value in sorted(members.items(), key=lambda kv: (kv[1], kv[0])):
    ${member} = ${value}
% endfor
% endfor

ENUMS: dict[str, type[IntEnum]] = {
% for ename in enums:
    ${repr(ename)}: ${ename},
% endfor
}

<%include file="header.mako"/>\
"""Encodings of ${arch}: bit fields, fixed bits, and the opcodes each format allows."""
from gpubench.isa.model import Field, Format

FORMATS: dict[str, Format] = {
% for name, fmt in formats.items():
    ${repr(name)}: Format(
        name=${repr(name)}, parent=${repr(fmt['parent'])}, size=${fmt['size_bytes']},
        fields=(
% for f in fmt['fields']:
            Field(${repr(f['name'])}, ${f['hi']}, ${f['lo']}, ${repr(f['kind'])}${', value=%d' % f['value'] if 'value' in f else ''}${', enum=%r' % f['enum'] if 'enum' in f else ''}),
% endfor
        ),
        allowed=frozenset(${repr(sorted(allowed[name]))}),
    ),
% endfor
}

<%include file="header.mako"/>\
"""AMD's pseudocode for each ${arch} instruction that the manual gives one for, keyed by (enum, name)."""

PSEUDOCODE: dict[tuple[str, str], str] = {
% for i in instructions:
% if i['pseudocode'] is not None:
    (${repr(i['enum'])}, ${repr(i['name'])}): ${repr(i['pseudocode'])},
% endif
% endfor
}

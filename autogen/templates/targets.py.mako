<%include file="header.mako"/>\
"""The GPU targets gpubench knows: which instruction set each uses and what differs per target."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    name: str
    arch: str  # the gpubench.isa sub-package with its tables
    wave_sizes: tuple[int, ...]  # supported, the default first
    missing: frozenset[str]  # instructions of the arch that this target lacks
    gfx_target_version: int  # as KFD's topology reports it


TARGETS: dict[str, Target] = {
% for name, t in targets.items():
    ${repr(name)}: Target(${repr(name)}, ${repr(t['arch'])}, ${repr(tuple(t['wave_sizes']))}, frozenset(${repr(sorted(t.get('missing', [])))}), ${t['gfx_target_version']}),
% endfor
}

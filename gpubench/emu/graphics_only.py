"""The instructions the emulator leaves out because they belong to the graphics pipeline, as data: each
rule names a family (the opcode enum's format) or a name prefix, what those instructions are, and why a
compute dispatch on the emulator has no use for them. `gpubench isa coverage` (coverage.py) counts an
unemulated instruction a rule matches as graphics-only, apart from the unemulated compute ones.

The rules are tried in order (the ray-intersection images before the other images).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GraphicsOnly:
    what: str  # a short name for the group, as the coverage summary prints it
    reason: str  # the unit of the graphics pipeline the instructions need, which the emulator does not model
    families: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()

    def matches(self, family: str, name: str) -> bool:
        return family in self.families or name.startswith(self.prefixes)


RULES: tuple[GraphicsOnly, ...] = (
    GraphicsOnly("ray tracing",
                 "BVH ray/box and ray/triangle intersection in the texture unit, and the traversal stack a "
                 "ray-tracing shader keeps in LDS (the manuals leave that stack's address encoding, DECODE_ADDR/"
                 "ENCODE_ADDR, and INVALID_NODE undefined)",
                 prefixes=("IMAGE_BVH", "DS_BVH_STACK")),
    GraphicsOnly("images and samplers",
                 "loads, stores, atomics and filtered samples through image and sampler descriptors: the texture "
                 "unit's formats, tiling, mip levels and filtering",
                 families=("MIMG", "VIMAGE", "VSAMPLE")),
    GraphicsOnly("exports",
                 "a vertex, geometry or pixel shader's outputs to the positions, parameters and render targets of "
                 "the fixed-function pipeline",
                 families=("EXP", "VEXPORT")),
    GraphicsOnly("pixel parameter loads",
                 "LDS_PARAM_LOAD / LDS_DIRECT_LOAD read the interpolation parameters the SPI writes into LDS for "
                 "pixel-shader waves",
                 families=("LDSDIR", "VDSDIR")),
    GraphicsOnly("GWS",
                 "global wave sync: barriers and semaphores of the SPI shared by every CU, given to a queue by the "
                 "driver (GDS resources a compute dispatch on the emulator has none of)",
                 prefixes=("DS_GWS_",)),
    GraphicsOnly("ordered counters",
                 "appends in wave-creation order, kept by the SPI's ordered-count unit for the geometry and pixel "
                 "pipelines",
                 prefixes=("DS_ORDERED_COUNT", "GLOBAL_ATOMIC_ORDERED_ADD")),
    GraphicsOnly("GS registers",
                 "the geometry pipeline's stream-out counters in GDS",
                 prefixes=("DS_ADD_GS_REG", "DS_SUB_GS_REG")),
    GraphicsOnly("ordered pixel shading",
                 "ends a pixel-shader wave of primitive-ordered pixel shading (POPS)",
                 prefixes=("S_ENDPGM_ORDERED_PS_DONE",)),
    GraphicsOnly("screen partition",
                 "the rasterizer's map of screen tiles to shader engines (4-SE partition)",
                 prefixes=("V_SCREEN_PARTITION",)),
)


def rule_for(family: str, name: str) -> GraphicsOnly | None:
    return next((rule for rule in RULES if rule.matches(family, name)), None)

"""The lane permutation of the transposing loads (gfx950's DS_READ_*_TR_*, lds.py; gfx12's
GLOBAL_LOAD_TR_B128 and _B64, global_transpose.py): each lane first reads its own bytes at its own address, E
elements of ``element_bits`` (low bits first); then in each group of G lanes, lane m's element e is element
m % E of lane (G / E) * e + m // E. The group reads E rows of G elements (G / E lanes a row) and each lane
gets its column. Lanes that EXEC disables read nothing: the lanes taking their elements get zeros."""
from __future__ import annotations

import numpy as np

from gpubench.emu.context import Context
from gpubench.emu.ops.segments import Lanes


def sources(group: int, per_lane: int) -> tuple[np.ndarray, np.ndarray]:
    """For lane m of a group and its element e ([group, per_lane]): the group's lane and element it takes."""
    m, e = np.meshgrid(np.arange(group), np.arange(per_lane), indexing="ij")
    return (group // per_lane) * e + m // per_lane, m % per_lane


def transposed(ctx: Context, waves: np.ndarray, lanes: Lanes, raw: np.ndarray, group: int,
               element_bits: int) -> np.ndarray:
    """The dwords each of ``lanes`` receives ([lanes, words]) from the bytes every lane read ([lanes, bytes])."""
    size, width = ctx.waves.wave_size, raw.shape[1]
    bits, per_lane = 8 * width, 8 * width // element_bits
    position = np.zeros(ctx.waves.count, np.intp)
    position[waves] = np.arange(len(waves))
    row = position[lanes.wave]
    read = np.zeros((len(waves), size, width), np.uint8)
    read[row, lanes.lane] = raw
    elements = np.unpackbits(read, axis=-1, bitorder="little").reshape(
        len(waves), size // group, group, per_lane, element_bits)
    source_lane, source_element = sources(group, per_lane)
    moved = elements[:, :, source_lane, source_element].reshape(len(waves), size, bits)
    return np.packbits(moved, axis=-1, bitorder="little").view(np.uint32)[row, lanes.lane]

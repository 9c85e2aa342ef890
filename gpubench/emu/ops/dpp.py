"""Data-parallel primitives (manual): the lane each lane reads its first source from, for DPP16 and DPP8.

A DPP instruction (VOP1/VOP2/VOPC/VOP3/VOP3P ``_dpp`` forms) reads src0 from another lane of the
same wave before the operation; everything else is the plain operation. Facts from AMD's ISA manuals
(RDNA3 "Data Parallel Processing", GCN/CDNA "DPP") and LLVM's DPP controls (SIDefines.h ``DppCtrl``):

DPP16 ``dpp_ctrl`` (9 bits), in rows of 16 lanes (a wave32 has 2, a wave64 4):
    0x000-0x0FF quad_perm:[a,b,c,d]  lane j reads lane 4*(j/4) + sel[j%4] (2 bits each, a first)
    0x101-0x10F row_shl:n            lane j reads lane j+n of its row
    0x111-0x11F row_shr:n            lane j reads lane j-n of its row
    0x121-0x12F row_ror:n            lane j reads lane (j-n) mod 16 of its row
    0x130/0x134/0x138/0x13C          wave_shl/rol/shr/ror:1 (GFX9/CDNA only): lane j reads j+1 / j-1 in the wave
    0x140 row_mirror                 lane j reads lane 15-j of its row
    0x141 row_half_mirror            lane j reads lane 7-j of its half row
    0x142/0x143 row_bcast:15/31      (GFX9/CDNA only) rows read lane 15 of the previous row / lane 31;
                                     gfx11 executes 0x142 too (LLVM rejects it from GFX10): every lane
                                     reads lane 0 of its row (a hardware correction, isa/corrections.py)
    0x150-0x15F row_share:n          (gfx10+; gfx90a+ row_newbcast) every lane reads lane n of its row
    0x160-0x16F row_xmask:n          (gfx10+) lane j reads lane j ^ n of its row
A source lane outside the row (or wave), or an inactive one when FI (fetch inactive) is 0, is
invalid: with BOUND_CTRL set the lane reads 0, otherwise the lane does not write its destination.
ROW_MASK/BANK_MASK bit r / b enables row r / bank b (lanes 4b..4b+3 of each row); lanes of disabled
rows or banks do not write.

DPP8 ``lane_sel_0..7`` (3 bits each): lane j reads lane 8*(j/8) + sel[j%8]. Its source is always in
range; an inactive source lane reads 0 unless FI (the DPP8FI form, src0 = 234) is set.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpubench.emu.ops import Unsupported
from gpubench.isa import corrections
from gpubench.isa.decoder import DPP8, DPP16, Instruction

ROW, BANK = 16, 4
DPP8_FI = DPP8[1]
ROW_BCAST15 = 0x142
GFX9_ONLY = (0x130, 0x134, 0x138, 0x13C, 0x142, 0x143)  # wave shifts and row broadcasts


@dataclass(frozen=True)
class LanePermutation:
    """Where each lane's src0 comes from, and which lanes may write."""

    source: np.ndarray  # int64 [lanes]: the lane read, or -1 when out of range
    enabled: np.ndarray  # bool [lanes]: row_mask/bank_mask allow the write
    zero_invalid: bool  # an invalid source reads 0 (else the lane does not write)
    fetch_inactive: bool

    def _valid(self, active: np.ndarray) -> np.ndarray:
        valid = np.broadcast_to(self.source >= 0, active.shape)
        return valid if self.fetch_inactive else valid & active[:, np.maximum(self.source, 0)]

    def permute(self, values: np.ndarray, active: np.ndarray) -> np.ndarray:
        """Each lane's value of the source VGPR ``values`` [waves, lanes(, words)]; 0 where invalid."""
        permuted = values[:, np.maximum(self.source, 0)]
        valid = self._valid(active).reshape(active.shape + (1,) * (values.ndim - 2))
        return np.where(valid, permuted, values.dtype.type(0))

    def writable(self, active: np.ndarray) -> np.ndarray:
        """The lanes that write their destination: active, enabled by the masks, and (without
        BOUND_CTRL) with a valid source."""
        writable = active & self.enabled
        return writable if self.zero_invalid else writable & self._valid(active)


def for_instruction(inst: Instruction, wave_size: int) -> LanePermutation | None:
    """The permutation of a DPP16 or DPP8 encoding; None for any other."""
    name = inst.fmt.name
    if name.endswith("_DPP16"):
        return _dpp16(inst, wave_size)
    if name.endswith("_DPP8"):
        selects = np.array([inst[f"lane_sel_{i}"] for i in range(8)])
        lanes = np.arange(wave_size)
        return LanePermutation(lanes - lanes % 8 + selects[lanes % 8], np.ones(wave_size, bool), True,
                               inst["src0"] == DPP8_FI)
    return None


def _dpp16(inst: Instruction, wave_size: int) -> LanePermutation:
    assert inst["src0"] == DPP16
    ctrl = inst["dpp"]
    gfx11_bcast15 = ctrl == ROW_BCAST15 and corrections.operand_rule(inst.isa.arch, inst.name, "dpp")
    if ctrl in GFX9_ONLY and inst.isa.arch != "cdna" and not gfx11_bcast15:
        raise Unsupported(f"{inst.name}: DPP control {ctrl:#x} exists on GFX9 only")
    lanes = np.arange(wave_size)
    row_base, j = lanes - lanes % ROW, lanes % ROW
    source = row_base if gfx11_bcast15 else _dpp16_source(ctrl, lanes, row_base, j, wave_size)
    if source is None:
        raise Unsupported(f"{inst.name}: DPP control {ctrl:#x} is reserved")
    row_enabled = (inst["row_mask"] >> (lanes // ROW % 4)) & 1
    bank_enabled = (inst["bank_mask"] >> (j // BANK)) & 1
    # GFX9 has no FI bit: its DPP never fetches from inactive lanes.
    return LanePermutation(source, (row_enabled & bank_enabled).astype(bool), bool(inst["bc"]),
                           bool(inst.get("fi", 0)))


def _dpp16_source(ctrl: int, lanes: np.ndarray, row_base: np.ndarray, j: np.ndarray, wave_size: int):
    """The source lane of each lane (-1: out of range), or None for a reserved control."""
    def in_row(k: np.ndarray) -> np.ndarray:
        return np.where((k >= 0) & (k < ROW), row_base + k, -1)

    def in_wave(k: np.ndarray) -> np.ndarray:
        return np.where((k >= 0) & (k < wave_size), k, -1)

    if ctrl <= 0xFF:  # quad_perm
        return lanes - lanes % 4 + ((ctrl >> (2 * (lanes % 4))) & 3)
    shift = ctrl & 0xF
    kind = ctrl & ~0xF
    if kind == 0x100 and shift:
        return in_row(j + shift)
    if kind == 0x110 and shift:
        return in_row(j - shift)
    if kind == 0x120 and shift:
        return row_base + (j - shift) % ROW
    if kind == 0x150:
        return row_base + shift
    if kind == 0x160:
        return row_base + (j ^ shift)
    return {
        0x130: lambda: in_wave(lanes + 1),  # wave_shl:1
        0x134: lambda: (lanes + 1) % wave_size,  # wave_rol:1
        0x138: lambda: in_wave(lanes - 1),  # wave_shr:1
        0x13C: lambda: (lanes - 1) % wave_size,  # wave_ror:1
        0x140: lambda: row_base + (ROW - 1 - j),  # row_mirror
        0x141: lambda: row_base + (j - j % 8) + (7 - j % 8),  # row_half_mirror
        0x142: lambda: np.where(row_base > 0, row_base - 1, -1),  # row_bcast:15
        0x143: lambda: np.where(lanes >= 32, 31, -1),  # row_bcast:31
    }.get(ctrl, lambda: None)()

// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// DPP16 lane movement with __builtin_amdgcn_update_dpp(old, src, ctrl, row_mask, bank_mask,
// bound_ctrl): out[op * n + i]. A row is 16 lanes, a bank 4 lanes of a row. A lane whose source is
// outside its row keeps `old` (bound_ctrl false) or reads 0 (bound_ctrl true); a lane in a row or
// bank masked off keeps `old`.
#include "common.h"

enum { QUAD_PERM, ROW_SHL, ROW_SHR, ROW_ROR, ROW_MIRROR, ROW_HALF_MIRROR, ROW_MASK, BANK_MASK, ADD_SHR, NOPS };

KERNEL void crosslane_dpp(const int *in, int *out, uint n) {
  uint i = wg_x() * 64 + tid_x();
  int x = in[i];
  out[QUAD_PERM * n + i] = __builtin_amdgcn_update_dpp(-1, x, 0x1b, 0xf, 0xf, false);  // quad_perm:[3,2,1,0]
  out[ROW_SHL * n + i] = __builtin_amdgcn_update_dpp(-1, x, 0x101, 0xf, 0xf, false);   // row_shl:1, lane 15 keeps old
  out[ROW_SHR * n + i] = __builtin_amdgcn_update_dpp(-1, x, 0x113, 0xf, 0xf, true);    // row_shr:3, lanes 0-2 read 0
  out[ROW_ROR * n + i] = __builtin_amdgcn_update_dpp(-1, x, 0x124, 0xf, 0xf, false);   // row_ror:4
  out[ROW_MIRROR * n + i] = __builtin_amdgcn_update_dpp(-1, x, 0x140, 0xf, 0xf, false);
  out[ROW_HALF_MIRROR * n + i] = __builtin_amdgcn_update_dpp(-1, x, 0x141, 0xf, 0xf, false);
  out[ROW_MASK * n + i] = __builtin_amdgcn_update_dpp(-2, x, 0x00, 0xa, 0xf, false);   // quad_perm:[0,0,0,0], rows 1, 3 only
  out[BANK_MASK * n + i] = __builtin_amdgcn_update_dpp(-3, x, 0x111, 0xf, 0x5, false); // row_shr:1, banks 0, 2 only
  out[ADD_SHR * n + i] = x + __builtin_amdgcn_update_dpp(0, x, 0x111, 0xf, 0xf, true); // foldable into v_add_*_dpp
}

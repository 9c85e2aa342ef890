// targets: gfx1100 gfx1100-w64 gfx1201
// RDNA cross-lane instructions (gfx10+; not on gfx9): out[op * n + i].
//   PERMLANE16   v_permlane16_b32: lane r*16+j reads lane r*16 + sel[j] of its own row, with the
//                16 nibble selectors sel = 0xfedcba98_76543210 rotated: sel[j] = (j + 5) % 16
//   PERMLANEX16  v_permlanex16_b32: the same selectors into the other row of the pair (0<->1, 2<->3)
//   PERMLANE64   v_permlane64_b32: lane l reads lane l ^ 32 (wave64 only; wave32 stores x itself)
//   DPP8         v_mov_b32 dpp8:[7,6,5,4,3,2,1,0]: reversed within each group of 8 lanes
//   ROW_SHARE    DPP row_share:5: every lane reads lane 5 of its row
//   ROW_XMASK    DPP row_xmask:3: lane r*16+j reads lane r*16 + (j ^ 3)
#include "common.h"

enum { PERMLANE16, PERMLANEX16, PERMLANE64, DPP8, ROW_SHARE, ROW_XMASK, NOPS };

// selector j -> (j + 5) % 16, as the two 32-bit halves v_permlane16 takes (lanes 0-7, 8-15)
#define SEL_LO 0xcba98765u
#define SEL_HI 0x43210fedu
// dpp8 selectors, 3 bits per lane of each group of 8: lane k reads 7 - k
#define DPP8_REVERSE (7 | 6 << 3 | 5 << 6 | 4 << 9 | 3 << 12 | 2 << 15 | 1 << 18 | 0 << 21)

KERNEL void crosslane_permlane(const int *in, int *out, uint n) {
  uint i = wg_x() * 64 + tid_x();
  int x = in[i];
  out[PERMLANE16 * n + i] = __builtin_amdgcn_permlane16(x, x, SEL_LO, SEL_HI, false, false);
  out[PERMLANEX16 * n + i] = __builtin_amdgcn_permlanex16(x, x, SEL_LO, SEL_HI, false, false);
#if WAVE_SIZE == 64
  out[PERMLANE64 * n + i] = __builtin_amdgcn_permlane64(x);
#else
  out[PERMLANE64 * n + i] = x;  // v_permlane64_b32 is a NOP in wave32: its result would be garbage
#endif
  out[DPP8 * n + i] = __builtin_amdgcn_mov_dpp8(x, DPP8_REVERSE);
  out[ROW_SHARE * n + i] = __builtin_amdgcn_update_dpp(-1, x, 0x155, 0xf, 0xf, false);
  out[ROW_XMASK * n + i] = __builtin_amdgcn_update_dpp(-1, x, 0x163, 0xf, 0xf, false);
}

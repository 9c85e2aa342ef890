// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Cross-lane data movement other than DPP: out[op * n + i].
//   BPERMUTE    ds_bpermute_b32: lane l reads lane (5*(l%32)+3)%32 of its own 32-lane half
//   PERMUTE     ds_permute_b32: lane l writes its value to that same lane
//   READLANE    v_readlane_b32 with a constant lane (5) and with a kernarg lane (sel)
//   FIRSTLANE   v_readfirstlane_b32 inside a branch taken by lanes l%3 == 2: the first such lane
//   WRITELANE   v_writelane_b32: lane 7 of each wave gets 1000 + its wave's index, others keep x
//   BALLOT_*    the wave's mask of lanes with x > 0, low and high 32 bits (high is 0 in wave32)
//   LANE        v_mbcnt_lo/hi: the lane's index in its wave
#include "common.h"

enum { BPERMUTE, PERMUTE, READLANE_CONST, READLANE_SGPR, FIRSTLANE, WRITELANE, BALLOT_LO, BALLOT_HI, LANE, NOPS };

KERNEL void crosslane_lanes(const int *in, int *out, int sel, uint n) {
  uint i = wg_x() * 64 + tid_x();
  uint lane = lane_id(), wave = i / WAVE_SIZE;
  int x = in[i];
  uint partner = (lane & 32) | ((5 * (lane % 32) + 3) % 32);
  out[BPERMUTE * n + i] = __builtin_amdgcn_ds_bpermute((int)partner * 4, x);
  out[PERMUTE * n + i] = __builtin_amdgcn_ds_permute((int)partner * 4, x);
  out[READLANE_CONST * n + i] = __builtin_amdgcn_readlane(x, 5);
  out[READLANE_SGPR * n + i] = __builtin_amdgcn_readlane(x, sel);
  int first = -7;
  if (lane % 3 == 2)
    first = __builtin_amdgcn_readfirstlane(x);
  out[FIRSTLANE * n + i] = first;
  int written = x;  // clang has no writelane builtin: inline asm, an SGPR source and lane 7
  asm volatile("v_writelane_b32 %0, %1, 7" : "+v"(written) : "s"(__builtin_amdgcn_readfirstlane(1000 + (int)wave)));
  out[WRITELANE * n + i] = written;
#if WAVE_SIZE == 64
  ulong mask = __builtin_amdgcn_ballot_w64(x > 0);
#else
  ulong mask = __builtin_amdgcn_ballot_w32(x > 0);
#endif
  out[BALLOT_LO * n + i] = (int)(uint)mask;
  out[BALLOT_HI * n + i] = (int)(uint)(mask >> 32);
  out[LANE * n + i] = (int)lane;
}

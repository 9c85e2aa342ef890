// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Elementwise 32-bit integer: out[op * n + i]. d is never 0, and a is never INT_MIN.
#include "common.h"

enum { ADD, SUB, MUL, MULHI, MAD, MIN, MAX, UMIN, SHL, ASHR, LSHR, SELECT, DIV, REM, UDIV, BITS, POPC, CLZ, SCALE, NOPS };

KERNEL void ew_i32(const int *a, const int *b, const int *c, const int *d, int *out, int s, uint n) {
  uint i = wg_x() * 256 + tid_x();
  if (i >= n)
    return;
  int x = a[i], y = b[i], z = c[i], w = d[i];
  out[ADD * n + i] = (int)((uint)x + (uint)y);  // wrapping, without signed-overflow UB
  out[SUB * n + i] = (int)((uint)x - (uint)y);
  out[MUL * n + i] = (int)((uint)x * (uint)y);
  out[MULHI * n + i] = (int)(((long)x * (long)y) >> 32);
  out[MAD * n + i] = (int)((uint)x * (uint)y + (uint)z);
  out[MIN * n + i] = x < y ? x : y;
  out[MAX * n + i] = x > y ? x : y;
  out[UMIN * n + i] = (int)((uint)x < (uint)y ? (uint)x : (uint)y);
  out[SHL * n + i] = (int)((uint)x << (y & 31));
  out[ASHR * n + i] = x >> (y & 31);
  out[LSHR * n + i] = (int)((uint)x >> (y & 31));
  out[SELECT * n + i] = x < y ? z : x;
  out[DIV * n + i] = x / w;  // truncating; expanded with v_rcp_iflag_f32 and corrections
  out[REM * n + i] = x % w;
  out[UDIV * n + i] = (int)((uint)x / (uint)w);
  out[BITS * n + i] = (x & y) ^ (z | s);
  out[POPC * n + i] = __builtin_popcount((uint)x);
  out[CLZ * n + i] = x ? __builtin_clz((uint)x) : 32;
  out[SCALE * n + i] = (int)((uint)s * (uint)x);
}

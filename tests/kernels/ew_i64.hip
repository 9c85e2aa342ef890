// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Elementwise 64-bit integer: out[op * n + i]. d is never 0.
#include "common.h"

enum { ADD, SUB, MUL, MAD, MIN, MAX, SHL, ASHR, LSHR, SELECT, XOR, SCALE, UDIV, NOPS };

KERNEL void ew_i64(const long *a, const long *b, const long *c, const long *d, long *out, long k, uint n) {
  uint i = wg_x() * 256 + tid_x();
  if (i >= n)
    return;
  long x = a[i], y = b[i], z = c[i], w = d[i];
  out[ADD * n + i] = (long)((ulong)x + (ulong)y);
  out[SUB * n + i] = (long)((ulong)x - (ulong)y);
  out[MUL * n + i] = (long)((ulong)x * (ulong)y);
  out[MAD * n + i] = (long)((ulong)x * (ulong)y + (ulong)z);
  out[MIN * n + i] = x < y ? x : y;
  out[MAX * n + i] = x > y ? x : y;
  out[SHL * n + i] = (long)((ulong)x << (y & 63));
  out[ASHR * n + i] = x >> (y & 63);
  out[LSHR * n + i] = (long)((ulong)x >> (y & 63));
  out[SELECT * n + i] = x < y ? z : x;
  out[XOR * n + i] = x ^ y;
  out[SCALE * n + i] = (long)((ulong)k * (ulong)x);  // an 8-byte by_value kernarg
  out[UDIV * n + i] = (long)((ulong)x / (ulong)w);   // the inline 64-bit division expansion
}

// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Elementwise unsigned 8-bit (zero-extending byte loads, byte stores): out[op * n + i].
#include "common.h"

enum { ADD, MUL, MAD, MIN, MAX, SHL, LSHR, SELECT, SATADD, ABSDIFF, NOPS };

KERNEL void ew_u8(const uchar *a, const uchar *b, const uchar *c, uchar *out, uint n) {
  uint i = wg_x() * 256 + tid_x();
  if (i >= n)
    return;
  uint x = a[i], y = b[i], z = c[i];
  out[ADD * n + i] = (uchar)(x + y);
  out[MUL * n + i] = (uchar)(x * y);
  out[MAD * n + i] = (uchar)(x * y + z);
  out[MIN * n + i] = (uchar)(x < y ? x : y);
  out[MAX * n + i] = (uchar)(x > y ? x : y);
  out[SHL * n + i] = (uchar)(x << (y & 7));
  out[LSHR * n + i] = (uchar)(x >> (y & 7));
  out[SELECT * n + i] = (uchar)(x < y ? z : x);
  out[SATADD * n + i] = (uchar)(x + y > 255 ? 255 : x + y);
  out[ABSDIFF * n + i] = (uchar)(x > y ? x - y : y - x);
}

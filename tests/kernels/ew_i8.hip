// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Elementwise signed 8-bit (sign-extending byte loads, byte stores; results wrap): out[op * n + i].
#include "common.h"

typedef signed char i8;
enum { ADD, MUL, MAD, MIN, MAX, ASHR, SELECT, SCALE, NOPS };

KERNEL void ew_i8(const i8 *a, const i8 *b, const i8 *c, i8 *out, i8 s, uint n) {
  uint i = wg_x() * 256 + tid_x();
  if (i >= n)
    return;
  int x = a[i], y = b[i], z = c[i];
  out[ADD * n + i] = (i8)(x + y);
  out[MUL * n + i] = (i8)(x * y);
  out[MAD * n + i] = (i8)(x * y + z);
  out[MIN * n + i] = (i8)(x < y ? x : y);
  out[MAX * n + i] = (i8)(x > y ? x : y);
  out[ASHR * n + i] = (i8)(x >> (y & 7));
  out[SELECT * n + i] = (i8)(x < y ? z : x);
  out[SCALE * n + i] = (i8)(s * x);  // a 1-byte by_value kernarg
}

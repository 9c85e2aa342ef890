// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Elementwise f32: out[op * n + i] for each op below; a bounds check leaves the tail lanes idle.
#include "common.h"

enum { ADD, MUL, FMA, MIN, MAX, SELECT, DIV, SCALE, CVT, ABSSUB, NOPS };

KERNEL void ew_f32(const float *a, const float *b, const float *c, float *out, float alpha, uint n) {
  uint i = wg_x() * 256 + tid_x();
  if (i >= n)
    return;
  float x = a[i], y = b[i], z = c[i];
  out[ADD * n + i] = x + y;
  out[MUL * n + i] = x * y;
  out[FMA * n + i] = __builtin_fmaf(x, y, z);
  out[MIN * n + i] = __builtin_fminf(x, y);
  out[MAX * n + i] = __builtin_fmaxf(x, y);
  out[SELECT * n + i] = x < y ? z : x;
  out[DIV * n + i] = x / y;                      // correctly rounded: v_div_scale/fmas/fixup
  out[SCALE * n + i] = alpha * x;                // a by_value float kernarg
  out[CVT * n + i] = (float)(int)(x * 100.0f);   // v_cvt_i32_f32 (truncates), v_cvt_f32_i32
  out[ABSSUB * n + i] = __builtin_fabsf(x) - y;  // |x| as a source modifier
}

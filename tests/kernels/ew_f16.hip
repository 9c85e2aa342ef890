// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Elementwise f16, two elements per work-item as a half2 (packed v_pk_* math): out[op * n + i].
#include "common.h"

typedef _Float16 half;
typedef _Float16 half2 __attribute__((ext_vector_type(2)));

enum { ADD, MUL, FMA, MIN, MAX, SELECT, SCALE, MIXFMA, NOPS };

KERNEL void ew_f16(const half2 *a, const half2 *b, const half2 *c, half2 *out, half h, uint n2) {
  uint i = wg_x() * 256 + tid_x();  // index of a half2: elements 2i and 2i+1
  if (i >= n2)
    return;
  half2 x = a[i], y = b[i], z = c[i];
  out[ADD * n2 + i] = x + y;
  out[MUL * n2 + i] = x * y;
  out[FMA * n2 + i] = __builtin_elementwise_fma(x, y, z);
  out[MIN * n2 + i] = __builtin_elementwise_minnum(x, y);
  out[MAX * n2 + i] = __builtin_elementwise_maxnum(x, y);
  half2 s;
  s.x = x.x < y.x ? z.x : x.x;
  s.y = x.y < y.y ? z.y : x.y;
  out[SELECT * n2 + i] = s;
  out[SCALE * n2 + i] = x * h;  // a 2-byte by_value kernarg
  // f16 -> f32 fma -> f16 (v_fma_mix* where the target has it): rounds twice, to f32 then f16
  half2 m;
  m.x = (half)__builtin_fmaf((float)x.x, (float)y.x, (float)z.x);
  m.y = (half)__builtin_fmaf((float)x.y, (float)y.y, (float)z.y);
  out[MIXFMA * n2 + i] = m;
}

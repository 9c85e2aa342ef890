// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Elementwise bf16 held as ushort bit patterns: widened to f32 by a shift, computed in f32,
// narrowed back with round-to-nearest-even in integer arithmetic (NaN kept quiet). out[op * n + i].
#include "common.h"

enum { ADD, MUL, FMA, MIN, MAX, SELECT, NOPS };

static __attribute__((device)) inline float bf16_to_f32(ushort h) {
  return __builtin_bit_cast(float, (uint)h << 16);
}

static __attribute__((device)) inline ushort f32_to_bf16(float f) {
  uint u = __builtin_bit_cast(uint, f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (ushort)((u >> 16) | 0x40u);  // quiet NaN, sign and payload top bits kept
  u += 0x7fffu + ((u >> 16) & 1u);       // round to nearest, ties to even
  return (ushort)(u >> 16);
}

KERNEL void ew_bf16(const ushort *a, const ushort *b, const ushort *c, ushort *out, uint n) {
  uint i = wg_x() * 256 + tid_x();
  if (i >= n)
    return;
  float x = bf16_to_f32(a[i]), y = bf16_to_f32(b[i]), z = bf16_to_f32(c[i]);
  out[ADD * n + i] = f32_to_bf16(x + y);
  out[MUL * n + i] = f32_to_bf16(x * y);
  out[FMA * n + i] = f32_to_bf16(__builtin_fmaf(x, y, z));
  out[MIN * n + i] = f32_to_bf16(__builtin_fminf(x, y));
  out[MAX * n + i] = f32_to_bf16(__builtin_fmaxf(x, y));
  out[SELECT * n + i] = x < y ? c[i] : a[i];
}

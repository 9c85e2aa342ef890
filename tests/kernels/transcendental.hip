// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// The hardware's approximate f32 functions, one instruction each, and the correctly rounded sqrtf
// expansion: out[op * n + i]. The inputs are in ranges where each is accurate (no denormals):
//   SIN, COS  v_sin_f32/v_cos_f32 take revolutions: sin(2*pi*x), x in [-1, 1]
//   EXP2      v_exp_f32 of 10x;  LOG2  v_log_f32, y in [2^-10, 2^10]
//   RCP, SQRT, RSQ  v_rcp_f32, v_sqrt_f32, v_rsq_f32 on y
//   SQRT_CR   __builtin_sqrtf: LLVM expands it around v_sqrt_f32 to a correctly rounded result
//   FRACT     v_fract_f32 on 4x (exact);  LDEXP  v_ldexp_f32(x, k), k in [-20, 20] (exact)
#include "common.h"

enum { SIN, COS, EXP2, LOG2, RCP, SQRT, RSQ, SQRT_CR, FRACT, LDEXP, NOPS };

KERNEL void transcendental(const float *xs, const float *ys, const int *ks, float *out, uint n) {
  uint i = wg_x() * 256 + tid_x();
  if (i >= n)
    return;
  float x = xs[i], y = ys[i];
  out[SIN * n + i] = __builtin_amdgcn_sinf(x);
  out[COS * n + i] = __builtin_amdgcn_cosf(x);
  out[EXP2 * n + i] = __builtin_amdgcn_exp2f(x * 10.0f);
  out[LOG2 * n + i] = __builtin_amdgcn_logf(y);
  out[RCP * n + i] = __builtin_amdgcn_rcpf(y);
  out[SQRT * n + i] = __builtin_amdgcn_sqrtf(y);
  out[RSQ * n + i] = __builtin_amdgcn_rsqf(y);
  out[SQRT_CR * n + i] = __builtin_sqrtf(y);
  out[FRACT * n + i] = __builtin_amdgcn_fractf(x * 4.0f);
  out[LDEXP * n + i] = __builtin_amdgcn_ldexpf(x, ks[i]);
}

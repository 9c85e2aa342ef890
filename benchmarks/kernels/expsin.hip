// VALU-bound: out[i] = exp(a[i]) * sin(b[i]) with the hardware's approximations (v_exp_f32, v_sin_f32).
#define KERNEL extern "C" __attribute__((global))

KERNEL void expsin(const float *a, const float *b, float *out, unsigned n) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) {
    float x = a[i] * 1.44269504f;  // exp(a) = exp2(a * log2(e))
    float turns = b[i] * 0.15915494f;  // v_sin_f32 takes turns (radians / 2pi)
    out[i] = __builtin_amdgcn_exp2f(x) * __builtin_amdgcn_sinf(turns);
  }
}

// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Global atomic max/min/or/64-bit add/f32 add and a compare-and-swap loop, each into 8 slots
// (slot = i % 8). Every final value is independent of the order the work-items run in (the f32
// adds are of small integers, exact in any order).
#include "common.h"

KERNEL void atomic_ops(const int *in, int *smax, uint *umin, uint *bits, ulong *sum64, float *fsum,
                       uint *casmul) {
  uint i = wg_x() * 256 + tid_x(), s = i % 8;
  int x = in[i];
  __hip_atomic_fetch_max(&smax[s], x, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(&umin[s], (uint)x, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_or(&bits[s], 1u << (x & 31), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(&sum64[s], (ulong)(uint)x << 16, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(&fsum[s], (float)(x & 255), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  // casmul[s] *= (x | 1), mod 2^32, with a CAS loop (multiplication commutes, so any order works)
  uint old = __hip_atomic_load(&casmul[s], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (!__hip_atomic_compare_exchange_strong(&casmul[s], &old, old * (uint)(x | 1), __ATOMIC_RELAXED,
                                               __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) {
  }
}

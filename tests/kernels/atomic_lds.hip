// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// LDS atomics: a per-workgroup histogram (ds_add_u32) and maximum (ds_max_i32) in LDS, then
// flushed to global memory with global atomics by the first 32 work-items; plus a returning LDS
// atomic that hands each work-item a distinct rank within its workgroup (a permutation of 0..255).
#include "common.h"

KERNEL void atomic_lds(const uint *in, uint *hist, int *maxes, uint *ranks) {
  SHARED uint lhist[32];
  SHARED int lmax[32];
  SHARED uint counter;
  uint t = tid_x(), i = wg_x() * 256 + t;
  if (t < 32) {
    lhist[t] = 0;
    lmax[t] = -2147483647 - 1;
  }
  if (t == 0)
    counter = 0;
  syncthreads();
  uint x = in[i];
  __hip_atomic_fetch_add(&lhist[x % 32], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_max(&lmax[(x >> 5) % 32], (int)x, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  ranks[i] = __hip_atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  syncthreads();
  if (t < 32) {
    __hip_atomic_fetch_add(&hist[t], lhist[t], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_max(&maxes[t], lmax[t], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
}

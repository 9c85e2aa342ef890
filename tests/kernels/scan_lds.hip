// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Per-workgroup inclusive prefix sum of 256 uint32 (Hillis-Steele over LDS): each step reads
// s[t - offset], waits at a barrier so every read is done, adds it to s[t], and waits again.
// out[g * 256 + t] = in[g * 256] + ... + in[g * 256 + t], mod 2^32.
#include "common.h"

#ifndef READ_BARRIER  // scan_lds_racy.hip leaves it out
#define READ_BARRIER() syncthreads()
#endif

KERNEL void scan_lds(const uint *in, uint *out) {
  SHARED uint s[256];
  uint t = tid_x(), base = wg_x() * 256;
  s[t] = in[base + t];
  syncthreads();
  for (uint offset = 1; offset < 256; offset *= 2) {
    uint v = t >= offset ? s[t - offset] : 0u;
    READ_BARRIER();
    s[t] += v;
    syncthreads();
  }
  out[base + t] = s[t];
}

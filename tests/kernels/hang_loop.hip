// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Intentionally bad: spins until *flag becomes nonzero, and nothing ever sets it (the host passes
// 0), so the dispatch never ends: for the watchdog test. The load is volatile, so the loop stays a
// real loop: a global load, a compare and a backward branch, with s_sleep in between.
#include "common.h"

KERNEL void hang_loop(volatile int *flag, int *out) {
  uint i = wg_x() * 64 + tid_x();
  while (*flag == 0)
    __builtin_amdgcn_s_sleep(1);
  out[i] = 1;
}

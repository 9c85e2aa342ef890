// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Intentionally bad: every work-item writes out[i] = i inside its buffer, then work-item 0 writes
// through the same pointer `offset` elements further on, far outside the buffer. An emulator must
// stop the dispatch with a page fault naming that address (&out[0] + 4 * offset); which of the
// in-bounds stores land first is not specified.
#include "common.h"

KERNEL void fault_oob(int *out, long offset) {
  uint i = wg_x() * 64 + tid_x();
  out[i] = (int)i;
  if (i == 0)
    out[offset] = 0x0badf00d;  // a global_store: the first store to an unmapped page
}

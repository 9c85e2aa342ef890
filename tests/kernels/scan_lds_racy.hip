// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// Deliberately broken: scan_lds.hip without the barrier between a step's reads and its writes, so a
// wave may add into s[t] before another wave has read the old value (write-after-read on LDS).
#define scan_lds scan_lds_racy
#define READ_BARRIER()
#include "scan_lds.hip"

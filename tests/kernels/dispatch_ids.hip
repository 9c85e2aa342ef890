// targets: gfx1100 gfx1100-w64 gfx1201 gfx942 gfx950
// What the dispatcher hands each work-item, in a 3D dispatch: out[field * total + linear id], where
// the linear id is ((gz * GY + gy) * GX + gx) * group size + (tz * BY + ty) * BX + tx.
//   TID_X/Y/Z  work-item ids (v0: packed 10 bits each on gfx90a+/gfx11+)
//   WG_X/Y/Z   workgroup ids (SGPRs after the user SGPRs)
//   SIZE_X/Y/Z group size from the hidden kernargs (hidden_group_size_*, code object v5)
//   NGROUPS_X  hidden_block_count_x
//   PKT_SIZE_X workgroup_size_x from the AQL dispatch packet (the dispatch_ptr SGPRs)
//   PKT_GRID_X grid_size_x (in work-items) from the AQL dispatch packet
#include "common.h"

enum { TID_X, TID_Y, TID_Z, WG_X, WG_Y, WG_Z, SIZE_X, SIZE_Y, SIZE_Z, NGROUPS_X, PKT_SIZE_X, PKT_GRID_X, NFIELDS };

// hsa_kernel_dispatch_packet_t: workgroup_size_x is a u16 at byte 4, grid_size_x a u32 at byte 12
struct packet {
  ushort header, setup, workgroup_size_x, workgroup_size_y, workgroup_size_z, reserved0;
  uint grid_size_x, grid_size_y, grid_size_z;
};

KERNEL void dispatch_ids(uint *out, uint total) {
  uint bx = __builtin_amdgcn_workgroup_size_x(), by = __builtin_amdgcn_workgroup_size_y(),
       bz = __builtin_amdgcn_workgroup_size_z();
  uint gx = __builtin_amdgcn_grid_size_x() / bx, gy = __builtin_amdgcn_grid_size_y() / by;
  uint group = (wg_z() * gy + wg_y()) * gx + wg_x();
  uint id = group * (bx * by * bz) + (tid_z() * by + tid_y()) * bx + tid_x();
  const struct packet *pkt = (const struct packet *)__builtin_amdgcn_dispatch_ptr();
  uint fields[NFIELDS] = {tid_x(), tid_y(), tid_z(), wg_x(), wg_y(), wg_z(), bx, by, bz, gx,
                          pkt->workgroup_size_x, pkt->grid_size_x};
  for (uint f = 0; f < NFIELDS; f++)
    out[f * total + id] = fields[f];
}

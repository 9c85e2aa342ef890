// Memory-bound: a plain copy, one float4 per work-item.
#define KERNEL extern "C" __attribute__((global))
typedef float float4 __attribute__((ext_vector_type(4)));

KERNEL void copy(const float4 *src, float4 *dst, unsigned n) {
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n)
    dst[i] = src[i];
}

// Reverses each row of X elements through a __local scratch buffer (MVCL local_data).
__kernel void reverse_rows(__global const float* src, __global float* dst, __local float* row)
{
    const int lid = get_local_id(0), n = get_local_size(0);
    const int base = get_group_id(0) * n;
    row[lid] = src[base + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    dst[base + lid] = row[n - 1 - lid];
}

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
// MVCL-style kernel: explicit scalars instead of JIT macros. out = src * alpha + x, with x the
// column index recovered from the width scalar w (source I.X).
__kernel void scale_rows(__global const half* src, __global half* out, int w, float alpha)
{
    const int i = get_global_id(0);
    out[i] = src[i] * (half)alpha + (half)(i % w);
}

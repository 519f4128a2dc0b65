// Two stages for one layer: stage 0 writes the mean of each (b, f) plane into a buffer,
// stage 1 subtracts it. The NHWC (BYXF) layout puts F innermost.
__kernel void plane_mean(__global const float* src, __global float* means, int c, int hw)
{
    const int bf = get_global_id(0);
    const int b = bf / c, f = bf % c;
    float sum = 0.0f;
    for (int i = 0; i < hw; i++)
        sum += src[(b * hw + i) * c + f];
    means[bf] = sum / hw;
}

__kernel void subtract_mean(__global const float* src, __global const float* means,
                            __global float* dst, int c, int h, int w)
{
    const int i = get_global_id(0);
    const int b = i / (h * w * c);
    dst[i] = src[i] - means[b * c + i % c];
}

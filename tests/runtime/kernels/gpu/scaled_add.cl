// out = in0 + in1 * COEFFS[f]; the work size is rounded up to a multiple of 4 along X, so
// the kernel guards its range. NUM_INPUTS and INPUT1_DIMS come from the built-ins.
__kernel void scaled_add(const __global INPUT0_TYPE* a, const __global INPUT1_TYPE* b,
                         __global OUTPUT0_TYPE* out)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    const int bf = get_global_id(2);
#if NUM_INPUTS != 2 || GLOBAL_WORKSIZE_SIZE != 3 || LOCAL_WORKSIZE_SIZE != 3
#error "unexpected built-ins"
#endif
    if (x >= INPUT1_DIMS[3])
        return;
    const int f = bf % INPUT1_DIMS[1];
    const int i = bf * INPUT1_DIMS[2] * INPUT1_DIMS[3] + y * INPUT1_DIMS[3] + x;
    out[i] = a[i] + b[i] * COEFFS[f];
}

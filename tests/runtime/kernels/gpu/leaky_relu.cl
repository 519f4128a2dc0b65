// Leaky ReLU in the shape of the GPU plugin's documented example: 3D work items (X, Y, B*F),
// indexing through the pitches so any Tensor format works.
__kernel void leaky_relu(const __global INPUT0_TYPE* input, __global OUTPUT0_TYPE* output)
{
    const uint x = get_global_id(0);
    const uint y = get_global_id(1);
    const uint bf = get_global_id(2);
    const uint f = bf % OUTPUT0_DIMS[1];
    const uint b = bf / OUTPUT0_DIMS[1];
    const uint in_id = b * INPUT0_PITCHES[0] + f * INPUT0_PITCHES[1] + y * INPUT0_PITCHES[2]
                     + x * INPUT0_PITCHES[3] + INPUT0_OFFSET;
    const uint out_id = b * OUTPUT0_PITCHES[0] + f * OUTPUT0_PITCHES[1] + y * OUTPUT0_PITCHES[2]
                      + x * OUTPUT0_PITCHES[3] + OUTPUT0_OFFSET;
    INPUT0_TYPE value = input[in_id];
    output[out_id] = value < 0 ? value * neg_slope : value;
}

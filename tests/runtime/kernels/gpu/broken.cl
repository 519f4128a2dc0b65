__kernel void broken(const __global float* input, __global float* output)
{
    output[get_global_id(0)] = input[get_global_id(0)] + undeclared_value;
}

"""The runtime shim: read IR v10/v11 and execute it with the ops' numpy evaluate, plus
user kernels (CPU libraries, GPU/VPU OpenCL)."""

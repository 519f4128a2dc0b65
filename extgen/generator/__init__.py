"""The extension generator: one op description rendered into MO extensions and CPU/GPU/VPU
kernels."""

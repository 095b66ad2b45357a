"""GPU kernels built, run and judged: `build` (host: llc, the mma count, ptxas, the manifest),
`second` (host: NVIDIA's nvcc as a second opinion on the same kernels), and, on the GPU machine,
`check` (run each kernel through CuPy and judge D against its kind's reference and bound, or
compare llc's and nvcc's D bit for bit), which reads the build through `manifest` and
`kinds`. The kernels themselves are harness.kernels'.

Nothing is imported here: `python -m harness.gpu.check DIR` needs the standard library, numpy
and CuPy, and no LLVM or pyyaml.
"""

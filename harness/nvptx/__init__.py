"""NVPTX warp-level tiled gemm: `mma.sync.aligned.m16n8k{16,8}` kernels from YAML (the seed's
TVM TIRx `gemm` lowering), their PTX through llc and ptxas, and their numerics on a CUDA GPU.

`gemm` models a case and emits its LLVM IR, `gemm_spec` reads the `gemm:` section of a spec,
`ptx` compiles and closes the kernels and writes a manifest, `gemm_lit` renders lit files,
`gpu_check` (stdlib + numpy + CuPy only) runs the PTX on a GPU, `cli` holds the commands.
Nothing is imported here, so `python -m harness.nvptx.gpu_check` needs no yaml and no LLVM.
"""

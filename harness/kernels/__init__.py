"""The GPU kernels the harness builds, as text: the NVPTX tiled gemm of the seed (`gemm`, read
from the specs' `gemm` sections by `gemm_spec`), one single-warp kernel per dense mma row
(`tiles`, placed by the PTX ISA's fragment tables in `fragments`), and the same tile kernel as
CUDA C for NVIDIA's compiler (`cuda`). `kernel` is what every one of them is: a name, an SM, its
IR and llc flags, the mma it must hold, and its entry in a build's manifest. Building and
judging them is harness.gpu's.
"""

"""Regression harness for LLVM's matrix-instruction lowering.

The flow is one-way: spec -> catalog -> cases -> emit -> run -> verdict -> report.
The package is layered by folder (docs/development.md): core/, targets/, specs/ and kernels/,
tools/, checks/ reports/ and gpu/, then the command line in this folder.
"""

__version__ = "0.1.0"

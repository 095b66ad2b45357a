"""Regression harness for LLVM's matrix-instruction lowering.

The flow is one-way: spec -> catalog -> cases -> emit -> run -> verdict -> report.
"""

__version__ = "0.1.0"

"""Tools: find the LLVM build, own every tool command line, run the cases, and turn tool output into verdicts."""

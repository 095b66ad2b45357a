"""CHECK-line generation for AMDGPU and NVPTX `llc | FileCheck` tests, byte-compatible with LLVM's
utils/update_llc_test_checks.py (its UpdateTestChecks output format, DEFAULT_VERSION 6).

    from harness.checks import autogen
    result = autogen.update(Path("test.ll"), "/usr/lib/llvm-22/bin/llc")
    if result.changed and not result.refused:
        files.write_atomically(result.path, result.new_text, result.old_text.encode())

Modules: `options` (UTC_ARGS and the NOTE header), `runs` (which RUN lines count, running them
without a shell), `scrub` (llc's assembly cut into normalised function bodies), `layout` (bodies
merged per prefix and laid out as CHECK lines), `update` (the file rewrite).
"""

from harness.checks.autogen.update import FunctionChange, NoCode, Update, update

__all__ = ["FunctionChange", "NoCode", "Update", "update"]

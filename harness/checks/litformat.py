"""lit test format that turns the known bugs of the LLVM version under test into XFAILs.

Lives in the package (not lit.cfg.py) because lit pickles the format to its worker processes.
"""

from __future__ import annotations

import os

import lit.formats

from harness.specs import known_bugs


class KnownBugShTest(lit.formats.ShTest):
    """ShTest whose files listed for this exact LLVM version are expected to fail, with why."""

    def __init__(self, version: str, known: dict, cases_dir: str):
        super().__init__(execute_external=False)
        self.version, self.known, self.cases_dir = version, known, cases_dir

    def execute(self, test, lit_config):
        # (a file `harness lit` linked into a suite of its own is known by where it lives)
        relpath = os.path.relpath(os.path.realpath(test.getSourcePath()), os.path.realpath(self.cases_dir))
        reason = known_bugs.reason_for(self.known, self.version, relpath)
        if reason:
            test.xfails.append("*")
        result = super().execute(test, lit_config)
        if reason:
            result.output = f"known bug in LLVM {self.version}: {reason}\n\n{result.output}"
        return result

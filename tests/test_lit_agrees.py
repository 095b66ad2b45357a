"""lit and the harness judge every generated file alike, on two real builds: lit's result per
file (PASS, XFAIL, FAIL, XPASS, UNSUPPORTED) is what the harness's judgments of the file's cells
say (`expectations.file_results`), so `bisect-run` (which votes on those judgments) and lit never
disagree on a file."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from harness.reports import expectations
from harness.specs import known_bugs

_RESULT = re.compile(
    r"^(PASS|FAIL|XFAIL|XPASS|UNSUPPORTED): matrix-lowering :: cases/generated/(\S+?)(?: \(\d+ of \d+\))?$", re.M
)


@pytest.mark.parametrize("version", ["22", "19"])
def test_lit_and_the_harness_judge_every_generated_file_alike(cli, lit_exe, repo_root, version):
    bin_dir = Path(f"/usr/lib/llvm-{version}/bin")
    if not (bin_dir / "llc").exists():
        pytest.skip(f"no llvm-{version} (ci/setup.sh --test installs it)")
    env = {**os.environ, "LLVM_DISABLE_SYMBOLIZATION": "1"}
    lit = subprocess.run(
        [lit_exe, "--show-all", "--param", f"llvm_bin={bin_dir}", str(repo_root / "cases" / "generated")],
        capture_output=True, text=True, cwd=repo_root, env=env,
    )  # fmt: skip
    assert lit.returncode in (0, 1), lit.stderr[-3000:]
    by_lit = {name: result for result, name in _RESULT.findall(lit.stdout)}
    assert len(by_lit) > 1000, lit.stdout[-2000:]
    run = cli("run", "--llvm-bin", bin_dir, "--json")
    assert run.returncode in (0, 1), run.stderr[-3000:]
    doc = json.loads(run.stdout)
    judged = [_Judged(c["file"], expectations.Judgment(c["judgment"])) for c in doc["cases"]]
    by_harness = expectations.file_results(judged, known_bugs.load(repo_root / "cases"), doc["llvm"])  # type: ignore[arg-type]
    # Files the harness does not run (the gemm kernels, a snapshot's pinned text) are lit's alone.
    compared = {n: r for n, r in by_lit.items() if n in by_harness}
    differ = {n: (r, by_harness[n]) for n, r in compared.items() if by_harness[n] != r}
    assert differ == {}, f"{len(differ)} files: " + "; ".join(
        f"{n}: lit {a}, harness {b}" for n, (a, b) in list(differ.items())[:10]
    )
    assert len(compared) > 1000


class _Judged:
    def __init__(self, file: str, judgment):
        self.file, self.judgment = file, judgment

"""lit and the harness judge every generated file alike, on two real builds: lit's result per
file (PASS, XFAIL, FAIL, XPASS, UNSUPPORTED) is what the harness's judgments of the file's cells
say (`expectations.file_results`), so `bisect-run` (which votes on those judgments) and lit never
disagree on a file."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import Counter
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


# ---- the space of a build as lit tests (--param space=full / representative) ------------------

_SPACE = re.compile(
    r"^(PASS|FAIL|XFAIL|UNSUPPORTED|UNRESOLVED): matrix-lowering :: cases/space/(\w+)/(\S+?)(?: \(\d+ of \d+\))?$", re.M
)
NAMES = ("mfma.f32.32x32x8f16", "wmma.f32.16x16x16.f16", "mma.m8n8k4.row.col.f16.f16")


def _lit_space(lit_exe, repo_root, space: str, *params: str):
    env = {**os.environ, "LLVM_DISABLE_SYMBOLIZATION": "1"}
    names = "|".join(re.escape(n) for n in NAMES)
    return subprocess.run(
        [lit_exe, "-a", "--param", f"space={space}", *params, "--filter", f"cases/space/\\w+/({names})$", str(repo_root / "cases")],
        capture_output=True, text=True, cwd=repo_root, env=env,
    )  # fmt: skip


@pytest.mark.parametrize("space", ["full", "representative"])
def test_lit_s_space_tests_are_harness_run_s_space(llvm_22_1_8, cli, lit_exe, repo_root, space):
    """One lit test per name holds exactly the cells `harness run --space` runs for it, with the
    same counts: XFAIL where the worst is a known bug."""
    lit = _lit_space(lit_exe, repo_root, space)
    assert lit.returncode == 0, lit.stdout[-3000:] + lit.stderr[-2000:]
    results = {name: result for result, _, name in _SPACE.findall(lit.stdout)}
    assert set(results) == set(NAMES), lit.stdout[-2000:]
    for name in NAMES:
        run = cli("run", "--space", space, "--intrinsic", name, "--json")
        assert run.returncode == 0, run.stderr[-2000:]
        doc = json.loads(run.stdout)
        counts = Counter({expectations.Judgment(k): v for k, v in doc["judgments"].items()})
        assert sum(counts.values()) > 10 and expectations.summary(counts) in _output(lit.stdout, name), name
        assert results[name] == ("XFAIL" if counts[expectations.Judgment.KNOWN_BUG] else "PASS")


def _output(stdout: str, name: str) -> str:
    """What lit printed for one space test (-a: a failing test's output between its banners,
    another's after its result line)."""
    where = re.escape("matrix-lowering :: cases/space/") + r"\w+/" + re.escape(name)
    found = re.search(rf"^\*+ TEST '{where}' \w+ \*+$", stdout, re.M) or re.search(rf"^\w+: {where} \(.*$", stdout, re.M)
    assert found, name
    rest = stdout[found.end() :]
    return rest[: rest.index("********************")]


def test_lit_s_space_test_fails_on_an_unexpected_cell_and_says_which(llvm_22_1_8, lit_exe, repo_root):
    lit = _lit_space(lit_exe, repo_root, "representative", "--param", "known_bugs=off")
    assert lit.returncode == 1, lit.stderr[-2000:]
    results = {name: result for result, _, name in _SPACE.findall(lit.stdout)}
    assert results["mfma.f32.32x32x8f16"] == "FAIL"
    assert re.search(r"^UNEXPECTED: mfma_f32_32x32x8f16\w* \[(sdag|gisel), gfx600, -O0\]: ", lit.stdout, re.M)


def test_an_unknown_space_is_a_configuration_error(lit_exe, repo_root):
    lit = subprocess.run(
        [lit_exe, "--param", "space=ful", str(repo_root / "cases")], capture_output=True, text=True, cwd=repo_root
    )
    assert lit.returncode == 2 and "--param space takes files, representative or full, not 'ful'" in lit.stderr
    assert "Traceback" not in lit.stderr

"""A file known-bugs.yaml lists is judged whole, as lit judges it, in every command: its cells are
the cells of the file lit has (grouped as `expand` writes it, whatever the run narrows to), an
unexpected pass (lit's XPASS) is said only of a run that judged every cell of that file, never of
part of it nor of a name lit has no file for, and `report` judges a file whole again over the
merged records of its shards.

The commands run from a private checkout (the harness package this Python imports, with
lit.cfg.py beside a cases/ of the test's own), so `harness try` and lit see the test's
known-bugs.yaml; pointed at another checkout through PYTHONPATH, the tests judge that one."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import json_at, lit_results, one_line_exit_2

# A row of an NVPTX cohort (the rows LLVM declares together share one lit file) that passes on
# 22.1.8; an entry listing the row's own file makes `expand` split it out of the cohort's file.
ROW = "mma.m16n8k16.row.col.f16.f16"
ROW_FILE = f"{ROW}.sm_80.O0.exact.ll"
COHORT_FILE = "mma.ptx70.llvm14.sm_80.O0.exact.ll"
COHORT_SPEC = f"matrix:\n  - intrinsic: [{ROW}, mma.m16n8k16.row.col.f32.f32]\n    cpu: sm_80\n    opt: 0\n"
ROW_LISTED = f'"22.1.8":\n  - files: generated/{ROW_FILE}\n    reason: planted, the row alone\n'

# GlobalISel aborts on the bf16 gfx950 MFMA, SelectionDAG selects it: lit XFAILs its file.
BF16 = "mfma.f32.16x16x32.bf16"
BF16_FILE = f"{BF16}.gfx950.O0.exact.ll"

# Four cases of one exact file (the immargs at their highest values), in both shards of two. On
# gfx950 every value of the fields is one the ISA allows (no document limits CDNA4's further).
MFMA = "mfma.f32.32x32x8f16"
MFMA_FILE = f"{MFMA}.gfx950.O0.exact.ll"
MFMA_SPEC = "".join(f"  - intrinsic: {MFMA}\n    cpu: gfx950\n    opt: 0\n{extra}" for extra in ("", "    immarg: high\n"))


def _checkout(root: Path, files: dict[str, str]) -> Path:
    """root: the harness package under test and lit.cfg.py, and a cases/ holding `files`."""
    import harness

    source = Path(harness.__file__).resolve().parent
    shutil.copytree(source, root / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(source.parent / "lit.cfg.py", root / "lit.cfg.py")
    (root / "cases").mkdir()
    for name, text in files.items():
        (root / "cases" / name).write_text(text)
    return root


def _expanded(cli, root: Path) -> set[str]:
    proc = cli("expand", "--cases", "cases", cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {p.name for p in (root / "cases" / "generated").glob("*.ll")}


def _judged(doc: dict) -> dict[tuple[str, str], tuple[str, str, bool]]:
    """(function, selector) -> (file, judgment, unexpected pass) of a run document's cells."""
    return {(c["function"], c["selector"]): (c["file"], c["judgment"], "unexpected_pass" in c) for c in doc["cases"]}


# ---- 1. a row listed by its own file: judged by the file lit has, in every command -------------


@pytest.mark.usefixtures("nvptx_tc", "ptxas_path")
def test_a_row_listed_by_its_own_file_is_an_unexpected_pass_in_every_command_as_inlit_results(
    llvm_22_1_8, cli, lit_exe, tmp_path
):
    root = _checkout(tmp_path / "co", {"rows.yaml": COHORT_SPEC, "known-bugs.yaml": ROW_LISTED})
    assert {ROW_FILE, COHORT_FILE} <= _expanded(cli, root)
    assert lit_results(lit_exe, root) == {ROW_FILE: "XPASS", COHORT_FILE: "PASS"}

    status, doc = json_at(cli, root, "run", "--cases", "cases")
    row = {k: v for k, v in _judged(doc).items() if k[0].startswith("mma_m16n8k16_row_col_f16_f16_") and k[1] == "sdag"}
    assert status == 1 and set(row.values()) == {(ROW_FILE, "unexpected", True)}, row
    others = {v for k, v in _judged(doc).items() if k not in row and v[1] != "not-judged"}
    assert others == {(COHORT_FILE, "expected", False)}, others

    tried = cli("try", "--intrinsic", ROW, "--cpu", "sm_80", cwd=root)
    assert tried.returncode == 1 and "unexpected pass: the known bug no longer reproduces" in tried.stdout, tried.stdout
    assert f"lists {ROW_FILE}" in tried.stdout, tried.stdout

    status, matrix = json_at(cli, root, "matrix", "--cases", "cases", "--intrinsic", ROW)
    assert [c["judgments"] for c in matrix["cells"] if c["selector"] == "sdag"] == [["unexpected"]], matrix["cells"]

    step = cli("bisect-run", "--llvm-bin", llvm_22_1_8.bin_dir, "--cases", "cases", "--intrinsic", ROW, cwd=root)
    assert "(0 expected, 0 known bug, 1 unexpected, 0 not judged" in step.stdout, step.stdout + step.stderr[-2000:]


def test_a_failing_row_listed_by_its_own_file_is_a_known_bug_whatever_grouping_the_judge_is_given(spec_dir):
    """The Judge holds a cell against the file lit has for it, not the name its caller's groups
    give it: the row's file is listed, the cohort's (which lit no longer has it in) is not."""
    from harness.core import verdicts as V
    from harness.core.commands import Selector
    from harness.reports import expectations
    from harness.specs import cases, matrix
    from harness.tools.runner import Outcome

    where = spec_dir({"rows.yaml": COHORT_SPEC, "known-bugs.yaml": ROW_LISTED})
    planned = matrix.plan(matrix.spec_files(where))
    row = next(p.case for p in planned if p.case.intrinsic.name == ROW)
    failed = Outcome(row, Selector.SDAG, V.Verdict(V.MC_REJECT, "ptxas: error"))
    for groups in (cases.group(planned), cases.group(planned, lambda name: name)):  # (cohort's file, every row its own)
        judged = expectations.Judge(where, "22.1.8", groups)(failed)
        assert (judged.judgment, judged.file, judged.reason) == ("known-bug", ROW_FILE, "planted, the row alone")


def test_every_command_groups_its_cells_through_the_function_expand_writes_lit_files_with(repo_root):
    """`cases.group` without the known bugs names a cohort's file where `expand` may have split a
    row out: no command calls it but the one function (`expand.lit_groups`)."""
    calls = {
        str(path.relative_to(repo_root))
        for folder in ("harness", "ci")
        for path in (repo_root / folder).rglob("*.py")
        if re.search(r"\bcases\.group\(|\bimport\b[^\n]*\bgroup\b", path.read_text())
    }
    assert calls == {"harness/checks/expand.py"}, calls


# ---- 2. a run of one selector of a listed file cannot tell ------------------------------------


def test_one_selector_of_a_listed_file_is_never_an_unexpected_pass_and_names_the_file_lit_has(
    llvm_22_1_8, cli, lit_exe, tmp_path
):
    """A glob ending in `*` also matches the name a file of one selector would have
    (`...exact.sdag.ll`), which lit has no file of: the SelectionDAG cell is held against the
    file lit has, both selectors, and one selector of it is not the whole file."""
    spec = f"matrix:\n  - intrinsic: {BF16}\n    cpu: gfx950\n    opt: 0\n"
    listed = f'"22.1.8":\n  - files: generated/{BF16}.*.exact*.ll\n    reason: planted, GlobalISel aborts\n'
    root = _checkout(tmp_path / "co", {"bf16.yaml": spec, "known-bugs.yaml": listed})
    assert BF16_FILE in _expanded(cli, root)
    assert lit_results(lit_exe, root) == {BF16_FILE: "XFAIL"}

    tried = cli("try", "--intrinsic", BF16, "--cpu", "gfx950", "--selector", "sdag", cwd=root)
    assert tried.returncode == 0 and "judged:  expected" in tried.stdout, tried.stdout + tried.stderr[-2000:]
    status, doc = json_at(cli, root, "run", "--cases", "cases", "--selector", "sdag")
    assert status == 0 and set(_judged(doc).values()) == {(BF16_FILE, "expected", False)}, doc["cases"]
    status, doc = json_at(cli, root, "run", "--cases", "cases")
    assert status == 0 and {v[1] for v in _judged(doc).values()} == {"expected", "known-bug"}, doc["cases"]


# ---- 3. report: a listed file judged whole over the merged shards ------------------------------


@pytest.fixture(scope="module")
def shards(tmp_path_factory, llvm_22_1_8, cli):
    """The run documents of a listed exact file that passes (4 cases, 8 cells): the whole run and
    its two shards, each shard holding part of the file."""
    listed = f'"22.1.8":\n  - files: generated/{MFMA_FILE}\n    reason: planted\n'
    root = _checkout(tmp_path_factory.mktemp("shards") / "co", {"m.yaml": "matrix:\n" + MFMA_SPEC, "known-bugs.yaml": listed})
    docs = {}
    for command in ("run", "matrix"):
        for name, shard in (("whole", ()), ("s1", ("--shard", "1/2")), ("s2", ("--shard", "2/2"))):
            proc = cli(command, "--cases", "cases", *shard, "--json", cwd=root)
            assert proc.returncode in (0, 1), proc.stderr[-3000:]
            docs[command[0] + name] = root / f"{command}-{name}.json"
            docs[command[0] + name].write_text(proc.stdout)
    return root, docs


def test_report_of_every_shard_of_a_listed_file_that_passes_is_an_unexpected_pass_as_the_whole_run(cli, shards):
    root, docs = shards
    whole = json.loads(docs["rwhole"].read_text())
    assert whole["judgments"]["unexpected"] == 8 and {c["file_cells"] for c in whole["cases"]} == {8}
    for shard in ("rs1", "rs2"):  # each shard sees part of the file: it cannot tell
        doc = json.loads(docs[shard].read_text())
        assert 0 < len(doc["cases"]) < 8 and doc["judgments"]["unexpected"] == 0, doc["judgments"]
    text = cli("report", docs["rs1"], docs["rs2"], cwd=root)
    assert text.returncode == 1 and "0 expected, 0 known bug, 8 unexpected, 0 not judged" in text.stdout, text.stdout
    assert text.stdout.count("the known bug no longer reproduces") == 8, text.stdout
    merged = json.loads(cli("report", docs["rs1"], docs["rs2"], "--json", cwd=root).stdout)
    assert merged["cases"] == whole["cases"] and merged["judgments"] == whole["judgments"]
    alone = json.loads(cli("report", docs["rwhole"], "--json", cwd=root).stdout)
    assert alone == whole  # (one unsharded run: as it judged itself)


def test_report_of_every_shard_of_a_matrix_judges_a_listed_file_whole_as_the_whole_matrix(cli, shards):
    root, docs = shards
    whole = json.loads(docs["mwhole"].read_text())
    assert [c["judgments"] for c in whole["cells"]] == [["unexpected"]] * 8 and {c["file"] for c in whole["cells"]} == {MFMA_FILE}
    for shard in ("ms1", "ms2"):
        assert {j for c in json.loads(docs[shard].read_text())["cells"] for j in c["judgments"]} == {"expected"}
    proc = cli("report", docs["ms1"], docs["ms2"], "--json", cwd=root)
    assert proc.returncode == 1 and json.loads(proc.stdout)["cells"] == whole["cells"], proc.stderr[-2000:]


def test_report_never_turns_a_cell_whose_verdict_fails_into_an_expected_one(cli, shards, tmp_path):
    """A hand-edited matrix whose listed file has a failing cell judged unexpected: the file shows
    the bug, so the passing cells are no unexpected passes, and the failing one stays unexpected."""
    root, docs = shards
    doc = json.loads(docs["mwhole"].read_text())
    doc["cells"][0]["verdicts"] = ["mc-reject"]
    edited = tmp_path / "m.json"
    edited.write_text(json.dumps(doc))
    proc = cli("report", edited, "--json", cwd=root)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert [c["judgments"] for c in json.loads(proc.stdout)["cells"]] == [["unexpected"]] + [["expected"]] * 7


def test_report_of_one_shard_of_a_listed_file_keeps_its_cells_expected(cli, shards):
    root, docs = shards
    one = cli("report", docs["rs1"], cwd=root)
    assert one.returncode == 0 and " 0 unexpected," in one.stdout, one.stdout


@pytest.mark.parametrize(
    "edit, fragment",
    [
        (lambda r: r.update(file_cells=7), "disagree on the file"),
        (lambda r: r.update(listed="another reason"), "disagree on the file"),
        (lambda r: r.pop("file_cells"), "listed without file_cells"),
        (lambda r: r.update(file_cells=0), "bad file_cells"),
        (lambda r: r.pop("listed"), "exactly one of known_bug, unexpected_pass, listed"),
        (lambda r: r.update(verdict="mc-reject", judgment="unexpected"), "listed given, but judgment unexpected"),
    ],
)
def test_records_of_a_listed_file_that_contradict_each_other_are_one_line_exit_2(cli, shards, tmp_path, edit, fragment):
    _report_with_one_edited(cli, shards, tmp_path, ("rs1", "rs2", "cases"), edit, fragment)


def _report_with_one_edited(cli, shards, tmp_path, names: tuple[str, str, str], edit, fragment: str) -> None:
    """`report` of shard 1 and of shard 2 with its first entry of `names[2]` edited: one line, exit 2."""
    root, docs = shards
    first, second, entries = names
    doc = json.loads(docs[second].read_text())
    edit(doc[entries][0])
    bad = tmp_path / f"{second}.json"
    bad.write_text(json.dumps(doc))
    one_line_exit_2(cli("report", docs[first], bad, cwd=root), fragment)


@pytest.mark.parametrize(
    "edit, fragment",
    [
        (lambda c: c.update(file_cells=[7]), "disagree on the file"),
        (lambda c: c.update(file_cells=[8, 8]), "bad file_cells (a list of 1 counts"),
        (lambda c: c.update(file_cells=8), "bad file_cells (a list of 1 counts"),
        (lambda c: c.pop("file"), "bad file_cells (a listed file's cells, given with its file and judgments)"),
    ],
)
def test_matrix_cells_of_a_listed_file_that_contradict_each_other_are_one_line_exit_2(cli, shards, tmp_path, edit, fragment):
    _report_with_one_edited(cli, shards, tmp_path, ("ms1", "ms2", "cells"), edit, fragment)


# ---- 4. the space: a name lit has no file for is never an unexpected pass ----------------------


@pytest.mark.usefixtures("nvptx_tc", "ptxas_path")
def test_a_space_cohort_glob_is_never_an_unexpected_pass_for_the_rows_a_run_judged(llvm_22_1_8, cli, tmp_path):
    """`space/mma.ptx70.llvm14.sm_86.O0.exact*.ll` names the cohort's 42 rows on sm_86; a run of
    one row that passes says nothing of the others (and lit has no file of them)."""
    listed = '"22.1.8":\n  - files: space/mma.ptx70.llvm14.sm_86.O0.exact*.ll\n    reason: planted in the space\n'
    root = _checkout(tmp_path / "co", {"known-bugs.yaml": listed})
    status, doc = json_at(
        cli, root, "run", "--cases", "cases", "--space", "full", "--intrinsic", ROW, "--cpu", "sm_86", "-O", "0"
    )
    judged = [(c["verdict"], c["judgment"], "unexpected_pass" in c) for c in doc["cases"]]
    assert status == 0 and judged == [("pass", "expected", False)], doc["cases"]

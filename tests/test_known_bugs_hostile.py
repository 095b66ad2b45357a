"""known-bugs.yaml under hostile review: every command judges a listed file as lit does (a
listed file that shows the bug nowhere is an unexpected pass, XPASS), the verdict never depends
on whether `expand` has written a file yet, and a file that is not what the format says (a merge
key, a key given twice, a FIFO, a list as a key) is read as YAML reads it or refused in one
located line, exit 2, never a traceback nor a hang.

The commands run from a private checkout (the harness package this Python imports, copied with
lit.cfg.py beside a cases/ of the test's own), so `harness try`, whose specs are the checkout's
cases/, and lit see the test's known-bugs.yaml, and the tests can be pointed at another checkout
through PYTHONPATH."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import json_at, lit_results, one_line_exit_2

W = "wmma.f32.16x16x128.f8f6f4"
# Its exact FP4 sources pass under both selectors on 22.1.8; its over-wide ones are the bug the
# project pins (llvm-mc rejects the tuple).
EXACT_AND_WIDE = f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp4\n    fmt_b: fp4\n    width_a: [exact, max]\n"
EXACT = f"{W}.gfx1250.O0.exact.ll"
WIDE = f"{W}.gfx1250.O0.overwide.ll"
PLANTED = '"22.1.8":\n  - files: generated/' + W + ".gfx1250.O0.*.ll\n    reason: planted, both files listed\n"


@pytest.fixture
def checkout(tmp_path):
    """tmp/co: the harness package under test and lit.cfg.py, and an empty cases/."""
    import harness

    source = Path(harness.__file__).resolve().parent
    root = tmp_path / "co"
    shutil.copytree(source, root / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(source.parent / "lit.cfg.py", root / "lit.cfg.py")
    (root / "cases").mkdir()
    return root


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / "cases" / name).write_text(text)


def _run(cli, root: Path, *args: str) -> tuple[int, dict]:
    return json_at(cli, root, "run", "--cases", "cases", *args)


# ---- a listed file that passes: an unexpected pass, in every command as in lit ------------------


def test_a_listed_file_whose_cells_all_pass_is_an_unexpected_pass_in_run_try_bisect_andlit_results(
    llvm_22_1_8, cli, lit_exe, checkout
):
    _write(checkout, {"w.yaml": EXACT_AND_WIDE, "known-bugs.yaml": PLANTED})
    assert cli("expand", "--cases", "cases", cwd=checkout).returncode == 0
    assert lit_results(lit_exe, checkout) == {EXACT: "XPASS", WIDE: "XFAIL"}

    status, doc = _run(cli, checkout)
    by_file: dict[str, set[str]] = {}
    for c in doc["cases"]:
        by_file.setdefault(c["file"], set()).add(c["judgment"])
    assert status == 1 and by_file == {EXACT: {"unexpected"}, WIDE: {"known-bug"}}, by_file
    assert all(c["unexpected_pass"] == "planted, both files listed" for c in doc["cases"] if c["file"] == EXACT)
    text = cli("run", "--cases", "cases", cwd=checkout).stdout
    assert text.count("the known bug no longer reproduces") == 2, text

    tried = cli("try", "--intrinsic", W, "--fmt-a", "fp4", "--fmt-b", "fp4", cwd=checkout)
    lines = [line for line in tried.stdout.splitlines() if line.startswith(("sdag ", "gisel "))]
    assert tried.returncode == 1 and len(lines) == 2, tried.stdout + tried.stderr[-2000:]
    assert all("UNEXPECTED pass (the known bug no longer reproduces)" in line for line in lines), lines

    step = cli(
        "bisect-run", "--llvm-bin", llvm_22_1_8.bin_dir, "--cases", "cases", "--filter", "*__a_fp4_v8__b_fp4_v8", cwd=checkout
    )
    assert "(0 expected, 0 known bug, 2 unexpected, 0 not judged" in step.stdout, step.stdout + step.stderr[-2000:]


def test_a_run_that_sees_part_of_a_listed_file_keeps_its_passing_cells_expected(llvm_22_1_8, cli):
    """GlobalISel aborts on the bf16 gfx950 MFMA and SelectionDAG selects it: lit XFAILs the
    file. One selector's cells cannot tell whether the file shows the bug, so they stay expected."""
    intr = ("--intrinsic", "mfma.f32.16x16x32.bf16", "--cpu", "gfx950")
    both = cli("try", *intr)
    assert both.returncode == 0 and re.search(r"^sdag +pass +expected$", both.stdout, re.M), both.stdout
    assert re.search(r"^gisel +\S+ +known bug ", both.stdout, re.M), both.stdout
    one = cli("try", *intr, "--selector", "sdag")
    assert one.returncode == 0 and "judged:  expected" in one.stdout, one.stdout + one.stderr[-2000:]


# ---- a space/ glob: the same verdict before and after `expand` writes the file ------------------


def test_a_space_glob_gives_the_same_verdict_before_and_after_expand_writes_the_file(llvm_22_1_8, cli, lit_exe, checkout):
    """The specs make mfma.f32.32x32x8f16.gfx1250.O0.absent.ll (llc aborts on 22.1.8); only a
    space/ glob names it, which lit never applies to a file of its own: FAIL, so unexpected."""
    absent = "matrix:\n  - intrinsic: mfma.f32.32x32x8f16\n    cpu: absent\n"
    known = '"22.1.8":\n  - files: space/mfma.f32.32x32x8f16.*.absent.ll\n    reason: planted in the space\n'
    _write(checkout, {"a.yaml": absent, "known-bugs.yaml": known})
    before = _run(cli, checkout)
    assert cli("expand", "--cases", "cases", cwd=checkout).returncode == 0
    assert (checkout / "cases" / "generated" / "mfma.f32.32x32x8f16.gfx1250.O0.absent.ll").is_file()
    after = _run(cli, checkout)
    judged = [(c["function"], c["selector"], c["judgment"]) for c in before[1]["cases"]]
    assert judged == [(c["function"], c["selector"], c["judgment"]) for c in after[1]["cases"]]
    assert before[0] == after[0] == 1 and {j for *_, j in judged} == {"unexpected"}, judged
    assert lit_results(lit_exe, checkout) == {"mfma.f32.32x32x8f16.gfx1250.O0.absent.ll": "FAIL"}


# ---- what the file says: merge keys, keys given twice, a FIFO, a list as a key ------------------


TINY = "matrix:\n  - intrinsic: mfma.f32.32x32x8f16\n    cpu: gfx942\n    opt: 0\n    selector: sdag\n"


def _entries(spec_dir, text: str):
    from harness.specs import known_bugs

    return known_bugs.entries(spec_dir({"known-bugs.yaml": text}))


def test_a_merge_key_in_an_entry_is_read_as_yaml_reads_it(spec_dir, cli):
    text = (
        '"22.1.8":\n'
        "  - &base\n    files: generated/a.*.ll\n    reason: the shared reason\n"
        "  - <<: *base\n    files: [generated/b.*.ll, generated/c.*.ll]\n"
        "  - {<<: [*base]}\n"
    )
    got = [(e.glob, e.reason, e.line, e.col) for e in _entries(spec_dir, text)]
    assert got == [
        ("generated/a.*.ll", "the shared reason", 3, 12),
        ("generated/b.*.ll", "the shared reason", 6, 13),
        ("generated/c.*.ll", "the shared reason", 6, 31),
        ("generated/a.*.ll", "the shared reason", 3, 12),  # (where the merged glob is written)
    ]
    where = spec_dir({"t.yaml": TINY, "known-bugs.yaml": text})
    proc = cli("expand", "--cases", where)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]


@pytest.mark.parametrize(
    "text, at, fragment",
    [
        ('"22.1.8":\n  - <<: 1\n    reason: r\n', ":2:9:", "expected a mapping or list of mappings for merging"),
        # (a mapping that merges itself merges its own keys: YAML's reading, which lacks files here)
        ('"22.1.8":\n  - &e {<<: *e, reason: r}\n', ":2:5:", "this one lacks 'files'"),
        ('"22.1.8":\n  - &b {files: generated/x.ll, extra: 1}\n', ":2:32:", "unknown key 'extra' in an entry"),
    ],
)
def test_a_bad_merge_is_one_located_line(spec_dir, cli, text, at, fragment):
    where = spec_dir({"t.yaml": TINY, "known-bugs.yaml": text})
    one_line_exit_2(cli("expand", "--check", "--cases", where), f"{where / 'known-bugs.yaml'}{at}", fragment)


@pytest.mark.parametrize(
    "text, at, key",
    [
        ('"22.1.8":\n  - files: generated/a.ll\n    reason: r\n    files: generated/b.ll\n', ":4:5:", "'files'"),
        ('"22.1.8":\n  - {files: generated/a.ll, reason: r, reason: s}\n', ":2:40:", "'reason'"),
        # a duplicate inside the mapping an entry merges is refused before the merge hides it
        ('"22.1.8":\n  - <<: {files: generated/a.ll, files: generated/b.ll}\n    reason: r\n', ":2:33:", "'files'"),
        ('"22.1.8":\n  - <<: {files: generated/a.ll}\n    <<: {reason: r}\n', ":3:5:", "'<<'"),
    ],
)
def test_a_key_given_twice_in_an_entry_is_refused_where_the_second_is(spec_dir, cli, text, at, key):
    where = spec_dir({"t.yaml": TINY, "known-bugs.yaml": text})
    line = one_line_exit_2(cli("expand", "--check", "--cases", where), f"{where / 'known-bugs.yaml'}{at}", key, "twice")
    assert "first on line" in line


def test_a_fifo_as_the_known_bugs_file_is_one_line_and_never_waited_on(spec_dir):
    import harness

    where = spec_dir({"t.yaml": TINY})
    os.mkfifo(where / "known-bugs.yaml")
    checkout = Path(harness.__file__).resolve().parent.parent  # (as the `cli` fixture runs it, with a limit)
    cmd = [sys.executable, "-m", "harness", "expand", "--check", "--cases", str(where)]
    try:
        proc = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("a FIFO named known-bugs.yaml was opened and waited on")
    one_line_exit_2(proc, f"{where / 'known-bugs.yaml'}: error: not a regular file")


@pytest.mark.parametrize(
    "text, at, shown",
    [
        (
            '"22.1.8":\n  - files: generated/a.ll\n    reason: r\n    ? [a, b]\n    : 1\n',
            ":4:7:",
            "unknown key ['a', 'b'] in an entry",
        ),
        ('"22.1.8":\n  - {? {x: [1, 2]} : 1, files: a, reason: r}\n', ":2:8:", "unknown key {'x': [1, 2]} in an entry"),
        ("? [22.1.8]\n: []\n", ":1:3:", "version ['22.1.8'] is not text (YAML reads it as a seq)"),
    ],
)
def test_a_list_or_mapping_as_a_key_is_named_readably_where_it_is_written(spec_dir, cli, text, at, shown):
    where = spec_dir({"t.yaml": TINY, "known-bugs.yaml": text})
    line = one_line_exit_2(cli("expand", "--check", "--cases", where), f"{where / 'known-bugs.yaml'}{at}", shown)
    assert "None" not in line


def test_a_long_key_is_shown_cut_short(spec_dir, cli):
    key = "[" + ", ".join(f"item{i}" for i in range(500)) + "]"
    where = spec_dir({"t.yaml": TINY, "known-bugs.yaml": f'"22.1.8":\n  - {{? {key} : 1, files: a, reason: r}}\n'})
    line = one_line_exit_2(cli("expand", "--check", "--cases", where), "unknown key ['item0', 'item1', ", "...")
    assert len(line) < 400, line


# ---- the rule itself, on outcomes of a file of two cases ----------------------------------------


TWO = f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp4\n    fmt_b: [fp4, fp8]\n"


def _judge_two(spec_dir, verdicts: dict[tuple[str, str], str]) -> dict[tuple[str, str], tuple[str, bool]]:
    """(fmt_b, selector) -> (judgment, unexpected pass) of the cells given a verdict, in a file of
    two cases under both selectors that known-bugs.yaml lists."""
    from harness.core import verdicts as V
    from harness.reports import expectations
    from harness.specs import cases, matrix
    from harness.tools.runner import Outcome

    where = spec_dir({"two.yaml": TWO, "known-bugs.yaml": PLANTED})
    groups = cases.group(matrix.plan(matrix.spec_files(where)))
    assert [g.filename for g in groups] == [EXACT] and len(groups[0].members) == 2
    by_fmt = {p.case.function.rsplit("__b_", 1)[1][:3]: p.case for p in groups[0].members}
    assert set(by_fmt) == {"fp4", "fp8"}
    outcomes = [Outcome(by_fmt[f], s, V.Verdict(V.VerdictCode(v), "")) for (f, s), v in verdicts.items()]
    judged = expectations.Judge(where, "22.1.8", groups).all(outcomes)
    return {(f, s): (str(j.judgment), j.unexpected_pass) for (f, s), j in zip(verdicts, judged)}


def test_a_listed_file_is_an_unexpected_pass_only_when_every_cell_of_it_was_judged_and_passed(spec_dir):
    every = {(f, s): "pass" for f in ("fp4", "fp8") for s in ("sdag", "gisel")}
    assert set(_judge_two(spec_dir, every).values()) == {("unexpected", True)}
    # one cell shows the bug: lit's XFAIL; the passing cells are expected
    got = _judge_two(spec_dir, {**every, ("fp8", "gisel"): "mc-reject"})
    assert got.pop(("fp8", "gisel")) == ("known-bug", False) and set(got.values()) == {("expected", False)}
    # a run that judged part of the file (a case, a selector, a shard) cannot tell
    part = {k: v for k, v in every.items() if k != ("fp8", "gisel")}
    assert set(_judge_two(spec_dir, part).values()) == {("expected", False)}
    assert set(_judge_two(spec_dir, {**every, ("fp8", "gisel"): "timeout"}).values()) == {
        ("expected", False),
        ("not-judged", False),
    }


def test_the_files_the_judge_takes_lit_to_have_are_the_ones_expand_writes(repo_root):
    from harness.checks import expand, gemm_lit
    from harness.reports import expectations

    cases_dir = repo_root / "cases"
    written = set(expand.render(cases_dir)) - set(gemm_lit.gemm_lit_files(cases_dir))
    assert set(expectations.lit_files(cases_dir)) == {n for n in written if not n.startswith(expand.SNAPSHOT_PREFIX)}


def test_thousands_of_globs_cost_a_file_name_a_few_matches_and_keep_their_order(monkeypatch):
    # A known-bugs file of 8,000 globs: a file name is held against the globs whose literal
    # head it starts with, not against every glob (which took minutes over a run's files).
    from harness.specs import known_bugs

    rules = [(f"generated/nosuch{i}.*.ll", f"filler {i}") for i in range(8000)]
    rules += [("generated/mfma.*.gfx942.O[0-3].*.ll", "wide"), ("generated/mfma.f32.*.ll", "later")]
    known = {"22.1.8": rules}
    tried = []
    real = known_bugs._glob_match
    monkeypatch.setattr(known_bugs, "_glob_match", lambda path, glob: tried.append(glob) or real(path, glob))
    name = "generated/mfma.f32.32x32x8f16.gfx942.O0.exact.ll"
    assert known_bugs.reason_for(known, "22.1.8", name) == "wide"  # the first glob that matches
    assert known_bugs.reason_for(known, "22.1.8", "generated/nosuch7999.x.ll") == "filler 7999"
    assert known_bugs.reason_for(known, "22.1.8", "generated/nosuch7999.x.s") == ""
    assert known_bugs.reason_for(known, "19.1.7", name) == ""
    assert len(tried) <= 6, tried


def test_globs_that_mark_nothing_are_named_among_thousands(tmp_path):
    from harness.specs import known_bugs

    fillers = "".join(f"  - files: generated/nosuch{i}.*.ll\n    reason: filler\n" for i in range(3000))
    (tmp_path / "known-bugs.yaml").write_text(
        '"22.1.8":\n'
        "  - files: generated/a.*.ll\n    reason: first\n"
        "  - files: generated/a.O0.*.ll\n    reason: hidden by the first\n"
        "  - files: space/x.ll\n    reason: a cell, no file\n" + fillers
    )
    names = ["generated/a.O0.exact.ll", "generated/a.O2.exact.ll", "generated/nosuch5.b.ll"]
    warned = {re.search(r"'(generated/[^']+)'", w).group(1): w for w in known_bugs.idle(tmp_path, iter(names))}
    assert "generated/a.*.ll" not in warned and "generated/nosuch5.*.ll" not in warned
    assert warned["generated/a.O0.*.ll"].endswith(
        "names 1 generated file(s), each of which gets an earlier entry's XFAIL: this one marks nothing"
    )
    assert warned["generated/nosuch6.*.ll"].endswith("names no generated file: it marks nothing XFAIL")
    assert len(warned) == 1 + 2999 and ":4:12: warning: " in warned["generated/a.O0.*.ll"]


def test_an_earlier_glob_outside_generated_still_hides_a_later_one_and_a_dangling_link_is_refused(tmp_path):
    from harness.core.errors import InputError
    from harness.specs import known_bugs

    (tmp_path / "known-bugs.yaml").write_text(
        '"22.1.8":\n  - files: "*/a.ll"\n    reason: broad\n  - files: generated/a.ll\n    reason: narrow\n'
    )
    warned = known_bugs.idle(tmp_path, ["generated/a.ll"])
    assert len(warned) == 1 and "'generated/a.ll' names 1 generated file(s), each of which gets an earlier" in warned[0]
    assert known_bugs.reason_for(known_bugs.load(tmp_path), "19.1.7", "generated/a.ll") == ""  # (no entry: no index kept)
    assert not known_bugs._INDEXES or all(rules for rules, _ in known_bugs._INDEXES.values())
    (tmp_path / "known-bugs.yaml").unlink()
    (tmp_path / "known-bugs.yaml").symlink_to(tmp_path / "gone.yaml")
    with pytest.raises(InputError, match="a symbolic link to nothing"):
        known_bugs.entries(tmp_path)

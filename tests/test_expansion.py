"""Spec expansion: width policies, cartesian product, excludes, dedup, grouping, determinism."""

from __future__ import annotations

import filecmp
import re
from collections import Counter

import pytest

from harness.specs import cases, matrix

FP8, BF8, FP6, BF6, FP4 = 0, 1, 2, 3, 4
WMMA_REGS = {FP8: 16, BF8: 16, FP6: 12, BF6: 12, FP4: 8}
MFMA_REGS = {FP8: 8, BF8: 8, FP6: 6, BF6: 6, FP4: 4}
RUNTIME = {
    "wmma.f32.16x16x128.f8f6f4": ("gfx1250", WMMA_REGS, (8, 12, 16)),
    "wmma.scale.f32.16x16x128.f8f6f4": ("gfx1250", WMMA_REGS, (8, 12, 16)),
    "wmma.scale16.f32.16x16x128.f8f6f4": ("gfx1250", WMMA_REGS, (8, 12, 16)),
    "mfma.scale.f32.16x16x128.f8f6f4": ("gfx950", MFMA_REGS, (4, 6, 8)),
    "mfma.scale.f32.32x32x64.f8f6f4": ("gfx950", MFMA_REGS, (4, 6, 8)),
}
W, M = "wmma.f32.16x16x128.f8f6f4", "mfma.scale.f32.16x16x128.f8f6f4"


def expected_class(regs, fa, fb, wa, wb) -> str:
    """Independent classification: any narrow source makes it underwide, else any wide one overwide."""
    if wa < regs[fa] or wb < regs[fb]:
        return "underwide"
    return "overwide" if wa > regs[fa] or wb > regs[fb] else "exact"


@pytest.fixture(scope="module")
def runtime_plan(repo_root):
    return matrix.plan([repo_root / "cases" / "f8f6f4-runtime-formats.yaml"])


def test_shipped_runtime_spec_expands_to_1125_cases_each_under_both_selectors(runtime_plan):
    assert len(runtime_plan) == 1125 == 5 * 25 * 9
    assert {p.selectors for p in runtime_plan} == {("sdag", "gisel")}
    assert Counter(p.case.intrinsic.name for p in runtime_plan) == {name: 225 for name in RUNTIME}


@pytest.mark.parametrize("name", RUNTIME)
def test_every_format_pair_gets_every_legal_width_pair(runtime_plan, name):
    _, _, widths = RUNTIME[name]
    mine = [p.case for p in runtime_plan if p.case.intrinsic.name == name]
    pairs = Counter((c.fmt_a, c.fmt_b) for c in mine)
    assert pairs == {(a, b): 9 for a in range(5) for b in range(5)}
    for fa in range(5):
        for fb in range(5):
            got = {(c.width_a, c.width_b) for c in mine if (c.fmt_a, c.fmt_b) == (fa, fb)}
            assert got == {(a, b) for a in widths for b in widths}


@pytest.mark.parametrize("name", RUNTIME)
def test_grouping_puts_25_exact_56_overwide_144_underwide_cases_in_their_files(runtime_plan, name):
    cpu, regs, _ = RUNTIME[name]
    groups = [g for g in cases.group(runtime_plan) if g.intrinsic.name == name]
    sizes = {g.filename: len(g.members) for g in groups}
    assert sizes == {f"{name}.{cpu}.O0.exact.ll": 25, f"{name}.{cpu}.O0.overwide.ll": 56, f"{name}.{cpu}.O0.underwide.ll": 144}
    for g in groups:
        for c in g.cases:
            assert expected_class(regs, c.fmt_a, c.fmt_b, c.width_a, c.width_b) == g.file_class, c.function


def test_function_names_are_unique_and_spell_formats_and_widths(runtime_plan):
    names = [p.case.function for p in runtime_plan]
    assert len(set(names)) == len(names)
    assert "wmma_f32_16x16x128_f8f6f4__a_fp4_v16__b_fp6_v12" in names
    assert "mfma_scale_f32_32x32x64_f8f6f4__a_bf8_v4__b_bf6_v8" in names


def _plan(spec_dir, text):
    d = spec_dir({"s.yaml": text})
    return [p.case for p in matrix.plan(matrix.spec_files(d))]


@pytest.mark.parametrize("name,want", [(W, 16), (M, 8)])
def test_max_policy_picks_the_widest_legal_width_for_every_format(spec_dir, name, want):
    got = _plan(spec_dir, f"matrix:\n  - intrinsic: {name}\n    fmt_a: all\n    fmt_b: all\n    width_a: max\n    width_b: max\n")
    assert len(got) == 25
    assert {(c.width_a, c.width_b) for c in got} == {(want, want)}


@pytest.mark.parametrize(
    "name,fmt,policy,want",
    [
        (W, "fp4", "overwide", {12, 16}),
        (W, "fp6", "overwide", {16}),
        (W, "fp8", "underwide", {8, 12}),
        (W, "bf6", "underwide", {8}),
        (W, "bf8", "exact", {16}),
        (W, "fp4", "exact", {8}),
        (M, "fp4", "overwide", {6, 8}),
        (M, "fp8", "underwide", {4, 6}),
        (M, "fp6", "exact", {6}),
        (W, "fp8", 12, {12}),
        (W, "fp4", 7, {7}),
    ],
)
def test_width_policy_resolves_against_the_format_register_count(spec_dir, name, fmt, policy, want):
    got = _plan(spec_dir, f"matrix:\n  - intrinsic: {name}\n    fmt_a: {fmt}\n    fmt_b: fp8\n    width_a: {policy}\n")
    assert {c.width_a for c in got} == want
    assert {c.width_b for c in got} == {WMMA_REGS[FP8] if name == W else MFMA_REGS[FP8]}


def test_empty_policy_for_one_format_drops_only_that_format(spec_dir):
    # fp8 reads all 16 registers: no over-wide width exists for it, fp4 has two.
    got = _plan(spec_dir, f"matrix:\n  - intrinsic: {W}\n    fmt_a: [fp8, fp4]\n    fmt_b: fp8\n    width_a: overwide\n")
    assert {(c.fmt_a, c.width_a) for c in got} == {(FP4, 12), (FP4, 16)}


def test_explicit_illegal_width_is_kept_and_classed_illegal(spec_dir):
    (case,) = _plan(spec_dir, f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp8\n    fmt_b: fp8\n    width_a: 20\n")
    assert case.width_a == 20 and case.file_class == "illegal"


def test_exclude_rule_drops_only_combinations_matching_every_named_dimension(spec_dir):
    d = spec_dir(
        {
            "s.yaml": f"matrix:\n  - intrinsic: {W}\n    fmt_a: all\n    fmt_b: fp8\n"
            "    exclude:\n      - fmt_a: FP4_E2M1\n        selector: gisel\n"
        }
    )
    planned = {p.case.fmt_a: p.selectors for p in matrix.plan(matrix.spec_files(d))}
    assert planned == {
        FP8: ("sdag", "gisel"),
        BF8: ("sdag", "gisel"),
        FP6: ("sdag", "gisel"),
        BF6: ("sdag", "gisel"),
        FP4: ("sdag",),
    }


def test_exclude_by_width_policy_and_by_prefixed_intrinsic_name(spec_dir):
    got = _plan(
        spec_dir,
        f"matrix:\n  - intrinsic: [{W}, {M}]\n    fmt_a: all\n    fmt_b: all\n"
        "    width_a: [exact, overwide, underwide]\n    width_b: [exact, overwide]\n"
        "    exclude:\n      - width_b: overwide\n"
        f"      - intrinsic: llvm.amdgcn.{M}\n        fmt_a: fp6\n",
    )
    for c in got:
        regs = WMMA_REGS if c.intrinsic.name == W else MFMA_REGS
        assert c.width_b == regs[c.fmt_b], "an over-wide B survived its exclude rule"
    assert not [c for c in got if c.intrinsic.name == M and c.fmt_a == FP6]
    assert [c for c in got if c.intrinsic.name == W and c.fmt_a == FP6]
    assert len([c for c in got if c.intrinsic.name == W]) == 25 * 3  # A keeps all 3 widths


def test_case_asked_by_two_specs_runs_once_under_the_union_of_selectors(spec_dir):
    d = spec_dir(
        {
            "a.yaml": f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp4\n    fmt_b: fp4\n    selector: sdag\n",
            "b.yaml": f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp4\n    fmt_b: [fp4, fp8]\n    selector: gisel\n",
        }
    )
    planned = matrix.plan(matrix.spec_files(d))
    by_fmt = {p.case.fmt_b: p for p in planned}
    assert len(planned) == 2
    assert by_fmt[FP4].selectors == ("sdag", "gisel") and set(by_fmt[FP4].origins) == {"a.yaml", "b.yaml"}
    assert by_fmt[FP8].selectors == ("gisel",) and by_fmt[FP8].origins == ("b.yaml",)
    names = sorted(g.filename for g in cases.group(planned))
    assert names == [f"{W}.gfx1250.O0.exact.gisel.ll", f"{W}.gfx1250.O0.exact.ll"]


def test_known_bugs_file_is_not_read_as_a_spec(repo_root, spec_dir):
    names = [p.name for p in matrix.spec_files(repo_root / "cases")]
    assert "known-bugs.yaml" not in names
    assert {"f4-fixed-format.yaml", "f8f6f4-runtime-formats.yaml"} <= set(names)
    d = spec_dir(
        {
            "known-bugs.yaml": (repo_root / "cases" / "known-bugs.yaml").read_text(),
            "only.yaml": f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp8\n    fmt_b: fp8\n",
        }
    )
    assert [p.name for p in matrix.spec_files(d)] == ["only.yaml"]
    assert len(matrix.plan(matrix.spec_files(d))) == 1


def test_checked_in_generated_files_are_up_to_date(cli):
    proc = cli("expand", "--check")  # the repository's own cases/; check mode writes nothing
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1].endswith(" 0 stale")


def test_expansion_is_byte_identical_across_processes_and_hash_seeds(cli, repo_root, shipped_cases, tmp_path, llvm_22_1_8):
    # The snapshot layer is regenerated from the real llc: its bytes are those of 22.1.8.
    other = tmp_path / "other"
    other.mkdir()
    for spec in shipped_cases.glob("*.yaml"):
        (other / spec.name).write_bytes(spec.read_bytes())
    for d, seed in ((shipped_cases, "1"), (other, "4242")):
        proc = cli("expand", "--cases", d, env={"PYTHONHASHSEED": seed})
        assert proc.returncode == 0, proc.stderr

    def listing(d):
        return sorted(p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file())

    names = listing(shipped_cases / "generated")
    # Both layers: semantic files, and snapshot files regenerated from the real llc.
    assert f"{W}.gfx1250.O0.exact.ll" in names and f"{M}.gfx950.O0.underwide.ll" in names
    assert f"snapshots/{W}.gfx1250.O0.exact.ll" in names
    assert names == listing(other / "generated")
    assert names == listing(repo_root / "cases" / "generated")
    match, mismatch, errors = filecmp.cmpfiles(shipped_cases / "generated", other / "generated", names, shallow=False)
    assert mismatch == [] and errors == []
    # ...and identical to what is checked in.
    match, mismatch, errors = filecmp.cmpfiles(
        shipped_cases / "generated", repo_root / "cases" / "generated", names, shallow=False
    )
    assert mismatch == [] and errors == []


def test_check_reports_modified_missing_and_orphaned_files_and_writes_nothing(cli, shipped_cases):
    assert cli("expand", "--cases", shipped_cases).returncode == 0
    gen = shipped_cases / "generated"
    edited = gen / f"{W}.gfx1250.O0.exact.ll"
    edited.write_text(edited.read_text() + "; hand edit\n")
    (gen / f"{M}.gfx950.O0.underwide.ll").unlink()
    (gen / "orphan.ll").write_text("; no spec makes me\n")
    proc = cli("expand", "--check", "--cases", shipped_cases)
    assert proc.returncode == 1
    stale = sorted(line.split("/")[-1].split(" (")[0] for line in proc.stdout.splitlines() if line.startswith("stale: "))
    assert stale == sorted([edited.name, f"{M}.gfx950.O0.underwide.ll", "orphan.ll"])
    assert "3 stale" in proc.stdout
    assert edited.read_text().endswith("; hand edit\n") and (gen / "orphan.ll").exists()
    # A real expand repairs all three.
    assert cli("expand", "--cases", shipped_cases).returncode == 0
    assert not (gen / "orphan.ll").exists() and not edited.read_text().endswith("; hand edit\n")
    assert cli("expand", "--check", "--cases", shipped_cases).returncode == 0


# ---- exclude rules: a glob drops every entry it matches; a format rule its own side only -----


def test_an_exclude_glob_drops_every_entry_it_matches(cli, spec_dir):
    """`exclude: {intrinsic: GLOB}` drops each entry the glob names, not just the first's forms."""
    spec = 'matrix:\n  - intrinsic: ["wmma.f32.16x16x16.*", "wmma.i32.16x16x16.*"]\n    cpu: all\n    exclude: [{intrinsic: "wmma.f32.*"}]\n'
    proc = cli("expand", "--cases", spec_dir({"g.yaml": spec}), "--check")
    assert proc.returncode == 1, proc.stderr  # files to write: only the iu4/iu8 ones
    stale = [line.split("/")[-1] for line in proc.stdout.splitlines() if line.startswith("stale:")]
    assert stale and all(name.startswith("wmma.i32.16x16x16.") for name in stale), stale


def test_exclude_rules_on_one_format_leave_the_other_sources_format_alone(cli, spec_dir):
    spec = (
        "matrix:\n  - intrinsic: wmma.f32.16x16x128.f8f6f4\n    fmt_a: [fp8, fp4]\n    fmt_b: [fp8, fp4]\n"
        "    selector: sdag\n    exclude:\n      - {fmt_b: fp4}\n"
        "  - intrinsic: wmma.scale.f32.16x16x128.f8f6f4\n    fmt_a: [fp8, fp4]\n    fmt_b: [fp8, fp4]\n"
        "    selector: sdag\n    exclude:\n      - {fmt_a: fp8, fmt_b: fp4}\n"
    )
    cases = spec_dir({"x.yaml": spec})
    proc = cli("expand", "--cases", cases)
    assert proc.returncode == 0, proc.stderr
    defined = {
        m.group(1)
        for path in (cases / "generated").glob("*.ll")
        for m in re.finditer(r"^define [^@]*@([\w.]+)\(", path.read_text(), re.M)
    }
    assert defined == {
        "wmma_f32_16x16x128_f8f6f4__a_fp8_v16__b_fp8_v16",
        "wmma_f32_16x16x128_f8f6f4__a_fp4_v8__b_fp8_v16",
        "wmma_scale_f32_16x16x128_f8f6f4__a_fp8_v16__b_fp8_v16",
        "wmma_scale_f32_16x16x128_f8f6f4__a_fp4_v8__b_fp8_v16",
        "wmma_scale_f32_16x16x128_f8f6f4__a_fp4_v8__b_fp4_v8",
    }

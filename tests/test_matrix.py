"""`harness matrix` (builds side by side), its on-disk cache and `harness report` (shard merging),
on the real LLVM builds: 22.1.8 (the measured release) against llvm-14 (no gfx950/gfx1250, so
every cell `unsupported`, each reason said once) and against itself plus instcombine."""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shlex
import subprocess
import zlib
from pathlib import Path

import pytest
from conftest import one_line_exit_2

from harness.reports import compare, report
from harness.specs import cases, selection
from harness.tools import cache, toolchain
from harness.tools.runner import Runner

SPEC = "f8f6f4-runtime-formats.yaml"
W = "wmma.f32.16x16x128.f8f6f4"
# wmma with A in FP4 (reads 8 registers), every B format, every width pair, both selectors: 90 cells.
SMALL = ("--spec", SPEC, "--intrinsic", W, "--fmt-a", "fp4")
# Counted by hand: per selector, one exact pair per B format passes (5); pairs with an over-wide
# side and no under-wide one are rejected by llvm-mc (2+2+5+5+8 = 22); under-wide B by the verifier (18).
SMALL_22 = {"pass": 10, "mc-reject": 44, "verifier-reject": 36}


@pytest.fixture(scope="session")
def l14(llvm14) -> str:
    return str(llvm14)


@pytest.fixture(scope="session")
def l22(llvm_22_1_8) -> str:
    return str(llvm_22_1_8.bin_dir)


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory) -> Path:
    """One cache for the tests that are not about the cache: later runs reuse earlier answers."""
    return tmp_path_factory.mktemp("matrix-cache")


@pytest.fixture(scope="session")
def matrix(cli, shared_cache):
    def run(*args, ok: bool = True):
        proc = cli("matrix", *args, "--cache-dir", shared_cache)
        if ok:
            assert proc.returncode == 0, proc.stderr
            assert "Traceback" not in proc.stderr
        return proc

    return run


def _against_instcombine(l22) -> tuple:
    """The small selection (one intrinsic, FP4 x FP8) on 22.1.8 against 22.1.8 + instcombine."""
    return (
        "--spec",
        SPEC,
        "--intrinsic",
        W,
        "--fmt-a",
        "fp4",
        "--fmt-b",
        "fp8",
        "--llvm-bin",
        l22,
        "--llvm-bin",
        f"{l22}::instcombine",
    )


@pytest.fixture(scope="session")
def instcombine_doc(matrix, l22) -> dict:
    proc = matrix(
        *_against_instcombine(l22),
        "--json",
    )
    return json.loads(proc.stdout)


def _nonzero(counts: dict) -> dict:
    return {k: v for k, v in counts.items() if v}


# ---- builds side by side -------------------------------------------------------------------------


def test_full_runtime_format_matrix_22_against_14(matrix, l22, l14):
    doc = json.loads(matrix("--spec", SPEC, "--llvm-bin", l22, "--llvm-bin", l14, "--json").stdout)
    assert [(b["id"], b["version"], b["bin"], b["pipeline"]) for b in doc["builds"]] == [
        ("22.1.8", "22.1.8", l22, "none"),
        (doc["builds"][1]["version"], doc["builds"][1]["version"], l14, "none"),
    ]
    assert doc["builds"][1]["version"].startswith("14.")
    assert len(doc["cells"]) == 2250
    assert [_nonzero(c) for c in doc["counts"]] == [
        {"pass": 250, "mc-reject": 560, "verifier-reject": 1440},
        {"unsupported": 2250},
    ]
    assert all(c["differs"] and c["verdicts"][1] == "unsupported" for c in doc["cells"])


def test_each_column_is_what_harness_run_says_on_that_build(matrix, cli, l22, l14, shared_cache):
    doc = json.loads(matrix(*SMALL, "--llvm-bin", l22, "--llvm-bin", l14, "--json").stdout)
    assert [_nonzero(c) for c in doc["counts"]] == [SMALL_22, {"unsupported": 90}]
    for column, build in enumerate((l22, l14)):
        proc = cli("run", *SMALL, "--llvm-bin", build, "--json")
        assert proc.returncode == (0 if column == 0 else 2), proc.stderr  # (14 judges no cell: exit 2)
        run = {(r["function"], r["selector"]): (r["verdict"], r["detail"]) for r in json.loads(proc.stdout)["cases"]}
        mine = {(c["function"], c["selector"]): (c["verdicts"][column], c["details"][column]) for c in doc["cells"]}
        assert mine == run
    unsupported = {c["details"][1] for c in doc["cells"]}
    assert unsupported == {"this LLVM build does not know CPU gfx1250"}


def test_instcombine_turns_overwide_mc_rejects_into_passes(instcombine_doc, l22):
    doc = instcombine_doc
    assert [(b["id"], b["pipeline"]) for b in doc["builds"]] == [("22.1.8", "none"), ("22.1.8+instcombine", "instcombine")]
    assert len(doc["cells"]) == 18
    expected = {"overwide": ["mc-reject", "pass"], "exact": ["pass", "pass"], "underwide": ["verifier-reject"] * 2}
    for c in doc["cells"]:
        assert c["verdicts"] == expected[c["class"]], c["function"]
        assert c["differs"] == (c["class"] == "overwide")
        if c["class"] == "overwide":
            assert "wrong register tuple size" in c["details"][0] and c["details"][1] == ""
            assert "--pipeline instcombine" in c["commands"][1] and "--pipeline" not in c["commands"][0]
    assert sum(c["class"] == "overwide" for c in doc["cells"]) == 4  # A v12, v16 x sdag, gisel


def test_the_reproduce_command_gives_the_cells_verdict(instcombine_doc, cli):
    cell = next(c for c in instcombine_doc["cells"] if c["differs"] and c["selector"] == "gisel")
    for command, verdict in zip(cell["commands"], cell["verdicts"]):
        words = shlex.split(command)
        assert words[:2] == ["harness", "try"]
        proc = cli(*words[1:], "--json", "--no-object")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["verdict"] == verdict


def test_json_schema(instcombine_doc):
    doc = instcombine_doc
    assert set(doc) == {"kind", "format", "builds", "selection", "shard", "counts", "cells"}
    assert (doc["kind"], doc["format"], doc["shard"]) == ("harness-matrix", 1, None)
    assert doc["selection"] == {"spec": [SPEC], "intrinsic": [W], "fmt_a": "fp4", "fmt_b": "fp8"}
    for b in doc["builds"]:
        assert set(b) == {"id", "version", "bin", "pipeline"} and all(isinstance(v, str) for v in b.values())
    base = {
        "function",
        "intrinsic",
        "cpu",
        "opt",
        "pipeline",
        "class",
        "fmt_a",
        "fmt_b",
        "width_a",
        "width_b",
        "required_a",
        "required_b",
        "selector",
        "verdicts",
        "details",
        "metrics",
        "commands",
        "differs",
        "changed",
        "judgments",
    }
    # A cell of a file known-bugs.yaml lists on a build names the file and its cells per build
    # (0 where it is not listed: the instcombine build's cells are in no lit file), so `report`
    # can judge the file whole over shards.
    listed = [c for c in doc["cells"] if set(c) == base | {"file", "file_cells"}]
    assert listed and all(c["file_cells"][0] > 0 == c["file_cells"][1] for c in listed)
    for c in doc["cells"]:
        assert set(c) - {"file", "file_cells"} == base
        assert all(len(c[k]) == 2 for k in ("verdicts", "details", "metrics", "commands", "judgments"))
        assert set(c["judgments"]) <= {"expected", "known-bug", "unexpected", "not-judged"}
        for verdict, metrics in zip(c["verdicts"], c["metrics"]):
            if verdict in ("pass", "mc-reject"):
                assert set(metrics) == set(report.METRICS) and all(type(v) is int for v in metrics.values())
            else:
                assert metrics is None
        assert c["differs"] == (len(set(c["verdicts"])) > 1)
    assert doc["cells"] == sorted(doc["cells"], key=report.cell_order)
    for i in range(2):
        assert sum(doc["counts"][i].values()) == len(doc["cells"])
        assert doc["counts"][i]["pass"] == sum(c["verdicts"][i] == "pass" for c in doc["cells"])


def test_text_shows_the_differing_rows_then_the_summary(matrix, l22):
    args = (*_against_instcombine(l22),)
    out = matrix(*args).stdout
    rows = [l for l in out.splitlines() if l.startswith("wmma_")]
    assert len(rows) == 4 and all(re.search(r"\s(sdag|gisel)\s+mc-reject\s+pass\s+vgpr \d+>\d+", r) for r in rows)
    assert re.search(r"^22\.1\.8\s+2\s+4\s+12\s+18$", out, re.MULTILINE)  # pass, mc-reject, verifier-reject, total
    assert re.search(r"^22\.1\.8\+instcombine\s+6\s+0\s+12\s+18$", out, re.MULTILINE)
    assert (
        "4 of 18 cells change verdict between the builds that judge them; 0 differ only because a build cannot judge them" in out
    )
    assert re.search(rf"^{re.escape(W)}\s+fp4\s+fp8\s+4\s+mc-reject>pass 4$", out, re.MULTILINE)
    every = matrix(*args, "--all").stdout
    assert len([l for l in every.splitlines() if l.startswith("wmma_")]) == 18


def test_markdown(matrix, l22):
    out = matrix(
        *_against_instcombine(l22),
        "--markdown",
    ).stdout
    assert "| verdict | 22.1.8 | 22.1.8+instcombine |" in out
    assert "| mc-reject | 4 | 0 |" in out and "| **total** | 18 | 18 |" in out
    assert "**4 of 18 cells change verdict between the builds that judge them; 0 differ only because" in out
    assert f"| `{W}` | fp4 | fp8 | 4 | mc-reject → pass (4) |" in out
    tables: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith("|"):
            if not tables or not tables[-1]:
                tables.append([])
            tables[-1].append(line)
        elif tables and tables[-1]:
            tables.append([])
    for table in filter(None, tables):  # every row of a table has as many (unescaped) columns
        assert len({len(re.findall(r"(?<!\\)\|", row)) for row in table}) == 1, table
    assert sum(1 for l in out.splitlines() if l.startswith("| `wmma_")) == 4


# ---- the cache -----------------------------------------------------------------------------------


def _parse(*argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    compare.add_parser(sub)
    return parser.parse_args(["matrix", *map(str, argv)])


@pytest.fixture
def tool_runs(monkeypatch):
    """Count every tool process the harness starts (in this process)."""
    calls = []
    real = toolchain.run_tool

    def counting(argv, *args, **kwargs):
        calls.append(argv)
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(toolchain, "run_tool", counting)
    return calls


def _in_process(capsys, *argv) -> tuple[str, str]:
    assert compare.main(_parse(*argv)) == 0
    out = capsys.readouterr()
    return out.out, out.err


def test_second_run_answers_from_the_cache_and_starts_no_tool(capsys, tool_runs, tmp_path, l22):
    args = (*SMALL, "--llvm-bin", l22, "--llvm-bin", f"{l22}::instcombine", "--json", "--cache-dir", tmp_path)
    first, err = _in_process(capsys, *args)
    hits, misses = map(int, re.search(r"cache: (\d+) hits, (\d+) misses", err).groups())
    # Every tool run was a miss, and is stored (the second build asks `llc --version` again: a hit).
    assert misses == len(tool_runs) > 0
    assert len(list((tmp_path / "runs").glob("*/*.z"))) == misses
    tool_runs.clear()
    second, err = _in_process(capsys, *args)
    assert tool_runs == []
    assert f"cache: {hits + misses} hits, 0 misses" in err, err
    assert second == first
    # Bypassing the cache runs the tools again and agrees.
    third, _ = _in_process(capsys, *args[:-2], "--no-cache")
    assert len(tool_runs) >= misses and third == first


def test_runner_takes_the_cache_too(tool_runs, tmp_path, llvm_22_1_8):
    planned = selection.planned(_parse(*SMALL), direct_ok=False)
    groups = cases.group(planned)
    plain = Runner(llvm_22_1_8, 2).run(groups)
    store = cache.Cache(tmp_path)
    Runner(llvm_22_1_8, 2, cache=store).run(groups)
    tool_runs.clear()
    again = Runner(llvm_22_1_8, 2, cache=cache.Cache(tmp_path)).run(groups)
    assert tool_runs == []
    key = lambda o: (o.case.function, o.selector, o.verdict.verdict, o.verdict.detail, json.dumps(o.verdict.details))
    assert list(map(key, again)) == list(map(key, plain))


def test_a_corrupt_or_foreign_cache_entry_is_a_miss(capsys, tool_runs, tmp_path, l22):
    args = (*SMALL, "--llvm-bin", l22, "--json", "--cache-dir", tmp_path)
    first, _ = _in_process(capsys, *args)
    entries = sorted((tmp_path / "runs").glob("*/*.z"))
    assert len(entries) >= 5
    entries[0].write_bytes(entries[0].read_bytes()[:20])  # cut short
    entries[1].write_bytes(b"not zlib at all")
    entries[2].write_bytes(entries[3].read_bytes())  # another key's answer under this name
    head, packed = entries[4].read_bytes()[: cache.HEAD.size], entries[4].read_bytes()[cache.HEAD.size :]
    bad = json.loads(zlib.decompress(packed))
    bad["returncode"] = "0"
    text = json.dumps(bad).encode()  # (its head declaring the new length: only the JSON is wrong)
    magic, key, _ = cache.HEAD.unpack(head)
    entries[4].write_bytes(cache.HEAD.pack(magic, key, len(text)) + zlib.compress(text))
    entries[5].unlink()
    entries[5].mkdir()  # unreadable: a directory where the entry was
    for note in (tmp_path / "files").glob("*.json"):
        note.write_text("{")  # the remembered binary digests, broken: hashed again
    tool_runs.clear()
    second, err = _in_process(capsys, *args)
    assert second == first
    assert len(tool_runs) == 5
    assert "5 misses, 5 unreadable entries ignored" in err
    tool_runs.clear()
    third, err = _in_process(capsys, *args)
    assert third == first
    assert len(tool_runs) == 1  # the directory cannot be replaced; every other entry was rewritten


# ---- harness report: merging shards --------------------------------------------------------------


def test_matrix_shards_merge_into_the_unsharded_document(matrix, cli, tmp_path, l22, l14):
    args = (*SMALL, "--llvm-bin", l22, "--llvm-bin", l14)
    whole = matrix(*args, "--json").stdout
    paths = []
    for k in (1, 2, 3):
        path = tmp_path / f"s{k}.json"
        path.write_text(matrix(*args, "--shard", f"{k}/3", "--json").stdout)
        assert json.loads(path.read_text())["shard"] == f"{k}/3"
        paths.append(path)
    assert sum(len(json.loads(p.read_text())["cells"]) for p in paths) == 90
    merged = cli("report", *paths, "--json", "--html", tmp_path / "m.html")
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout) == json.loads(whole)
    assert (tmp_path / "m.html").read_text().startswith("<!DOCTYPE html>")
    assert cli("report", *paths).stdout == matrix(*args).stdout
    partial = cli("report", *paths[:2])
    assert partial.returncode == 0 and "shard(s) 3/3 not among the inputs" in partial.stderr


def test_run_shards_merge_into_the_unsharded_run(cli, tmp_path, l22):
    args = ("run", *SMALL, "--llvm-bin", l22)
    whole = cli(*args, "--json")
    paths = []
    for k in (1, 2):
        path = tmp_path / f"r{k}.json"
        proc = cli(*args, "--shard", f"{k}/2", "--json")
        assert proc.returncode == 0, proc.stderr
        path.write_text(proc.stdout)
        paths.append(path)
    merged = json.loads(cli("report", *paths, "--json").stdout)
    expected = json.loads(whole.stdout)
    assert merged["llvm"] == expected["llvm"] and merged["llvm_bin"] == expected["llvm_bin"]
    assert merged["cases"] == sorted(expected["cases"], key=report.cell_order)
    assert merged["judgments"] == expected["judgments"] and sum(expected["judgments"].values()) == len(expected["cases"])
    assert cli("report", *paths).stdout == cli(*args).stdout  # the same verdict table
    assert cli("report", *paths, "--by", "class").stdout == cli(*args, "--by", "class").stdout


def _judging_nothing(proc) -> str:
    """The document of a matrix whose builds judge none of its cells (llvm-14 on gfx1250): exit 2
    with the line that says so, and the document all the same."""
    assert proc.returncode == 2 and "harness matrix: error: nothing judged: " in proc.stderr, proc.stderr
    return proc.stdout


@pytest.fixture(scope="session")
def documents(matrix, cli, l22, l14, tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("docs")
    docs = {
        "m22": matrix(*SMALL, "--llvm-bin", l22, "--json").stdout,
        "m14": _judging_nothing(matrix(*SMALL, "--llvm-bin", l14, "--json", ok=False)),
        "r22": cli("run", *SMALL, "--llvm-bin", l22, "--json").stdout,
    }
    broken = json.loads(docs["m22"])
    del broken["cells"][3]["selector"]
    docs["broken"] = json.dumps(broken)
    unknown = json.loads(docs["r22"])
    unknown["cases"][1]["verdict"] = "exploded"
    docs["unknown-verdict"] = json.dumps(unknown)
    unknown = json.loads(docs["m22"])
    unknown["cells"][2]["verdicts"][0] = "Pass"
    docs["unknown-cell-verdict"] = json.dumps(unknown)
    docs["list"] = "[]"
    docs["notjson"] = "{"
    paths = {}
    for name, text in docs.items():
        paths[name] = out / f"{name}.json"
        paths[name].write_text(text)
    return paths


@pytest.mark.parametrize(
    "names, fragments",
    [
        (("m22", "m14"), ("comes from other builds", "22.1.8", "14.")),
        (("m22", "m22"), ("overlapping inputs",)),
        (("m22", "r22"), ("merge one kind",)),
        (("broken",), ("record 4 lacks selector",)),
        (("unknown-verdict",), ("record 2 (", "unknown verdict 'exploded'", "known: pass, miscompile, mc-reject")),
        (("unknown-cell-verdict",), ("record 3 (", "unknown verdict 'Pass'")),
        (("list",), ("not the --json output",)),
        (("notjson",), ("not JSON",)),
        (("missing",), ("cannot read",)),
    ],
)
def test_report_refuses_bad_inputs_with_one_line(cli, documents, names, fragments):
    paths = [documents.get(n, Path("/nonexistent") / f"{n}.json") for n in names]
    one_line_exit_2(cli("report", *paths), *fragments, notes=False)


@pytest.mark.parametrize(
    "extra, fragments",
    [
        (("--llvm-bin", "/nonexistent/bin"), ("does not exist",)),
        (("--llvm-bin", "{l22}::"), ("DIR::PIPELINE",)),
        (("--llvm-bin", "{l22}::no-such-pass"), ("pipeline 'no-such-pass'",)),
        (("--llvm-bin", "{l22}", "--llvm-bin", "{l22}"), ("already a column",)),
        (("--llvm-bin", "{l22}", "--html", "/nonexistent/m.html"), ("no such directory",)),
        (("--llvm-bin", "{l22}", "-j", "0"), ("-j",)),
        (("--llvm-bin", "{l22}", "--json", "--markdown"), ("not allowed with",)),
        (("--llvm-bin", "{l22}", "--cache-dir", "/proc/version"), ("cache directory",)),
    ],
)
def test_matrix_refuses_bad_input_with_one_line(cli, l22, extra, fragments):
    one_line_exit_2(cli("matrix", *SMALL, *(e.format(l22=l22) for e in extra)), *fragments, notes=False)


def test_build_syntax():
    assert compare.parse_build("/x/bin") == ("/x/bin", "none")
    assert compare.parse_build("/x/bin::instcombine") == ("/x/bin", "instcombine")
    assert compare.parse_build("/x/bin::function(instcombine),dce") == ("/x/bin", "function(instcombine),dce")
    for bad in ("::instcombine", "/x/bin::", "/x/bin::a b"):
        with pytest.raises(Exception) as info:
            compare.parse_build(bad)
        assert "error:" in str(info.value)


def test_a_case_pipeline_an_old_build_cannot_run_makes_unsupported_cells(matrix, l22, l14):
    # ir-normalization.yaml runs amdgpu-lower-intrinsics, a pass llvm-14's opt does not know.
    doc = json.loads(matrix("--spec", "ir-normalization.yaml", "--llvm-bin", l22, "--llvm-bin", l14, "--json").stdout)
    assert {c["pipeline"] for c in doc["cells"]} >= {"amdgpu-lower-intrinsics"}
    assert doc["counts"][0]["unsupported"] == 0 and doc["counts"][1]["unsupported"] == len(doc["cells"]) > 0


# ---- matrix --html never lands on what the matrix reads -------------------------------------------


@pytest.mark.parametrize("target", ["f4-fixed-format.yaml", "known-bugs.yaml", "hard link", "llc"])
def test_the_page_never_replaces_a_spec_known_bugs_or_a_tool(matrix, repo_root, tmp_path, l22, target):
    """--html naming a spec of --cases, known-bugs.yaml (directly or as a second hard link) or a
    tool of a build: one line, exit 2, the file untouched."""
    cases_dir, bin_dir = tmp_path / "cases", tmp_path / "bin"
    cases_dir.mkdir()
    for spec in (repo_root / "cases").glob("*.yaml"):
        (cases_dir / spec.name).write_bytes(spec.read_bytes())
    bin_dir.mkdir()
    for entry in Path(l22).iterdir():
        (bin_dir / entry.name).symlink_to(entry)
    (bin_dir / "llc").unlink()
    (bin_dir / "llc").write_bytes(Path(l22, "llc").read_bytes())
    (bin_dir / "llc").chmod(0o755)
    if target == "hard link":
        os.link(cases_dir / "known-bugs.yaml", tmp_path / "page.html")
    output = {"hard link": tmp_path / "page.html", "llc": bin_dir / "llc"}.get(target, cases_dir / target)
    victim = cases_dir / "known-bugs.yaml" if target == "hard link" else output
    before = victim.read_bytes()
    args = ("--intrinsic", "mfma.scale.f32.16x16x128.f8f6f4", "--fmt-a", "fp8", "--fmt-b", "fp8")
    proc = matrix(*args, "--cases", cases_dir, "--llvm-bin", bin_dir, "--html", output, ok=False)
    errors = [line for line in proc.stderr.splitlines() if not line.startswith("#")]
    assert proc.returncode == 2 and len(errors) == 1 and "is the input" in errors[0], proc.stderr[-2000:]
    assert victim.read_bytes() == before


# ---- each unsupported reason once per build --------------------------------------------------


HEADER_NAME = re.compile(r"//\s*llvm\.amdgcn\.((?:mfma|smfmac|wmma|swmmac)\.[\w.]+)")


def _header_names(bin_dir: Path) -> set[str]:
    path = bin_dir.parent / "include" / "llvm" / "IR" / "IntrinsicsAMDGPU.h"
    assert path.is_file(), path
    return set(HEADER_NAME.findall(path.read_text(errors="replace")))


def test_matrix_prints_each_unsupported_reason_once_with_counts_in_text_and_html(llvm_22_1_8, llvm14, cli, tmp_path):
    version = re.search(
        r"LLVM version (\S+)", subprocess.run([str(llvm14 / "llc"), "--version"], capture_output=True, text=True).stdout
    ).group(1)
    cpu_help = subprocess.run([str(llvm14 / "llc"), "-mtriple=amdgcn", "-mcpu=help"], capture_output=True, text=True)
    old_cpus = set(re.findall(r"^\s+(gfx\w+)\s+- Select", cpu_help.stdout + cpu_help.stderr, re.M))
    lacking = {"gfx942", "gfx950"} - old_cpus  # the SMFMAC CPUs (gfx940 and later) LLVM 14 lacks
    assert lacking == {"gfx942", "gfx950"} and "gfx90a" in old_cpus
    names = ("smfmac.f32.16x16x32.f16", "smfmac.f32.16x16x32.bf16")
    assert not set(names) & _header_names(llvm14)

    page = tmp_path / "m.html"
    args = ["matrix", "--spec", "amdgpu-families.yaml", "--llvm-bin", llvm14, "--llvm-bin", llvm_22_1_8.bin_dir]
    args += [a for n in names for a in ("--intrinsic", n)] + ["--no-cache", "--html", page]
    proc = cli(*args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    head = next(i for i, l in enumerate(lines) if l.split()[:1] == ["build"])
    columns = lines[head].split()
    row = next(l.split() for l in lines[head:] if l.split()[:1] == [version])
    unsupported = int(row[columns.index("unsupported")])
    assert unsupported == int(row[columns.index("total")]) > 0  # LLVM 14 knows none of these

    reasons = [l for l in lines if l.startswith("unsupported on ")]
    assert reasons and len(reasons) == len(set(reasons)), reasons
    assert all(l.startswith(f"unsupported on {version}: ") for l in reasons), reasons
    parsed = [re.fullmatch(rf"unsupported on {re.escape(version)}: (\d+) cell\(s\): (.+)", l) for l in reasons]
    assert all(parsed), reasons
    assert len({m.group(2) for m in parsed}) == len(parsed)
    assert sum(int(m.group(1)) for m in parsed) == unsupported
    for cpu in lacking:
        assert sum(cpu in m.group(2) for m in parsed) == 1, (cpu, reasons)

    ul = re.search(r'<ul id="unsupported-reasons">(.*?)</ul>', page.read_text(), re.S)
    assert ul, "no #unsupported-reasons in the page"
    assert [html.unescape(li) for li in re.findall(r"<li>(.*?)</li>", ul.group(1), re.S)] == reasons


def test_a_build_that_cannot_judge_a_cell_changes_no_verdict(llvm_22_1_8, llvm14, cli):
    """llvm-14 knows gfx908 and gfx90a but not gfx942, gfx950 or gfx1250: its `unsupported` cells are
    counted apart, never as a changed verdict (JSON `changed`, the text's and the page's line)."""
    args = ("matrix", "--spec", "amdgpu-families.yaml", "--intrinsic", "mfma.f32.32x32x8f16")
    args += ("--llvm-bin", llvm14, "--llvm-bin", llvm_22_1_8.bin_dir, "--no-cache")
    doc = json.loads(cli(*args, "--json").stdout)
    unjudged = [c for c in doc["cells"] if c["differs"]]
    assert unjudged and all("unsupported" in c["verdicts"] and not c["changed"] for c in unjudged)
    assert {c["cpu"] for c in unjudged} == {"gfx942", "gfx950", "gfx1250"}  # (gfx1250: the absent CPU)
    text = cli(*args).stdout
    assert (
        f"0 of {len(doc['cells'])} cells change verdict between the builds that judge them; {len(unjudged)} differ only" in text
    )


def test_text_lists_unexpected_cells_first_and_cost_only_rows_on_request(instcombine_doc):
    from harness.reports import report

    doc = json.loads(json.dumps(instcombine_doc))
    rows = lambda text: [line.split()[0] for line in text.splitlines() if line.startswith("wmma_")]
    changed = [c["function"] for c in doc["cells"] if report.changed(c)]
    costly = [c for c in doc["cells"] if not report.changed(c) and report.cost_changes(c)]
    assert rows(report.matrix_text(doc)) == changed
    listed = rows(report.matrix_text(doc, show_cost=True))
    assert set(listed) == set(changed) | {c["function"] for c in costly}
    if costly:
        assert "more in register cost only (--cost lists them)" in report.matrix_text(doc)
    # A cell a build judges unexpected comes first, changed or not.
    quiet = next(c for c in doc["cells"] if not report.changed(c))
    quiet["judgments"] = ["expected", "unexpected"]
    assert rows(report.matrix_text(doc)) == [quiet["function"], *changed]

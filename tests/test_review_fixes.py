"""Fixes from a hostile review: report inputs, cache entries, known-bugs.yaml, audit, NVPTX ptxas.

Real tools only; the ptxas scripts here are fault injection (one that segfaults, one that hangs).
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.nvptx import gemm, gemm_spec, ptx
from harness.specs import known_bugs
from harness.tools import cache
from harness.tools.toolchain import ToolRun

# ---- 1. harness report: metrics, shard, selector, markdown heading -------------------------------

_CELL = {
    "function": "f",
    "intrinsic": "wmma.x",
    "cpu": "gfx1250",
    "opt": 0,
    "pipeline": "none",
    "class": "codegen",
    "fmt_a": "fp8",
    "fmt_b": "fp8",
    "width_a": 16,
    "width_b": 16,
    "selector": "sdag",
}


def _matrix(metric_text: str = "1", shard: str = "null", selector: str = '"sdag"') -> str:
    """A matrix document with raw JSON text in three places (JSON that json.dumps would not write)."""
    builds = [{"id": i, "version": "22.1.8", "bin": "/b" + i, "pipeline": "none"} for i in ("a", "b")]
    cell = {**_CELL, "selector": "@SEL@", "verdicts": ["pass", "pass"], "details": ["", ""], "commands": [None, None]}
    cell["metrics"] = [{"vgpr": "@M@"}, {"vgpr": 2}]
    doc = {"kind": "harness-matrix", "format": 1, "builds": builds, "shard": "@SHARD@", "cells": [cell]}
    text = json.dumps(doc)
    return text.replace('"@M@"', metric_text).replace('"@SHARD@"', shard).replace('"@SEL@"', selector)


def _run_doc() -> str:
    return json.dumps({"llvm": "22.1.8", "llvm_bin": None, "shard": None, "cases": [{**_CELL, "verdict": "pass"}]})


def _one_line_exit_2(proc, *fragments):
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [l for l in (proc.stdout + proc.stderr).strip().splitlines() if not l.startswith("# ")]  # notes
    assert len(lines) == 1 and all(f in lines[0] for f in fragments), lines


def test_report_reads_a_wellformed_handmade_matrix(cli, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(_matrix())
    proc = cli("report", path, "--html", tmp_path / "m.html")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "m.html").is_file()


@pytest.mark.parametrize("metric", ["1" + "0" * 4000, "NaN", "Infinity", "-Infinity", '"lots"', "[1]", "1e13", "true"])
def test_report_refuses_metrics_that_are_not_finite_numbers_and_writes_nothing(cli, tmp_path, metric):
    path = tmp_path / "m.json"
    path.write_text(_matrix(metric))
    proc = cli("report", path, "--html", tmp_path / "m.html")
    _one_line_exit_2(proc, str(path), "record 1 (f)", "metrics")
    assert not (tmp_path / "m.html").exists()


@pytest.mark.parametrize("shard", ['"9/2"', "3", '"0/2"', '"1/2/3"', '"a/b"'])
def test_report_refuses_a_shard_that_is_not_k_of_n(cli, tmp_path, shard):
    path = tmp_path / "m.json"
    path.write_text(_matrix(shard=shard))
    _one_line_exit_2(cli("report", path), str(path), "shard", "K/N")


def test_report_accepts_a_shard_k_of_n(cli, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(_matrix(shard='"2/2"'))
    proc = cli("report", path)
    assert proc.returncode == 0 and "shard(s) 1/2 not among the inputs" in proc.stderr


def test_report_refuses_an_unknown_selector(cli, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(_matrix(selector='"evil"'))
    _one_line_exit_2(cli("report", path), str(path), "selector 'evil'", "sdag, gisel")


def test_report_markdown_of_run_documents_names_the_run_kind(cli, tmp_path):
    path = tmp_path / "r.json"
    path.write_text(_run_doc())
    proc = cli("report", path, "--markdown")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("**harness run**: ") and "harness matrix" not in proc.stdout


# ---- 2. cache entries --------------------------------------------------------------------------

KEY = "ab" + "0" * 62


def _entry(store: cache.Cache, payload: bytes) -> None:
    path = store._path(KEY)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cache.HEAD.pack(cache.MAGIC, bytes.fromhex(KEY), len(payload)) + zlib.compress(payload))


def _fields(**over) -> bytes:
    entry = {"format": cache.FORMAT, "key": KEY, "argv": ["llc"], "returncode": 0, "stdout": "", "stderr": ""}
    return json.dumps({**entry, "seconds": 0.1, "data": "", **over}).encode()


def test_a_deeply_nested_cache_entry_is_a_miss(tmp_path):
    store = cache.Cache(tmp_path)
    _entry(store, b"[" * 100_000 + b"]" * 100_000)
    assert store.get(KEY, ["llc"], 10.0) is None and store.unreadable == 1


@pytest.mark.parametrize(
    "over", [{"returncode": -9}, {"returncode": -15}, {"returncode": None}, {"timed_out": True}, {"seconds": float("nan")}]
)
def test_a_cache_entry_claiming_a_killed_or_timed_out_run_is_a_miss(tmp_path, over):
    store = cache.Cache(tmp_path)
    _entry(store, _fields(**over))
    assert store.get(KEY, ["llc"], 10.0) is None and store.unreadable == 1


def test_a_sound_cache_entry_is_a_hit(tmp_path):
    store = cache.Cache(tmp_path)
    _entry(store, _fields(returncode=-11))  # a crash (SIGSEGV) is stored: deterministic
    assert store.get(KEY, ["llc"], 10.0).returncode == -11


# ---- 3. known-bugs.yaml ------------------------------------------------------------------------


def _known(tmp_path: Path, text: str):
    (tmp_path / known_bugs.FILENAME).write_text(text)
    return known_bugs.load(tmp_path)


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("22.10:\n  - files: a\n    reason: b\n", (":1:1:", "'22.10'", "quote it")),
        ('"22.1.8":\n  - files: a\n    reason:\n', (":3:12:", "reason")),
        ('"22.1.8":\n  - files: a\n    reason: "  "\n', (":3:13:", "reason")),
        ('"22.1.8":\n  - files: [a, 5]\n    reason: r\n', (":2:12:", "files")),
        ('"22.1.8":\n  - files: {a: 1}\n    reason: r\n', (":2:12:", "files")),
    ],
)
def test_known_bugs_refuses_bad_entries_located(tmp_path, text, fragments):
    with pytest.raises(InputError) as err:
        _known(tmp_path, text)
    assert all(f in str(err.value) for f in fragments), str(err.value)


def test_known_bugs_files_may_be_a_list_of_globs_never_stringified(tmp_path):
    known = _known(tmp_path, '"22.1.8":\n  - files: [generated/a.ll, "generated/b*.ll"]\n    reason: r\n')
    assert known == {"22.1.8": [("generated/a.ll", "r"), ("generated/b*.ll", "r")]}
    assert known_bugs.reason_for(known, "22.1.8", "generated/b1.ll") == "r"


# ---- 4. harness audit --------------------------------------------------------------------------

_FN = "define void @f() {\n  ret void\n}\n"


@pytest.fixture
def audit(llvm_22_1_8, cli):
    flag = ["--llvm-bin", str(llvm_22_1_8.bin_dir)] if llvm_22_1_8.bin_dir else []
    return lambda *args: cli("audit", *flag, *map(str, args))


def test_audit_skips_run_lines_that_write_mir(audit, tmp_path):
    path = tmp_path / "mir.ll"
    path.write_text(
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 -stop-after=finalize-isel < %s\n"
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 --run-pass=none < %s\n"
        "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s\n" + _FN
    )
    proc = audit("--json", path)
    runs = json.loads(proc.stdout)["files"][0]["runs"]
    assert proc.returncode == 0 and [r["functions"] for r in runs[:2]] == [[], []]
    assert all("MIR" in r["skipped"] for r in runs[:2]) and runs[2]["functions"][0]["verdict"] == "pass"
    only_mir = tmp_path / "only-mir.ll"
    only_mir.write_text("; RUN: llc -mtriple=amdgcn -mcpu=gfx950 -stop-before=machine-scheduler < %s\n" + _FN)
    _one_line_exit_2(audit(only_mir), str(only_mir), "nothing audited", "MIR")


def test_audit_unterminated_quote_says_the_run_line_cannot_be_split(audit, tmp_path):
    path = tmp_path / "quote.ll"
    path.write_text('; RUN: llc -mtriple=amdgcn "-mcpu=gfx950 < %s\n; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s\n' + _FN)
    proc = audit(path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(l for l in proc.stdout.splitlines() if "skipped" in l)
    assert "cannot be split" in line and "quote" in line and "attribute" not in line and "lit.util" not in line


@pytest.mark.parametrize("text", ["; RUN: opt -S < %s | FileCheck %s\n" + _FN, "; RUN: llc -mtriple=x86_64 < %s\n" + _FN, _FN])
def test_audit_of_a_file_where_nothing_was_audited_exits_2(audit, tmp_path, text):
    path = tmp_path / "t.ll"
    path.write_text(text)
    _one_line_exit_2(audit(path), str(path), "nothing audited")


# ---- 5. NVPTX: a ptxas that crashes or hangs ---------------------------------------------------


@pytest.fixture
def bad_ptxas(tmp_path) -> dict[str, Path]:
    out = {}
    for name, body in (("segv", "kill -SEGV $$\n"), ("hang", "exec sleep 60\n")):
        out[name] = tmp_path / f"ptxas-{name}"
        out[name].write_text("#!/bin/sh\n" + body)
        out[name].chmod(0o755)
    return out


@pytest.mark.parametrize(
    "kind, verdict, detail", [("segv", "crash", "ptxas killed by signal 11"), ("hang", "timeout", "ptxas ran past 8 s")]
)
def test_try_nvptx_ptxas_crash_and_timeout_are_not_rejections(cli, nvptx_tc, bad_ptxas, kind, verdict, detail):
    proc = cli(
        "try", "--intrinsic", "mma.m16n8k16.row.col.bf16", "--cpu", "sm_90", "--timeout", "8", "--json",
        env={"PTXAS": str(bad_ptxas[kind])},
    )  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr
    record = json.loads(proc.stdout)
    assert record["verdict"] == verdict and detail in record["detail"], record


@pytest.mark.parametrize("kind, words", [("segv", "ptxas crashed: killed by signal 11"), ("hang", "ptxas timed out")])
def test_gemm_ptx_names_a_ptxas_crash_or_timeout(cli, nvptx_tc, bad_ptxas, tmp_path, kind, words):
    proc = cli(
        "gemm-ptx", "--out", tmp_path / "out", "--filter", "gemm_16x8x16_f16_beta0_nn_sm_90",
        "--ptxas", bad_ptxas[kind], "--timeout", "8",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert words in proc.stdout and "rejects" not in proc.stdout, proc.stdout


def test_gemm_table_mentions_no_ptxas_only_when_it_was_given():
    case = gemm_spec.load_cases_dir(Path(__file__).resolve().parent.parent / "cases")[0]
    timed_out = ptx.Built(case, gemm.PTX, "", {}, ToolRun(("llc",), None, "", "", 2.0), None)
    text = ptx.table([timed_out])
    assert "llc failed: llc timed out" in text and "--no-ptxas" not in text and "0 pass, 1 fail; 1 not assembled" in text
    assert "not assembled (--no-ptxas)" in ptx.table([timed_out], no_ptxas=True)

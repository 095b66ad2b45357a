"""`harness report` on hostile --json documents (issue 15): every field a report reads is of its
type and range or the input is refused with one located line (exit 2), a string that is no text
(a lone surrogate) included, and the HTML page never
lands on one of the inputs, through a link or not. Matrix documents written by hand: a metric
that is no finite number, a shard that is not K/N or an unknown selector is refused and nothing
is written; the markdown of a run document names the run kind. No LLVM needed: the documents are written here."""

from __future__ import annotations

import copy
import json
import os

import pytest
from conftest import HAND_CELL, one_line_exit_2

RECORD = {
    "function": "mfma_scale_f32_16x16x128_f8f6f4__a_fp8_v8__b_fp8_v8",
    "intrinsic": "mfma.scale.f32.16x16x128.f8f6f4",
    "cpu": "gfx950",
    "fmt_a": "fp8",
    "fmt_b": "fp8",
    "width_a": 8,
    "width_b": 8,
    "required_a": 8,
    "required_b": 8,
    "opt": 0,
    "pipeline": "none",
    "selector": "sdag",
    "class": "exact",
    "verdict": "pass",
    "detail": "",
    "metrics": {"vgpr": 30, "agpr": 12, "sgpr": 0, "scratch_loads": 0, "scratch_stores": 0, "instructions": 56},
}
DOC = {"llvm": "22.1.8", "llvm_bin": "/usr/lib/llvm-22/bin", "shard": None, "selection": {}, "cases": [RECORD]}
FLAGS = {"text": [], "markdown": ["--markdown"], "html": ["--html", "{dir}/page.html"]}


@pytest.fixture
def report(cli, tmp_path):
    """report(doc, *flags) -> (exit status, stderr lines, the input unchanged?)"""

    def run(doc: dict, *flags: str):
        path = tmp_path / "run.json"
        text = json.dumps(doc)
        path.write_text(text)
        proc = cli("report", path, *(f.format(dir=tmp_path) for f in flags))
        assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
        return (
            proc.returncode,
            [line for line in proc.stderr.splitlines() if line.strip() and not line.startswith("#")],
            path.read_text() == text,
        )

    return run


def changed(path: str, value) -> dict:
    doc = copy.deepcopy(DOC)
    target, key = (doc, path) if path in doc else (doc["cases"][0], path)
    target[key] = value
    return doc


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
def test_a_valid_document_is_reported(report, flags):
    assert report(DOC, *flags)[:2] == (0, [])


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
@pytest.mark.parametrize(
    "field, value",
    [
        ("args", [1, 2]),
        ("args", {"5": [1]}),
        ("llvm_bin", ["/a"]),
        ("llvm", 22),
        ("selection", "all"),
        ("narrowing", 5),
        ("detail", ["x"]),
        ("elem_a", 8),
        ("required_a", "8"),
        ("width_a", 10**4000),
        ("width_a", -3),
        ("width_b", 0),
        ("opt", -5),
        ("opt", 4),
        ("opt", True),
    ],
)
def test_a_field_of_the_wrong_type_or_range_is_one_located_line(report, field, value, flags):
    code, lines, unchanged = report(changed(field, value), *flags)
    assert code == 2 and len(lines) == 1 and "run.json: error:" in lines[0] and field in lines[0] and unchanged


@pytest.mark.parametrize("flags", [*FLAGS.values(), ["--json"]], ids=[*FLAGS.keys(), "json"])
@pytest.mark.parametrize("field", ["function", "detail", "llvm_bin", "selection"])
def test_a_lone_surrogate_is_refused_where_it_is_read(report, tmp_path, field, flags):
    """JSON's \\udcff is no text a page, a table or a document can be written with: the input is
    refused naming the file and the field, and no page is written."""
    code, lines, unchanged = report(changed(field, {"spec": ["\udcff"]} if field == "selection" else "a\udcffb"), *flags)
    assert code == 2 and len(lines) == 1 and "run.json: error:" in lines[0], lines
    assert field in lines[0] and "lone surrogate" in lines[0] and unchanged
    assert not (tmp_path / "page.html").exists()


def test_the_page_never_replaces_an_input(report, tmp_path, cli):
    code, lines, unchanged = report(DOC, "--html", "{dir}/run.json")
    assert code == 2 and "is the input" in lines[0] and unchanged
    (tmp_path / "link.html").symlink_to(tmp_path / "run.json")
    code, lines, unchanged = report(DOC, "--html", "{dir}/link.html")
    assert code == 2 and unchanged
    os.link(tmp_path / "run.json", tmp_path / "hard.html")
    code, lines, unchanged = report(DOC, "--html", "{dir}/hard.html")
    assert code == 2 and "is the input" in lines[0] and unchanged


# ---- matrix documents written by hand: metrics, shard, selector; the markdown heading --------

_CELL = HAND_CELL


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


def test_report_reads_a_wellformed_handmade_matrix(cli, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(_matrix())
    proc = cli("report", path, "--html", tmp_path / "m.html")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "m.html").is_file()


@pytest.mark.parametrize("metric", ["1" + "0" * 4000, '"lots"', "[1]", "1e13", "true"])
def test_report_refuses_metrics_that_are_not_finite_numbers_and_writes_nothing(cli, tmp_path, metric):
    path = tmp_path / "m.json"
    path.write_text(_matrix(metric))
    proc = cli("report", path, "--html", tmp_path / "m.html")
    one_line_exit_2(proc, str(path), "record 1 (f)", "metrics")
    assert not (tmp_path / "m.html").exists()


@pytest.mark.parametrize("metric", ["NaN", "Infinity", "-Infinity"])
def test_report_refuses_a_metric_json_has_no_word_for_where_it_is_written(cli, tmp_path, metric):
    # (NaN and Infinity are not JSON: the one reader refuses them anywhere, at their line and column)
    path = tmp_path / "m.json"
    text = _matrix(metric)
    path.write_text(text)
    proc = cli("report", path, "--html", tmp_path / "m.html")
    one_line_exit_2(proc, f"{path}:1:{text.index(metric) + 1}: error: not JSON: {metric}")
    assert not (tmp_path / "m.html").exists()


@pytest.mark.parametrize("shard", ['"9/2"', "3", '"0/2"', '"1/2/3"', '"a/b"'])
def test_report_refuses_a_shard_that_is_not_k_of_n(cli, tmp_path, shard):
    path = tmp_path / "m.json"
    path.write_text(_matrix(shard=shard))
    one_line_exit_2(cli("report", path), str(path), "shard", "K/N")


def test_report_accepts_a_shard_k_of_n(cli, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(_matrix(shard='"2/2"'))
    proc = cli("report", path)
    assert proc.returncode == 0 and "shard(s) 1/2 not among the inputs" in proc.stderr


def test_report_refuses_an_unknown_selector(cli, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(_matrix(selector='"evil"'))
    one_line_exit_2(cli("report", path), str(path), "selector 'evil'", "sdag, gisel")


def test_report_markdown_of_run_documents_names_the_run_kind_and_counts_its_cases(cli, tmp_path):
    path = tmp_path / "r.json"
    doc = json.loads(_run_doc())
    doc["cases"] += [{**_CELL, "function": f"g{i}", "verdict": "mc-reject", "detail": "too wide"} for i in range(2)]
    path.write_text(json.dumps(doc))
    proc = cli("report", path, "--markdown")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("**harness run**: ") and "harness matrix" not in proc.stdout
    assert "| pass | 1 |" in proc.stdout and "| mc-reject | 2 |" in proc.stdout and "| **total** | 3 |" in proc.stdout


def test_report_of_one_build_counts_verdicts_and_compares_nothing(cli, tmp_path):
    doc = json.loads(_matrix())
    doc["builds"] = doc["builds"][:1]
    for key in ("verdicts", "details", "commands", "metrics"):
        doc["cells"][0][key] = doc["cells"][0][key][:1]
    doc["cells"] += [{**doc["cells"][0], "function": f"g{i}", "verdicts": ["mc-reject"]} for i in range(2)]
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    proc = cli("report", path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert (lines[-3].split(), lines[-1].split()) == (["build", "pass", "mc-reject", "total"], ["a", "1", "2", "3"])
    assert "between builds" not in proc.stdout and "all builds compiled" not in proc.stdout, proc.stdout


@pytest.mark.parametrize("value", ['"bogus"', "null", "3"])
def test_report_refuses_a_judgment_it_does_not_know_in_one_line(cli, tmp_path, value):
    path = tmp_path / "r.json"
    path.write_text(_run_doc().replace('"verdict": "pass"', f'"verdict": "pass", "judgment": {value}'))
    one_line_exit_2(cli("report", path), str(path), "judgment")
    doc = json.loads(_matrix())
    doc["cells"][0]["judgments"] = ["expected"]  # one of two builds
    path.write_text(json.dumps(doc))
    one_line_exit_2(cli("report", path), str(path), "judgments")


def test_report_counts_cells_of_documents_from_before_judgments_as_not_judged(cli, tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    doc = json.loads(_run_doc())
    doc["shard"] = "1/2"
    old.write_text(json.dumps(doc))
    doc["shard"] = "2/2"
    doc["cases"] = [{**_CELL, "function": "g", "verdict": "mc-reject", "judgment": "unexpected", "expected": "pass"}]
    new.write_text(json.dumps(doc))
    proc = cli("report", old, new)
    assert proc.returncode == 1, proc.stderr  # the new shard's cell is unexpected
    assert proc.stdout.splitlines()[0].startswith("UNEXPECTED: g [sdag, gfx1250, -O0]: mc-reject, expected pass")
    assert proc.stdout.splitlines()[-1] == "0 expected, 0 known bug, 1 unexpected, 1 not judged (unsupported or timeout)"


def test_report_refuses_shards_of_the_space_and_of_the_specs_together(llvm_22_1_8, cli, tmp_path):
    common = ("--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx942", "-O", "0", "--json")
    (tmp_path / "a.json").write_text(cli("run", "--space", "full", *common, "--shard", "1/2").stdout)
    (tmp_path / "b.json").write_text(cli("run", *common, "--shard", "2/2").stdout)
    one_line_exit_2(cli("report", tmp_path / "a.json", tmp_path / "b.json"), "selects other cases")

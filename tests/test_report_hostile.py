"""`harness report` on run records whose judgment contradicts their own verdict, on shards given
twice, and with --html onto a file of several hard links: one located line, exit 2, nothing
written. No LLVM needed but for one real run: the documents are written here."""

from __future__ import annotations

import json
import os

import pytest
from conftest import one_line_exit_2

NAME = "mfma_scale_f32_16x16x128_f8f6f4__a_fp8_v8__b_fp8_v8"
RECORD = {
    "function": NAME,
    "intrinsic": "mfma.scale.f32.16x16x128.f8f6f4",
    "cpu": "gfx950",
    "fmt_a": "fp8",
    "fmt_b": "fp8",
    "width_a": 8,
    "width_b": 8,
    "opt": 0,
    "pipeline": "none",
    "selector": "sdag",
    "class": "exact",
    "verdict": "pass",
    "detail": "",
    "expected": "pass",
    "judgment": "expected",
    "file": "mfma.scale.f32.16x16x128.f8f6f4.gfx950.O0.exact.ll",
}


def document(changes: dict | None = None, shard: str | None = None, function: str = "g") -> dict:
    """A run document of two records: a consistent one, then `RECORD` with `changes` (a value of
    None removes the field) under the name `function`."""
    second = {**RECORD, "function": function, **(changes or {})}
    second = {k: v for k, v in second.items() if v is not None}
    return {"llvm": "22.1.8", "llvm_bin": "/b", "shard": shard, "selection": {}, "cases": [dict(RECORD), second]}


def report(cli, tmp_path, *docs: dict, html: bool = True):
    """`harness report` on the documents (written as d1.json, d2.json, ...), with --html page.html."""
    paths = []
    for n, doc in enumerate(docs, 1):
        paths.append(tmp_path / f"d{n}.json")
        paths[-1].write_text(json.dumps(doc))
    proc = cli("report", *paths, *(["--html", tmp_path / "page.html"] if html else []))
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc, paths


# ---- a record's judgment and expected verdict against its own verdict and class ----------------

CONTRADICTIONS = {
    "expected-but-rejected": ({"verdict": "mc-reject"}, "does not meet the expected pass"),
    "unexpected-but-passes": ({"judgment": "unexpected"}, "judgment unexpected, but verdict pass meets"),
    "expected-verdict-not-the-classes": ({"expected": "llc-reject"}, "class exact is expected to give pass"),
    "judged-but-unsupported": ({"verdict": "unsupported"}, "judgment expected, but verdict unsupported is not judged"),
    "not-judged-but-passes": ({"judgment": "not-judged"}, "judgment not-judged, but verdict pass is judged"),
    "judgment-alone": ({"expected": None}, "judgment expected without expected"),
    "expected-alone": ({"judgment": None}, "expected pass without judgment"),
    "known-bug-without-reason": ({"verdict": "mc-reject", "judgment": "known-bug"}, "without the bug's reason"),
    "reason-without-known-bug": ({"known_bug": "LLVM 22: wrong"}, "names a known bug"),
    "known-bug-that-meets": ({"judgment": "known-bug", "known_bug": "LLVM 22: wrong"}, "class exact checks no more"),
    "unexpected-pass-judged-expected": ({"unexpected_pass": "LLVM 22: fixed"}, "unexpected_pass given, but judgment expected"),
    "unexpected-pass-that-fails": (
        {"verdict": "mc-reject", "judgment": "unexpected", "unexpected_pass": "LLVM 22: fixed"},
        "unexpected_pass given, but judgment unexpected of verdict mc-reject",
    ),
    "absent-expected-pass": ({"class": "absent"}, "class absent is expected to give llc-reject"),
    "object-mc-reject-not-a-mismatch": (
        {"class": "object", "verdict": "mc-reject", "detail": "invalid operand"},
        "does not meet the expected pass",
    ),
    "misattributed-diagnostic-expected": (
        {
            "class": "diagnostic-a",
            "verdict": "verifier-reject",
            "expected": "verifier-reject",
            "verifier": {"misattributed": "b"},
        },
        "does not meet the expected verifier-reject",
    ),
    "unknown-class-expected-but-rejected": ({"class": "codegen", "verdict": "no-code"}, "does not meet"),
}


@pytest.mark.parametrize("changes, said", CONTRADICTIONS.values(), ids=CONTRADICTIONS.keys())
def test_a_record_whose_judgment_contradicts_its_verdict_is_one_located_line(cli, tmp_path, changes, said):
    """Hand-edited or stale: the report would count what the record claims. Refused, naming the
    file, the record's number and its function; no page written."""
    proc, paths = report(cli, tmp_path, document(changes))
    one_line_exit_2(proc, f"{paths[0]}: error: record 2 (g): ", said)
    assert not (tmp_path / "page.html").exists()


CONSISTENT = {
    "known-bug": ({"verdict": "mc-reject", "judgment": "known-bug", "known_bug": "LLVM 22: wide tuples"}, 0),
    "known-bug-that-meets-ir-malformed": (
        {
            "class": "ir-malformed",
            "verdict": "verifier-reject",
            "expected": "verifier-reject",
            "judgment": "known-bug",
            "known_bug": "LLVM 22: the IR the pipeline left",
        },
        0,
    ),
    "unexpected": ({"verdict": "no-code", "judgment": "unexpected"}, 1),
    "not-judged": ({"verdict": "timeout", "judgment": "not-judged"}, 0),
    "unexpected-pass": ({"judgment": "unexpected", "unexpected_pass": "LLVM 22: fixed since"}, 1),
    "absent": ({"class": "absent", "verdict": "llc-reject", "expected": "llc-reject"}, 0),
    "object-mismatch": ({"class": "object", "verdict": "mc-reject", "detail": "obj-text-mismatch: text A v[0:15]"}, 0),
    "misattributed-diagnostic": (
        {
            "class": "diagnostic-a",
            "verdict": "verifier-reject",
            "expected": "verifier-reject",
            "judgment": "unexpected",
            "verifier": {"misattributed": "b"},
        },
        1,
    ),
    "before-judgments": ({"judgment": None, "expected": None}, 0),
}


@pytest.mark.parametrize("changes, status", CONSISTENT.values(), ids=CONSISTENT.keys())
def test_a_record_whose_judgment_follows_from_its_verdict_is_reported(cli, tmp_path, changes, status):
    proc, _ = report(cli, tmp_path, document(changes))
    assert proc.returncode == status and (tmp_path / "page.html").is_file(), proc.stderr


def test_real_run_documents_are_consistent(cli, tmp_path, llvm):
    """What `harness run --json` writes passes the check (known bugs, both verdict classes)."""
    out = cli("run", "--spec", "f8f6f4-runtime-formats.yaml", "--json", "--llvm-bin", llvm.bin_dir)
    assert out.returncode in (0, 1), out.stderr[-2000:]
    (tmp_path / "run.json").write_text(out.stdout)
    proc = cli("report", tmp_path / "run.json")
    assert proc.returncode == out.returncode, proc.stderr[-2000:]


# ---- shards -------------------------------------------------------------------------------------


@pytest.mark.parametrize("labels", [("2/3", "2/3"), ("2/3", "02/3")], ids=["same", "zero-padded"])
@pytest.mark.parametrize("overlap", [False, True], ids=["other-cells", "same-cells"])
def test_a_shard_given_twice_is_named_with_both_files(cli, tmp_path, labels, overlap):
    """Two files that both say shard 2/3 (one of them is some other shard, or a copy): not a note
    that 1/3 is missing, but the shard given twice and both files; exit 2."""
    first = document(shard=labels[0])
    second = document(shard=labels[1], function="g" if overlap else "h")
    second["cases"] = second["cases"][1:]
    if not overlap:
        first["cases"] = first["cases"][:1]
    proc, paths = report(cli, tmp_path, first, second)
    line = one_line_exit_2(proc, "shard 2/3 is given twice", str(paths[0]), str(paths[1]))
    assert "1/3" not in line and not (tmp_path / "page.html").exists()


def test_one_file_named_twice_is_named_once(cli, tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps(document(shard="2/3")))
    one_line_exit_2(cli("report", path, path), "shard 2/3 is given twice", f"{path} is named twice")


def test_shards_each_given_once_still_note_the_missing_one(cli, tmp_path):
    first, second = document(shard="1/3"), document(shard="03/3", function="h")
    first["cases"], second["cases"] = first["cases"][:1], second["cases"][1:]
    proc, _ = report(cli, tmp_path, first, second, html=False)
    assert proc.returncode == 0 and "shard(s) 2/3 not among the inputs" in proc.stderr, proc.stderr


# ---- --html onto a file of several hard links ---------------------------------------------------


def test_the_page_is_not_written_over_a_file_of_several_hard_links(cli, tmp_path):
    """A rename would give page.html a new inode and leave its other name with the old page:
    refused, naming the link count; both names keep the old text, one inode."""
    page, other = tmp_path / "page.html", tmp_path / "kept.html"
    page.write_text("old page\n")
    os.link(page, other)
    proc, _ = report(cli, tmp_path, document())
    one_line_exit_2(proc, f"{page}: error: cannot write: the file has 2 hard links")
    assert page.read_text() == other.read_text() == "old page\n"
    assert os.stat(page).st_ino == os.stat(other).st_ino
    other.unlink()
    proc, _ = report(cli, tmp_path, document())
    assert proc.returncode == 0 and "old page" not in page.read_text(), proc.stderr

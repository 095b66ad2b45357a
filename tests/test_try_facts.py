"""`harness try --json` facts on LLVM 22.1.8: verifier attribution and messages, pipelines,
register metrics, text-vs-object tuples, the rewrite note and the narrowing representation.

Tuple widths are computed here from the printed `v[x:y]` (y - x + 1), never by the harness.
"""

from __future__ import annotations

import json
import re

import pytest

W, M = "wmma.f32.16x16x128.f8f6f4", "mfma.scale.f32.16x16x128.f8f6f4"
METRIC_KEYS = {"vgpr", "agpr", "sgpr", "scratch_loads", "scratch_stores", "instructions"}


def _try(cli, *args):
    """One selector's record (SelectionDAG unless the args name one)."""
    proc = cli("try", "--json", *args, *(() if "--selector" in args else ("--selector", "sdag")))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _width(tuple_text: str) -> int:
    m = re.fullmatch(r"[av]\[(\d+):(\d+)\]", tuple_text)
    assert m, tuple_text
    return int(m.group(2)) - int(m.group(1)) + 1


def _widths(tuples: dict) -> tuple[int, int]:
    return _width(tuples["a"]), _width(tuples["b"])


# ---- which operand the verifier prints ------------------------------------------------------


def test_mfma_b_underwide_diagnostic_prints_arg5_and_is_flagged_misattributed(llvm_22_1_8, cli):
    rec = _try(cli, "--intrinsic", M, "--fmt-a", "fp8", "--fmt-b", "bf8", "--width-b", "4", "--arg", "5=2")
    assert rec["verdict"] == "verifier-reject"
    v = rec["verifier"]
    assert v["message"] == "invalid vector type for format"
    assert v["printed"] == [{"value": "<4 x i32> %b", "args": [1]}, {"value": "i32 2", "args": [5]}]
    assert v["expected_args"] == [1, 4]
    assert "misattributed" in v and "operand 5" in v["misattributed"] and "operand 4" in v["misattributed"]


def test_mfma_a_underwide_diagnostic_prints_its_own_cbsz(llvm_22_1_8, cli):
    rec = _try(cli, "--intrinsic", M, "--fmt-a", "bf8", "--fmt-b", "fp8", "--width-a", "4", "--arg", "5=2")
    v = rec["verifier"]
    assert rec["verdict"] == "verifier-reject"
    assert v["printed"] == [{"value": "<4 x i32> %a", "args": [0]}, {"value": "i32 1", "args": [3]}]
    assert v["expected_args"] == [0, 3]
    assert "misattributed" not in v


def test_wmma_b_underwide_diagnostic_prints_its_own_format(llvm_22_1_8, cli):
    rec = _try(cli, "--intrinsic", W, "--fmt-a", "fp8", "--fmt-b", "fp6", "--width-b", "8")
    v = rec["verifier"]
    assert rec["verdict"] == "verifier-reject"
    assert v["printed"] == [{"value": "<8 x i32> %b", "args": [3]}, {"value": "i32 2", "args": [2]}]
    assert sorted(v["expected_args"]) == [2, 3]
    assert "misattributed" not in v


# ---- what the verifier rejects, and with which message ---------------------------------------


@pytest.mark.parametrize(
    "args,cls,message,printed",
    [
        ((W, "fp8", "fp8", "--arg", "fmt_a=5"), "badformat", "invalid value for matrix format", "i32 5"),
        ((M, "fp8", "fp8", "--arg", "fmt_a=5"), "badformat", "invalid value for cbsz format", "i32 5"),
        ((M, "fp8", "fp8", "--arg", "fmt_b=9999"), "badformat", "invalid value for blgp format", "i32 9999"),
        ((W, "fp8", "fp8", "--arg", "fmt_a=%f"), "nonconst", "immarg operand has non-immediate parameter", "i32 %f"),
        ((W, "fp4", "fp8", "--width-a", "10"), "illegal", "operand 1 must be 8, 12 or 16 element i32 vector", "<10 x i32> %a"),
        ((M, "fp8", "fp4", "--width-b", "5"), "illegal", "operand 1 must be 4, 6 or 8 element i32 vector", "<5 x i32> %b"),
    ],
    ids=["wmma-fmt5", "mfma-cbsz5", "mfma-blgp9999", "wmma-nonconst", "wmma-width10", "mfma-width5"],
)
def test_verifier_rejection_message_and_printed_value(llvm_22_1_8, cli, args, cls, message, printed):
    name, fa, fb, *rest = args
    rec = _try(cli, "--intrinsic", name, "--fmt-a", fa, "--fmt-b", fb, *rest)
    assert (rec["verdict"], rec["class"]) == ("verifier-reject", cls)
    assert rec["verifier"]["message"] == message
    assert printed in [p["value"] for p in rec["verifier"]["printed"]]
    assert rec["detail"].splitlines()[0] == message
    assert "metrics" not in rec and "tuples" not in rec  # nothing was compiled


# ---- pipelines: only an IR pass narrows; the object is right where the text is not ----------

WIDE_WMMA = ("--intrinsic", W, "--fmt-a", "fp4", "--fmt-b", "fp4", "--width-a", "16", "--width-b", "16")
WIDE_MFMA = ("--intrinsic", M, "--fmt-a", "fp4", "--fmt-b", "bf8", "--width-a", "8", "--width-b", "8")


def test_overwide_wmma_text_is_rejected_while_the_object_has_format_width_tuples(llvm_22_1_8, cli):
    rec = _try(cli, *WIDE_WMMA)
    assert rec["verdict"] == "mc-reject"
    assert rec["detail"].startswith("obj-text-mismatch")
    assert "wrong register tuple size" in rec["detail"]
    assert set(rec["metrics"]) == METRIC_KEYS
    assert all(type(v) is int for v in rec["metrics"].values()), rec["metrics"]
    highest = max(int(re.search(r":(\d+)\]", t).group(1)) for t in rec["tuples"]["text"].values())
    assert rec["metrics"]["vgpr"] > highest  # the count covers every VGPR the text uses
    assert _widths(rec["tuples"]["text"]) == (16, 16)
    assert _widths(rec["tuples"]["object"]) == (8, 8)
    assert "not rewritten" in rec["rewrite"]
    assert "ir" not in rec  # no pipeline, no IR facts


def test_instcombine_narrows_overwide_wmma_so_the_text_reassembles(llvm_22_1_8, cli):
    rec = _try(cli, *WIDE_WMMA, "--pipeline", "instcombine")
    assert rec["verdict"] == "pass", rec["detail"]
    assert rec["pipeline"] == "instcombine"
    for side in ("a", "b"):
        assert rec["ir"][side] == {"width": 8, "narrowed_by": "shufflevector", "mask": list(range(8))}
    assert _widths(rec["tuples"]["text"]) == (8, 8)
    assert all(type(v) is int for v in rec["metrics"].values())


def test_llc_O2_alone_does_not_narrow(llvm_22_1_8, cli):
    rec = _try(cli, *WIDE_WMMA, "-O", "2")
    assert (rec["verdict"], rec["opt"]) == ("mc-reject", 2)
    assert _widths(rec["tuples"]["text"]) == (16, 16)


def test_overwide_mfma_a_is_rejected_and_instcombine_narrows_only_a(llvm_22_1_8, cli):
    before = _try(cli, *WIDE_MFMA)
    assert before["verdict"] == "mc-reject"
    assert _widths(before["tuples"]["text"]) == (8, 8)
    assert "rewrite" not in before
    after = _try(cli, *WIDE_MFMA, "--pipeline", "instcombine")
    assert after["verdict"] == "pass", after["detail"]
    assert after["ir"]["a"] == {"width": 4, "narrowed_by": "shufflevector", "mask": [0, 1, 2, 3]}
    assert after["ir"]["b"] == {"width": 8, "narrowed_by": "", "mask": []}
    assert _widths(after["tuples"]["text"]) == (4, 8)


# ---- narrowing written two ways, through each selector --------------------------------------

NARROWED = ("--intrinsic", W, "--fmt-a", "fp4", "--fmt-b", "fp6", "--width-a", "16", "--width-b", "16")


@pytest.mark.parametrize(
    "narrowing,selector,verdict",
    [
        ("shufflevector", "sdag", "pass"),
        ("shufflevector", "gisel", "pass"),
        ("vector.extract", "sdag", "pass"),
        ("vector.extract", "gisel", "cannot-select"),
    ],
)
def test_narrowing_representation_through_each_selector(llvm_22_1_8, cli, narrowing, selector, verdict):
    rec = _try(cli, *NARROWED, "--narrowing", narrowing, "--selector", selector)
    assert (rec["verdict"], rec["narrowing"], rec["selector"]) == (verdict, narrowing, selector), rec["detail"]
    assert rec["class"] == "narrowed-" + narrowing.replace(".", "-")
    if verdict == "pass":
        assert _widths(rec["tuples"]["text"]) == (8, 12)
    else:
        assert "unable to legalize" in rec["detail"]
        assert rec["function"] in rec["detail"]


# ---- harness bugs: the class must follow the operands the call really gets ------------------


def test_in_range_format_override_is_refused_so_the_class_follows_the_call(cli):
    # A valid format given through --arg would make the case's format (and so its class) lie
    # about what the call reads: the format must be chosen with --fmt-a instead.
    proc = cli("try", "--intrinsic", W, "--fmt-a", "fp8", "--fmt-b", "fp8", "--arg", "fmt_a=4")
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "fmt_a" in lines[0], lines


def test_non_constant_immarg_operand_is_classed_as_a_verifier_rejection(llvm_22_1_8, cli):
    rec = _try(cli, "--intrinsic", M, "--fmt-a", "fp8", "--fmt-b", "fp8", "--arg", "5=%x")
    assert rec["verdict"] == "verifier-reject"
    assert rec["verifier"]["message"] == "immarg operand has non-immediate parameter"
    assert rec["class"] == "nonconst", rec["class"]

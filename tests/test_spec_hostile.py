"""Hostile spec files: bytes, encodings, nesting, YAML tags, FIFOs — one located line, exit 2,
nothing written, never a traceback (the first cases of issue 9's list)."""

from __future__ import annotations

import os

import pytest

CASES = {
    "not-utf8": (b"matrix:\n  - intrinsic: caf\xe9\n", ":2:19: error: not UTF-8 text"),
    "nul-byte": (b"matrix:\x00\n", ":1:8: error: a NUL byte"),
    "deep-nesting": (
        b"matrix: " + b"[" * 20000 + b"]" * 20000 + b"\n",
        ":1:73: error: invalid YAML: more than 64 [ or { open at once",
    ),
    "bad-int-tag": (
        b"matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    opt: !!int abc\n",
        ":3:10: error: 'abc' is not a valid int",
    ),
    "bad-bool-tag": (
        b"matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    split_selectors: !!bool maybe\n",
        ":3:22: error: 'maybe' is not a valid bool",
    ),
    "empty-int-tag": (
        b"matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    opt: !!int 0x\n",
        ":3:10: error: '0x' is not a valid int",
    ),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("command", [("expand",), ("expand", "--check"), ("run",)])
def test_hostile_spec_is_one_located_line(cli, tmp_path, name, command):
    data, where = CASES[name]
    spec = tmp_path / "a.yaml"
    spec.write_bytes(data)
    proc = cli(*command, "--cases", tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"harness: {spec}{where}"], proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml"]


def test_a_fifo_named_like_a_spec_is_refused_not_waited_on(cli, tmp_path):
    os.mkfifo(tmp_path / "f.yaml")
    proc = cli("expand", "--cases", tmp_path)
    assert proc.returncode == 2 and f"{tmp_path / 'f.yaml'}: error: not a regular file" in proc.stderr


@pytest.mark.parametrize(
    "block, where, message",
    [
        (
            "    fmt_a: fp8\n    fmt_b: fp8\n    args: {5: 1, 5: 0}\n",
            ":5:18",
            "operand 5 of mfma.scale.f32.16x16x128.f8f6f4 is given twice",
        ),
        (
            "    fmt_a: fp8\n    fmt_b: fp8\n    args: [{5: 100000000000000000000}]\n",
            ":5:16",
            "is i32; 100000000000000000000 does not fit",
        ),
        ("    fmt_a: fp8\n    fmt_b: fp8\n    elem_a: i0\n", ":5:13", "LLVM integer types are i1 to i8388607"),
        ("    fmt_a: fp8\n    fmt_b: fp8\n    width_a: 1099511627776\n", ":5:14", "at most 4096 elements"),
        ("    split_selectors: [true, false]\n", ":3:29", "split_selectors takes one value"),
        ("    exclude:\n      - {opt: 9}\n", ":4:15", "opt must be one of 0, 1, 2, 3"),
        ("    exclude:\n      - {check: codgen}\n", ":4:17", "check must be one of"),
        (
            "    fmt_a: all\n    fmt_b: all\n    width_a: [4, 5, 6, 7, 8, 9, 10, 11, 12, 13]\n    width_b: [4, 5, 6, 7, 8, 9, 10, 11, 12, 13]\n"
            "    opt: [0, 1, 2, 3]\n    elem_a: [i32, i64, i16, i8]\n    elem_b: [i32, i64, i16, i8]\n",
            ":2:5",
            "expands to more than 100,000 case-selector pairs (up to",
        ),
    ],
)
def test_values_past_what_llvm_or_the_harness_takes_are_located_errors(cli, tmp_path, block, where, message):
    spec = tmp_path / "a.yaml"
    spec.write_text("matrix:\n  - intrinsic: mfma.scale.f32.16x16x128.f8f6f4\n" + block)
    proc = cli("expand", "--cases", tmp_path)
    assert proc.returncode == 2 and f"{spec}{where}: error: " in proc.stderr and message in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "value, fits", [("-2147483648", True), ("-2147483649", False), ("4294967295", True), ("4294967296", False)]
)
def test_an_i32_operand_takes_every_value_of_32_bits_signed_or_not(cli, tmp_path, value, fits):
    spec = tmp_path / "a.yaml"
    spec.write_text(
        f"matrix:\n  - intrinsic: mfma.scale.f32.16x16x128.f8f6f4\n    fmt_a: fp8\n    fmt_b: fp8\n    args: {{5: {value}}}\n"
    )
    proc = cli("expand", "--check", "--cases", tmp_path)
    assert proc.returncode == (1 if fits else 2), proc.stderr  # 1: a file to generate, none yet
    assert (f"{spec}:5:15: error: " in proc.stderr and f"is i32; {value} does not fit" in proc.stderr) != fits


def test_the_case_limit_can_be_raised(cli, tmp_path):
    (tmp_path / "a.yaml").write_text("matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    width_a: [exact, overwide]\n")
    assert cli("expand", "--check", "--cases", tmp_path, "--max-cases", "3").returncode == 2
    assert cli("expand", "--check", "--cases", tmp_path, "--max-cases", "200").returncode == 1  # nothing generated yet


def test_an_operand_overridden_twice_on_the_command_line_is_refused(cli):
    proc = cli(
        "try",
        "--intrinsic",
        "mfma.scale.f32.16x16x128.f8f6f4",
        "--fmt-a",
        "fp8",
        "--fmt-b",
        "fp8",
        "--arg",
        "5=1",
        "--arg",
        "5=0",
    )
    assert proc.returncode == 2 and "operand 5 of mfma.scale.f32.16x16x128.f8f6f4 is given twice" in proc.stderr


def test_temporaries_an_interrupted_write_left_are_reported_and_removed(cli, tmp_path):
    (tmp_path / "a.yaml").write_text("matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n")
    assert cli("expand", "--cases", tmp_path, "--llvm-bin", "/usr/lib/llvm-22/bin").returncode in (0, 2)
    leftover = tmp_path / "generated" / ".wmma.f32.32x16x128.f4.gfx1250.O0.exact.ll.k3j2.tmp"
    leftover.write_text("")
    proc = cli("expand", "--check", "--cases", tmp_path)
    assert proc.returncode == 1 and f"{leftover} (a temporary file an interrupted write left)" in proc.stdout, proc.stdout
    assert cli("expand", "--cases", tmp_path).returncode == 0 and not leftover.exists()
    assert cli("expand", "--check", "--cases", tmp_path).returncode == 0


def test_sigterm_during_expand_leaves_no_temporary_file(tmp_path, repo_root):
    import signal
    import subprocess
    import sys
    import time

    for spec in (repo_root / "cases").glob("f8f6f4-runtime-formats.yaml"):
        (tmp_path / spec.name).write_bytes(spec.read_bytes())
    for delay in (0.3, 0.5, 0.7):
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness", "expand", "--cases", str(tmp_path)],
            cwd=repo_root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=120)
        assert not list(tmp_path.rglob("*.tmp")), list(tmp_path.rglob("*.tmp"))


@pytest.mark.parametrize(
    "pipeline, why",
    [
        ("instcombine<", "expected pass parameters `<...>` at character 12 made of letters, digits and _.-=;:+"),
        ("instcombine>/tmp/x", "expected `,` or the end at character 12, got '>'"),
        ("instcombine;echo>F", "expected `,` or the end at character 12, got ';'"),
        ("$(touch F)", "expected a pass name at character 1, got '$'"),
        ("function(instcombine", "expected `)` at character 21 to close the nested pipeline"),
        ("function(instcombine),", "expected a pass name at character 23, got the end"),
    ],
)
def test_a_pipeline_outside_opts_grammar_is_located_in_the_spec(cli, tmp_path, pipeline, why):
    (tmp_path / "a.yaml").write_text(f"matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    pipeline: '{pipeline}'\n")
    proc = cli("expand", "--cases", tmp_path)
    assert proc.returncode == 2 and not (tmp_path / "generated").exists()
    assert proc.stderr.splitlines() == [
        f"harness: {tmp_path / 'a.yaml'}:3:15: error: pipeline: not an opt -passes= pipeline: {why}; got {pipeline!r}"
    ]


@pytest.mark.parametrize(
    "pipeline",
    ["instcombine<max-iterations=1>", "function(instcombine<max-iterations=1;no-verify-fixpoint>),require<domtree>"],
)
def test_pipelines_with_parameters_and_nesting_are_accepted(pipeline):
    from harness.core import commands

    assert commands.pass_pipeline_error(pipeline) == ""


@pytest.mark.parametrize("command", [("expand", "--cases", "{d}"), ("update-checks", "{d}/a.ll")])
def test_a_link_to_a_device_or_an_oversized_file_is_refused_before_it_is_read(cli, tmp_path, command):
    d = tmp_path / "d"
    d.mkdir()
    name = "a.yaml" if command[0] == "expand" else "a.ll"
    (d / name).symlink_to("/dev/zero")
    proc = cli(*[w.format(d=d) for w in command])
    assert proc.returncode == 2 and proc.stderr.splitlines()[-1].endswith(
        "error: not a regular file (a spec must be one)"
        if name == "a.yaml"
        else "error: not a regular file (a test file must be one)"
    )
    (d / name).unlink()
    with open(d / name, "wb") as fh:
        fh.truncate(300 << 20)  # sparse: 300 MB that take no room
    proc = cli(*[w.format(d=d) for w in command])
    assert proc.returncode == 2 and " bytes: a " in proc.stderr and "is at most" in proc.stderr


@pytest.mark.parametrize("pipeline", ["dot-cfg", "instcombine,dot-cfg-only", "function(view-dom)", "dot-callgraph"])
def test_a_spec_pipeline_that_writes_graph_files_is_refused_where_it_is_written(cli, tmp_path, pipeline):
    d = tmp_path / "cases"
    d.mkdir()
    spec = f"matrix:\n  - intrinsic: mfma.scale.f32.16x16x128.f8f6f4\n    fmt_a: fp8\n    fmt_b: fp8\n    pipeline: {pipeline}\n"
    (d / "a.yaml").write_text(spec)
    proc = cli("expand", "--cases", d, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert ":5:15: error: " in proc.stderr and "writes graph files or opens a viewer" in proc.stderr
    proc = cli("run", "--cases", d, "--metrics", f"none,{pipeline}", cwd=tmp_path)
    assert proc.returncode == 2 and "writes graph files or opens a viewer" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cases"]  # no .dot file anywhere

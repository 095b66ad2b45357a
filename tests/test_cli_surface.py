"""What a first-time user meets: help for every flag and argument, `try` listing every command
it ran (the object build included), and `--keep DIR` writing what each read and printed with a
replay script that gives the same bytes again."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest
from conftest import one_line_exit_2

from harness import parser as harness_parser


def _subcommands(words: list[str] | None = None) -> dict[str, argparse.ArgumentParser]:
    top = harness_parser.build(words)
    (sub,) = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_a_subcommand_built_alone_is_the_one_in_the_full_parser():
    every = _subcommands()
    assert tuple(every) == harness_parser.ORDER
    for name, full in every.items():
        alone = _subcommands(["--json", name, "--help"])  # (the first word not a flag names it)
        assert name in alone and len(alone) < len(every), name
        assert alone[name].format_help() == full.format_help(), name
    assert _subcommands(["rnu"]).keys() == every.keys()  # a typo: every choice, for argparse to list


def test_run_imports_no_other_command_s_modules():
    code = (
        "import sys; from harness import cli; cli.parser.build(['run']); "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('harness.'))))"
    )
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())
    assert "harness.specs.matrix" in loaded and "harness.tools.runner" in loaded
    others = {"harness.gpu_cli", "harness.gpu.build", "harness.kernels.tiles", "harness.checks.audit", "harness.checks.autogen"}
    others |= {"harness.reports.bisect", "harness.reports.coverage", "harness.reports.merge"}
    assert loaded.isdisjoint(others), loaded & others


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_flag_and_argument_has_help(command):
    parser = _subcommands()[command]
    bare = [a.option_strings or [a.dest] for a in parser._actions if not a.help]
    assert bare == [], f"harness {command}: no help for {bare}"
    assert parser.description and parser.epilog and "exit status" in parser.format_help()


CASE = ("--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp4", "--fmt-b", "fp8", "--width-a", "16", "--selector", "sdag")


def test_try_lists_the_object_build_and_keep_replays_every_command_byte_for_byte(cli, llvm_22_1_8, tmp_path):
    keep = tmp_path / "kept"
    proc = cli("try", *CASE, "--json", "--keep", keep)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["verdict"] == "mc-reject"
    runs = [(t["argv"][0].rsplit("/", 1)[-1], "-filetype=obj" in t["argv"]) for t in record["tools"]]
    assert runs == [("llc", False), ("llvm-mc", True), ("llc", True), ("llvm-objdump", False)]
    stems = ["01-llc", "02-llvm-mc", "03-llc", "04-llvm-objdump"]
    assert sorted(p.name for p in keep.iterdir()) == sorted(
        [f"{s}.{x}" for s in stems for x in ("in", "out", "err")] + ["replay.sh"]
    )
    assert "call <8 x float> @llvm.amdgcn.wmma.f32.16x16x128.f8f6f4" in (keep / "01-llc.in").read_text()
    assert (keep / "02-llvm-mc.in").read_bytes() == (keep / "01-llc.out").read_bytes()
    assert "wrong register tuple size" in (keep / "02-llvm-mc.err").read_text()
    replay = subprocess.run(["sh", str(keep / "replay.sh")], capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stderr
    for stem in stems:
        for stream in ("out", "err"):
            assert (keep / f"{stem}.replay.{stream}").read_bytes() == (keep / f"{stem}.{stream}").read_bytes(), stem


def test_try_text_output_names_the_object_build_too(cli, llvm_22_1_8):
    proc = cli("try", *CASE)
    assert proc.returncode == 0, proc.stderr
    commands = [line for line in proc.stdout.splitlines() if line.startswith("  $ ")]
    assert len(commands) == 4 and "-filetype=obj" in commands[2]


def test_keep_refuses_a_directory_that_holds_files_and_leaves_it_alone(cli, llvm, tmp_path):
    (tmp_path / "mine.txt").write_text("mine")
    proc = cli("try", *CASE, "--keep", tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [f"harness: {tmp_path}: error: --keep wants a new or empty directory"]
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


def test_keep_with_an_nvptx_case_replays_llc_and_ptxas(cli, nvptx_tc, ptxas_path, tmp_path):
    proc = cli("try", "--intrinsic", "mma.m16n8k16.row.col.f32.f32", "--keep", tmp_path / "k", env={"PTXAS": ptxas_path})
    assert proc.returncode == 0, proc.stderr
    kept = tmp_path / "k"
    assert sorted(p.name for p in kept.glob("*.in")) == ["01-llc.in", "02-ptxas.in"]
    assert (kept / "02-ptxas.in").read_text() == (kept / "01-llc.out").read_text()  # ptxas read llc's text
    replay = subprocess.run(["sh", str(kept / "replay.sh")], capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stderr
    assert (kept / "01-llc.replay.out").read_text() == (kept / "01-llc.out").read_text()


def test_progress_off_a_terminal_is_one_line_per_quarter_once_a_run_is_slow(capsys):
    from harness.tools.runner import StderrProgress

    fast, slow, quiet = StderrProgress(), StderrProgress(), StderrProgress(quiet=True)
    slow.start -= 60  # as if it started a minute ago
    quiet.start -= 60
    for done in range(1, 11):
        for progress in (fast, slow, quiet):
            progress(done, 10)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(",")[0] for line in lines] == [
        "# 3/10 cells done (30%)",
        "# 5/10 cells done (50%)",
        "# 8/10 cells done (80%)",
        "# 10/10 cells done (100%)",
    ]


def test_progress_gives_the_rate_and_the_time_left(capsys, monkeypatch):
    import sys

    from harness.tools.runner import StderrProgress

    log = StderrProgress()
    log.start -= 100  # as if it started 100 s ago
    log(2500, 10000)
    log.start -= 100
    log(10000, 10000)
    line, last = capsys.readouterr().err.splitlines()
    assert line.startswith("# 2500/10000 cells done (25%), 100.0 s, 25 cells/s, about 5 min 0 s left"), line
    assert last.startswith("# 10000/10000 cells done (100%), 200.0 s, 50 cells/s") and "left" not in last, last
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    live = StderrProgress()
    live.TICK = 3600.0  # (no redraw between the calls below)
    live(0, 1000)  # (the run starts)
    live.start -= 10
    for done in (3, 1000):
        live(done, 1000)
    shown = capsys.readouterr().err.split("\r")[1:]
    assert shown[0].rstrip() == "[0/1000] cells"
    assert shown[1].startswith("[3/1000] cells, 0.3 cells/s, about 55 min 2") and shown[1].endswith(" left")
    assert shown[2].startswith("[1000/1000] cells, 100 cells/s") and shown[2].endswith("\n")


def test_a_live_line_that_no_cell_redraws_counts_down_then_says_it_is_past_its_estimate(capsys, monkeypatch):
    import sys
    import time

    from harness.tools.runner import StderrProgress

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    live = StderrProgress()
    live.TICK = 0.02
    live(0, 10, "LLVM 22.1.8")
    live.start -= 10  # 5 cells in 10 s: about 10 s left
    live(5, 10, "LLVM 22.1.8")
    capsys.readouterr()
    deadline, redrawn = time.monotonic() + 60, ""
    while not redrawn and time.monotonic() < deadline:  # a redraw, unasked
        time.sleep(0.02)
        redrawn = capsys.readouterr().err
    assert redrawn.startswith("\r[LLVM 22.1.8: 5/10] cells, 0.5 cells/s, about "), redrawn
    live._draw(5, 10, "LLVM 22.1.8", 40.0, 30.0)  # 30 s with no cell ended: past the 10 s
    shown = capsys.readouterr().err.split("\r")[-1]
    assert shown.startswith("[LLVM 22.1.8: 5/10] cells, 0.5 cells/s, 30 s since a cell ended: slower than that pace"), shown
    live(10, 10, "LLVM 22.1.8")
    time.sleep(0.2)
    assert capsys.readouterr().err.count("\r") == 1  # the last line, and no redraw after it


def test_progress_is_quiet_for_json_into_a_pipe_only(monkeypatch, tmp_path):
    import os
    import sys

    from harness.tools.runner import StderrProgress

    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "w") as pipe, open(tmp_path / "out.json", "w") as file:
        monkeypatch.setattr(sys, "stdout", pipe)
        assert StderrProgress.for_output(json_output=True).quiet
        assert not StderrProgress.for_output(json_output=False).quiet
        monkeypatch.setattr(sys, "stdout", file)  # `--json > file`: a person may be watching stderr
        assert not StderrProgress.for_output(json_output=True).quiet
    os.close(read_end)


def test_progress_starts_again_for_the_next_build(capsys):
    """The next build of `matrix` may finish more cells in its first task than the last build had."""
    from harness.tools.runner import StderrProgress

    progress = StderrProgress()
    progress.PATIENCE = 0  # every quarter is said, however fast
    for total, step, build in ((4, 1, "LLVM 19.1.7"), (400, 100, "LLVM 22.1.8")):
        progress(0, total, build)
        for done in range(step, total + 1, step):
            progress(done, total, build)
    lines = [line.split(",")[0] for line in capsys.readouterr().err.splitlines()]
    assert lines == [f"# LLVM 19.1.7: {n}/4 cells done ({n * 25}%)" for n in range(1, 5)] + [
        f"# LLVM 22.1.8: {n * 100}/400 cells done ({n * 25}%)" for n in range(1, 5)
    ]


@pytest.mark.parametrize(
    "args, line",
    [
        (
            ("try", "--intrinsic", "mfma.scale.f32.16x16x128.f8f6f4", "--width-a", ""),
            "harness: error: an empty value after --width-a",
        ),
        (("try", "--intrinsic", "mfma.scale.f32.16x16x128.f8f6f4", "--cpu="), "harness: error: an empty value: '--cpu='"),
        (("run", "--filter", ""), "harness: error: an empty value after --filter"),
        (
            (
                "try",
                "--intrinsic",
                "mfma.scale.f32.16x16x128.f8f6f4",
                "--fmt-a",
                "fp8",
                "--fmt-b",
                "fp8",
                "--width-a",
                "1099511627776",
            ),
            "harness: error: --width-a takes 1 to 4096 elements (what the harness builds); got 1099511627776",
        ),
        (
            ("expand", "--max-cases", "0"),
            "harness expand: error: argument --max-cases: takes a positive number of case-selector pairs; got '0'",
        ),
    ],
)
def test_an_empty_or_out_of_range_flag_value_is_refused_not_defaulted(cli, args, line):
    proc = cli(*args)
    assert proc.returncode == 2 and proc.stderr.splitlines() == [line] and proc.stdout == ""


def test_a_negative_format_operand_is_the_verifier_reject_any_bad_format_is(cli, llvm_22_1_8):
    verdicts = {}
    for value in ("-1", "5"):
        proc = cli(
            "try",
            "--intrinsic",
            "wmma.f32.16x16x128.f8f6f4",
            "--fmt-a",
            "fp4",
            "--fmt-b",
            "fp4",
            "--arg",
            f"fmt_a={value}",
            "--selector",
            "sdag",
            "--json",
        )
        assert proc.returncode == 0, proc.stderr
        record = json.loads(proc.stdout)
        verdicts[value] = (record["verdict"], record["detail"].splitlines()[0])
    assert verdicts["-1"] == verdicts["5"] == ("verifier-reject", "invalid value for matrix format")


def test_a_spec_path_outside_the_cases_directory_is_refused_not_swapped_for_a_namesake(cli, tmp_path):
    elsewhere = tmp_path / "f4-fixed-format.yaml"
    elsewhere.write_text("matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n")
    proc = cli("run", "--spec", elsewhere)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1].startswith(f"harness: error: --spec: {elsewhere} is not in the cases directory ")


# ---- an --llvm-bin that is a file ------------------------------------------------------------


def test_an_llvm_bin_that_is_a_file_says_so(cli):
    proc = cli("coverage", "--llvm-bin", "/usr/lib/llvm-22/bin/llc")
    one_line_exit_2(proc, "is not a directory")


@pytest.mark.parametrize(
    "command, flag, first, second",
    [
        ("run", "--cpu", "gfx942", "gfx950"),
        ("matrix", "-O", "0", "2"),
        ("run", "--selector", "sdag", "gisel"),
        ("try", "--fmt-a", "fp8", "fp4\nhidden"),
    ],
)
def test_a_one_value_flag_given_twice_is_refused_not_the_last_one_quietly(cli, command, flag, first, second):
    proc = cli(command, flag, first, flag, second)
    shown = (first, second) if flag == "-O" else (repr(first), repr(second))  # (-O's are numbers)
    line = one_line_exit_2(proc, f"{flag} is given twice ({shown[0]}, then {shown[1]})")
    assert line.startswith(f"harness {command}: error:") and proc.stdout == ""


def test_a_run_names_its_build_in_each_progress_line(llvm_22_1_8, capsys):
    from harness.specs.cases import SELECTORS, Case, Planned, group
    from harness.targets import catalog
    from harness.tools.runner import Runner, StderrProgress

    entry = catalog.lookup("mfma.f32.32x32x8f16")
    case = Case(entry, "gfx942", 0, 0, entry.a.widths[0], entry.b.widths[0])
    progress = StderrProgress()
    progress.PATIENCE = 0  # every quarter is said, however fast
    Runner(llvm_22_1_8, 1, progress).run(group([Planned(case, SELECTORS, ("t.yaml",))]))
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith(f"# LLVM {llvm_22_1_8.version}: ") for line in lines), lines


def test_usage_errors_name_the_next_step(cli, tmp_path):
    from conftest import one_line_exit_2

    one_line_exit_2(cli(), "a command is required: harness COMMAND --help")
    one_line_exit_2(cli("audit", tmp_path), "not a regular file (a test file must be one): a directory; name the files in it")
    one_line_exit_2(cli("lit", "-s", "x.ll"), "(harness lit --help lists its flags; any other lit flag: run lit itself")
    one_line_exit_2(cli("run", "--bogus"), "unrecognized arguments: --bogus (harness run --help lists its flags)")
    one_line_exit_2(cli("try", "--cpu", "gfx942"), "required: --intrinsic NAME, e.g. --intrinsic mfma.f32.32x32x8f16 (")
    one_line_exit_2(cli("report"), "required: FILE.json (harness report --help says what each takes)")
    typo = cli("rnu")
    one_line_exit_2(typo, "no command 'rnu'; the commands: expand, update-checks, ")
    assert "run, try, matrix" in typo.stderr and "gemm-ptx" not in typo.stderr, typo.stderr  # (no old alias)


def test_no_one_value_flag_of_any_command_takes_the_last_of_two_quietly(cli):
    import argparse

    from harness import parser as cli_parser

    def parsers(p):
        yield p
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in dict.fromkeys(action.choices.values()):
                    yield from parsers(sub)

    quiet = [
        f"{p.prog} {a.option_strings[0]}"
        for p in parsers(cli_parser.build([]))
        for a in p._actions
        if type(a) is argparse._StoreAction and a.option_strings
    ]
    assert quiet == [], quiet  # (each would take the last value of two)
    for args, line in (
        (("bisect-run", "--build", "false", "--build", "true"), "--build is given twice ('false', then 'true')"),
        (("run", "--llvm-bin", "/a", "--llvm-bin", "/b"), "--llvm-bin is given twice ('/a', then '/b')"),
        (("gpu", "build", "--kind", "gemm", "--kind", "tile", "--out", "x"), "--kind is given twice ('gemm', then 'tile')"),
        (("run", "--timeout", "3", "--timeout", "4"), "--timeout is given twice (3.0, then 4.0)"),  # (numbers)
    ):
        proc = cli(*args)
        assert proc.returncode == (129 if args[0] == "bisect-run" else 2), proc.stderr
        assert proc.stderr.strip().endswith(f"{line}; it takes one value"), proc.stderr

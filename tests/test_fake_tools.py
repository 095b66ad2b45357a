"""Fault injection with fake tool directories (the real build with one tool replaced): time stays
bounded (a tool that runs out of time gives `timeout`, whichever tool it is, and the same verdicts
at every -j), and no verdict comes from output that makes no sense (an llvm-mc that fails printing
nothing is exit 2)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PTXAS_VERSION, one_line_exit_2, run_json

TOOLS = ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck")


def fake_build(tmp_path: Path, real: Path, name: str, script: str) -> Path:
    out = tmp_path / "bin"
    out.mkdir()
    for tool in TOOLS:
        (out / tool).symlink_to(real / tool)
    (out / name).unlink()
    (out / name).write_text("#!/bin/sh\n" + script)
    (out / name).chmod(0o755)
    return out


def test_a_module_that_times_out_is_not_retried_case_by_case(llvm_22_1_8, cli, tmp_path):
    log = tmp_path / "compiles.log"
    real = llvm_22_1_8.bin_dir / "llc"
    hang = f'case "$*" in *--version*|*help*) exec {real} "$@";; esac\necho x >> {log}\nexec sleep 600\n'
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", hang)
    proc = cli(
        "run",
        "--llvm-bin",
        fake,
        "--spec",
        "f4-fixed-format.yaml",
        "--intrinsic",
        "wmma.f32.32x16x128.f4",
        "--selector",
        "sdag",
        "-j",
        "1",
        "--timeout",
        "1",
        "--json",
    )
    assert proc.returncode == 2 and "error: nothing judged: " in proc.stderr, proc.stderr  # (every cell timed out)
    import json

    verdicts = [c["verdict"] for c in json.loads(proc.stdout)["cases"]]
    assert verdicts and set(verdicts) == {"timeout"}, verdicts
    # One llc run for the one module that holds both files' cases (exact and over-wide share CPU,
    # -O, check and selector), not one more per case.
    assert len(log.read_text().splitlines()) == 1, log.read_text()


def test_an_llc_that_prints_garbage_and_exits_0_is_bad_output_not_a_verdict(llvm_22_1_8, cli, tmp_path):
    real = llvm_22_1_8.bin_dir / "llc"
    garbage = f'case "$*" in *--version*|*help*) exec {real} "$@";; esac\ncat >/dev/null\necho "%%% not assembly"\n'
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", garbage)
    proc = cli("try", "--llvm-bin", fake, "--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp4", "--fmt-b", "fp4")
    assert proc.returncode == 2 and "printed no code for" in proc.stderr and "%%% not assembly" in proc.stderr, proc.stderr


def test_an_llc_whose_code_lacks_the_matrix_instruction_gives_no_verdict(llvm_22_1_8, cli, tmp_path):
    real = llvm_22_1_8.bin_dir / "llc"
    # Real code with the one instruction the case is about deleted: llvm-mc would accept the rest.
    strip = f'case "$*" in *--version*|*help*|*filetype=obj*) exec {real} "$@";; esac\n{real} "$@" | grep -v v_wmma_\n'
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", strip)
    proc = cli("try", "--llvm-bin", fake, "--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp4", "--fmt-b", "fp4")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"harness: error: {fake}/llc exited 0 but the code it printed for "
        "wmma_f32_16x16x128_f8f6f4__a_fp4_v8__b_fp4_v8 has no v_wmma_f32_16x16x128_f8f6f4 or "
        "v_wmma_scale_f32_16x16x128_f8f6f4: no verdict comes from it"
    )


def test_an_interrupt_ends_a_run_and_its_tools_at_once(llvm_22_1_8, repo_root, tmp_path):
    real = llvm_22_1_8.bin_dir / "llc"
    seconds = f"617.{random.randrange(10**6):06d}"  # a length of time no other process sleeps
    marker = f"^sleep {seconds}$"
    hang = f'case "$*" in *--version*|*help*) exec {real} "$@";; esac\nexec sleep {seconds}\n'
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", hang)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness", "run", "--spec", "f4-fixed-format.yaml", "-j", "2"]
            + ["--llvm-bin", str(fake), "--timeout", "100"],
            cwd=repo_root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # A shell's background job ignores SIGINT, and so would this child: give it back.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.monotonic() + 60
        while not subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout and time.monotonic() < deadline:
            time.sleep(0.2)  # until the first tools run (most of the queue is still waiting)
        time.sleep(0.5)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
        # 128 + the signal, as a shell reports it: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP
        assert proc.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}[signum], (
            signum,
            proc.returncode,
            err[-500:],
        )  # (well before the tools' 100 s)
        time.sleep(0.5)
        left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
        assert left == [], f"{signum!r} left hung tools running: {left}"


def test_stopping_lit_ends_the_tools_of_its_space_tests(llvm_22_1_8, lit_exe, repo_root, tmp_path):
    # The space tests run the runner inside lit's workers, and the runner starts each tool in a
    # session of its own: SIGTERM to lit's process group (lit's own end on Ctrl-C reaches its
    # workers the same way) must end a hanging llc too, not leave it to PID 1.
    import conftest

    real = llvm_22_1_8.bin_dir / "llc"
    seconds = f"620.{random.randrange(10**6):06d}"  # a length of time no other process sleeps
    hang = f'case "$*" in *--version*|*help*) exec {real} "$@";; esac\nexec sleep {seconds}\n'
    fake = conftest.fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", hang)
    argv = [lit_exe, "cases/", "--param", "space=full", "--param", f"llvm_bin={fake}"]
    argv += ["--filter", r"space/amdgpu/mfma\.f32\.32x32x2bf16$"]
    proc = subprocess.Popen(argv, cwd=repo_root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    marker = f"^sleep {seconds}$"
    deadline = time.monotonic() + 120
    while not subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout and time.monotonic() < deadline:
        time.sleep(0.2)  # until the worker's first llc runs
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout, "no llc started"
    os.killpg(proc.pid, signal.SIGTERM)
    proc.communicate(timeout=60)
    time.sleep(1)
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    subprocess.run(["pkill", "-f", marker])
    assert left == [], f"stopping lit left hung tools running: {left}"


def test_a_tool_that_floods_its_output_is_stopped_with_one_line(llvm_22_1_8, cli, tmp_path):
    from harness.tools import toolchain

    real = llvm_22_1_8.bin_dir / "llc"
    flood = f'case "$*" in *--version*|*help*) exec {real} "$@";; esac\nexec yes\n'
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", flood)
    proc = cli("try", "--llvm-bin", fake, "--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp4", "--fmt-b", "fp4")
    limit = toolchain.OUTPUT_LIMIT >> 20
    assert proc.returncode == 2
    assert (
        proc.stderr.splitlines()[-1]
        == f"harness: error: {fake}/llc printed more than {limit} MB on stdout: no verdict comes from that"
    )


def test_an_assembler_that_prints_errors_but_exits_0_gives_no_verdict(llvm_22_1_8, cli, tmp_path):
    real = llvm_22_1_8.bin_dir / "llvm-mc"
    lying = f'{real} "$@"\necho "<stdin>:3:1: error: wrong register tuple size" >&2\nexit 0\n'
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llvm-mc", lying)
    proc = cli("try", "--llvm-bin", fake, "--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp8", "--fmt-b", "fp8")
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == (
        f"harness: error: {fake}/llvm-mc exited 0 but printed errors: <stdin>:3:1: error: wrong register tuple size"
    )


@pytest.mark.parametrize("how, verdict", [("exec sleep 600", "timeout"), ("kill -SEGV $$", "crash")])
def test_a_cpu_probe_that_hangs_or_dies_is_never_unsupported(llvm_22_1_8, cli, tmp_path, how, verdict):
    real = llvm_22_1_8.bin_dir / "llc"
    script = f'case "$*" in *-mcpu=help*) {how};; esac\nexec {real} "$@"\n'
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", script)
    case = ("--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp8", "--fmt-b", "fp8")
    proc = cli("try", "--llvm-bin", fake, "--timeout", "5", *case, "--selector", "sdag", "--json")
    assert proc.returncode == (2 if verdict == "timeout" else 1), proc.stderr  # nothing judged; a crash is unexpected
    record = json.loads(proc.stdout)
    assert record["verdict"] == verdict and "-mcpu=help (the build-support probe)" in record["detail"], record


def test_an_llc_that_reports_an_error_but_exits_0_gives_no_verdict_and_writes_nothing(llvm_22_1_8, cli, tmp_path):
    real = llvm_22_1_8.bin_dir / "llc"
    lying = (
        f'case "$*" in *--version*|*help*) exec {real} "$@";; esac\n{real} "$@"\necho "LLVM ERROR: out of memory" >&2\nexit 0\n'
    )
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", lying)
    proc = cli("try", "--llvm-bin", fake, "--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp8", "--fmt-b", "fp8")
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == f"harness: error: {fake}/llc exited 0 but printed errors: LLVM ERROR: out of memory"
    test = tmp_path / "t.ll"
    text = "; RUN: llc -mtriple=amdgcn -mcpu=gfx950 < %s | FileCheck %s\ndefine float @f(float %x) {\n  ret float %x\n}\n"
    test.write_text(text)
    proc = cli("update-checks", "--llvm-bin", fake, test)
    assert proc.returncode == 2 and "llc exited 0 but printed errors: LLVM ERROR: out of memory" in proc.stderr
    assert test.read_text() == text


def test_a_ptxas_that_reports_an_error_on_stdout_but_exits_0_gives_no_verdict(llvm_22_1_8, cli, tmp_path):
    ptxas = tmp_path / "ptxas"
    ptxas.write_text("#!/bin/sh\n" + PTXAS_VERSION + "echo 'ptxas /dev/stdin, line 20; error   : Illegal instruction'\nexit 0\n")
    ptxas.chmod(0o755)
    case = ("--intrinsic", "mma.m16n8k16.row.col.bf16", "--cpu", "sm_90")
    proc = cli("try", "--llvm-bin", llvm_22_1_8.bin_dir, *case, env={"PTXAS": str(ptxas)})
    assert proc.returncode == 2, proc.stdout
    said = "exited 0 but printed errors: ptxas /dev/stdin, line 20; error   : Illegal instruction"
    assert proc.stderr.splitlines()[-1] == f"harness: error: {ptxas} {said}"


@pytest.mark.parametrize(
    "command",
    [
        ["gpu", "build", "--kind", "gemm", "--filter", "gemm_16x8x16_f16_beta0*"],
        ["gpu", "build", "--kind", "tile", "--filter", "mma.m16n8k16.row.col.bf16*", "--filter", "mma.m16n8k8.row.col.bf16*"],
    ],
)
def test_sigterm_ends_the_nvptx_builders_and_their_tools_at_once(llvm_22_1_8, repo_root, tmp_path, command):
    seconds = f"618.{random.randrange(10**6):06d}"  # a length of time no other process sleeps
    ptxas = tmp_path / "ptxas"
    ptxas.write_text(f"#!/bin/sh\n{PTXAS_VERSION}exec sleep {seconds}\n")
    ptxas.chmod(0o755)
    argv = [sys.executable, "-m", "harness", *command, "--out", str(tmp_path / "out"), "--ptxas", str(ptxas)]
    proc = subprocess.Popen(
        [*argv, "--llvm-bin", str(llvm_22_1_8.bin_dir), "--timeout", "100", "-j", "1"],
        cwd=repo_root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    marker = f"^sleep {seconds}$"
    deadline = time.monotonic() + 60
    while not subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout and time.monotonic() < deadline:
        time.sleep(0.2)  # until the first ptxas runs (the rest of the queue is waiting)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)  # (well before ptxas's 100 s)
    assert proc.returncode == 143, (proc.returncode, err[-500:])  # 128 + SIGTERM
    time.sleep(0.5)
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split() == []
    out = tmp_path / "out"
    assert not out.exists() or list(out.iterdir()) == [], list(out.iterdir())  # nothing half-written


# ---- a tool that runs out of time gives `timeout`, whichever tool it is, at every -j ---------


F16_MFMA = "mfma.f32.32x32x8f16"
W = "wmma.f32.16x16x128.f8f6f4"


def _hanging(tmp_path: Path, real_dir: Path, name: str, hang: str, spare: str = "") -> tuple[Path, Path]:
    """The real build with `name` replaced by a script (fault injection) that hangs on calls
    whose arguments match the shell pattern `hang` and runs the real tool on the rest (and
    on `spare` first). Returns the bin directory and the log of hung calls."""
    out, log, real = tmp_path / "bin", tmp_path / f"{name}.hung", real_dir / name
    out.mkdir()
    for tool in ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck"):
        if tool != name:
            (out / tool).symlink_to(real_dir / tool)
    arms = (f'  {spare}) exec {real} "$@";;\n' if spare else "") + f'  {hang}) echo "$*" >> {log}; exec sleep 600;;\n'
    (out / name).write_text(f'#!/bin/sh\ncase "$*" in\n{arms}esac\nexec {real} "$@"\n')
    (out / name).chmod(0o755)
    return out, log


def test_an_opt_pipeline_that_times_out_gives_timeout_not_pass(llvm_22_1_8, cli, spec_dir, tmp_path):
    spec = (
        "matrix:\n  - intrinsic: wmma.f32.16x16x128.f8f6f4\n    pipeline: instcombine\n    fmt_a: fp4\n"
        "    fmt_b: [fp4, fp8]\n    width_a: [exact, max]\n    selector: sdag\n"
    )
    cases = spec_dir({"p.yaml": spec})
    # The pipeline check (-disable-output) and the intrinsic probe (no -passes) get the real opt.
    fake, log = _hanging(tmp_path, llvm_22_1_8.bin_dir, "opt", hang="*-passes=*", spare="*-disable-output*")
    proc = cli("run", "--cases", cases, "--llvm-bin", fake, "-j", "1", "--timeout", "1", "--json")
    assert proc.returncode == 2 and "error: nothing judged: " in proc.stderr, proc.stderr  # (every cell timed out)
    got = json.loads(proc.stdout)["cases"]
    assert len(got) == 4
    assert {c["verdict"] for c in got} == {"timeout"}, [(c["function"], c["verdict"], c["detail"]) for c in got]
    assert {c["detail"] for c in got} == {"opt ran past 1 s on the module of 4 case(s)"}
    assert len(log.read_text().splitlines()) == 1  # one opt run for the one module of all four, no retries


@pytest.mark.parametrize("tool_name", ["llc", "llvm-mc"])
def test_a_single_case_whose_tool_times_out_gives_timeout_not_pass(llvm_22_1_8, cli, tmp_path, tool_name):
    spare = "*--version*|*help*" if tool_name == "llc" else ""  # the build's probes
    fake, log = _hanging(tmp_path, llvm_22_1_8.bin_dir, tool_name, hang="*", spare=spare)
    proc = cli(
        "try",
        "--llvm-bin",
        fake,
        "--intrinsic",
        W,
        "--fmt-a",
        "fp4",
        "--fmt-b",
        "fp4",
        "--no-object",
        "--timeout",
        "1",
        "--selector",
        "sdag",
        "--json",
    )
    assert proc.returncode == 2 and "error: nothing judged: " in proc.stderr, proc.stderr  # (every cell timed out)
    record = json.loads(proc.stdout)
    assert record["verdict"] == "timeout", record["detail"]
    assert record["detail"] == f"{tool_name} ran past 1 s on the module of 1 case(s)"
    assert len(log.read_text().splitlines()) == 1


def test_a_hanging_module_takes_the_same_verdicts_at_every_j(llvm_22_1_8, cli, spec_dir, tmp_path):
    hang_in = f"{F16_MFMA.replace('.', '_')}__a_half_v4__b_half_v4__arg3_7"  # immarg: high of CBSZ (3 bits)
    real = llvm_22_1_8.bin_dir / "llc"
    script = (
        f'case "$*" in *--version*|*help*) exec {real} "$@";; esac\n'
        f'in=$(mktemp "{tmp_path}/in.XXXXXX"); cat > "$in"\n'
        f'if grep -q {hang_in} "$in"; then exec sleep 600; fi\n'
        f'exec {real} "$@" < "$in"\n'
    )
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", script)
    # One CPU, one selector: all the cases share one module key, more of them than a worker's
    # share at -j 3 (which once split the module, so that the hang took fewer cases with it).
    spec = (
        "matrix:\n  - intrinsic: [mfma.f32.32x32x8f16, mfma.f32.16x16x16f16, mfma.f32.32x32x4f16]\n"
        "    cpu: gfx90a\n    selector: sdag\n    immarg: [high, outside]\n"
    )
    cases = spec_dir({"hang.yaml": spec})
    docs = {}
    for jobs in ("1", "3"):
        args = ("run", "--cases", cases, "--llvm-bin", fake, "--timeout", "2", "-j", jobs)
        docs[jobs] = run_json(cli, *args)
    records = docs["1"]["cases"]
    assert len(records) > 16
    [hung] = [r for r in records if r["function"] == hang_in]
    assert hung["verdict"] == "timeout", hung
    assert docs["1"] == docs["3"]


# ---- an llvm-mc that fails silently ----------------------------------------------------------


def test_an_llvm_mc_that_exits_1_printing_nothing_is_exit_2(llvm_22_1_8, cli, tmp_path):
    real = llvm_22_1_8.bin_dir / "llvm-mc"
    silent = f'case "$*" in *--version*|*help*) exec {real} "$@";; esac\ncat >/dev/null\nexit 1\n'
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llvm-mc", silent)
    proc = cli("try", "--intrinsic", F16_MFMA, "--cpu", "gfx942", "--llvm-bin", fake)
    one_line_exit_2(proc, "llvm-mc")


@pytest.mark.parametrize("where", ["loading", "parsing the command line"])
def test_an_interrupt_before_the_command_starts_is_exit_130_without_a_traceback(repo_root, where):
    """Ctrl-C in the first moments (the modules still loading, the flags being read) is an
    interrupt like any other: exit 130, nothing on stderr. The interrupt is raised where it
    would land, by a stand-in for the step."""
    raise_it = "def interrupted(*a, **k):\n    raise KeyboardInterrupt\n"
    if where == "loading":
        setup = (
            raise_it
            + "import builtins\nreal = builtins.__import__\n"
            + ("builtins.__import__ = lambda name, *a, **k: interrupted() if name == 'harness.cli' else real(name, *a, **k)\n")
        )
    else:
        setup = raise_it + "import harness.parser\nharness.parser.build = interrupted\n"
    code = setup + "import runpy, sys\nsys.argv = ['harness', 'run']\nrunpy.run_module('harness', run_name='__main__')\n"
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo_root, capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (130, ""), proc.stderr[-2000:]


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "waiter-thread"])
def test_a_tools_exit_its_timeout_and_its_flood_are_seen_with_or_without_a_pidfd(pidfd, monkeypatch):
    """A tool's exit is awaited through its pidfd, or where the kernel has none through a thread
    in waitid: either way its output and status come back, a hang ends at the timeout with its
    whole session killed, and a flood is stopped. (Fault injection with sh, sleep and yes.)"""
    import errno

    from harness.core.errors import InputError
    from harness.tools import toolchain

    if not pidfd:

        def no_pidfd(pid: int) -> int:
            raise OSError(errno.ENOSYS, "no pidfd_open")

        monkeypatch.setattr(toolchain.os, "pidfd_open", no_pidfd)
    done = toolchain.run_tool(["sh", "-c", "echo out; echo err >&2; exit 3"], timeout=60)
    assert (done.returncode, done.stdout, done.stderr, done.timed_out) == (3, "out\n", "err\n", False)
    marker = f"sleep 3{random.randrange(10**6):06d}"  # (a command line no other process has)
    hung = toolchain.run_tool(["sh", "-c", f"{marker}; true"], timeout=0.3)
    assert hung.timed_out and hung.returncode is None
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout == b""  # (its child too)
    monkeypatch.setattr(toolchain, "OUTPUT_LIMIT", 1 << 16)
    with pytest.raises(InputError, match="yes printed more than 0 MB on stdout"):
        toolchain.run_tool(["yes"], timeout=60)

"""`harness bisect-run` votes only on cases that were compiled and judged, and leaves no child
behind (issue 15): an opt that crashes or hangs on the build-support probe is a skip (125),
whatever --want says; a `--llvm-bin-cmd` that runs past --timeout and a SIGTERM during `--build`
end the whole process group of the user's command. A daemon the command leaves holding its
output does not hold the step; what the command prints is kept by its end and bounded (bytes
counted, not timed). Processes are counted, not timed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO

EXACT = ["--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp4", "--fmt-b", "fp4", "--selector", "sdag"]
HANG_GUARD = 300  # seconds: only a hang reaches it


def argv(*args) -> list[str]:
    return [sys.executable, "-m", "harness", "bisect-run", *map(str, args)]


def env() -> dict:
    return {**os.environ, "PYTHONPATH": str(REPO), "LLVM_DISABLE_SYMBOLIZATION": "1"}


def alive(pidfile: Path, grace: float = 10.0) -> list[int]:
    """The listed processes still running (a zombie waiting for its reaper is not) after up to
    `grace` seconds: a process sent SIGKILL dies when the kernel next schedules it, which on a
    loaded machine is not at once. They are killed on the way out, so a failing test leaves
    nothing behind either."""
    words = pidfile.read_text().split() if pidfile.exists() else []
    deadline = time.monotonic() + grace
    while True:
        out = [int(w) for w in words if _running(int(w))]
        if not out or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for pid in out:
        os.kill(pid, signal.SIGKILL)
    return out


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def fake_opt(tmp_path: Path, real: Path, script: str) -> Path:
    out = tmp_path / "bin"
    out.mkdir()
    for entry in real.iterdir():
        (out / entry.name).symlink_to(entry)
    (out / "opt").unlink()
    (out / "opt").write_text("#!/bin/sh\n" + script)
    (out / "opt").chmod(0o755)
    return out


@pytest.mark.parametrize("want", ["pass", "crash", "timeout"])
@pytest.mark.parametrize(
    "script", ["cat >/dev/null; kill -SEGV $$\n", "echo $$ >> {pids}; exec sleep 300\n"], ids=["crash", "hang"]
)
def test_a_probe_that_dies_skips_whatever_is_wanted(llvm_22_1_8, tmp_path, script, want):
    pids = tmp_path / "pids"
    fake = fake_opt(tmp_path, llvm_22_1_8.bin_dir, script.format(pids=pids))
    proc = subprocess.run(
        argv("--llvm-bin", fake, *EXACT, "--want", want, "--timeout", "5"),
        capture_output=True,
        text=True,
        env=env(),
        timeout=HANG_GUARD,
    )
    assert proc.returncode == 125 and "no case was compiled" in proc.stdout, proc.stdout + proc.stderr
    assert alive(pids) == []


def test_an_llvm_bin_cmd_past_its_timeout_leaves_no_child(tmp_path):
    pids = tmp_path / "pids"
    cmd = f"sleep 300 & echo $! >> {pids}; wait"  # (--timeout 10: time to start its child on a loaded machine)
    proc = subprocess.run(
        argv("--llvm-bin-cmd", cmd, *EXACT, "--timeout", "10"), capture_output=True, text=True, env=env(), timeout=HANG_GUARD
    )
    assert proc.returncode == 125 and "timed out" in proc.stdout
    assert pids.exists() and alive(pids) == []


def test_sigterm_during_the_build_ends_it_and_votes_nothing(llvm_22_1_8, tmp_path):
    pids = tmp_path / "pids"
    build = f"sleep 300 & echo $! >> {pids}; wait"
    proc = subprocess.Popen(
        argv("--build", build, "--llvm-bin", llvm_22_1_8.bin_dir, *EXACT),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    for _ in range(HANG_GUARD * 10):  # until the build has started its child
        if pids.exists() and pids.read_text().strip() or proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode not in (0, 1, 125) and "Traceback" not in err, out + err
    assert alive(pids) == []


@pytest.mark.parametrize("where", ["--build", "--llvm-bin-cmd"])
def test_a_daemon_left_holding_the_commands_output_does_not_hold_the_step(llvm_22_1_8, tmp_path, where):
    """A build or lookup that leaves a daemon behind (sccache, a gradle daemon) holding its stdout:
    the step goes on once the shell has exited, and uses what it printed."""
    pids = tmp_path / "pids"
    daemon = f"setsid sleep 300 & echo $! >> {pids}"
    if where == "--build":
        flags = ["--build", daemon, "--llvm-bin", llvm_22_1_8.bin_dir]
    else:
        flags = ["--llvm-bin-cmd", f"{daemon}; echo {llvm_22_1_8.bin_dir}"]
    try:
        proc = subprocess.run(
            argv(*flags, *EXACT, "--timeout", "60"), capture_output=True, text=True, env=env(), timeout=HANG_GUARD
        )
        assert proc.returncode == 0 and proc.stdout.startswith("bisect-run: good (exit 0)"), (proc.stdout + proc.stderr)[:2000]
    finally:
        alive(pids, grace=0)  # (the daemon escaped the command's session on purpose: the test ends it)


def test_a_line_too_long_to_be_a_path_is_a_skip_quoted_short(tmp_path):
    long_line = "head -c 100000 /dev/zero | tr '\\0' a; echo"
    proc = subprocess.run(
        argv("--llvm-bin-cmd", long_line, *EXACT), capture_output=True, text=True, env=env(), timeout=HANG_GUARD
    )
    assert proc.returncode == 125 and proc.stderr == "", (proc.stdout + proc.stderr)[:300]
    assert "which is not a directory" in proc.stdout and len(proc.stdout) < 300, proc.stdout[:300]


def test_only_the_end_of_a_commands_output_is_kept():
    from harness.reports import bisect

    run = bisect._shell("head -c 5000000 /dev/zero | tr '\\0' a; echo; echo done >&2", None)
    assert run.returncode == 0 and run.stderr == "done\n"
    assert len(run.stdout) == bisect.KEPT and run.cut


@pytest.mark.parametrize(
    "flags", [["--llvm-bin-cmd", "yes"], ["--build", "head -c 3000000000 /dev/zero", "--llvm-bin", "/usr/lib/llvm-22/bin"]]
)
def test_a_command_printing_past_the_limit_is_stopped_and_skipped(monkeypatch, capsys, flags):
    """Past OUTPUT_LIMIT bytes on a stream (here lowered to 1 MiB) the command is stopped: 125."""
    from harness import parser
    from harness.reports import bisect

    monkeypatch.setattr(bisect, "OUTPUT_LIMIT", 1 << 20)
    words = ["bisect-run", *flags, *EXACT, "--timeout", "120"]
    assert bisect.main(parser.build(words).parse_args(words)) == 125
    out = capsys.readouterr().out
    assert "printed more than 1 MB on stdout" in out and "stopped" in out, out[:2000]


def test_an_internal_error_while_judging_aborts_the_bisect_and_never_votes(llvm_22_1_8, monkeypatch, capsys):
    """A failure of the harness itself after the build was found (here planted in the step) is
    not the commit's: abort (128), never good (0), bad (1) or skip (125)."""
    from harness import parser
    from harness.reports import bisect

    argv = ["bisect-run", "--llvm-bin", str(llvm_22_1_8.bin_dir), "--intrinsic", "mfma.scale.f32.16x16x128.f8f6f4"]
    args = parser.build().parse_args([*argv, "--fmt-a", "fp8", "--fmt-b", "fp8", "--selector", "sdag"])

    def planted(*_):
        raise RuntimeError("planted")

    monkeypatch.setattr(bisect, "_step", planted)
    assert bisect.main(args) == bisect.OWN_FAILURE == 128
    assert capsys.readouterr().err == "harness bisect-run: internal error: RuntimeError: planted\n"

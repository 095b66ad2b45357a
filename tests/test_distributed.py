"""`--scheduler ADDRESS`: the runs' tasks on a real Dask scheduler and real workers on this
machine (`dask scheduler`, `dask worker --preload harness.tools.distributed`), against the same
run done here: byte-identical outputs; a build no worker has is `unsupported`; a worker killed
mid-run loses nothing and leaves no tool running; a scheduler that is not there is one line and
exit 2."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from conftest import REPO

pytest.importorskip("distributed")

LLVM_22, LLVM_19 = "/usr/lib/llvm-22/bin", "/usr/lib/llvm-19/bin"
SELECTION = ["--spec", "amdgpu-families.yaml", "--cpu", "gfx942", "-O", "0"]


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "LLVM_DISABLE_SYMBOLIZATION": "1", **extra}


def _start(argv: list[str], log: Path, **env: str) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=_env(**env), start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Cluster:
    """A scheduler and `workers` workers (one thread each) that have `builds` (LLVM 22 and 19)."""

    def __init__(self, tmp: Path, workers: int, builds: tuple[str, ...] = (LLVM_22, LLVM_19), **env: str):
        self.tmp = tmp
        self.file = tmp / "scheduler.json"
        dask = str(Path(sys.executable).with_name("dask"))
        self.procs = [_start([dask, "scheduler", "--scheduler-file", str(self.file), "--host", "127.0.0.1", "--port", "0",
                              "--no-dashboard"], tmp / "scheduler.log")]  # fmt: skip
        deadline = time.monotonic() + 60
        while not self.file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        self.address = json.loads(self.file.read_text())["address"]
        self.workers = [
            _start(
                [dask, "worker", self.address, "--nthreads", "1", "--no-dashboard", "--preload", "harness.tools.distributed"],
                tmp / f"worker{i}.log",
                HARNESS_LLVM_BIN=os.pathsep.join(builds),
                **env,
            )  # fmt: skip
            for i in range(workers)
        ]
        self.procs += self.workers
        self.wait_for(workers)

    def wait_for(self, n: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=30) as client:
            client.wait_for_workers(n, timeout=120)
            # (each has stated its builds before it registered)

    def close(self) -> None:
        for proc in reversed(self.procs):
            _stop(proc)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, llvm_22_1_8):
    if not os.path.isdir(LLVM_19):
        pytest.skip("needs LLVM 19 beside 22 (ci/setup.sh installs both)")
    c = Cluster(tmp_path_factory.mktemp("dask"), 2)
    yield c
    c.close()


def harness(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=REPO, capture_output=True, timeout=timeout, env=_env())


def test_a_matrix_of_two_builds_on_two_workers_is_byte_identical_to_the_local_one(cluster, tmp_path):
    args = ["matrix", "--llvm-bin", LLVM_22, "--llvm-bin", LLVM_19, *SELECTION, "--no-cache", "--json"]
    here = harness(*args, "--html", str(tmp_path / "here.html"))
    there = harness(*args, "--html", str(tmp_path / "there.html"), "--scheduler", cluster.address)
    assert here.returncode == there.returncode and here.returncode in (0, 1), here.stderr + there.stderr
    assert there.stdout == here.stdout
    assert (tmp_path / "there.html").read_bytes() == (tmp_path / "here.html").read_bytes()
    doc = json.loads(there.stdout)
    assert [b["version"] for b in doc["builds"]] == ["22.1.8", "19.1.7"] and len(doc["cells"]) > 100
    judged = [{c["verdicts"][column] for c in doc["cells"]} for column in (0, 1)]
    assert all(v - {"unsupported"} for v in judged), judged  # (each build judges cells of its own)


def test_a_build_no_worker_has_is_unsupported_with_that_reason(cluster):
    proc = harness("run", "--llvm-bin", "/usr/lib/llvm-14/bin", *SELECTION, "--json", "--scheduler", cluster.address)
    records = json.loads(proc.stdout)["cases"]
    assert records and {r["verdict"] for r in records} == {"unsupported"}, proc.stderr
    assert all("no worker of the Dask scheduler" in r["detail"] and "LLVM 14.0.6" in r["detail"] for r in records)


def test_a_scheduler_that_is_not_there_is_one_line_and_exit_2():
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    proc = harness("run", *SELECTION, "--scheduler", f"tcp://127.0.0.1:{port}", "--scheduler-timeout", "3", timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b"", err
    assert len(err.strip().splitlines()) == 1 and f"127.0.0.1:{port}" in err and "within 3 s" in err, err
    assert time.monotonic() - start < 60


def _link_build(build: Path, source: str) -> None:
    """`build` holds the tools of `source`: one build rebuilt in place, as a bisect's is."""
    build.mkdir(parents=True, exist_ok=True)
    for tool in ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck"):
        (build / tool).unlink(missing_ok=True)
        (build / tool).symlink_to(os.path.join(source, tool))


def test_a_build_made_after_the_workers_started_is_taken_under_their_roots(tmp_path, llvm_22_1_8):
    """Each step of a bisect over a build farm: a fresh build at a path the workers see, rebuilt
    in place at the next step. A worker takes it under its $HARNESS_LLVM_ROOTS, and only there."""
    if not os.path.isdir(LLVM_19):
        pytest.skip("needs LLVM 19 beside 22 (ci/setup.sh installs both)")
    farm = tmp_path / "farm"
    build = farm / "build" / "bin"
    cluster = Cluster(tmp_path, 1, builds=("/usr/lib/llvm-14/bin",), HARNESS_LLVM_ROOTS=str(farm))
    try:
        outside = harness("run", "--llvm-bin", LLVM_19, *SELECTION, "--json", "--scheduler", cluster.address)
        records = json.loads(outside.stdout)["cases"]
        assert {r["verdict"] for r in records} == {"unsupported"}, outside.stderr
        assert "HARNESS_LLVM_ROOTS" in records[0]["detail"] and LLVM_19 in records[0]["detail"]
        for source, version in ((LLVM_22, "22.1.8"), (LLVM_19, "19.1.7")):
            _link_build(build, source)
            args = ["run", "--llvm-bin", str(build), "--spec", "amdgpu-families.yaml", "--cpu", "gfx90a", "-O", "0",
                    "--no-cache", "--json"]  # fmt: skip
            here = harness(*args)
            there = harness(*args, "--scheduler", cluster.address)
            assert here.returncode == there.returncode and here.returncode in (0, 1), here.stderr + there.stderr
            assert there.stdout == here.stdout
            doc = json.loads(there.stdout)
            assert doc["llvm"] == version and any(r["verdict"] != "unsupported" for r in doc["cases"])
        # Rebuilt in place once more, and no client asks for the new build: a client of the old
        # one (19, from its own path) is not answered by the new one, and it is offered no more.
        _link_build(build, LLVM_22)
        stale = harness("run", "--llvm-bin", LLVM_19, *SELECTION, "--json", "--scheduler", cluster.address)
        err = [line for line in stale.stderr.decode().splitlines() if not line.startswith("# ")]
        assert stale.returncode == 2 and stale.stdout == b"" and len(err) == 1, stale.stderr
        assert "is no longer llvm-19.1.7-" in err[0] and str(build) in err[0], err
        gone = harness("run", "--llvm-bin", LLVM_19, *SELECTION, "--json", "--scheduler", cluster.address)
        assert {r["verdict"] for r in json.loads(gone.stdout)["cases"]} == {"unsupported"}, gone.stderr
    finally:
        cluster.close()


def _tools_left(names=("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump")) -> list[psutil.Process]:
    found = []
    for p in psutil.process_iter(["name", "environ"]):
        try:
            if p.info["name"] in names and (p.info["environ"] or {}).get("HARNESS_TEST_TAG") == TAG:
                found.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


TAG = f"distributed-{os.getpid()}"


def _name(p: psutil.Process) -> str:
    """A process's name, "" once it has exited (a tool ends between listing and reading it)."""
    try:
        return p.name()
    except psutil.NoSuchProcess:
        return ""


def test_a_worker_killed_mid_run_loses_nothing_and_leaves_no_tool(tmp_path, llvm_22_1_8):
    if not os.path.isdir(LLVM_19):
        pytest.skip("needs LLVM 19 beside 22")
    args = ["run", "--llvm-bin", LLVM_22, "--spec", "amdgpu-families.yaml", "--json"]
    here = harness(*args)
    c = Cluster(tmp_path, 2, HARNESS_TEST_TAG=TAG)  # (the workers' tools inherit the tag)
    try:
        run = subprocess.Popen([sys.executable, "-m", "harness", *args, "--scheduler", c.address], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())  # fmt: skip
        victim = psutil.Process(c.workers[0].pid)
        deadline = time.monotonic() + 300
        while not [p for p in victim.children(recursive=True) if _name(p) == "llc"] and time.monotonic() < deadline:
            time.sleep(0.01)  # until the worker runs a tool
        for p in [victim, *victim.children(recursive=True)]:
            if _name(p) not in ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", ""):
                p.send_signal(signal.SIGKILL)
        out, err = run.communicate(timeout=900)
        time.sleep(1)
        assert run.returncode == here.returncode, err.decode()[-3000:]
        assert out == here.stdout
    finally:
        c.close()
    assert _tools_left() == []


CHILD = """\
import sys, threading, time
from harness.tools import toolchain
toolchain.tie_tools_to_parent()
threading.Thread(target=toolchain.run_tool, args=([sys.argv[2], sys.argv[1]],), kwargs={"timeout": 600}, daemon=True).start()
time.sleep(600)
"""


@pytest.mark.parametrize("how", ["setpriv", "preexec", "untied"])
def test_a_tool_dies_with_the_process_that_started_it_even_by_sigkill(how):
    # What a Dask worker killed mid-run leaves behind: with the preload's tie, nothing, whether
    # through setpriv (a tool named by its path) or a preexec function (one found on PATH).
    # Untied, the tool outlives the killed process: the control that shows the test can fail.
    from harness.tools import toolchain

    if how == "setpriv" and not toolchain._setpriv():
        pytest.skip("no setpriv that takes --pdeathsig (util-linux 2.33 or later)")
    n = ["setpriv", "preexec", "untied"].index(how)
    tag = f"{os.getpid()}.{n}{time.monotonic_ns() % 100000}"  # a sleep of this many seconds is ours alone
    program = shutil.which("sleep") if how == "setpriv" else "sleep"
    code = CHILD.replace("toolchain.tie_tools_to_parent()\n", "") if how == "untied" else CHILD
    parent = subprocess.Popen([sys.executable, "-c", code, tag, program], env=_env())
    try:
        deadline = time.monotonic() + 60
        while not (tool := [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == [program, tag]]):
            assert time.monotonic() < deadline and parent.poll() is None
            time.sleep(0.02)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        try:
            tool[0].wait(timeout=5)
            outlived = False
        except psutil.TimeoutExpired:
            outlived = True
        assert outlived is (how == "untied")
    finally:
        parent.kill()
        for p in psutil.process_iter(["cmdline"]):
            if p.info["cmdline"] == [program, tag]:
                p.kill()


def test_the_build_key_covers_every_tool_that_decides_a_verdict(tmp_path, llvm_22_1_8):
    # Same llc, another llvm-mc: another build, whose cells a worker must not answer for the client's.
    from harness.tools import distributed, toolchain

    other = tmp_path / "bin"
    other.mkdir()
    for tool in distributed.KEYED_TOOLS[:-1]:
        (other / tool).symlink_to(Path(LLVM_22) / tool)
    (other / "llvm-mc").unlink()
    (other / "llvm-mc").write_text(f'#!/bin/sh\nexec {LLVM_22}/llvm-mc "$@"\n')
    (other / "llvm-mc").chmod(0o755)
    real, linked = toolchain.discover(LLVM_22), toolchain.discover(str(other))
    assert distributed.build_key(real).startswith("llvm-22.1.8-")
    assert distributed.build_key(real) != distributed.build_key(linked)
    (other / "llvm-mc").unlink()
    (other / "llvm-mc").symlink_to(Path(LLVM_22) / "llvm-mc")  # the same files again: the same build
    assert distributed.build_key(real) == distributed.build_key(toolchain.discover(str(other)))


def test_a_listener_that_never_answers_is_one_line_and_exit_2_within_the_timeout():
    import socket

    with socket.socket() as s:  # accepts every connection, says nothing
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        start = time.monotonic()
        proc = harness("run", *SELECTION, "--scheduler", f"tcp://127.0.0.1:{s.getsockname()[1]}", "--scheduler-timeout", "3",
                       timeout=120)  # fmt: skip
    err = proc.stderr.decode()
    assert proc.returncode == 2 and len(err.strip().splitlines()) == 1 and err.count("within 3 s") == 1, err
    assert "is `dask scheduler` running there?" in err, err
    assert time.monotonic() - start < 60


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSTOP])
def test_a_scheduler_gone_or_frozen_mid_run_is_one_line_and_exit_2(tmp_path, llvm_22_1_8, how):
    if not os.path.isdir(LLVM_19):
        pytest.skip("needs LLVM 19 beside 22")
    c = Cluster(tmp_path, 1)
    try:
        run = subprocess.Popen([sys.executable, "-m", "harness", "run", "--llvm-bin", LLVM_22, "--spec", "amdgpu-families.yaml",
                                "--json", "--scheduler", c.address, "--scheduler-timeout", "5"], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())  # fmt: skip
        worker = psutil.Process(c.workers[0].pid)
        deadline = time.monotonic() + 300
        while not [p for p in worker.children(recursive=True) if p.name() == "llc"] and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(c.procs[0].pid, how)
        out, err = run.communicate(timeout=180)
    finally:
        if how == signal.SIGSTOP:
            os.kill(c.procs[0].pid, signal.SIGCONT)
        c.close()
    lines = err.decode().strip().splitlines()
    assert run.returncode == 2 and out == b"", err.decode()[-3000:]
    assert "lost the Dask scheduler" in lines[-1] and not [l for l in lines if "Traceback" in l or "ERROR" in l], lines


def test_the_dashboard_link_is_printed_only_where_a_page_answers():
    """`dask scheduler --no-dashboard` still names an HTTP port; only a page there is a link."""
    import http.server
    import threading

    from harness.tools.distributed import _shows

    class Pages(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/status" else 404)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        assert _shows(f"http://127.0.0.1:{port}/status")
        assert not _shows(f"http://127.0.0.1:{port}/other")
    finally:
        server.shutdown()
        server.server_close()
    assert not _shows(f"http://127.0.0.1:{port}/status")  # (nothing listens now)


MALFORMED = ["tcp://", "tls://127.0.0.1:1", "inproc://x", "tcp://[::1", "TCP://127.0.0.1:1", "tcp://127.0.0.1:1/x"]


@pytest.mark.parametrize("address", MALFORMED)
def test_a_malformed_scheduler_address_is_refused_as_such_at_once(address):
    # Through the installed entry point (`sys.exit(main())`: the interpreter's own teardown, where a
    # half-made Dask client closed itself with a traceback after twice the timeout).
    entry = Path(sys.executable).with_name("harness")
    start = time.monotonic()
    argv = [str(entry), "run", *SELECTION, "--scheduler", address, "--scheduler-timeout", "3"]
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, timeout=120, env=_env())
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b"" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("harness run: error: argument --scheduler: ") and "is not a Dask scheduler address" in err, err
    assert "give tcp://HOST:PORT" in err and "answered" not in err, err
    assert time.monotonic() - start < 30


def _bisect(*args: str) -> subprocess.CompletedProcess:
    return harness("bisect-run", "--llvm-bin", LLVM_22, "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx942", "-O", "0",
                   *args, timeout=120)  # fmt: skip


@pytest.mark.parametrize("address", ["tcp://", "TCP://127.0.0.1:1", "silent"])
def test_bisect_run_aborts_for_a_scheduler_it_cannot_use(llvm_22_1_8, address):
    """129 (abort), never 125: a cluster that is not there fails at every commit alike."""
    import socket

    with socket.socket() as s:  # (for "silent": accepts every connection, says nothing)
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        there = f"tcp://127.0.0.1:{s.getsockname()[1]}" if address == "silent" else address
        proc = _bisect("--scheduler", there, "--scheduler-timeout", "3")
    err = proc.stderr.decode()
    assert proc.returncode == 129 and proc.stdout == b"" and len(err.strip().splitlines()) == 1, (proc.stdout, err)
    assert err.startswith("harness bisect-run: error: ") and "--scheduler" in err, err


def _fake_llc(tmp: Path, script: str) -> Path:
    """LLVM 22's tools linked into `tmp`/bin, llc replaced by `script` (fault injection), which
    runs the real llc where it does not exec something else."""
    out = tmp / "bin"
    out.mkdir()
    for tool in ("llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck"):
        (out / tool).symlink_to(Path(LLVM_22) / tool)
    (out / "llc").write_text(f'#!/bin/sh\n{script}\nexec {LLVM_22}/llc "$@"\n')
    (out / "llc").chmod(0o755)
    return out


def _sleeps(seconds: str) -> list[int]:
    """The pids of `sleep SECONDS` processes (a number no other test uses)."""
    pattern = f"^(\\S*/)?sleep {re.escape(seconds)}$"
    found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
    return [int(pid) for pid in found]


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("when", ["before", "while"])
def test_a_scheduler_lost_around_a_take_is_one_line_and_exit_2(tmp_path, llvm_22_1_8, when):
    """The client asks the workers to take its build (none has it). `before`: the scheduler dies
    while the client probes its own llc, and the client has given up on it when it asks; `while`:
    it dies while the worker looks at the build (its llc hangs there)."""
    seconds = f"{7 + os.getpid() % 1000 / 1000:.3f}" if when == "before" else f"{600 + os.getpid() % 1000 / 1000:.3f}"
    fake = _fake_llc(tmp_path, f'case "$*" in *--version*) [ -n "$HARNESS_SLOW_LLC" ] && sleep {seconds};; esac')
    slow = {"HARNESS_SLOW_LLC": "1"}
    roots = {"HARNESS_LLVM_ROOTS": str(tmp_path)}  # (the worker looks at the client's build)
    c = Cluster(tmp_path, 1, builds=("/usr/lib/llvm-14/bin",), **roots, **({} if when == "before" else slow))
    try:
        run = subprocess.Popen([sys.executable, "-m", "harness", "run", "--llvm-bin", str(fake), *SELECTION[2:], "--intrinsic",
                                "mfma.f32.32x32x8f16", "--json", "--scheduler", c.address, "--scheduler-timeout", "3"],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=_env(**(slow if when == "before" else {})))  # fmt: skip
        deadline = time.monotonic() + 120
        while not _sleeps(seconds) and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.05)
        assert _sleeps(seconds), "the llc that waits never ran"
        os.kill(c.procs[0].pid, signal.SIGKILL)
        out, err = run.communicate(timeout=120)
    finally:
        c.close()
        _kill(_sleeps(seconds))
    lines = err.decode().strip().splitlines()
    assert run.returncode == 2 and out == b"", err.decode()[-3000:]
    assert lines[-1].startswith("harness: error: lost the Dask scheduler at ") and not lines[-1].count("\n"), lines
    assert not [line for line in lines if "Traceback" in line or line.startswith(" ")], lines


def test_a_client_stopped_by_a_signal_ends_its_tasks_tools_on_the_worker(tmp_path, llvm_22_1_8):
    """Ctrl-C or SIGTERM to a --scheduler client: its tasks are cancelled and the worker ends
    their tools at once, not at --timeout (100 s here); the next run is not queued behind them."""
    seconds = f"{4000 + os.getpid() % 1000}.{time.monotonic_ns() % 1000}"  # (only this test's llc sleeps this long)
    fake = _fake_llc(tmp_path, f'case "$*" in *--version*|*help*) ;; *) exec sleep {seconds};; esac')
    c = Cluster(tmp_path, 1, builds=(str(fake),))
    argv = [sys.executable, "-m", "harness", "run", "--llvm-bin", str(fake), *SELECTION[2:], "--intrinsic", "mfma.f32.32x32x8f16",
            "--timeout", "100", "--no-cache", "--scheduler", c.address]  # fmt: skip
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            run = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(),
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
            deadline = time.monotonic() + 120
            while not _sleeps(seconds) and time.monotonic() < deadline and run.poll() is None:
                time.sleep(0.05)
            assert _sleeps(seconds), run.communicate(timeout=60)
            run.send_signal(signum)
            _, err = run.communicate(timeout=60)
            assert run.returncode == 128 + signum, err.decode()[-2000:]
            deadline = time.monotonic() + 15  # (far less than the 100 s the tool may run)
            while _sleeps(seconds) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _sleeps(seconds) == [], f"the worker's llc outlived the {signal.Signals(signum).name}ed client"
    finally:
        c.close()
        _kill(_sleeps(seconds))


def test_stopping_a_scope_ends_its_tools_alone():
    """Two tasks on one worker, each in its scope: stopping one ends its tool (Stopped, not a
    verdict from a killed tool) and leaves the other's running."""
    import threading

    from harness.tools import toolchain

    sleep = shutil.which("sleep")
    seconds = [f"{5000 + os.getpid() % 1000}.{n}{time.monotonic_ns() % 1000}" for n in (1, 2)]
    ended: dict[str, BaseException | None] = {}

    def task(scope: str, secs: str) -> None:
        with toolchain.scoped(scope):
            try:
                toolchain.run_tool([sleep, secs], timeout=100)
                ended[scope] = None
            except BaseException as exc:
                ended[scope] = exc

    threads = [threading.Thread(target=task, args=(f"task-{n}", s)) for n, s in enumerate(seconds)]
    try:
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while not all(_sleeps(s) for s in seconds) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(_sleeps(s) for s in seconds)
        toolchain.stop("task-0")
        threads[0].join(10)
        assert isinstance(ended.get("task-0"), toolchain.Stopped) and _sleeps(seconds[0]) == []
        assert _sleeps(seconds[1]) and "task-1" not in ended  # (the other task's tool runs on)
        toolchain.stop("task-1")
        threads[1].join(10)
        assert isinstance(ended.get("task-1"), toolchain.Stopped)
    finally:
        for s in seconds:
            _kill(_sleeps(s))

"""Find the LLVM build to test and run its tools with timeouts.

Discovery order: an explicit directory (--llvm-bin / --param llvm_bin=), then $LLVM_BIN, then
the newest /usr/lib/llvm-N/bin whose llc has the AMDGPU target, then whatever llc is on PATH.
Every tool comes from that build, but for the tools outside LLVM: the assembler that closes
NVPTX's text, ptxas (`find_ptxas`), and NVIDIA's CUDA compiler, nvcc (`find_nvcc`).
`Toolchain.tool` (and `tool_path`) is the one lookup for all.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import glob
import json
import os
import re
import select
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from harness.core import commands, files
from harness.core.errors import PATH_LIMIT, InputError, quoted
from harness.tools import builds

DEFAULT_TIMEOUT = commands.DEFAULT_TIMEOUT


@dataclass(frozen=True)
class ToolRun:
    """What one tool invocation did."""

    argv: tuple[str, ...]
    returncode: int | None  # None when it timed out
    stdout: str
    stderr: str
    seconds: float
    data: bytes = b""  # stdout as bytes, for a run asked to keep binary output (an object)
    input: bytes | None = None  # what the tool read on stdin, kept only when asked (try --keep)

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def summary(self, limit: int = 4000) -> dict:
        """JSON-friendly record; long streams are cut from the front (the end says why)."""
        cut = lambda s: s if len(s) <= limit else "...[cut]...\n" + s[-limit:]
        return {
            "argv": list(self.argv),
            "returncode": self.returncode,
            "timed_out": self.timed_out,
            "seconds": round(self.seconds, 4),
            "stderr": cut(self.stderr),
        }


# The environment every tool runs in, the harness's and lit's RUN lines alike (lit.cfg.py adds
# these to config.environment). Crash stack traces stay raw (addresses): symbolizing them costs
# ~0.5 s per aborting llc and no verdict reads them.
TOOL_SETTINGS = {"LLVM_DISABLE_SYMBOLIZATION": "1"}
TOOL_ENV = {**os.environ, **TOOL_SETTINGS}


# Whether each tool dies with the thread that started it (Linux's parent-death signal): set in
# processes another program may SIGKILL (a Dask worker), where no handler runs to end the tools.
_TIE_TO_PARENT = False


def tie_tools_to_parent() -> None:
    """From now on, a tool this process starts is killed when the thread that started it ends,
    however that ends (SIGKILL included). Linux only; elsewhere nothing changes."""
    global _TIE_TO_PARENT
    _TIE_TO_PARENT = sys.platform.startswith("linux")


def _tied(argv: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """(what to start, the function its child runs before exec) for tool `argv`. Untied: argv.
    Tied: `setpriv --pdeathsig KILL -- argv` where util-linux has it, started as an untied tool
    is (vfork: a worker of 400 MB forked for each of 50,000 tools spends minutes of system time
    copying its page tables); else a preexec function that sets PR_SET_PDEATHSIG and checks the
    parent did not die before (a fork). (setpriv has no such check: a worker killed in the
    millisecond before setpriv sets the signal leaves that one tool.)"""
    if not _TIE_TO_PARENT:
        return argv, None
    setpriv = _setpriv()
    if setpriv and os.path.isabs(argv[0]) and os.path.isfile(argv[0]) and os.access(argv[0], os.X_OK):
        return [setpriv, "--pdeathsig", "KILL", "--", *argv], None
    prctl, parent = _prctl(), os.getpid()

    def tie() -> None:
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(137)

    return argv, tie


@functools.cache
def _setpriv() -> str | None:
    """util-linux's setpriv when it takes --pdeathsig (2.33 and later), else None."""
    found = shutil.which("setpriv")
    try:
        ok = (
            found
            and subprocess.run([found, "--pdeathsig", "KILL", "--", "true"], capture_output=True, timeout=10).returncode == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return found if ok else None


@functools.cache
def _prctl():
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl


def run_tool(
    argv: list[str], stdin: str | bytes = "", timeout: float = DEFAULT_TIMEOUT, binary: bool = False, keep_input: bool = False
) -> ToolRun:
    """Run one tool with a timeout. With `binary`, stdout is kept as bytes in `data`; with
    `keep_input`, what it read on stdin is kept in `input`.

    The tool reads stdin from, and writes both streams to, unnamed temporary files, which are
    read once it has exited: llc writes its text in 4 KB pieces, and a pipe would wake the
    harness for every one (thousands per module, each taking the interpreter's lock from the
    threads parsing other modules)."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    decode = lambda b: b.decode(errors="replace")
    builds.tool_files(argv[0])  # (notes what it runs: no output is written onto it)
    start = time.perf_counter()
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        given.write(data)
        given.seek(0)
        try:
            # A session of its own: a timeout or Ctrl-C ends the tool and anything it started.
            started, preexec = _tied(argv)
            proc = subprocess.Popen(
                started, stdin=given, stdout=out, stderr=err, env=TOOL_ENV, start_new_session=True, preexec_fn=preexec
            )
        except OSError as exc:
            raise InputError(f"cannot run {argv[0]}: {exc.strerror}") from None
        scope = _SCOPE.get()
        with _LIVE_LOCK:  # registered before the stop flags are read: stop_all() and stop() cannot miss it
            _LIVE[proc] = scope
            stopping = _STOPPING.is_set()
        try:
            if stopping:  # (started just as the harness was told to stop)
                _kill_group(proc)
                raise KeyboardInterrupt
            _stop_if_stopped(argv[0], scope)
            timed_out, flooded = await_exit(proc, timeout, {"stdout": out, "stderr": err})
            _stop_if_stopped(argv[0], scope)  # (what a tool ended by stop() printed decides nothing)
        except BaseException:
            _kill_group(proc)
            proc.wait()
            raise
        finally:
            with _LIVE_LOCK:
                _LIVE.pop(proc, None)
        flooded = flooded or next((name for name, f in (("stdout", out), ("stderr", err)) if _size(f) > OUTPUT_LIMIT), "")
        if flooded:
            raise InputError(f"{argv[0]} printed more than {OUTPUT_LIMIT >> 20} MB on {flooded}: no verdict comes from that")
        printed, said = _contents(out), decode(_contents(err))
    kept = data if keep_input else None
    elapsed = time.perf_counter() - start
    if timed_out:
        return ToolRun(tuple(argv), None, decode(printed), said, elapsed, input=kept)
    if binary:
        return ToolRun(tuple(argv), proc.returncode, "", said, elapsed, printed, kept)
    return ToolRun(tuple(argv), proc.returncode, decode(printed), said, elapsed, input=kept)


def await_exit(proc: subprocess.Popen, timeout: float, streams: dict, limit: int | None = None) -> tuple[bool, str]:
    """Wait for the tool to exit, then end whatever it left running in its session, and reap
    it. Returns (timed out, the name of a file in `streams` it wrote more than `limit` (default
    OUTPUT_LIMIT) bytes to, or ""). A tool still running is looked at after 10 ms, then at
    doubling intervals up to 0.1 s: one that floods a stream is killed within that time, and a
    short run costs no wake-up. `timeout` may be math.inf."""
    limit = OUTPUT_LIMIT if limit is None else limit
    exited = _Exit(proc.pid)
    deadline, pause, flooded = time.monotonic() + timeout, 0.01, ""
    try:
        while True:
            if exited.wait(max(0.0, min(pause, deadline - time.monotonic()))) or time.monotonic() >= deadline:
                break
            flooded = next((name for name, f in streams.items() if _size(f) > limit), "")
            if flooded:
                break
            pause = min(pause * 2, 0.1)
        timed_out = not exited.wait(0) and not flooded
    finally:
        exited.close()
    # The tool has exited (or is to be stopped) but is not reaped: its session's id cannot be
    # anyone else's yet, so ending the session reaches only what the tool started.
    _kill_group(proc)
    proc.wait()
    return timed_out, flooded


class _Exit:
    """Whether process `pid` has exited, without reaping it: through a pidfd (Linux 5.3 and
    later; the waiting thread sleeps in poll(), one wake-up when the process exits), else a
    thread that waits in waitid(WNOWAIT)."""

    def __init__(self, pid: int):
        self._poll: select.poll | None = None
        self._fd = -1
        self._thread: threading.Thread | None = None
        try:
            self._fd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self._thread = threading.Thread(target=_exit_of, args=(pid,), daemon=True)
            self._thread.start()
            return
        self._poll = select.poll()
        self._poll.register(self._fd, select.POLLIN)

    def wait(self, seconds: float) -> bool:
        """Whether it has exited, waiting up to `seconds` for it."""
        if self._poll is not None:
            return bool(self._poll.poll(seconds * 1000))
        assert self._thread is not None
        self._thread.join(seconds)
        return not self._thread.is_alive()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _exit_of(pid: int) -> None:
    """Return once process `pid` has exited, leaving it unreaped."""
    try:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    except ChildProcessError:  # (already reaped)
        pass


def _size(f) -> int:
    return os.fstat(f.fileno()).st_size


def _contents(f) -> bytes:
    """A stream's file as written (its size was checked against OUTPUT_LIMIT)."""
    f.seek(0)
    return f.read(OUTPUT_LIMIT + 1)


# Bytes a tool may print on one stream; the largest module's text is a few MB.
OUTPUT_LIMIT = 256 << 20
# Tools running now, each with the scope it runs in (None outside any), so that an interrupt
# can end them all (and their children) at once, and `stop(scope)` those of one scope.
_LIVE: dict[subprocess.Popen, Hashable | None] = {}
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()
_SCOPE: contextvars.ContextVar[Hashable | None] = contextvars.ContextVar("tool scope", default=None)
_STOPPED: set[Hashable] = set()  # scopes told to stop, while they last


class Stopped(Exception):
    """A tool of a scope that `stop()` ended: its output decides nothing."""


@contextlib.contextmanager
def scoped(scope: Hashable) -> Iterator[None]:
    """The tools this context starts (and threads started through `contextvars.copy_context()`)
    run in `scope`, which `stop(scope)` ends alone: a Dask worker's task whose client cancelled it,
    while other clients' tasks on that worker go on."""
    token = _SCOPE.set(scope)
    try:
        yield
    finally:
        _SCOPE.reset(token)
        with _LIVE_LOCK:
            _STOPPED.discard(scope)


def stop(scope: Hashable) -> None:
    """End every tool of `scope` now and start none in it from now on (each raises Stopped)."""
    with _LIVE_LOCK:
        _STOPPED.add(scope)
        procs = [proc for proc, its in _LIVE.items() if its == scope]
    for proc in procs:
        _kill_group(proc)


def stopped_here() -> bool:
    """Whether the scope this thread runs in was told to stop."""
    scope = _SCOPE.get()
    with _LIVE_LOCK:
        return scope is not None and scope in _STOPPED


def _stop_if_stopped(tool: str, scope: Hashable | None) -> None:
    with _LIVE_LOCK:
        ended = scope is not None and scope in _STOPPED
    if ended:
        raise Stopped(f"{tool} was stopped: its task was cancelled")


def stop_all() -> None:
    """End every tool still running and start no new one (Ctrl-C, SIGTERM): the harness then
    unwinds at once instead of finishing its queue. `resume()` undoes the second part."""
    _STOPPING.set()
    with _LIVE_LOCK:
        procs = list(_LIVE)
    for proc in procs:
        _kill_group(proc)


def resume() -> None:
    _STOPPING.clear()


def parallel(call: Callable, items: Iterable, jobs: int | None = None) -> list:
    """[call(item) for item in items] on `jobs` threads (default: cores), in order. An exception
    (Ctrl-C or SIGTERM as KeyboardInterrupt in the main thread) ends the tools running now and
    drops the queue at once: a pool's `with` block would wait for every queued call first."""
    pool = ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1)
    try:
        futures = [pool.submit(call, item) for item in items]
        return [f.result() for f in futures]
    except BaseException:
        stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        resume()
        raise
    finally:
        pool.shutdown(wait=True)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


_MEMO_LOCK = threading.Lock()

_CUDA_PTXAS = Path("/usr/local/cuda/bin/ptxas")


def _given_or_on_path(name: str, explicit: str | None) -> str:
    """A CUDA tool from `explicit` (its --<name> flag), else $<NAME>, else PATH; "" when none
    of them names it. A path given that is no executable file is bad input."""
    chosen = explicit or os.environ.get(name.upper())
    if chosen:
        if not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
            raise InputError(
                f"{name} {quoted(chosen, PATH_LIMIT)} (from {'--' + name if explicit else '$' + name.upper()}) is not an executable file"
            )
        return chosen
    return shutil.which(name) or ""


def find_ptxas(explicit: str | None = None) -> str:
    """ptxas: `explicit` (--ptxas, --param ptxas=), else $PTXAS, else PATH, else
    /usr/local/cuda/bin, else the pip wheel nvidia-cuda-nvcc; "" when there is none. The one
    found must say it is ptxas (`is_ptxas`)."""
    found = _given_or_on_path("ptxas", explicit)
    if not found and _CUDA_PTXAS.is_file():
        found = str(_CUDA_PTXAS)
    if not found:
        # The pip wheel nvidia-cuda-nvcc (ci/setup.sh installs it where no ptxas is found).
        wheel = [
            Path(p) / "nvidia" / cu / "bin" / "ptxas" for p in site.getsitepackages() for cu in ("cu13", "cu12", "cuda_nvcc")
        ]
        found = next((str(w) for w in wheel if w.is_file() and os.access(w, os.X_OK)), "")
    if found:
        is_ptxas(found)
    return found


PROBE_TIMEOUT = 15.0  # seconds for a tool's `--version`
_PTXAS_SAYS = re.compile(r"NVIDIA \(R\) Ptx optimizing assembler")
# nvcc's banner and release (ptxas prints the same release line, without "Cuda compiler driver").
NVCC_SAYS = re.compile(r"NVIDIA \(R\) Cuda compiler driver[\s\S]*?(?P<release>release [\d.]+, V[\d.]+)")
_IDENTIFIED: dict[tuple[str, str], str] = {}


def is_ptxas(path: str) -> None:
    """Refuse (InputError, one line) a file named as ptxas whose `--version` does not print
    NVIDIA's banner: every verdict would be its say (see `identify`)."""
    identify(path, "ptxas", _PTXAS_SAYS)


def identify(path: str, name: str, banner: re.Pattern) -> str:
    """What `path --version` prints that matches `banner` (NVIDIA's for ptxas, nvcc's release),
    or InputError, one line: a file that exits 0 without it (/bin/true, a script printing
    something else), prints an error, crashes or hangs past PROBE_TIMEOUT cannot be told from the
    tool, and a tool that always exits 0 would have every kernel pass. Asked once per process
    for each stat identity of its files."""
    memo = (json.dumps(builds.identity(path)), name)
    with _MEMO_LOCK:
        if memo in _IDENTIFIED:
            return _IDENTIFIED[memo]
    run = run_tool([path, "--version"], timeout=PROBE_TIMEOUT)
    found = banner.search(run.stdout + run.stderr) if run.ok else None
    if found is None:
        first = next((line.strip() for line in (run.stdout + run.stderr).splitlines() if line.strip()), "")
        how = "timed out" if run.timed_out else f"exited {run.returncode}" + (f" printing {quoted(first)}" if first else "")
        raise InputError(f"{quoted(path, PATH_LIMIT)} is not {name}: `--version` {how}, without {name}'s banner")
    with _MEMO_LOCK:
        _IDENTIFIED[memo] = found.groupdict().get("release") or found.group(0)
    return _IDENTIFIED[memo]


# The newest PTX ISA each CUDA release's ptxas takes (the PTX ISA's release notes), and the PTX ISA
# versions there are: a test's `%if ptxas-isa-8.0` holds where ptxas takes that version.
CUDA_PTX_ISA = {
    (11, 0): (7, 0), (11, 1): (7, 1), (11, 2): (7, 2), (11, 3): (7, 3), (11, 4): (7, 4), (11, 5): (7, 5),
    (11, 6): (7, 6), (11, 7): (7, 7), (11, 8): (7, 8), (12, 0): (8, 0), (12, 1): (8, 1), (12, 2): (8, 2),
    (12, 3): (8, 3), (12, 4): (8, 4), (12, 5): (8, 5), (12, 6): (8, 5), (12, 8): (8, 7), (12, 9): (8, 8),
    (13, 0): (9, 0),
}  # fmt: skip
PTX_ISA_VERSIONS = (
    *((1, m) for m in range(5)), *((2, m) for m in range(4)), *((3, m) for m in range(3)), *((4, m) for m in range(4)),
    (5, 0), *((6, m) for m in range(6)), *((7, m) for m in range(9)), *((8, m) for m in range(9)), (9, 0),
)  # fmt: skip


def ptxas_lit_features(path: str) -> set[str]:
    """The lit features LLVM's NVPTX tests ask of ptxas (`path`, as `find_ptxas` found it):
    `ptxas`, `ptxas-sm_XX` for each target its `--gpu-name` takes, `ptxas-isa-X.Y` for each PTX
    ISA version its release takes."""
    said = run_tool([path, "--version"], timeout=PROBE_TIMEOUT)
    release = re.search(r"release (\d+)\.(\d+)", said.stdout) if said.ok else None
    taken = [k for k in CUDA_PTX_ISA if release and k <= (int(release[1]), int(release[2]))]
    newest = CUDA_PTX_ISA[max(taken)] if taken else (0, 0)
    helped = run_tool([path, "--help"], timeout=PROBE_TIMEOUT)
    sms = set(re.findall(r"'(sm_\w+)'", helped.stdout)) if helped.ok else set()
    isas = {f"ptxas-isa-{major}.{minor}" for major, minor in PTX_ISA_VERSIONS if (major, minor) <= newest}
    return {"ptxas", *(f"ptxas-{sm}" for sm in sms), *isas}


def find_nvcc(explicit: str | None = None) -> str:
    """nvcc, NVIDIA's CUDA compiler: `explicit` (--nvcc), else $NVCC, else PATH, else the bin/ of
    $CUDA_HOME, else of $CUDA_PATH, else of /usr/local/cuda; "" when there is none."""
    found = _given_or_on_path("nvcc", explicit)
    if found:
        return found
    root = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    path = Path(root) / "bin" / "nvcc"
    return str(path) if path.is_file() and os.access(path, os.X_OK) else ""


# Tools from outside the LLVM build, each with its own lookup: the assembler that closes NVPTX's
# text, NVIDIA's CUDA compiler (the tile kernels' second opinion), and the text tools RUN lines
# may put before llc.
EXTERNAL = {
    "ptxas": find_ptxas,
    "nvcc": find_nvcc,
    "sed": lambda: shutil.which("sed") or "",
    "cat": lambda: shutil.which("cat") or "",
}


def tool_path(name: str, bin_dir: Path | None) -> str:
    """The one lookup of a tool ("" when there is none): an EXTERNAL one by its own rule, else
    the build's own in `bin_dir` (PATH when None) — never another build's."""
    if name in EXTERNAL:
        return EXTERNAL[name]()
    if bin_dir is not None:
        path = bin_dir / name
        return str(path) if path.is_file() and os.access(path, os.X_OK) else ""
    return shutil.which(name) or ""


@dataclass
class Toolchain:
    bin_dir: Path | None  # None: tools come from PATH
    how: str  # why this build was chosen, for the log
    timeout: float = DEFAULT_TIMEOUT
    keep_inputs: bool = False  # every ToolRun keeps its stdin (try --keep writes them out)
    answers: builds.Answers | None = None  # what the build said about itself in earlier processes
    _cache: dict = field(default_factory=dict, repr=False)

    def tool(self, name: str) -> str:
        """The path of a tool ("" when there is none): the build's own, looked up once per
        toolchain (one that goes away later fails to start: bad input), or an EXTERNAL one,
        looked up by its own rule each time."""
        if name in EXTERNAL:
            return tool_path(name, self.bin_dir)
        return self._memo(("tool", name), lambda: tool_path(name, self.bin_dir))

    def require(self, name: str) -> str:
        path = self.tool(name)
        if not path and name in EXTERNAL:
            raise InputError(f"no {name} found (set ${name.upper()} or put it on PATH)")
        if not path:
            where = self.bin_dir or "PATH"
            raise InputError(f"no {name} in {where} (LLVM build chosen by {self.how})")
        return path

    def run(self, name: str, args: list[str], stdin: str | bytes = "", binary: bool = False) -> ToolRun:
        return run_tool([self.require(name), *args], stdin, self.timeout, binary, self.keep_inputs)

    def _memo(self, key, compute):
        """compute() once per key, whichever thread asks first (the others wait for it)."""
        if key in self._cache:
            return self._cache[key]
        with _MEMO_LOCK:
            lock = self._cache.setdefault(("lock", key), threading.Lock())
        with lock:
            if key not in self._cache:
                self._cache[key] = compute()
        return self._cache[key]

    def _kept(self, tool: str, question: list, compute: Callable, encode: Callable, decode: Callable):
        """compute(), or what the build's `tool` answered to `question` in an earlier process
        (`answers`). What compute() gives is kept when encode() makes JSON of it (None: a probe
        that died, never kept)."""
        if self.answers is None:
            return compute()
        path = self.require(tool)
        found = self.answers.get(path, question, decode)
        if found is not None:
            return found
        value = compute()
        kept = encode(value)
        if kept is not None:
            self.answers.put(path, question, kept)
        return value

    @property
    def version_text(self) -> str:
        def ask() -> str:
            run = self.run("llc", ["--version"])
            if run.timed_out:
                raise InputError(f"{run.argv[0]} --version ran past {self.timeout:g} s: cannot read the LLVM version")
            if (run.returncode or 0) < 0:
                raise InputError(f"{run.argv[0]} --version was killed by signal {-(run.returncode or 0)}")
            return run.stdout

        return self._memo("version", lambda: self._kept("llc", ["version"], ask, _same, _text))

    @property
    def version(self) -> str:
        m = re.search(r"LLVM version (\d+\.\d+\.\d+\S*)", self.version_text)
        if not m:
            raise InputError(f"cannot read the LLVM version from {self.require('llc')} --version")
        return m.group(1)

    @property
    def targets(self) -> frozenset[str]:
        def compute() -> frozenset[str]:
            text = self.version_text.split("Registered Targets:", 1)[-1]
            return frozenset(m.group(1) for m in re.finditer(r"^\s+(\S+)\s+- ", text, re.M))

        return self._memo("targets", compute)

    def cpus(self, triple: str) -> frozenset[str]:
        def compute():
            # (asked before the version is known, so that both probes run at once)
            run = self.run("llc", [f"-mtriple={triple}", "-mcpu=help"])
            if run.timed_out or (run.returncode or 0) < 0:  # no answer about the build at all
                return ProbeDied(run, f"-mtriple={triple} -mcpu=help")  # (kept: asked once)
            if triple not in self.targets:
                return frozenset()
            text = (run.stdout + run.stderr).split("Available features", 1)[0]
            return frozenset(m.group(1) for m in re.finditer(r"^\s+(\S+)\s+- Select the", text, re.M))

        question = ["cpus", triple]
        answer = self._memo(("cpus", triple), lambda: self._kept("llc", question, compute, _cpu_list, _cpu_set))
        if isinstance(answer, ProbeDied):
            raise answer
        return answer

    def intrinsic_support(self, declarations: dict[str, str]) -> dict[str, str]:
        """Name -> "" when the build knows the intrinsic as declared, else why not.

        `opt -S` marks names it does not know with '; Unknown intrinsic' and rejects a known
        name whose signature differs from the build's. One run answers for all; only when it
        fails is each declaration asked on its own.
        """
        key = ("intrinsics", tuple(sorted(declarations.items())))

        def ask(decls: dict[str, str]) -> tuple[ToolRun, dict[str, str]]:
            """opt's run over `decls`, and its answer for them (every name gets opt's error
            when it rejects them: that answer is only right for one declaration alone)."""
            run = self.run("opt", ["-S", "-o", "-"], "\n".join(decls.values()) + "\n")
            if run.timed_out or (run.returncode or 0) < 0:  # no answer about the build at all
                raise ProbeDied(run)
            if not run.ok:
                lines = [l for l in run.stderr.splitlines() if "error:" in l]
                why = (lines[0] if lines else run.stderr.strip()).split("error:", 1)[-1].strip()
                return run, {name: why or "opt rejected the declaration" for name in decls}
            echoed = set(re.findall(r"^declare [^@\n]*@([\w.]+)\(", run.stdout, re.M))
            if not {_symbol(d) for d in decls.values()} <= echoed:  # (junk, or another program's output)
                raise InputError(
                    f"{run.argv[0]} exited 0 without printing back every declaration it was given: "
                    "cannot tell which intrinsics this build knows"
                )
            unknown = set(re.findall(r"; Unknown intrinsic\ndeclare [^@]*@([\w.]+)\(", run.stdout))
            return run, {name: ("intrinsic unknown to this build" if _symbol(d) in unknown else "") for name, d in decls.items()}

        def compute() -> dict[str, str]:
            run, together = ask(declarations)
            if run.ok or len(declarations) <= 1:
                return together
            out: dict[str, str] = {}
            for name, decl in declarations.items():
                out.update(ask({name: decl})[1])
            return out

        def decode(answer) -> dict[str, str]:
            if not (isinstance(answer, dict) and answer.keys() == declarations.keys()):
                raise ValueError("not an answer for these declarations")
            return {name: _text(why) for name, why in answer.items()}

        question = ["intrinsics", sorted(declarations.items())]
        return self._memo(key, lambda: self._kept("opt", question, compute, _same, decode))

    def describe(self) -> str:
        where = self.bin_dir if self.bin_dir else "PATH"
        return f"LLVM {self.version} from {where} ({self.how})"


class ProbeDied(InputError):
    """A tool asked what the build supports was killed or ran past its time: that says nothing
    about support, so the cases it stood for get `crash` or `timeout`, never `unsupported` (and
    a command without cases to give them to stops with this one line, exit 2)."""

    def __init__(self, run: ToolRun, asked: str = "the intrinsic declarations"):
        self.run = run
        tool = os.path.basename(run.argv[0])
        how = f"ran past {run.seconds:.0f} s" if run.timed_out else f"was killed by signal {-(run.returncode or 0)}"
        super().__init__(f"{tool} {how} on {asked} (the build-support probe)")


def _same(value):
    return value


def _text(answer) -> str:
    if not isinstance(answer, str):
        raise TypeError("not text")
    return answer


def _cpu_list(cpus) -> list[str] | None:
    return sorted(cpus) if isinstance(cpus, frozenset) else None  # (a ProbeDied is not kept)


def _cpu_set(answer) -> frozenset[str]:
    if not isinstance(answer, list):
        raise TypeError("not a list of CPUs")
    return frozenset(_text(cpu) for cpu in answer)


def _symbol(declaration: str) -> str:
    m = re.search(r"@([\w.]+)\(", declaration)
    return m.group(1) if m else ""


def _amdgpu_version_text(llc: Path, answers: builds.Answers | None) -> str:
    """`llc --version` when that build has the AMDGPU target, else ""."""
    text = answers.get(str(llc), ["version"], _text) if answers is not None else None
    if text is None:
        builds.tool_files(str(llc))
        try:
            run = subprocess.run([str(llc), "--version"], capture_output=True, text=True, timeout=15, env=TOOL_ENV)
        except (OSError, subprocess.TimeoutExpired):
            return ""
        if run.returncode != 0:
            return ""
        text = run.stdout
        if answers is not None:
            answers.put(str(llc), ["version"], text)
    return text if re.search(r"^\s+amdgcn\s+-", text, re.M) else ""


def _system_llvm_dirs() -> list[Path]:
    def major(path: str) -> int:
        m = re.search(r"llvm-(\d+)/bin$", path)
        return int(m.group(1)) if m else -1

    return [Path(p) for p in sorted(glob.glob("/usr/lib/llvm-*/bin"), key=major, reverse=True)]


@functools.cache
def _discover_cached(explicit: str | None, env_bin: str | None, timeout: float, keep: bool) -> Toolchain:
    answers = builds.Answers(builds.default_dir()) if keep else None
    if explicit:
        return _checked(Path(explicit), "--llvm-bin / --param llvm_bin", timeout, answers)
    if env_bin:
        return _checked(Path(env_bin), "$LLVM_BIN", timeout, answers)
    for candidate in _system_llvm_dirs():
        version = _amdgpu_version_text(candidate / "llc", answers) if (candidate / "llc").exists() else ""
        if version:
            tc = Toolchain(candidate, "newest /usr/lib/llvm-N with AMDGPU", timeout, answers=answers)
            tc._cache["version"] = version  # (what version_text would ask again)
            return tc
    found = shutil.which("llc")
    if found:
        # Every tool from llc's own directory: tools of different builds never mix.
        return Toolchain(Path(found).resolve().parent, "llc on PATH", timeout, answers=answers)
    raise InputError(
        "no LLVM build found: install one (apt-get install llvm-22 llvm-22-tools) or pass --llvm-bin DIR / set LLVM_BIN"
    )


def _checked(path: Path, how: str, timeout: float, answers: builds.Answers | None) -> Toolchain:
    if not path.is_dir():
        what = "is not a directory" if path.exists() else "does not exist"
        raise InputError(f"LLVM bin directory {quoted(str(path), PATH_LIMIT)} (from {how}) {what}")
    if not (path / "llc").exists():
        raise InputError(f"LLVM bin directory {quoted(str(path), PATH_LIMIT)} (from {how}) has no llc")
    return Toolchain(path.resolve(), how, timeout, answers=answers)


def discover(explicit: str | None = None, timeout: float = DEFAULT_TIMEOUT, keep_answers: bool = True) -> Toolchain:
    """The build to test (see the module's doc). With `keep_answers`, what the build says about
    itself (version, CPUs, intrinsics) is kept for later processes (`builds.Answers`)."""
    if explicit is not None and not explicit.strip():
        # `--llvm-bin "$UNSET"` must not quietly test the default build.
        raise InputError("the LLVM bin directory given is empty (--llvm-bin / --param llvm_bin)")
    return _discover_cached(explicit or None, os.environ.get("LLVM_BIN") or None, timeout, keep_answers)


def fresh(directory: str, timeout: float = DEFAULT_TIMEOUT) -> Toolchain:
    """The build in `directory` as it is now, asked again (`discover` answers once per process;
    a worker's build may be rebuilt in place)."""
    return _checked(Path(directory), "a worker's build", timeout, builds.Answers(builds.default_dir()))


def keep_runs(directory: Path, runs: list[ToolRun]) -> list[str]:
    """Write every run's stdin, stdout and stderr to `directory` (NN-tool.in/.out/.err) and a
    `replay.sh` that runs each command again on its kept input, into NN-tool.replay.out/.err.
    The directory appears whole or not at all; an existing one must be empty."""
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise InputError("--keep wants a new or empty directory", str(directory))
    parent = directory.resolve().parent
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=parent))
        tmp.chmod(0o777 & ~files.umask())
    except OSError as exc:
        raise InputError(f"--keep: cannot create a directory there: {exc.strerror}", str(directory)) from None
    script = [
        "#!/bin/sh",
        "# The commands `harness try` ran, in order; each reads the input it was given.",
        'cd "$(dirname "$0")"',
    ]
    names = []
    try:
        for i, run in enumerate(runs, 1):
            stem = f"{i:02d}-{os.path.basename(run.argv[0])}"
            (tmp / f"{stem}.in").write_bytes(run.input or b"")
            (tmp / f"{stem}.out").write_bytes(run.data or run.stdout.encode())
            (tmp / f"{stem}.err").write_text(run.stderr)
            status = "timed out" if run.timed_out else f"exit {run.returncode}"
            script.append(f"# {stem}: {status} in {run.seconds:.3f} s")
            script.append(commands.shell_text(run.argv, f"{stem}.in", f"{stem}.replay.out", f"{stem}.replay.err"))
            names.append(stem)
        (tmp / "replay.sh").write_text("\n".join(script) + "\n")
        (tmp / "replay.sh").chmod(0o777 & ~files.umask())
        if directory.is_dir():
            directory.rmdir()
        os.rename(tmp, directory)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return names
